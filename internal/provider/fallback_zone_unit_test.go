package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestFallbackOriginFollowsTheProviderZone: a fallback origin whose configuration leaves zone_id
// to the provider is on the provider's zone. State on another zone (an import given another
// zone's ID, or a provider since pointed at another zone) is planned as a replacement onto the
// provider's zone, not kept silently with an empty plan.
func TestFallbackOriginFollowsTheProviderZone(t *testing.T) {
	ctx := context.Background()
	const providerZone, otherZone = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	r := &fallbackOriginResource{data: &providerData{ZoneID: providerZone, PlatformDomain: "kamui.test"}}
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	s := sr.Schema
	timeoutsType, ok := s.Attributes["timeouts"].GetType().(timeouts.Type)
	if !ok {
		t.Fatalf("timeouts is a %T", s.Attributes["timeouts"].GetType())
	}
	noTimeouts := timeouts.Value{Object: types.ObjectNull(timeoutsType.AttrTypes)}
	raw := func(m fallbackOriginModel) tftypes.Value {
		st := tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}
		if d := st.Set(ctx, &m); d.HasError() {
			t.Fatal(d)
		}
		return st.Raw
	}
	// As imported by `terraform import kamuidash_fallback_origin.this <otherZone>` and refreshed.
	state := fallbackOriginModel{ID: types.StringValue(otherZone), ZoneID: types.StringValue(otherZone),
		Hostname: types.StringValue("fallback.kamui.test"), Status: types.StringValue("active"),
		DNSRecordID: types.StringValue("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), Timeouts: noTimeouts}
	config := fallbackOriginModel{ID: types.StringNull(), ZoneID: types.StringNull(), Hostname: types.StringValue("fallback.kamui.test"),
		Status: types.StringNull(), DNSRecordID: types.StringNull(), Timeouts: noTimeouts}
	plan := state // what UseStateForUnknown leaves of the computed attributes
	req := resource.ModifyPlanRequest{
		Config: tfsdk.Config{Schema: s, Raw: raw(config)},
		Plan:   tfsdk.Plan{Schema: s, Raw: raw(plan)},
		State:  tfsdk.State{Schema: s, Raw: raw(state)},
	}
	resp := resource.ModifyPlanResponse{Plan: req.Plan}
	r.ModifyPlan(ctx, req, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("diagnostics: %v", resp.Diagnostics)
	}
	var zone types.String
	resp.Plan.GetAttribute(ctx, path.Root("zone_id"), &zone)
	if zone.ValueString() != providerZone {
		t.Errorf("planned zone_id = %s, want the provider's zone %s", zone, providerZone)
	}
	if !resp.RequiresReplace.Contains(path.Root("zone_id")) {
		t.Errorf("RequiresReplace = %v, want zone_id: the fallback origin in state is on another zone", resp.RequiresReplace)
	}
}
