// Package rollout drives a staged rollout: for each environment in order, init, plan to a file,
// judge the plan with the guard, apply exactly that saved plan, then wait until the
// environment's smoke checks pass. It stops at the first failure, so a change that breaks dev
// never reaches prod. It drives the real Terraform or OpenTofu CLI through terraform-exec.
package rollout

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

// Rollout is one staged rollout. Root and CLI are required; every other field has a default.
type Rollout struct {
	// Root holds one directory per environment, named like the environment (Root/dev, ...).
	Root string

	// CLI is the path of the terraform or tofu executable.
	CLI string

	// WorkerOnly refuses a plan that changes anything but the Worker, so a Worker release
	// cannot carry other edits along. Default false: any plan the guard allows.
	WorkerOnly bool

	// Guard adjusts the guard's rules (AllowBootstrap for a first deployment, extra classes).
	// Default: the strict guard.
	Guard guard.Options

	// Env returns extra environment variables for one environment's CLI runs (the provider's
	// credentials differ per environment). TF_VAR_<name> entries, here and in the process
	// environment, are passed to the plan in a var file, so unlike plain TF_VAR_ variables they
	// take precedence over terraform.tfvars. Default nil: the process environment only.
	Env func(env string) (map[string]string, error)

	// SmokeTimeout bounds how long an environment's smoke checks may take to pass. Default 3m.
	SmokeTimeout time.Duration
	// SmokeInterval is the pause between rounds of smoke checks. Default 2s.
	SmokeInterval time.Duration
	// HTTPClient sends the smoke checks. Default: a 10 s timeout, redirects not followed.
	HTTPClient *http.Client

	// Out receives progress lines and the summary. Default io.Discard.
	Out io.Writer
	// CLIOutput receives the CLI's own output (init, plan, apply). Default Out.
	CLIOutput io.Writer
}

// Stage is how far an environment got.
type Stage string

// The stages, in order.
const (
	StageNotStarted Stage = "not started"
	StageInit       Stage = "init"
	StagePlan       Stage = "plan"
	StageGuard      Stage = "guard"
	StageApply      Stage = "apply"
	StageSmoke      Stage = "smoke checks"
	StageDone       Stage = "done"
)

// EnvResult is what happened in one environment.
type EnvResult struct {
	Env string
	// Stage is the stage that failed, StageDone, or StageNotStarted when an earlier
	// environment failed.
	Stage Stage
	// Report is the guard's judgement of the plan (nil before the guard ran).
	Report *guard.Report
	// Applied says whether the saved plan was applied (false when it changed no resource, no
	// output and no resource's address).
	Applied bool
	// SmokePassed and SmokeTotal count the last round of smoke checks.
	SmokePassed, SmokeTotal int
	Err                     error
}

// Failed says whether the environment stopped the rollout.
func (r EnvResult) Failed() bool { return r.Err != nil }

// Run rolls out to envs in order and stops at the first failure. Every environment gets a
// result; the error is the first failure's.
func (r *Rollout) Run(ctx context.Context, envs []string) ([]EnvResult, error) {
	results := make([]EnvResult, len(envs))
	for i, env := range envs {
		results[i] = EnvResult{Env: env, Stage: StageNotStarted}
	}
	for i, env := range envs {
		r.printf("\n==> %s (%d of %d)\n", env, i+1, len(envs))
		results[i] = r.runEnv(ctx, env)
		if results[i].Failed() {
			r.printf("%s: stopped at %s: %v\n", env, results[i].Stage, results[i].Err)
			return results, fmt.Errorf("%s: %s: %w", env, results[i].Stage, results[i].Err)
		}
	}
	return results, nil
}

func (r *Rollout) runEnv(ctx context.Context, env string) (res EnvResult) {
	res = EnvResult{Env: env, Stage: StageInit}
	fail := func(stage Stage, err error) EnvResult {
		res.Stage, res.Err = stage, err
		return res
	}
	dir := filepath.Join(r.Root, env)
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return fail(StageInit, fmt.Errorf("no configuration directory %s for environment %q (environments live under the rollout root, one directory each)", dir, env))
	}
	tf, varFile, cleanup, err := r.terraform(env, dir)
	if err != nil {
		return fail(StageInit, err)
	}
	defer cleanup()

	r.printf("%s: init\n", env)
	if err := tf.Init(ctx, tfexec.Upgrade(false)); err != nil {
		return fail(StageInit, err)
	}

	r.printf("%s: plan\n", env)
	planDir, err := os.MkdirTemp("", "kamuidash-rollout-plan-")
	if err != nil {
		return fail(StagePlan, err)
	}
	defer r.removeSecrets(planDir, "the saved plan")
	planFile := filepath.Join(planDir, env+".tfplan")
	planOpts := []tfexec.PlanOption{tfexec.Out(planFile)}
	if varFile != "" {
		planOpts = append(planOpts, tfexec.VarFile(varFile))
	}
	hasChanges, err := tf.Plan(ctx, planOpts...)
	if err != nil {
		return fail(StagePlan, err)
	}

	res.Stage = StageGuard
	quiet(tf)
	plan, err := tf.ShowPlanFile(ctx, planFile)
	if err != nil {
		return fail(StageGuard, fmt.Errorf("reading the saved plan: %w", err))
	}
	report, err := guard.Evaluate(plan, r.Guard)
	if err != nil {
		return fail(StageGuard, err)
	}
	res.Report = report
	if err := guard.Render(r.out(), report, guard.FormatText); err != nil {
		return fail(StageGuard, err)
	}
	if !report.Allowed {
		return fail(StageGuard, errors.New("the guard refused the plan: "+report.Reason))
	}
	if r.WorkerOnly {
		if err := workerOnly(report); err != nil {
			return fail(StageGuard, err)
		}
	}

	if needsApply(hasChanges, report, plan) {
		r.printf("%s: apply (the saved plan)\n", env)
		r.loud(tf)
		if err := tf.Apply(ctx, tfexec.DirOrPlan(planFile)); err != nil {
			return fail(StageApply, err)
		}
		res.Applied = true
	} else {
		r.printf("%s: no changes to apply\n", env)
	}

	res.Stage = StageSmoke
	quiet(tf)
	outputs, err := tf.Output(ctx)
	if err != nil {
		return fail(StageSmoke, fmt.Errorf("reading the outputs: %w", err))
	}
	out, ok := outputs["smoke_checks"]
	if !ok {
		return fail(StageSmoke, errors.New("the configuration has no smoke_checks output; every environment must say how to tell it serves (see modules/tenant)"))
	}
	checks, err := parseSmokeChecks(out.Value)
	if err != nil {
		return fail(StageSmoke, err)
	}
	r.printf("%s: %d smoke checks (up to %s)\n", env, len(checks), r.smokeTimeout())
	// Progress: a line when what fails changes, and otherwise every progressEvery.
	var lastLine string
	var lastAt time.Time
	results, err := runSmokeChecks(ctx, r.httpClient(), checks, r.smokeTimeout(), r.smokeInterval(), func(passed, total int, failing []checkResult) {
		line := fmt.Sprintf("%d/%d smoke checks pass; waiting for %s", passed, total, describe(failing))
		if line != lastLine || time.Since(lastAt) >= progressEvery {
			r.printf("%s: %s\n", env, line)
			lastLine, lastAt = line, time.Now()
		}
	})
	res.SmokeTotal = len(results)
	for _, c := range results {
		if c.OK {
			res.SmokePassed++
		}
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		r.printf("  %s %-24s %s %s %s\n", mark, c.Check.Name, c.Check.Host, c.Check.URL, c.Problem)
	}
	if err != nil {
		return fail(StageSmoke, err)
	}
	res.Stage = StageDone
	return res
}

// needsApply says whether the saved plan does anything worth applying. The CLI also reports
// changes for data sources it can only read during the apply, which change nothing. Output
// changes count: the router's manifests are an output (modules/cluster-ingress), and the
// cluster's tooling applies what the state holds. So do moves: applying them records the new
// addresses, after which the moved blocks can be deleted. And so do imports: an import block
// whose object already matches its configuration plans a no-op, and only the apply records the
// object in the state.
func needsApply(hasChanges bool, report *guard.Report, plan *tfjson.Plan) bool {
	return hasChanges && (len(report.Changes) > 0 || changesOutputs(plan) || movesResources(plan) || importsResources(plan))
}

// importsResources says whether the plan imports existing objects (import blocks).
func importsResources(plan *tfjson.Plan) bool {
	for _, c := range plan.ResourceChanges {
		if c != nil && c.Change != nil && c.Change.Importing != nil {
			return true
		}
	}
	return false
}

// changesOutputs says whether applying the plan changes any output's value.
func changesOutputs(plan *tfjson.Plan) bool {
	for _, c := range plan.OutputChanges {
		if c != nil && !c.Actions.NoOp() {
			return true
		}
	}
	return false
}

// movesResources says whether the plan records resources under new addresses (moved blocks).
func movesResources(plan *tfjson.Plan) bool {
	for _, c := range plan.ResourceChanges {
		if c != nil && c.PreviousAddress != "" && c.PreviousAddress != c.Address {
			return true
		}
	}
	return false
}

// progressEvery is how often an unchanged smoke-check status is repeated while waiting.
const progressEvery = 15 * time.Second

// workerOnly checks that every change of an allowed plan is a Worker change.
func workerOnly(report *guard.Report) error {
	var others []string
	for _, c := range report.Changes {
		if !c.Has(guard.ClassWorker) {
			others = append(others, c.DisplayAddress())
		}
	}
	if len(others) > 0 {
		return fmt.Errorf("--worker-only: the plan also changes %s; roll those out in their own plan", strings.Join(others, ", "))
	}
	return nil
}

func describe(failing []checkResult) string {
	parts := make([]string, 0, len(failing))
	for _, f := range failing {
		parts = append(parts, f.Check.Name+" ("+f.Problem+")")
	}
	return strings.Join(parts, ", ")
}

// removeSecrets removes a temporary directory that holds secrets; one left behind is named,
// so that the operator can remove it.
func (r *Rollout) removeSecrets(dir, holding string) {
	if err := os.RemoveAll(dir); err != nil {
		r.printf("warning: %s (holding %s) was not removed: %v\n", dir, holding, err)
	}
}

// printf writes a progress line to Out, best effort: a line that cannot be written does not
// stop a rollout halfway (the exit status and the summary tell how it went).
func (r *Rollout) printf(format string, args ...any) { _, _ = fmt.Fprintf(r.out(), format, args...) }

func (r *Rollout) out() io.Writer {
	if r.Out == nil {
		return io.Discard
	}
	return r.Out
}

func (r *Rollout) smokeTimeout() time.Duration {
	if r.SmokeTimeout > 0 {
		return r.SmokeTimeout
	}
	return 3 * time.Minute
}

func (r *Rollout) smokeInterval() time.Duration {
	if r.SmokeInterval > 0 {
		return r.SmokeInterval
	}
	return 2 * time.Second
}

func (r *Rollout) httpClient() *http.Client {
	if r.HTTPClient != nil {
		return r.HTTPClient
	}
	return &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
