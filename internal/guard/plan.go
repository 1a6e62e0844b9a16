package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf16"

	tfjson "github.com/hashicorp/terraform-json"
)

// howToMakeAPlan ends every input error: the fix is almost always to feed the right document.
const howToMakeAPlan = "produce the plan JSON with `terraform plan -out=plan.out && terraform show -json plan.out > plan.json` " +
	"(or the same with tofu) and pass that file"

// InputError is a plan input the guard cannot use. The sub-command exits 2 on it, so CI can tell
// "the guard could not judge" from "the guard refused".
type InputError struct {
	// Problem says what was wrong with the input.
	Problem string
	// Err is the underlying decoding error, if any.
	Err error
}

func (e *InputError) Error() string {
	msg := e.Problem
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg + "; " + howToMakeAPlan
}

func (e *InputError) Unwrap() error { return e.Err }

// planKeys are top-level keys only a plan document has; one of them must be present.
var planKeys = []string{"resource_changes", "planned_values", "prior_state", "configuration", "output_changes"}

// ReadPlan reads a whole plan document from r; see ParsePlan.
func ReadPlan(r io.Reader) (*tfjson.Plan, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading the plan: %w", err)
	}
	return ParsePlan(b)
}

// ParsePlan decodes the output of `terraform show -json <planfile>` (Terraform ≥ 0.12 or
// OpenTofu; plan format 0.x and 1.x). Every other input gives an *InputError that names what
// the input looks like instead: empty, truncated, not JSON, several documents, the UI stream of
// `plan -json`, state JSON, a raw state file, an errored plan or an unsupported format.
func ParsePlan(b []byte) (*tfjson.Plan, error) {
	b, err := withoutBOM(b)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, &InputError{Problem: "the plan input is empty"}
	}
	top, err := decodeTopLevel(b)
	if err != nil {
		return nil, err
	}
	if err := recognisePlan(top); err != nil {
		return nil, err
	}
	// Decoding into a type without tfjson.Plan's methods separates a document of the wrong
	// shape from one of an unsupported format version, which Plan.UnmarshalJSON would mix.
	type planFields tfjson.Plan
	var fields planFields
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, &InputError{Problem: "the plan JSON does not have the shape of a Terraform plan", Err: err}
	}
	plan := tfjson.Plan(fields)
	if err := plan.Validate(); err != nil {
		return nil, &InputError{Problem: fmt.Sprintf("the plan's format_version is not one the guard reads (it reads %s)", tfjson.PlanFormatVersionConstraints), Err: err}
	}
	return &plan, nil
}

// withoutBOM returns b as UTF-8 without a byte order mark. Windows PowerShell's `>` writes
// `terraform show -json plan.out > plan.json` as UTF-16 with a BOM, and other Windows tools put
// one before UTF-8: the document is still the plan, and refusing it as "not valid JSON" would
// send the operator to run the very command that wrote it.
func withoutBOM(b []byte) ([]byte, error) {
	le, be := bytes.HasPrefix(b, []byte("\xFF\xFE")), bytes.HasPrefix(b, []byte("\xFE\xFF"))
	switch {
	case bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")):
		return b[3:], nil
	case !le && !be:
		return b, nil
	case len(b)%2 != 0:
		return nil, &InputError{Problem: fmt.Sprintf("the plan input is UTF-16 text that ends in the middle of a character after %d bytes (was it truncated?)", len(b))}
	}
	units := make([]uint16, 0, len(b)/2-1)
	for i := 2; i < len(b); i += 2 {
		if le {
			units = append(units, uint16(b[i])|uint16(b[i+1])<<8)
		} else {
			units = append(units, uint16(b[i])<<8|uint16(b[i+1]))
		}
	}
	return []byte(string(utf16.Decode(units))), nil
}

// decodeTopLevel checks that b is exactly one complete JSON object and returns its members.
func decodeTopLevel(b []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var top map[string]json.RawMessage
	if err := dec.Decode(&top); err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &InputError{Problem: fmt.Sprintf("the plan input ends in the middle of a JSON document after %d bytes (was it truncated?)", len(b))}
		case errors.As(err, &syntax):
			return nil, &InputError{Problem: fmt.Sprintf("the plan input is not valid JSON (at byte %d)", syntax.Offset), Err: err}
		case errors.As(err, &typ):
			return nil, &InputError{Problem: fmt.Sprintf("the plan input is a JSON %s, not an object", typ.Value)}
		default:
			return nil, &InputError{Problem: "the plan input is not valid JSON", Err: err}
		}
	}
	if top == nil {
		return nil, &InputError{Problem: "the plan input is JSON null, not a plan"}
	}
	if isUIStream(top) {
		return nil, &InputError{Problem: "the input is the machine-readable log of `terraform plan -json`, not a plan document"}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &InputError{Problem: "the plan input has more data after its first JSON document (a plan is one document)"}
	}
	return top, nil
}

// isUIStream recognises a line of the streaming UI output (`plan -json`), a common mix-up.
func isUIStream(top map[string]json.RawMessage) bool {
	_, msg := top["@message"]
	_, level := top["@level"]
	return msg || level
}

// recognisePlan tells a plan from the other JSON documents the CLIs write.
func recognisePlan(top map[string]json.RawMessage) error {
	has := func(k string) bool { _, ok := top[k]; return ok }
	if len(top) == 0 {
		return &InputError{Problem: "the plan input is an empty JSON object ({}), not a plan"}
	}
	if has("lineage") && has("serial") {
		return &InputError{Problem: "the input is a raw state file (terraform.tfstate), not a plan"}
	}
	if has("provider_schemas") {
		return &InputError{Problem: "the input is the output of `terraform providers schema -json`, not a plan"}
	}
	isPlan := false
	for _, k := range planKeys {
		isPlan = isPlan || has(k)
	}
	if !isPlan {
		if has("values") || (has("format_version") && has("terraform_version")) {
			return &InputError{Problem: "the input is state JSON (`terraform show -json` without a plan file), not a plan"}
		}
		return &InputError{Problem: fmt.Sprintf("the input is JSON but not a plan: it has none of %s (its keys: %s)",
			strings.Join(planKeys, ", "), strings.Join(sortedKeys(top), ", "))}
	}
	if !has("format_version") {
		return &InputError{Problem: "the plan JSON has no format_version, so it was not written by `terraform show -json`"}
	}
	var errored bool
	if raw, ok := top["errored"]; ok && json.Unmarshal(raw, &errored) == nil && errored {
		return &InputError{Problem: "the plan is marked errored: the CLI failed while planning, so its changes are incomplete; fix the plan's errors first"}
	}
	return nil
}

// sortedKeys lists the first few of m's keys, quoted, for an error message.
func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	quoted := make([]string, 0, 9)
	for i, k := range keys {
		if i == 8 {
			quoted = append(quoted, "…")
			break
		}
		quoted = append(quoted, fmt.Sprintf("%q", k))
	}
	return quoted
}
