package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestSameDurationPlansNoChange(t *testing.T) {
	for _, c := range []struct {
		name              string
		state, plan, want types.String
	}{
		{"the state's duration spelled otherwise", types.StringValue("2.5s"), types.StringValue("2500ms"), types.StringValue("2.5s")},
		{"the state's spelling", types.StringValue("2500ms"), types.StringValue("2500ms"), types.StringValue("2500ms")},
		{"another duration", types.StringValue("2.5s"), types.StringValue("2501ms"), types.StringValue("2501ms")},
		{"create", types.StringNull(), types.StringValue("2500ms"), types.StringValue("2500ms")},
		{"destroy", types.StringValue("2.5s"), types.StringNull(), types.StringNull()},
		{"unknown", types.StringValue("2.5s"), types.StringUnknown(), types.StringUnknown()},
		{"not a duration", types.StringValue("2.5s"), types.StringValue("soon"), types.StringValue("soon")},
	} {
		resp := planmodifier.StringResponse{PlanValue: c.plan}
		sameDurationPlansNoChange().PlanModifyString(context.Background(), planmodifier.StringRequest{
			Path: path.Root("timeout"), StateValue: c.state, PlanValue: c.plan, ConfigValue: c.plan,
		}, &resp)
		if !resp.PlanValue.Equal(c.want) || resp.Diagnostics.HasError() {
			t.Errorf("%s: planned %s (%v), want %s", c.name, resp.PlanValue, resp.Diagnostics, c.want)
		}
	}
}

// The range checks read the parsed duration: any spelling of an allowed duration passes, and a
// value that is no duration at all is left to the type's own validation (one error, not two).
func TestDurationRangeChecks(t *testing.T) {
	for _, c := range []struct {
		check validator.String
		value string
		ok    bool
	}{
		{upstreamTimeout(), "30s", true},
		{upstreamTimeout(), "1m30s", true},
		{upstreamTimeout(), "90000ms", true},
		{upstreamTimeout(), "100ms", true},
		{upstreamTimeout(), "99ms", false},
		{upstreamTimeout(), "90001ms", false},
		{upstreamTimeout(), "1500us", false}, // not whole milliseconds
		{upstreamTimeout(), "soon", true},    // timetypes.GoDuration reports it
		{freshnessBudget(), "120s", true},
		{freshnessBudget(), "2m", true},
		{freshnessBudget(), "1h", true},
		{freshnessBudget(), "44s", false},
		{freshnessBudget(), "60.5s", false},
		{freshnessBudget(), "1h0m1s", false},
	} {
		var resp validator.StringResponse
		c.check.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("d"), ConfigValue: types.StringValue(c.value)}, &resp)
		if ok := !resp.Diagnostics.HasError(); ok != c.ok {
			t.Errorf("%s on %q: ok = %v, want %v (%v)", c.check.Description(context.Background()), c.value, ok, c.ok, resp.Diagnostics)
		}
	}
}
