package guard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/bundle"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/provider"
)

// startTestEdge runs a local Cloudflare-compatible API in the test process and points the
// in-process kamuidash provider at it through the provider's environment fallbacks, so the
// configurations under testdata/ need no provider block and hold no credentials.
func startTestEdge(t *testing.T) *cfapi.Server {
	t.Helper()
	srv, err := cfapi.New(cfapi.Config{
		StateDir:           t.TempDir(),
		ZoneName:           "kamui.test",
		KVPropagationDelay: -1, // synchronous: a plan reads what the previous apply wrote
		Logger:             slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	id := srv.Identity()
	for env, value := range map[string]string{
		provider.EnvAPIToken:       id.APIToken,
		provider.EnvAccountID:      id.AccountID,
		provider.EnvZoneID:         id.ZoneID,
		provider.EnvAPIBaseURL:     hs.URL + cfapi.APIPrefix,
		provider.EnvPlatformDomain: "kamui.test",
		provider.EnvEnvironment:    "test",
	} {
		t.Setenv(env, value)
	}
	return srv
}

// providerFactories serves, in-process, the kamuidash provider (building the Worker from
// sources) and the stand-ins for the official Cloudflare and Kubernetes providers.
func providerFactories(sources fs.FS) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"kamuidash": providerserver.NewProtocol6WithError(provider.New("test", sources)()),
		"cloudflare": providerserver.NewProtocol6WithError(&standInProvider{
			name: "cloudflare",
			resources: []string{
				"cloudflare_workers_script", "cloudflare_workers_route", "cloudflare_workers_kv",
				"cloudflare_workers_kv_namespace", "cloudflare_dns_record",
				"cloudflare_zero_trust_tunnel_cloudflared", "cloudflare_r2_bucket",
			},
			dataSources: []string{"cloudflare_workers_script"},
		}),
		"kubernetes": providerserver.NewProtocol6WithError(&standInProvider{
			name:      "kubernetes",
			resources: []string{"kubernetes_network_policy_v1"},
		}),
	}
}

// snapshotSources copies this checkout's bundled sources (bundle.SourceRoots) into a
// temporary directory. The Worker a test builds then stays the same from plan to apply to the
// empty re-plan, even while someone edits worker-src in the same checkout; built from the
// live tree, an edit between two steps would show up as an unexpected Worker update.
func snapshotSources(t *testing.T) fs.FS {
	t.Helper()
	dir := t.TempDir()
	checkout := os.DirFS("../..")
	for _, root := range bundle.SourceRoots {
		sub, err := fs.Sub(checkout, root)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(filepath.Join(dir, root), sub); err != nil {
			t.Fatalf("copying the bundled sources: %v", err)
		}
	}
	return os.DirFS(dir)
}

// withProviders gives every step the provider factories. Provider factories on a step, rather
// than on the test case, make the harness run `init` before each step, which installs the
// modules a step's configuration calls (it would not otherwise see a new module source).
func withProviders(t *testing.T, steps []resource.TestStep) []resource.TestStep {
	t.Helper()
	sources := snapshotSources(t)
	for i := range steps {
		steps[i].ProtoV6ProviderFactories = providerFactories(sources)
	}
	return steps
}

// expectVerdict is a plan check that runs the guard on the plan the CLI made and compares the
// verdict, the broken rules and the reason's wording with the expectation.
type expectVerdict struct {
	opts       guard.Options
	allowed    bool
	rules      []guard.Rule // exactly these rules are broken, in this order
	reasonHas  []string     // substrings of the reason, typically the offending addresses
	reasonLack []string     // addresses the reason must not blame
}

var _ plancheck.PlanCheck = expectVerdict{}

func (e expectVerdict) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	r, err := guard.Evaluate(req.Plan, e.opts)
	if err != nil {
		resp.Error = fmt.Errorf("the guard could not read the CLI's plan: %w", err)
		return
	}
	var rules []guard.Rule
	for _, v := range r.Violations {
		rules = append(rules, v.Rule)
	}
	var problems []string
	if r.Allowed != e.allowed {
		problems = append(problems, fmt.Sprintf("verdict %s, want allowed=%v", r.Verdict(), e.allowed))
	}
	if !slices.Equal(rules, e.rules) {
		problems = append(problems, fmt.Sprintf("broken rules %v, want %v", rules, e.rules))
	}
	for _, s := range e.reasonHas {
		if !strings.Contains(r.Reason, s) {
			problems = append(problems, fmt.Sprintf("the reason does not mention %q", s))
		}
	}
	for _, s := range e.reasonLack {
		if strings.Contains(r.Reason, s) {
			problems = append(problems, fmt.Sprintf("the reason mentions %q", s))
		}
	}
	if len(problems) > 0 {
		resp.Error = fmt.Errorf("guard (bootstrap allowed: %v): %s\nreason: %s\nchanges: %s",
			e.opts.AllowBootstrap, strings.Join(problems, "; "), r.Reason, changeList(r.Changes))
	}
}

// expectChange is a plan check that the guard sees a change of address with exactly these
// actions and classes: it proves the step exercises what the test claims (a real replace, a
// Worker in a module two levels down, a data-source read left out).
type expectChange struct {
	address string
	actions []string // nil: the guard must not list the address at all
	classes []guard.Class
}

var _ plancheck.PlanCheck = expectChange{}

func (e expectChange) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	r, err := guard.Evaluate(req.Plan, guard.Options{AllowBootstrap: true})
	if err != nil {
		resp.Error = err
		return
	}
	for _, c := range r.Changes {
		if c.Address != e.address {
			continue
		}
		var actions []string
		for _, a := range c.Actions {
			actions = append(actions, string(a))
		}
		if e.actions == nil {
			resp.Error = fmt.Errorf("the guard lists %s (%v), which it should leave out", e.address, actions)
		} else if !slices.Equal(actions, e.actions) || !slices.Equal(c.Classes, e.classes) {
			resp.Error = fmt.Errorf("%s: actions %v classes %v, want %v %v", e.address, actions, c.Classes, e.actions, e.classes)
		}
		return
	}
	if e.actions != nil {
		resp.Error = fmt.Errorf("the guard does not list %s; it lists %s", e.address, changeList(r.Changes))
	}
}

// expectPlanAction is a plan check that the CLI's plan has a resource change of address with
// these actions, whatever the guard makes of it.
type expectPlanAction struct {
	address string
	actions []string
}

func (e expectPlanAction) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address == e.address && rc.Change != nil {
			var actions []string
			for _, a := range rc.Change.Actions {
				actions = append(actions, string(a))
			}
			if !slices.Equal(actions, e.actions) {
				resp.Error = fmt.Errorf("%s: the CLI planned %v, want %v", e.address, actions, e.actions)
			}
			return
		}
	}
	resp.Error = fmt.Errorf("the CLI's plan has no change for %s", e.address)
}

// expectCommand is a plan check that saves the CLI's plan as JSON and runs the guard
// sub-command on the file, as a CI step would, checking the exit status and the output.
type expectCommand struct {
	dir       string // where the plan is saved (a t.TempDir)
	args      []string
	exit      int
	stdoutHas []string
}

func (e expectCommand) CheckPlan(ctx context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	b, err := json.Marshal(req.Plan)
	if err != nil {
		resp.Error = err
		return
	}
	path := filepath.Join(e.dir, "plan.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		resp.Error = err
		return
	}
	var stdout, stderr bytes.Buffer
	code := guard.Main(ctx, append([]string{"--plan", path}, e.args...), &stdout, &stderr)
	var problems []string
	if code != e.exit {
		problems = append(problems, fmt.Sprintf("exit status %d, want %d", code, e.exit))
	}
	for _, s := range e.stdoutHas {
		if !strings.Contains(stdout.String(), s) {
			problems = append(problems, fmt.Sprintf("the output lacks %q", s))
		}
	}
	if len(problems) > 0 {
		resp.Error = fmt.Errorf("guard %s: %s\nstdout:\n%s\nstderr:\n%s", strings.Join(e.args, " "), strings.Join(problems, "; "), &stdout, &stderr)
	}
}

func changeList(cs []guard.Change) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s [%s] %v", c.DisplayAddress(), c.Action(), c.Classes)
	}
	return strings.Join(parts, "; ")
}
