package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// longPlatformDomain (202 bytes) leaves room for app names of at most 50 characters under it.
var longPlatformDomain = strings.Repeat("p", 63) + "." + strings.Repeat("q", 63) + "." + strings.Repeat("r", 63) + ".kamui.test"

// TestPlatformHostTooLong: an app whose "<app>.<platform domain>" is longer than a DNS name may
// be has no platform host (the edge refuses the name), and the plan says so: a warning, or an
// error when verify_propagation would probe that host and could only time out.
func TestPlatformHostTooLong(t *testing.T) {
	d := &providerData{PlatformDomain: longPlatformDomain}
	fits := strings.Repeat("a", route.MaxHostLength-len(longPlatformDomain)-1)
	tooLong := fits + "a"
	if got := d.platformHost(fits); len(got) != route.MaxHostLength {
		t.Errorf("platformHost of a name that just fits = %q (%d bytes)", got, len(got))
	}
	if diags := d.platformHostDiags(fits, path.Root("name")); diags.HasError() || diags.WarningsCount() != 0 {
		t.Errorf("a name that just fits: %v", diags)
	}
	if got := d.platformHost(tooLong); got != "" {
		t.Errorf("platformHost of a name one byte too long = %q, want none", got)
	}
	diags := d.platformHostDiags(tooLong, path.Root("name"))
	if diags.HasError() || diags.WarningsCount() != 1 || !strings.Contains(diags[0].Detail(), "at most 50 characters") {
		t.Errorf("one byte too long, without verify_propagation: %v; want a warning naming the longest name that fits", diags)
	}
	d.VerifyPropagation = true
	if diags := d.platformHostDiags(tooLong, path.Root("name")); !diags.HasError() {
		t.Errorf("one byte too long, with verify_propagation: %v; want an error", diags)
	}
	if diags := (&providerData{}).platformHostDiags(tooLong, path.Root("name")); diags.HasError() || diags.WarningsCount() != 0 {
		t.Errorf("no platform domain: %v; want nothing to say", diags)
	}
}

// TestTenantAppPlanWithoutPlatformHost: the tenant app's plan carries the warning and no
// platform_hostname for an app too long for one.
func TestTenantAppPlanWithoutPlatformHost(t *testing.T) {
	ctx := context.Background()
	r := &tenantAppResource{data: &providerData{PlatformDomain: longPlatformDomain}}
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	s := sr.Schema
	plan := tfsdk.Plan{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}
	name := strings.Repeat("a", 60)
	for attr, v := range map[string]string{"name": name, "routes_namespace_id": strings.Repeat("0", 32), "status": "active"} {
		if d := plan.SetAttribute(ctx, path.Root(attr), types.StringValue(v)); d.HasError() {
			t.Fatal(d)
		}
	}
	// The origin comes from the edge module, unknown until it is applied: no record to check yet.
	if d := plan.SetAttribute(ctx, path.Root("origin"), types.StringUnknown()); d.HasError() {
		t.Fatal(d)
	}
	req := resource.ModifyPlanRequest{Config: tfsdk.Config{Schema: s, Raw: plan.Raw}, Plan: plan,
		State: tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}}
	resp := resource.ModifyPlanResponse{Plan: req.Plan}
	r.ModifyPlan(ctx, req, &resp)
	if resp.Diagnostics.HasError() || resp.Diagnostics.WarningsCount() != 1 {
		t.Fatalf("diagnostics %v; want the warning alone", resp.Diagnostics)
	}
	var host types.String
	resp.Plan.GetAttribute(ctx, path.Root("platform_hostname"), &host)
	if !host.IsNull() {
		t.Errorf("platform_hostname = %s, want none", host)
	}
}
