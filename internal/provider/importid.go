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
