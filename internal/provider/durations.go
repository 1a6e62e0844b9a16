package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Every duration attribute is a timetypes.GoDuration: "2500ms" and "2.5s" are one value. The
// framework keeps the prior spelling itself when a refresh or an apply returns the same
// duration spelled otherwise (its semantic equality); the plan modifier below does the same for
// a plan, and the validator checks the range on the parsed duration.

// durationCheck is a plan-time validator of a duration attribute from a predicate on the parsed
// duration: stringCheck's (null and unknown values skipped, the error on the attribute's own
// path), where a value that does not parse passes, since the type itself reports it.
func durationCheck(ok func(time.Duration) bool, rule string) validator.String {
	return stringCheck{rule: rule, ok: func(s string) bool {
		d, err := time.ParseDuration(s)
		return err != nil || ok(d)
	}}
}

// sameDurationPlansNoChange plans the state's spelling of a duration when the configuration
// spells the same duration another way, such as "2500ms" against the "2.5s" an import reads
// back. The framework applies the type's semantic equality to what an apply or a refresh
// returns, never to a plan; Terraform accepts a planned value other than the configuration's
// only when it is the prior state's, which is how a provider says the two are equivalent.
func sameDurationPlansNoChange() planmodifier.String { return sameDurationModifier{} }

type sameDurationModifier struct{}

func (sameDurationModifier) Description(context.Context) string {
	return "A duration the configuration spells otherwise than the state, but that is the same duration, plans no change."
}

func (m sameDurationModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (sameDurationModifier) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	// Create (no state), destroy (no plan) and unknown values have nothing to keep.
	if req.StateValue.IsNull() || req.StateValue.IsUnknown() || req.PlanValue.IsNull() || req.PlanValue.IsUnknown() {
		return
	}
	if sameDuration(timetypes.GoDuration{StringValue: req.StateValue}, timetypes.GoDuration{StringValue: req.PlanValue}) {
		resp.PlanValue = req.StateValue
	}
}

// sameDuration reports whether a and b are known and parse to the same duration. Unlike the
// type's own semantic equality it never takes two values that do not parse for equal.
func sameDuration(a, b timetypes.GoDuration) bool {
	if a.IsNull() || a.IsUnknown() || b.IsNull() || b.IsUnknown() {
		return false
	}
	da, errA := time.ParseDuration(a.ValueString())
	db, errB := time.ParseDuration(b.ValueString())
	return errA == nil && errB == nil && da == db
}

// durationWithDefault is the schema of every duration attribute: optional, def when not set,
// a timetypes.GoDuration whose spellings of one duration are one value in a plan too
// (sameDurationPlansNoChange), its range checked on the parsed duration. The description
// gains the default and durationSpellingNote.
func durationWithDefault(description, def string, check validator.String) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description + " Defaults to `" + def + "`. " + durationSpellingNote,
		CustomType:          timetypes.GoDurationType{},
		Optional:            true,
		Computed:            true,
		Default:             stringdefault.StaticString(def),
		Validators:          []validator.String{check},
		PlanModifiers:       []planmodifier.String{sameDurationPlansNoChange()},
	}
}

// durationSpellingNote ends the description of every duration attribute.
const durationSpellingNote = "Spellings of one duration (`90s`, `1m30s`, `90000ms`) are one value: changing one for another plans no change."
