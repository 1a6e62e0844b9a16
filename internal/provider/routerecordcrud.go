package provider

import (
	"context"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// routeRecordCRUD is the lifecycle of one route record in a ROUTES namespace, as every resource
// type that publishes one (kamuidash_tenant_app, kamuidash_route_record) runs it: a create that
// refuses a key someone else holds, the owner stamp a refresh leaves for the apply (ownerstamp.go),
// the name filter and route-cache purge that follow a write (kvStore), the propagation check,
// drift shown by a refresh and a delete that leaves another owner's key alone. The resource
// types share the key space, so they must agree on every step; they differ only in how their
// model describes the record, which the hooks say. M is the resource's model.
type routeRecordCRUD[M any] struct {
	data *providerData
	// owner is the resource type, recorded in the KV metadata of every key it writes.
	owner string
	// keyAttr names the attribute that holds the record's key, the app: "name" or "app".
	keyAttr string
	// what is the resource in messages, such as "tenant app".
	what string

	// fields points at the model's attributes every record resource has.
	fields func(*M) recordFields
	// record builds the route record the model describes; ok is false while any input is
	// unknown (never at apply time).
	record func(M) (rec route.Record, ok bool)
	// fromRecord sets the model from a record read from KV, one that differs from the state's
	// revision. It returns false when the model cannot describe the record (another kind, an
	// upstream it cannot split): the state then says the value is unreadable, and the next plan
	// rewrites it.
	fromRecord func(*M, route.Record) bool
	// refreshed sets what a refresh derives from the key alone, whatever the record holds.
	// Default (nil): nothing.
	refreshed func(*M)
}

// recordFields points at the attributes of a model that publishes a route record.
type recordFields struct {
	ID          *types.String // "<routes_namespace_id>/<key>"
	NamespaceID *types.String // routes_namespace_id
	Key         *types.String // the app, the record's KV key
	Rev         *types.String // the published record's revision
}

func (c routeRecordCRUD[M]) store() kvStore[route.Record] {
	return kvStore[route.Record]{data: c.data, codec: recordCodec, owner: c.owner}
}

// written records in the model what a write did: where the record lives and its revision.
func (c routeRecordCRUD[M]) written(m *M, rec route.Record) {
	f := c.fields(m)
	*f.ID = types.StringValue(f.NamespaceID.ValueString() + "/" + rec.App)
	*f.Rev = types.StringValue(rec.Rev)
}

func (c routeRecordCRUD[M]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan M
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rec, _ := c.record(plan)
	ns := c.fields(&plan).NamespaceID.ValueString()
	written, diags := c.store().create(ctx, ns, rec.App, rec, "terraform import <address> "+ns+"/"+rec.App)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	c.written(&plan, written)
	resp.Diagnostics.Append(noteFilterPending(ctx, resp.Private, diags)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(verifiedCreate(c.data.verifyRecord(ctx, written), c.what)...)
}

// planRev is the rev a plan shows for a record whose revision would be rev: unknown while the
// resource's last write left the name filter without its key (filterPendingKey), so that the
// plan updates it and the update rebuilds the filter.
func (c routeRecordCRUD[M]) planRev(ctx context.Context, req resource.ModifyPlanRequest, rev types.String) types.String {
	if !req.State.Raw.IsNull() && filterPending(ctx, req.Private) {
		return types.StringUnknown()
	}
	return rev
}

// Read shows a record changed outside Terraform as drift, and one that is gone as a resource
// to create again.
func (c routeRecordCRUD[M]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state M
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	f := c.fields(&state)
	ns, key := f.NamespaceID.ValueString(), f.Key.ValueString()
	stored, found, unchanged, diags := c.store().refresh(ctx, ns, key, f.Rev.ValueString())
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(noteOwnerSeen(ctx, resp.Private, stored.Owner, time.Now())...)
	*f.ID = types.StringValue(ns + "/" + key)
	if c.refreshed != nil {
		c.refreshed(&state)
	}
	switch {
	case unchanged:
		// The listing shows the revision state has: the record is what state says.
	case stored.Valid && c.fromRecord(&state, stored.Doc):
	default:
		*f.Rev = types.StringValue(unreadableRev)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update rewrites the record in place, or moves it when its namespace changed (kvStore.change).
func (c routeRecordCRUD[M]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state M
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rec, _ := c.record(plan)
	fromNS, toNS := c.fields(&state).NamespaceID.ValueString(), c.fields(&plan).NamespaceID.ValueString()
	written, diags := c.store().change(ctx, fromNS, toNS, rec.App, rec, c.data.platformHost(rec.App), req.Private)
	if filterPending(ctx, req.Private) && !diags.HasError() {
		// An earlier write left the name filter without the key; this update is planned to
		// rebuild it (planRev).
		diags.Append(c.store().filterChanged(ctx, toNS, rec.App, false)...)
	}
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	c.written(&plan, written)
	resp.Diagnostics.Append(noteFilterPending(ctx, resp.Private, diags)...)
	// The write stamped this resource type as the owner: the import's owner has no say any more.
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, importedOwnerKey, nil)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(c.data.verifyRecord(ctx, written)...)
}

func (c routeRecordCRUD[M]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state M
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	f := c.fields(&state)
	key := f.Key.ValueString()
	resp.Diagnostics.Append(c.store().delete(ctx, f.NamespaceID.ValueString(), key, c.data.platformHost(key), importedOwner(ctx, req.Private))...)
}

// ImportState takes "<routes_namespace_id>/<key>"; the Read that follows fills in the rest. A
// key another owner wrote is taken over by the import (ownerstamp.go): it is what a create that
// found the key advises.
func (c routeRecordCRUD[M]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if importRouteKey(ctx, req, resp, c.keyAttr, c.what); resp.Diagnostics.HasError() || c.data == nil {
		return
	}
	ns, key, _ := strings.Cut(req.ID, "/")
	owner, found, diags := c.store().ownerOf(ctx, ns, key, false)
	if resp.Diagnostics.Append(diags...); diags.HasError() || !found || owner == "" || owner == c.owner {
		return
	}
	resp.Diagnostics.Append(noteImportedOwner(ctx, resp.Private, owner)...)
}
