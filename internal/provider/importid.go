package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// importRouteKey imports a resource whose identity is an app's key in a ROUTES namespace, from
// "<routes_namespace_id>/<app>"; appAttr names the attribute holding the app and what the
// resource is called in the error.
func importRouteKey(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse, appAttr, what string) {
	ns, app, ok := strings.Cut(req.ID, "/")
	if !ok || !isHexID(ns) || !isDNSLabel(app) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import a "+what+" as <routes_namespace_id>/<"+appAttr+">, for example 0f2ac74b498b48028cb68387c421e279/shop; got "+quote(req.ID)+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("routes_namespace_id"), ns)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(appAttr), app)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}

// importedByName says how a resource imported by its ID or its name is named in errors.
type importedByName struct {
	what, title string // "KV namespace", "KV Namespace"
	name, named string // "title", "titled"
	where       string // where the ID and the name are shown
}

// importIDOrName imports a resource by its ID (what isID accepts, in any case) or by its name,
// which find looks up.
func importIDOrName(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse, isID func(string) bool,
	find func(ctx context.Context, name string) (string, bool, error), n importedByName) {
	id := strings.ToLower(req.ID) // an ID copied from somewhere that shows it in capitals
	if !isID(id) {
		var found bool
		var err error
		if id, found, err = find(ctx, req.ID); err != nil {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Look Up "+n.title, "Looking for a "+n.what+" "+n.named+" "+quote(req.ID), err))
			return
		} else if !found {
			resp.Diagnostics.AddError("No Such "+n.title, "The account has no "+n.what+" "+n.named+" "+quote(req.ID)+". Import a "+n.what+
				" by its ID or its "+n.name+" ("+n.where+" show both).")
			return
		}
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}
