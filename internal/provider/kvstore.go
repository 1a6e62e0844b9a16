package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// Owners recorded in KV metadata, so that two resource types never silently fight over one key.
const (
	ownerTenantApp    = "kamuidash_tenant_app"
	ownerRouteRecord  = "kamuidash_route_record"
	ownerCustomDomain = "kamuidash_custom_domain"
)

// unreadableRev stands in state for a KV value that no longer decodes (edited by hand, or
// written by a newer schema). It never equals a real rev, so the next plan rewrites the value.
const unreadableRev = "unreadable"

// kvDoc is a contract document stored in KV: a route record or a domain mapping.
type kvDoc interface {
	route.Record | route.DomainMapping
}

// kvCodec tells a kvStore how to encode, decode and name one document type.
type kvCodec[T kvDoc] struct {
	noun   string // "route record", for diagnostics
	encode func(T) ([]byte, T, error)
	decode func([]byte) (T, error)
	rev    func(T) string
}

var (
	recordCodec = kvCodec[route.Record]{
		noun: "route record", encode: route.EncodeRecord, decode: route.DecodeRecord,
		rev: func(r route.Record) string { return r.Rev },
	}
	mappingCodec = kvCodec[route.DomainMapping]{
		noun: "domain mapping", encode: route.EncodeDomainMapping, decode: route.DecodeDomainMapping,
		rev: func(m route.DomainMapping) string { return m.Rev },
	}
)

// kvStore writes and reads one document type in one KV namespace for one resource type (the
// owner), and purges the edge's route cache for the hosts a write affects.
type kvStore[T kvDoc] struct {
	data  *providerData
	codec kvCodec[T]
	owner string
}

// stored is what a read finds under a key.
type stored[T kvDoc] struct {
	Doc   T
	Owner string
	// Valid is false when the value exists but does not decode; Doc is then empty.
	Valid bool
}

func (s kvStore[T]) get(ctx context.Context, namespaceID, key string) (doc stored[T], found bool, diags diag.Diagnostics) {
	entry, found, err := s.data.readKV(ctx, namespaceID, key)
	if err != nil {
		diags.Append(apiErrorDiag("Unable to Read KV Value", "Reading the "+s.codec.noun+" "+quote(key), err))
		return doc, false, diags
	}
	if !found {
		return doc, false, nil
	}
	return s.decode(ctx, key, entry), true, nil
}

func (s kvStore[T]) decode(ctx context.Context, key string, entry kdcf.KVEntry) (doc stored[T]) {
	meta, _ := route.DecodeMetadata(entry.Metadata)
	doc.Owner = meta.Owner
	v, err := s.codec.decode(entry.Value)
	if err != nil {
		tflog.Warn(ctx, "KV value does not decode; the next apply rewrites it", map[string]any{"key": key, "error": err.Error()})
		return doc
	}
	doc.Doc, doc.Valid = v, true
	return doc
}

// refresh is a resource's Read of its key. When the namespace's listing (shared by every
// resource of the process) shows the key with the revision state already has, the value is not
// read at all: unchanged is true, and state stands as it is. Otherwise (another revision, a
// key the listing lacks, or per-resource mode) the value is read, in a bulk read shared with the
// other resources' reads of the moment.
func (s kvStore[T]) refresh(ctx context.Context, namespaceID, key, stateRev string) (doc stored[T], found, unchanged bool, diags diag.Diagnostics) {
	if stateRev != "" && stateRev != unreadableRev {
		meta, listed, err := s.data.listedKV(ctx, namespaceID, key)
		if err != nil {
			diags.Append(apiErrorDiag("Unable to List KV Keys", "Listing the namespace of the "+s.codec.noun+" "+quote(key), err))
			return doc, false, false, diags
		}
		if m, ok := route.DecodeMetadata(meta); listed && ok && m.V == route.SchemaVersion && m.Rev == stateRev {
			return stored[T]{Owner: m.Owner}, true, true, nil
		}
	}
	doc, found, diags = s.get(ctx, namespaceID, key)
	return doc, found, false, diags
}

// ownerOf says whether key exists and which resource type owns it, from the shared listing when
// it lists the key (its metadata names the owner) and from a read otherwise. A listing can lag
// behind a write made elsewhere by up to a minute, so "not listed" is only taken for "absent"
// when absentIfUnlisted is set (a create, where the listing was taken by this very process and a
// key written elsewhere within that last minute is the one race left; see create).
func (s kvStore[T]) ownerOf(ctx context.Context, namespaceID, key string, absentIfUnlisted bool) (owner string, found bool, diags diag.Diagnostics) {
	meta, listed, err := s.data.listedKV(ctx, namespaceID, key)
	if err != nil {
		diags.Append(apiErrorDiag("Unable to List KV Keys", "Listing the namespace of the "+s.codec.noun+" "+quote(key), err))
		return "", false, diags
	}
	if listed {
		m, _ := route.DecodeMetadata(meta)
		return m.Owner, true, nil
	}
	if absentIfUnlisted && s.data.Economy {
		return "", false, nil
	}
	doc, found, diags := s.get(ctx, namespaceID, key)
	return doc.Owner, found, diags
}

// currentOwner is ownerOf for an update, whose key the state says exists: the listing when
// this process holds one already (a large apply's creates fetched it), else a read of the key
// alone. An update of a few records (an edit, a rollback) then costs one bulk read, shared by
// the updates in flight, instead of the namespace's whole listing, a call per 1,000 keys.
func (s kvStore[T]) currentOwner(ctx context.Context, namespaceID, key string) (owner string, found bool, diags diag.Diagnostics) {
	if s.data.Economy {
		if meta, listed, known := s.data.Client.KVIndex.Listed(s.data.AccountID, namespaceID, key); known && listed {
			m, _ := route.DecodeMetadata(meta)
			return m.Owner, true, nil
		}
	}
	doc, found, diags := s.get(ctx, namespaceID, key)
	return doc.Owner, found, diags
}

// create writes v under a key that must not exist yet: an existing value is imported, never
// overwritten. The namespace's listing (taken by this process, at most KVIndexMaxAge ago) is
// what says the key is free, without a read per key: a thousand creates cost their bulk writes
// and nothing else. Only a key another writer created within the listing's last minute can slip
// through, as it could between any read and write: KV has no conditional write.
//
// A create purges nothing: the only route-cache entry a new host can have is a negative one,
// which expires within the freshness budget's negative TTL (at most a minute) anyway, and purges
// are the scarcest budget there is (five calls a minute on the smallest plan).
func (s kvStore[T]) create(ctx context.Context, namespaceID, key string, v T, importHint string) (T, diag.Diagnostics) {
	var zero T
	owner, found, diags := s.ownerOf(ctx, namespaceID, key, true)
	if diags.HasError() {
		return zero, diags
	}
	if found {
		if owner == "" {
			owner = "another tool"
		}
		diags.AddError(titleCase(s.codec.noun)+" Already Exists",
			"The "+s.codec.noun+" "+quote(key)+" already exists in this namespace (written by "+owner+"). "+
				"Nothing was overwritten. To manage it here, import it: "+importHint)
		return zero, diags
	}
	return s.put(ctx, namespaceID, key, v, "", true)
}

// update rewrites the value, refusing one that another resource type owns, unless that owner
// is the one the resource was imported over (imported, see ownerstamp.go).
func (s kvStore[T]) update(ctx context.Context, namespaceID, key string, v T, purgeHost string, ownerSeen bool, imported string) (T, diag.Diagnostics) {
	var zero T
	if ownerSeen {
		// The plan's own refresh found this resource type owning the key, within the
		// listing's age (see ownerstamp.go): the key exists, the namespace's keys stay the same.
		return s.put(ctx, namespaceID, key, v, purgeHost, false)
	}
	owner, found, diags := s.currentOwner(ctx, namespaceID, key)
	if diags.HasError() {
		return zero, diags
	}
	if found && owner != "" && owner != s.owner && owner != imported {
		diags.AddError(titleCase(s.codec.noun)+" Owned Elsewhere",
			"The "+s.codec.noun+" "+quote(key)+" is now owned by "+owner+", not "+s.owner+". "+
				"Nothing was overwritten. Remove one of the two resources from your configuration (terraform state rm) "+
				"so that exactly one manages it.")
		return zero, diags
	}
	// A key gone behind Terraform's back comes back as a new one: the filter must learn it again.
	return s.put(ctx, namespaceID, key, v, purgeHost, !found)
}

// change is a resource's Update: an update in place, or a move when its namespace changed.
// private is the plan's private state, which says whether the plan's refresh saw this
// resource type owning the key just now (ownerRecentlySeen).
func (s kvStore[T]) change(ctx context.Context, fromNS, toNS, key string, v T, purgeHost string, private privateGetter) (T, diag.Diagnostics) {
	if fromNS != toNS {
		return s.move(ctx, fromNS, toNS, key, v, purgeHost)
	}
	return s.update(ctx, toNS, key, v, purgeHost, ownerRecentlySeen(ctx, private, s.owner, time.Now()), importedOwner(ctx, private))
}

// move writes v under key in toNS, for a resource whose namespace changed: the route data
// moved to a new namespace (`kv migrate` copies it), and the resource follows in place. A key
// the target already holds with v's revision, and owned by this resource type (or nobody), is
// adopted as it is, without a write; one another type owns is refused. The copy in fromNS is
// left alone: the Worker may still read that namespace until its binding is switched, and it is
// what a rollback switches back to; it goes when the old namespace is retired.
func (s kvStore[T]) move(ctx context.Context, fromNS, toNS, key string, v T, purgeHost string) (T, diag.Diagnostics) {
	var zero T
	_, want, err := s.codec.encode(v)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Invalid "+titleCase(s.codec.noun), "The "+s.codec.noun+" "+quote(key)+" breaks the contract: "+err.Error())
		return zero, diags
	}
	existing, found, diags := s.get(ctx, toNS, key)
	if diags.HasError() {
		return zero, diags
	}
	switch {
	case found && existing.Owner != "" && existing.Owner != s.owner:
		diags.AddError(titleCase(s.codec.noun)+" Owned Elsewhere",
			"The namespace "+quote(toNS)+" already holds the "+s.codec.noun+" "+quote(key)+", owned by "+existing.Owner+
				", not "+s.owner+". Nothing was written. Remove one of the two resources from your configuration, or the key from the namespace.")
		return zero, diags
	case found && existing.Valid && s.codec.rev(existing.Doc) == s.codec.rev(want):
		tflog.Info(ctx, "Adopted the "+s.codec.noun+" the new namespace already holds", map[string]any{
			"key": key, "from_namespace_id": fromNS, "namespace_id": toNS, "rev": s.codec.rev(want)})
		return want, diags
	}
	tflog.Info(ctx, "Writing the "+s.codec.noun+" into its new namespace", map[string]any{"key": key, "from_namespace_id": fromNS, "namespace_id": toNS})
	return s.put(ctx, toNS, key, v, purgeHost, !found)
}

// put writes v under key. newKey says the namespace did not hold the key: only then does its
// name filter change (a rewrite of an existing key leaves the namespace's names as they are, and
// rebuilding for it would cost a listing, a write and a read-back per batch of edits).
func (s kvStore[T]) put(ctx context.Context, namespaceID, key string, v T, purgeHost string, newKey bool) (T, diag.Diagnostics) {
	var diags diag.Diagnostics
	value, v, err := s.codec.encode(v)
	if err != nil {
		diags.AddError("Invalid "+titleCase(s.codec.noun), "The "+s.codec.noun+" "+quote(key)+" breaks the contract: "+err.Error())
		return v, diags
	}
	rev := s.codec.rev(v)
	if err := s.data.writeKV(ctx, namespaceID, key, value, route.EncodeMetadata(rev, s.owner)); err != nil {
		diags.Append(apiErrorDiag("Unable to Write KV Value", "Writing the "+s.codec.noun+" "+quote(key), err))
		return v, diags
	}
	tflog.Info(ctx, "Wrote "+s.codec.noun, map[string]any{"key": key, "rev": rev, "owner": s.owner})
	if newKey {
		diags.Append(s.filterChanged(ctx, namespaceID, key, false)...)
	}
	diags.Append(s.purge(ctx, purgeHost)...)
	return v, diags
}

// filterChanged has the namespace's name filter rebuilt after a key was written or deleted, and
// waits for it, so that nothing after the resource's write (verify_propagation, the next
// resource's plan) meets a filter that refuses its host. The write is debounced here, once the
// key's own bulk write has gone out: the resources of one bulk write arrive together and share
// one rebuild (kdcf.NameFilters). Only keys that are new to the namespace, and deletions, get
// here: a key a concurrent rebuild lost is admitted again by the next rebuild of its namespace.
//
// A failed rebuild is a warning, not an error: the value is written and in state; the edge may
// refuse the host (404) until a later rebuild, which the next apply makes.
func (s kvStore[T]) filterChanged(ctx context.Context, namespaceID, key string, deleted bool) diag.Diagnostics {
	var diags diag.Diagnostics
	if err := s.data.Client.NameFilters.Changed(ctx, s.data.AccountID, namespaceID, key, deleted); err != nil {
		diags.AddWarning(filterNotRebuilt,
			"The "+s.codec.noun+" "+quote(key)+" was written, but the namespace's name filter ("+route.FilterKey+
				"), which lets the edge refuse unknown hosts without a KV read, could not be rebuilt to include it: "+
				"until it is, the edge may answer 404 for this host. Apply again to rebuild it. Error: "+err.Error())
	}
	return diags
}

// filterNotRebuilt is the summary of filterChanged's warning, which noteFilterPending looks for.
const filterNotRebuilt = "Name Filter Not Rebuilt"

// filterPendingKey names the private-state entry of a resource whose write left its
// namespace's name filter without its key (filterChanged's warning). Its next plan updates the
// resource (rev unknown), and that update rebuilds the filter: the record itself has nothing to
// change, so without it no apply would, until another key came to the namespace or left it,
// and the edge would refuse the host all that while.
const filterPendingKey = "filter_pending"

// noteFilterPending records in private state whether diags, a write's, hold filterChanged's
// warning.
func noteFilterPending(ctx context.Context, private privateSetter, diags diag.Diagnostics) diag.Diagnostics {
	var pending []byte
	for _, d := range diags.Warnings() {
		if d.Summary() == filterNotRebuilt {
			pending = []byte("true")
		}
	}
	return private.SetKey(ctx, filterPendingKey, pending)
}

// filterPending says whether the resource's last write left the name filter without its key.
func filterPending(ctx context.Context, private privateGetter) bool {
	if private == nil {
		return false
	}
	b, diags := private.GetKey(ctx, filterPendingKey)
	return !diags.HasError() && string(b) == "true"
}

// delete removes the value if this resource type owns it (or nobody claims it, or the owner is
// the one the resource was imported over: imported, see ownerstamp.go).
func (s kvStore[T]) delete(ctx context.Context, namespaceID, key, purgeHost, imported string) diag.Diagnostics {
	owner, found, diags := s.ownerOf(ctx, namespaceID, key, false)
	if diags.HasError() || !found {
		return diags
	}
	if owner != "" && owner != s.owner && owner != imported {
		diags.AddWarning(titleCase(s.codec.noun)+" Left in Place",
			"The "+s.codec.noun+" "+quote(key)+" is owned by "+owner+", so it was not deleted.")
		return diags
	}
	if err := s.data.deleteKV(ctx, namespaceID, key); err != nil {
		diags.Append(apiErrorDiag("Unable to Delete KV Value", "Deleting the "+s.codec.noun+" "+quote(key), err))
		return diags
	}
	diags.Append(s.filterChanged(ctx, namespaceID, key, true)...)
	diags.Append(s.purge(ctx, purgeHost)...)
	return diags
}

// purge drops the edge's cached route for host so a change shows well inside the freshness
// budget. A failed purge is a warning: the value is written and the budget still bounds
// staleness.
func (s kvStore[T]) purge(ctx context.Context, host string) diag.Diagnostics {
	var diags diag.Diagnostics
	if host == "" || s.data.ZoneID == "" || s.data.PlatformDomain == "" {
		return diags
	}
	if err := s.data.purgeURL(ctx, route.RouteCacheKey(s.data.PlatformDomain, host)); err != nil {
		diags.AddWarning("Route Cache Not Purged",
			"The "+s.codec.noun+" for "+quote(host)+" was written, but purging the edge's cached route failed; "+
				"the change still shows within the freshness budget. Error: "+err.Error())
	}
	return diags
}

// platformHost is the host whose cached route a change to app's record affects; custom domains
// of the app expire on their own within the freshness budget. It is "" without a platform
// domain, and for an app whose platform host would be longer than a DNS name may be: the edge
// refuses such a host (route.NormalizeHost), so there is nothing cached to purge or to probe.
func (d *providerData) platformHost(app string) string {
	if d.PlatformDomain == "" {
		return ""
	}
	if host := route.PlatformHostname(app, d.PlatformDomain); len(host) <= route.MaxHostLength {
		return host
	}
	return ""
}

// platformHostDiags says at plan time that app has no platform host because "<app>.<platform
// domain>" would be longer than a DNS name may be: a warning (the record is written, and the
// app's custom domains reach it), or an error when verify_propagation would have to probe that
// host and could only fail after its whole wait.
func (d *providerData) platformHostDiags(app string, at path.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	if d.PlatformDomain == "" || d.platformHost(app) != "" {
		return diags
	}
	host := route.PlatformHostname(app, d.PlatformDomain)
	why := fmt.Sprintf("The app's platform host %s would be %d bytes, more than the %d a DNS name may have, so the edge never serves it. "+
		"A name of at most %d characters fits under the platform domain %s.",
		quote(host), len(host), route.MaxHostLength, route.MaxHostLength-len(d.PlatformDomain)-1, quote(d.PlatformDomain))
	if d.VerifyPropagation {
		diags.AddAttributeError(at, "App Name Too Long for Its Platform Host",
			why+" The provider's verify_propagation checks each change on that host; shorten the name or turn verify_propagation off.")
		return diags
	}
	diags.AddAttributeWarning(at, "App Name Too Long for Its Platform Host", why+" Custom domains mapped to the app still reach it.")
	return diags
}

func titleCase(s string) string {
	b := []byte(s)
	for i := range b {
		if (i == 0 || b[i-1] == ' ') && 'a' <= b[i] && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}
