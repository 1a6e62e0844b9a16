package guard_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

// TestAccGuard_RawPlanJSON runs the CLI (TF_ACC_TERRAFORM_PATH, as the other acceptance tests)
// directly, so that the sub-command reads the exact bytes `show -json` writes, not the
// harness's re-encoding of them; and it feeds the guard the documents people confuse with a
// plan JSON, as the same CLI writes them.
func TestAccGuard_RawPlanJSON(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("an acceptance test: set TF_ACC=1 (and TF_ACC_TERRAFORM_PATH) to run it")
	}
	cli := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if cli == "" {
		var err error
		if cli, err = exec.LookPath("terraform"); err != nil {
			t.Fatal("no CLI to run: set TF_ACC_TERRAFORM_PATH to a terraform or tofu binary")
		}
	}
	dir := t.TempDir()
	config, err := os.ReadFile(filepath.Join("testdata", t.Name(), "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), config, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(cli, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(cli), strings.Join(args, " "), err, &stderr)
		}
		return out
	}
	guardOn := func(name string, input []byte, wantExit int, wantStdout, wantStderr string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, input, 0o600); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := guard.Main(context.Background(), []string{"--plan", path}, &stdout, &stderr)
		if code != wantExit || !strings.Contains(stdout.String(), wantStdout) || !strings.Contains(stderr.String(), wantStderr) {
			t.Errorf("guard on %s: exit %d (want %d)\nstdout (want %q):\n%s\nstderr (want %q):\n%s",
				name, code, wantExit, wantStdout, &stdout, wantStderr, &stderr)
		}
	}

	run("init", "-input=false", "-no-color")
	uiStream := run("plan", "-input=false", "-no-color", "-json", "-out=plan.out")
	planJSON := run("show", "-json", "plan.out")
	guardOn("plan.json", planJSON, guard.ExitAllowed, "other  terraform_data.note  create  other", "")
	guardOn("truncated.json", planJSON[:len(planJSON)/2], guard.ExitUnusable, "", "was it truncated?")
	guardOn("ui-stream.json", uiStream, guard.ExitUnusable, "", "the machine-readable log of `terraform plan -json`")

	run("apply", "-input=false", "-no-color", "plan.out")
	guardOn("state.json", run("show", "-json"), guard.ExitUnusable, "", "state JSON (`terraform show -json` without a plan file)")
	state, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	guardOn("terraform.tfstate", state, guard.ExitUnusable, "", "a raw state file")
}
