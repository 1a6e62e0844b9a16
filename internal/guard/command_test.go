package guard_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

// TestCommandUnusable checks that every usage or input problem exits 2 with a message on
// standard error and nothing on standard output, so a CI step can tell it from a refusal.
// (Allowed and refused plans are judged end to end in the acceptance tests.)
func TestCommandUnusable(t *testing.T) {
	dir := t.TempDir()
	badClasses := filepath.Join(dir, "classes.json")
	if err := os.WriteFile(badClasses, []byte(`{"classes": {"acme_x": "wroker"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	stateJSON := `{"format_version": "1.0", "terraform_version": "1.8.5", "values": {"root_module": {}}}`
	for name, tc := range map[string]struct {
		args       []string
		stdin      string
		wantStderr []string
	}{
		"unknown format":         {args: []string{"--format", "yaml"}, wantStderr: []string{`unknown --format "yaml"; use text, json or markdown`}},
		"unknown flag":           {args: []string{"--allow-everything"}, wantStderr: []string{"flag provided but not defined: -allow-everything", "usage: terraform-provider-kamuidash guard"}},
		"positional argument":    {args: []string{"plan.json"}, wantStderr: []string{`unexpected argument "plan.json"; pass the plan with --plan FILE`}},
		"help":                   {args: []string{"-h"}, wantStderr: []string{"usage: terraform-provider-kamuidash guard", "0 allowed, 1 refused, 2 unusable"}},
		"missing plan file":      {args: []string{"--plan", filepath.Join(dir, "nope.json")}, wantStderr: []string{"opening the plan", "nope.json", "terraform show -json"}},
		"missing classes file":   {args: []string{"--classes", filepath.Join(dir, "nope.json")}, wantStderr: []string{"reading the classes file"}},
		"bad classes file":       {args: []string{"--classes", badClasses}, stdin: stateJSON, wantStderr: []string{badClasses, `unknown class "wroker"`}},
		"truncated stdin":        {stdin: `{"format_version": "1.2", "resource_chan`, wantStderr: []string{"was it truncated?"}},
		"state JSON on stdin":    {args: []string{"--plan", "-"}, stdin: stateJSON, wantStderr: []string{"state JSON", "terraform show -json plan.out"}},
		"empty stdin, json out":  {args: []string{"--format", "json"}, wantStderr: []string{"the plan input is empty"}},
		"unknown action on file": {args: []string{"--plan", writeFile(t, dir, `{"format_version": "1.2", "resource_changes": [{"address": "a_b.c", "type": "a_b", "mode": "managed", "change": {"actions": ["move"]}}]}`)}, wantStderr: []string{`the action "move"`}},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := &guard.Command{Stdin: strings.NewReader(tc.stdin)}
			if code := cmd.Run(context.Background(), tc.args, &stdout, &stderr); code != guard.ExitUnusable {
				t.Errorf("exit status %d, want %d", code, guard.ExitUnusable)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout should be empty, got:\n%s", &stdout)
			}
			for _, want := range tc.wantStderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, &stderr)
				}
			}
		})
	}
}

func writeFile(t *testing.T, dir, content string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "plan-*.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(content)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		t.Fatal(err)
	}
	return f.Name()
}
