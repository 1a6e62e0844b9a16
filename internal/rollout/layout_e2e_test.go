package rollout

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

// TestAccRollout_EnvironmentMovesIntoShared upgrades an environment applied before dev and prod
// became calls of examples/environments/shared (testdata/dev-before-shared: the modules called
// from the environment's root, its values in terraform.tfvars) to the current
// examples/environments/dev, over the same state. The new layout's plan must keep every
// resource, under module.platform at the address it had, with no action on any resource or
// output (the moved blocks of dev/moved.tf); the rollout allows it with the strict guard and
// applies the moves, the Worker and the route record are untouched, and the next plan is
// empty. The real CLI (TF_ACC_TERRAFORM_PATH) and a local edge run it.
func TestAccRollout_EnvironmentMovesIntoShared(t *testing.T) {
	cli := accCLI(t, "end-to-end layout upgrade test")
	repo := repoRoot(t)
	tmp := t.TempDir()
	binary, cliConfig := installProvider(t, repo, tmp)
	backendPort := startShopBackend(t)
	edge := startEdge(t, repo, binary, "dev", filepath.Join(tmp, "dev-edge"))
	if edge == nil {
		t.FailNow()
	}

	// The old layout where dev lives, with dev's site: the modules and ../shared beside it.
	root := copyEnvironments(t, repo, filepath.Join(tmp, "tree"))
	dev := filepath.Join(root, "dev")
	copyTree(t, filepath.Join("testdata", "dev-before-shared"), dev)
	copyTree(t, filepath.Join(repo, "examples", "environments", "dev", "site"), filepath.Join(dev, "site"))

	env := map[string]string{"TF_CLI_CONFIG_FILE": cliConfig}
	for k, v := range edge.env {
		env[k] = v
	}
	vars := map[string]string{
		"edge_url":                edge.env["KAMUIDASH_EDGE_URL"],
		"backend_port":            fmt.Sprint(backendPort),
		"signing_secret":          randomHex(t, 32),
		"cache_marker":            randomHex(t, 16),
		"router_image_repository": edge.env["KAMUIDASH_LOCAL_REGISTRY"] + "/kamuidash/router",
	}
	for k, v := range vars {
		env["TF_VAR_"+k] = v
	}
	secrets := []string{vars["signing_secret"], vars["cache_marker"], edge.env["CLOUDFLARE_API_TOKEN"]}
	rollout := func(what string, r Rollout) EnvResult {
		t.Helper()
		r.Root, r.CLI = root, cli
		res, _ := rolloutDev(t, what, r, env, secrets)
		return res
	}

	res := rollout("the old layout's bootstrap", Rollout{Guard: guard.Options{AllowBootstrap: true}})
	if !res.Applied || res.Stage != StageDone {
		t.Fatalf("the old layout's bootstrap: stage %s, applied %v, err %v; want it applied and its smoke checks passing", res.Stage, res.Applied, res.Err)
	}
	before := managedAddresses(terraformOut(t, cli, dev, env, "state", "list"))
	if len(before) == 0 || slices.ContainsFunc(before, func(a string) bool { return strings.HasPrefix(a, "module.platform.") }) {
		t.Fatalf("the old layout's state: %q, want resources outside module.platform", before)
	}
	worker, record := edge.workerEtag(t), edge.shopRecord(t)

	// The current dev over the same directory: its state and .terraform stay.
	old, err := filepath.Glob(filepath.Join(dev, "*.tf*"))
	must(t, err)
	for _, f := range old {
		if !strings.HasSuffix(f, ".tfstate") && !strings.HasSuffix(f, ".tfstate.backup") {
			must(t, os.Remove(f))
		}
	}
	copyTree(t, filepath.Join(repo, "examples", "environments", "dev"), dev)

	terraformOut(t, cli, dev, env, "init", "-input=false", "-no-color")
	planFile := filepath.Join(tmp, "layout.tfplan")
	terraformOut(t, cli, dev, env, "plan", "-input=false", "-no-color", "-out="+planFile)
	var plan tfjson.Plan
	// show -json prints sensitive values: it is parsed, never logged.
	must(t, plan.UnmarshalJSON(terraformOut(t, cli, dev, env, "show", "-json", planFile)))
	var moved []string
	for _, rc := range plan.ResourceChanges {
		if rc.Change == nil || !rc.Change.Actions.NoOp() {
			var actions tfjson.Actions
			if rc.Change != nil {
				actions = rc.Change.Actions // only the actions: the values may be sensitive
			}
			t.Errorf("the new layout's plan: %s has the actions %v, want none", rc.Address, actions)
			continue
		}
		if rc.Mode != tfjson.ManagedResourceMode {
			continue
		}
		if rc.PreviousAddress == "" || rc.Address != "module.platform."+rc.PreviousAddress {
			t.Errorf("the new layout's plan: %s was %q, want it moved from its address without module.platform", rc.Address, rc.PreviousAddress)
			continue
		}
		moved = append(moved, rc.PreviousAddress)
	}
	slices.Sort(moved)
	if !slices.Equal(moved, before) {
		t.Errorf("the new layout's plan moves %q, want every resource of the old state: %q", moved, before)
	}
	for name, oc := range plan.OutputChanges {
		if oc == nil || !oc.Actions.NoOp() {
			t.Errorf("the new layout's plan changes the output %s", name)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	res = rollout("the moves", Rollout{})
	if res.Report == nil || !res.Report.Allowed || len(res.Report.Changes) != 0 || !res.Applied || res.Stage != StageDone {
		t.Fatalf("the moves: stage %s, applied %v, err %v, guard %+v; want an allowed plan without changes, applied, its smoke checks passing",
			res.Stage, res.Applied, res.Err, res.Report)
	}
	if edge.workerEtag(t) != worker || edge.shopRecord(t) != record {
		t.Fatal("moving the state into module.platform changed the Worker or the shop's route record")
	}
	after := managedAddresses(terraformOut(t, cli, dev, env, "state", "list"))
	want := make([]string, len(before))
	for i, a := range before {
		want[i] = "module.platform." + a
	}
	if !slices.Equal(after, want) {
		t.Fatalf("the state after the moves: %q, want %q", after, want)
	}

	res = rollout("after the moves", Rollout{})
	if res.Applied || res.Stage != StageDone || res.Report == nil || len(res.Report.Changes) != 0 {
		t.Fatalf("after the moves: stage %s, applied %v, err %v; want nothing to apply and the smoke checks passing", res.Stage, res.Applied, res.Err)
	}
}

// rolloutDev runs r for dev alone with env as its CLI environment (TF_VAR_ entries included)
// and returns dev's result and the rollout's output; it fails the test if the output shows one
// of secrets.
func rolloutDev(t *testing.T, what string, r Rollout, env map[string]string, secrets []string) (EnvResult, string) {
	t.Helper()
	var out bytes.Buffer
	r.Out = &out
	r.Env = func(string) (map[string]string, error) { return env, nil }
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	results, _ := r.Run(ctx, []string{"dev"})
	t.Logf("%s: rollout in %s\n%s", what, time.Since(start).Round(time.Second), out.String())
	for _, s := range secrets {
		if strings.Contains(out.String(), s) {
			t.Fatalf("%s: the rollout's output shows a secret", what)
		}
	}
	return results[0], out.String()
}

// terraformOut runs the CLI in dir with env added to the test's environment and returns its
// standard output; a failure shows its standard error (the CLI masks sensitive values there).
func terraformOut(t *testing.T, cli, dir string, env map[string]string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(cli, args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", cli, args[0], err, stderr.String())
	}
	return out
}

// managedAddresses are the managed resources of `state list` output, sorted.
func managedAddresses(stateList []byte) []string {
	var out []string
	for _, a := range strings.Split(strings.TrimSpace(string(stateList)), "\n") {
		if a != "" && !strings.HasPrefix(a, "data.") && !strings.Contains(a, ".data.") {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}
