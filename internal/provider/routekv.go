package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// Owners recorded in KV metadata, so that two resource types never silently fight over one key.
const (
	ownerTenantApp   = "kamuidash_tenant_app"
	ownerRouteRecord = "kamuidash_route_record"
)

// unreadableRev stands in state for a KV value that no longer decodes (edited by hand, or
// written by a newer schema). It never equals a real rev, so the next plan rewrites the record.
const unreadableRev = "unreadable"

// routeRecords writes and reads route records in a ROUTES namespace for one resource type.
type routeRecords struct {
	data  *providerData
	owner string
}

// storedRecord is what Read finds under an app's key.
type storedRecord struct {
	Record route.Record
	Owner  string
	// Valid is false when the value exists but does not decode; Record is then empty.
	Valid bool
}

func (s routeRecords) get(ctx context.Context, namespaceID, app string) (rec storedRecord, found bool, diags diag.Diagnostics) {
	entry, found, err := s.data.Client.KVGet(ctx, s.data.AccountID, namespaceID, app)
	if err != nil {
		diags.Append(apiErrorDiag("Unable to Read Route Record", "Reading the route record of app "+quote(app), err))
		return storedRecord{}, false, diags
	}
	if !found {
		return storedRecord{}, false, nil
	}
	meta, _ := route.DecodeMetadata(entry.Metadata)
	rec.Owner = meta.Owner
	r, err := route.DecodeRecord(entry.Value)
	if err != nil {
		tflog.Warn(ctx, "Route record does not decode; the next apply rewrites it", map[string]any{"app": app, "error": err.Error()})
		return rec, true, nil
	}
	rec.Record, rec.Valid = r, true
	return rec, true, nil
}

// create writes rec under a key that must not exist yet: an existing record is imported, never
// overwritten.
func (s routeRecords) create(ctx context.Context, namespaceID string, rec route.Record, importHint string) (route.Record, diag.Diagnostics) {
	var diags diag.Diagnostics
	existing, found, d := s.get(ctx, namespaceID, rec.App)
	if diags.Append(d...); diags.HasError() {
		return route.Record{}, diags
	}
	if found {
		owner := existing.Owner
		if owner == "" {
			owner = "another tool"
		}
		diags.AddError("Route Record Already Exists",
			"App "+quote(rec.App)+" already has a route record in this ROUTES namespace (written by "+owner+"). "+
				"Nothing was overwritten. To manage it here, import it: "+importHint)
		return route.Record{}, diags
	}
	return s.put(ctx, namespaceID, rec)
}

// update rewrites the record, refusing one that another resource type owns.
func (s routeRecords) update(ctx context.Context, namespaceID string, rec route.Record) (route.Record, diag.Diagnostics) {
	var diags diag.Diagnostics
	existing, found, d := s.get(ctx, namespaceID, rec.App)
	if diags.Append(d...); diags.HasError() {
		return route.Record{}, diags
	}
	if found && existing.Owner != "" && existing.Owner != s.owner {
		diags.AddError("Route Record Owned Elsewhere",
			"The route record of app "+quote(rec.App)+" is now owned by "+existing.Owner+", not "+s.owner+". "+
				"Nothing was overwritten. Remove one of the two resources from your configuration (terraform state rm) "+
				"so that exactly one manages the app.")
		return route.Record{}, diags
	}
	return s.put(ctx, namespaceID, rec)
}

func (s routeRecords) put(ctx context.Context, namespaceID string, rec route.Record) (route.Record, diag.Diagnostics) {
	var diags diag.Diagnostics
	value, rec, err := route.EncodeRecord(rec)
	if err != nil {
		diags.AddError("Invalid Route Record", "The route record of app "+quote(rec.App)+" breaks the contract: "+err.Error())
		return route.Record{}, diags
	}
	if err := s.data.Client.KVPut(ctx, s.data.AccountID, namespaceID, rec.App, value, route.EncodeMetadata(rec.Rev, s.owner)); err != nil {
		diags.Append(apiErrorDiag("Unable to Write Route Record", "Writing the route record of app "+quote(rec.App), err))
		return route.Record{}, diags
	}
	tflog.Info(ctx, "Wrote route record", map[string]any{"app": rec.App, "rev": rec.Rev, "owner": s.owner})
	diags.Append(s.purge(ctx, rec.App)...)
	return rec, diags
}

// delete removes the record if this resource type owns it (or nobody claims it).
func (s routeRecords) delete(ctx context.Context, namespaceID, app string) diag.Diagnostics {
	var diags diag.Diagnostics
	existing, found, d := s.get(ctx, namespaceID, app)
	if diags.Append(d...); diags.HasError() || !found {
		return diags
	}
	if existing.Owner != "" && existing.Owner != s.owner {
		diags.AddWarning("Route Record Left in Place",
			"The route record of app "+quote(app)+" is owned by "+existing.Owner+", so it was not deleted.")
		return diags
	}
	if err := s.data.Client.KVDelete(ctx, s.data.AccountID, namespaceID, app); err != nil {
		diags.Append(apiErrorDiag("Unable to Delete Route Record", "Deleting the route record of app "+quote(app), err))
		return diags
	}
	diags.Append(s.purge(ctx, app)...)
	return diags
}

// purge drops the edge's cached route for the app's platform host so the change shows well
// inside the freshness budget. Custom domains of the app expire on their own within the budget.
// A failed purge is a warning: the record is written and the budget still bounds staleness.
func (s routeRecords) purge(ctx context.Context, app string) diag.Diagnostics {
	var diags diag.Diagnostics
	if s.data.ZoneID == "" || s.data.PlatformDomain == "" {
		return diags
	}
	host := route.PlatformHostname(app, s.data.PlatformDomain)
	if err := s.data.Client.PurgeURLs(ctx, s.data.ZoneID, []string{route.RouteCacheKey(s.data.PlatformDomain, host)}); err != nil {
		diags.AddWarning("Route Cache Not Purged",
			"The route record of app "+quote(app)+" was written, but purging the edge's cached route failed; "+
				"the change still shows within the freshness budget. Error: "+err.Error())
	}
	return diags
}
