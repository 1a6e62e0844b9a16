package guard_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

// malformedPlans are inputs people feed the guard by mistake, each with what the error must say.
var malformedPlans = map[string]struct{ input, want string }{
	"empty":            {``, "the plan input is empty"},
	"only whitespace":  {" \n\t\n", "the plan input is empty"},
	"truncated":        {`{"format_version": "1.2", "resource_changes": [{"address": "kamuidash_edge_worker.e", "change": {"actions": ["upd`, "ends in the middle of a JSON document after 113 bytes (was it truncated?)"},
	"not JSON":         {"Terraform will perform the following actions:\n", "not valid JSON (at byte 1)"},
	"an array":         {`[{"format_version": "1.2"}]`, "a JSON array, not an object"},
	"a string":         {`"plan.out"`, "a JSON string, not an object"},
	"null":             {`null`, "JSON null, not a plan"},
	"an empty object":  {`{}`, "an empty JSON object ({}), not a plan"},
	"state JSON":       {`{"format_version": "1.0", "terraform_version": "1.8.5", "values": {"root_module": {}}}`, "state JSON (`terraform show -json` without a plan file)"},
	"empty state JSON": {`{"format_version": "1.0"}`, "not a plan: it has none of resource_changes"},
	"raw state file":   {`{"version": 4, "terraform_version": "1.8.5", "serial": 3, "lineage": "x", "outputs": {}, "resources": []}`, "a raw state file (terraform.tfstate)"},
	"schemas JSON":     {`{"format_version": "1.0", "provider_schemas": {}}`, "`terraform providers schema -json`"},
	"UI stream": {`{"@level":"info","@message":"Terraform 1.8.5","type":"version"}
{"@level":"info","@message":"Plan: 1 to add, 0 to change, 0 to destroy.","type":"change_summary"}`, "the machine-readable log of `terraform plan -json`"},
	"two documents":          {`{"format_version": "1.2", "resource_changes": []} {}`, "more data after its first JSON document"},
	"trailing garbage":       {`{"format_version": "1.2", "resource_changes": []} ]`, "more data after its first JSON document"},
	"some other JSON":        {`{"name": "kamuidash", "version": "1.0"}`, `not a plan: it has none of resource_changes, planned_values, prior_state, configuration, output_changes (its keys: "name", "version")`},
	"no format_version":      {`{"resource_changes": []}`, "no format_version"},
	"future format_version":  {`{"format_version": "2.0", "resource_changes": []}`, "format_version is not one the guard reads (it reads >= 0.1, < 2.0)"},
	"invalid format_version": {`{"format_version": "one", "resource_changes": []}`, `format_version is not one the guard reads`},
	"errored plan":           {`{"format_version": "1.2", "errored": true, "planned_values": {}}`, "marked errored"},
	"wrong shape":            {`{"format_version": "1.2", "resource_changes": {"a": 1}}`, "does not have the shape of a Terraform plan"},
	"null change":            {`{"format_version": "1.2", "resource_changes": [null]}`, "resource_changes[0] is null"},
	"no actions":             {`{"format_version": "1.2", "resource_changes": [{"address": "a_b.c", "type": "a_b", "mode": "managed", "change": {}}]}`, `resource_changes[0] ("a_b.c") has no change.actions`},
	"no type": {`{"format_version": "1.2", "resource_changes": [{"address": "a_b.c", "mode": "managed", "change": {"actions": ["delete"]}}]}`,
		"resource_changes[0] has no type or no address"},
	"unknown action": {`{"format_version": "1.2", "resource_changes": [{"address": "kamuidash_edge_worker.e", "type": "kamuidash_edge_worker", "mode": "managed", "change": {"actions": ["move"]}}]}`,
		`resource_changes[0] (kamuidash_edge_worker.e) has the action "move", which the guard does not know`},
}

func TestMalformedPlans(t *testing.T) {
	for name, tc := range malformedPlans {
		t.Run(name, func(t *testing.T) {
			err := judge([]byte(tc.input))
			if err == nil {
				t.Fatal("no error")
			}
			var ie *guard.InputError
			if !errors.As(err, &ie) {
				t.Errorf("%T is not an *InputError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "terraform plan -out=plan.out && terraform show -json plan.out") {
				t.Errorf("error %q does not say how to make a plan JSON", err)
			}
		})
	}
}

// judge parses and evaluates, as the sub-command does.
func judge(b []byte) error {
	plan, err := guard.ParsePlan(b)
	if err != nil {
		return err
	}
	_, err = guard.Evaluate(plan, guard.Options{})
	return err
}

func TestEvaluateWithoutPlan(t *testing.T) {
	var ie *guard.InputError
	if _, err := guard.Evaluate(nil, guard.Options{}); !errors.As(err, &ie) {
		t.Fatalf("error %v, want an *InputError", err)
	}
}

// Windows PowerShell's `>` writes `terraform show -json plan.out > plan.json` as UTF-16 with a
// byte order mark, and other Windows tools put a BOM before UTF-8: the document is still the
// plan, and refusing it as "not valid JSON" with advice to run the very command that wrote it
// leaves the operator nowhere.
func TestPlanWithByteOrderMark(t *testing.T) {
	const doc = `{"format_version": "1.2", "terraform_version": "1.8.5", "resource_changes": [
		{"address": "kamuidash_edge_worker.e", "mode": "managed", "type": "kamuidash_edge_worker", "name": "e", "change": {"actions": ["update"]}},
		{"address": "kamuidash_route_record.ü", "mode": "managed", "type": "kamuidash_route_record", "name": "ü", "change": {"actions": ["update"]}}]}`
	utf16 := func(bigEndian bool) []byte {
		var out []byte
		for _, u := range utf16.Encode([]rune("\uFEFF" + doc)) {
			if bigEndian {
				out = append(out, byte(u>>8), byte(u))
			} else {
				out = append(out, byte(u), byte(u>>8))
			}
		}
		return out
	}
	for name, input := range map[string][]byte{
		"UTF-8 with BOM": append([]byte("\xEF\xBB\xBF"), doc...),
		"UTF-16LE":       utf16(false),
		"UTF-16BE":       utf16(true),
	} {
		t.Run(name, func(t *testing.T) {
			plan, err := guard.ParsePlan(input)
			if err != nil {
				t.Fatal(err)
			}
			r, err := guard.Evaluate(plan, guard.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Allowed || len(r.Changes) != 2 || r.Changes[1].Address != "kamuidash_route_record.ü" {
				t.Fatalf("allowed %v, changes %+v; want the mixed plan refused", r.Allowed, r.Changes)
			}
		})
	}
	t.Run("UTF-16 cut in the middle of a character", func(t *testing.T) {
		input := utf16(false)
		_, err := guard.ParsePlan(input[:len(input)-1])
		if err == nil || !strings.Contains(err.Error(), "was it truncated?") {
			t.Fatalf("error %v, want one saying the input was truncated", err)
		}
	})
}
