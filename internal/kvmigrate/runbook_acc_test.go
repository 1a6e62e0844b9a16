package kvmigrate

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
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/bundle"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/provider"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

const (
	runbookWorker = "module.edge.kamuidash_edge_worker.this"
	runbookScript = "kamuidash-edge-mig"
)

// TestAccKVMigrate_Runbook rehearses the route-data migration of modules/edge/README.md with the
// real module, the real CLI and the local edge's API: (1) a kv-class plan creates the new
// namespaces, (2) `kv migrate` copies and verifies (a second run writes nothing), (3) the
// Worker's binding switch is a Worker-only plan the guard allows, after which the Worker binds
// the new namespaces, (4) the tenant resources follow the new namespace id in place, a kv-class
// plan that adopts the copies, (5) retiring the old namespaces is a kv-class plan that leaves the
// Worker alone. Besides the tenants the configuration manages, the bulk of the route data is
// seeded through the API, as other tenant resources would have written it.
func TestAccKVMigrate_Runbook(t *testing.T) {
	srv, apiURL := startRunbookEdge(t)
	moduleDir, err := filepath.Abs("../../modules/edge")
	if err != nil {
		t.Fatal(err)
	}
	edgeConfig := func(extra string) string {
		return fmt.Sprintf(`
terraform {
  required_providers {
    kamuidash = { source = "kamuidash/kamuidash" }
  }
}

module "edge" {
  source           = %q
  environment      = "mig"
  worker_name      = %q
  freshness_budget = "45s"
  # Obviously fake test values, as in internal/provider's tests.
  signing_secret = "0123456789abcdef0123456789abcdef-test"
  cache_marker   = "marker-0123456789-test"
%s
}
`, moduleDir, runbookScript, extra)
	}
	// Tenant resources the configuration manages, in the routes namespace ns names.
	tenants := func(ns string) string {
		return fmt.Sprintf(`
resource "kamuidash_tenant_app" "shop" {
  name                = "shop"
  routes_namespace_id = %[1]s
  origin              = "origin.kamui.test"
  namespace           = "tenant-shop"
  service             = "web"
  port                = 8080
}

resource "kamuidash_tenant_app" "blog" {
  name                = "blog"
  routes_namespace_id = %[1]s
  origin              = "origin.kamui.test"
  namespace           = "tenant-blog"
  service             = "web"
  port                = 8080
}

resource "kamuidash_route_record" "docs" {
  app                 = "docs"
  routes_namespace_id = %[1]s
  static = {
    prefix = "sites/docs/v1/"
  }
}
`, ns)
	}
	const managedTenants = 3
	oldTenants, newTenants := tenants("module.edge.routes_namespace_id"), tenants("kamuidash_kv_namespace.routes_v2.id")
	const newNamespaces = `
resource "kamuidash_kv_namespace" "routes_v2" {
  title = "kamuidash-mig-routes-v2"
}

resource "kamuidash_kv_namespace" "domains_v2" {
  title = "kamuidash-mig-domains-v2"
}
`
	ns := func(title string) string {
		for _, n := range srv.KVNamespaces() {
			if n.Title == title {
				return n.ID
			}
		}
		return ""
	}
	routes := routeEntries(1200)
	domains := map[string]Entry{}
	for i := range 30 {
		host := fmt.Sprintf("www.shop%02d.example", i)
		domains[host] = Entry{Value: fmt.Appendf(nil, `{"v":1,"app":"app-%05d","status":"active","rev":"d%d"}`, i, i),
			Metadata: json.RawMessage(fmt.Sprintf(`{"owner":"tenant","rev":"d%d","v":1}`, i))}
	}
	migrate := func(from, to string) {
		t.Helper()
		env := map[string]string{EnvAPIToken: srv.Identity().APIToken, EnvAccountID: srv.Identity().AccountID, EnvAPIBaseURL: apiURL}
		c := &Command{Getenv: func(k string) string { return env[k] }, Configure: testClientConfig}
		res := run(context.Background(), c, "migrate", "--from", from, "--to", to)
		if res.code != ExitOK || !strings.Contains(res.stdout, "kv migrate: OK") {
			t.Fatalf("kv migrate --from %s --to %s:\n%s", from, to, res)
		}
		res = run(context.Background(), c, "migrate", "--from", from, "--to", to)
		if res.code != ExitOK || !strings.Contains(res.stdout, "nothing was written") {
			t.Fatalf("second kv migrate --from %s --to %s:\n%s", from, to, res)
		}
	}
	workerBinds := func(name string) string {
		sc, ok := srv.Script(runbookScript)
		if !ok {
			return ""
		}
		for _, b := range sc.Bindings {
			if b.Name() == name {
				id, _ := b["namespace_id"].(string)
				return id
			}
		}
		return ""
	}

	steps := []resource.TestStep{
		{
			// The environment as it is before the migration.
			Config: edgeConfig("") + oldTenants,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				guardVerdict{opts: guard.Options{AllowBootstrap: true}, allowed: true},
			}},
		},
		{
			// (1) The new namespaces: a kv-class plan, the Worker untouched.
			PreConfig: func() {
				seedServer(t, apiURL, srv, ns("kamuidash-mig-routes"), routes)
				seedServer(t, apiURL, srv, ns("kamuidash-mig-domains"), domains)
			},
			Config: edgeConfig("") + newNamespaces + oldTenants,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("kamuidash_kv_namespace.routes_v2", plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction("kamuidash_kv_namespace.domains_v2", plancheck.ResourceActionCreate),
				guardVerdict{allowed: true, onlyClasses: []guard.Class{guard.ClassKV}, changes: 2},
			}},
		},
		{
			// (2) The copy, in the write freeze; (3) the Worker's binding switch, alone.
			PreConfig: func() {
				migrate(ns("kamuidash-mig-routes"), ns("kamuidash-mig-routes-v2"))
				migrate(ns("kamuidash-mig-domains"), ns("kamuidash-mig-domains-v2"))
			},
			Config: edgeConfig(`
  worker_routes_namespace_id  = kamuidash_kv_namespace.routes_v2.id
  worker_domains_namespace_id = kamuidash_kv_namespace.domains_v2.id
`) + newNamespaces + oldTenants,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(runbookWorker, plancheck.ResourceActionUpdate),
				guardVerdict{allowed: true, onlyClasses: []guard.Class{guard.ClassWorker}, changes: 1,
					reasonHas: "only updates the Worker in place (" + runbookWorker + ")"},
			}},
		},
		{
			// (4) The tenants follow the new namespace id: updates in place that adopt the
			// copies, a kv-class plan.
			Config: edgeConfig(`
  worker_routes_namespace_id  = kamuidash_kv_namespace.routes_v2.id
  worker_domains_namespace_id = kamuidash_kv_namespace.domains_v2.id
`) + newNamespaces + newTenants,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("kamuidash_tenant_app.shop", plancheck.ResourceActionUpdate),
				plancheck.ExpectResourceAction("kamuidash_tenant_app.blog", plancheck.ResourceActionUpdate),
				plancheck.ExpectResourceAction("kamuidash_route_record.docs", plancheck.ResourceActionUpdate),
				guardVerdict{allowed: true, onlyClasses: []guard.Class{guard.ClassKV}, changes: managedTenants},
			}},
		},
		{
			// (5) Retiring the old namespaces: a kv-class plan; the Worker keeps its binding.
			PreConfig: func() {
				if got, want := workerBinds("ROUTES"), ns("kamuidash-mig-routes-v2"); got != want || want == "" {
					t.Fatalf("after the switch the Worker binds ROUTES %q, want the new namespace %q", got, want)
				}
				if got, want := workerBinds("DOMAINS"), ns("kamuidash-mig-domains-v2"); got != want || want == "" {
					t.Fatalf("after the switch the Worker binds DOMAINS %q, want the new namespace %q", got, want)
				}
			},
			Config: edgeConfig(`
  routes_namespace_id  = kamuidash_kv_namespace.routes_v2.id
  domains_namespace_id = kamuidash_kv_namespace.domains_v2.id
`) + newNamespaces + newTenants,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("module.edge.kamuidash_kv_namespace.routes[0]", plancheck.ResourceActionDestroy),
				plancheck.ExpectResourceAction("module.edge.kamuidash_kv_namespace.domains[0]", plancheck.ResourceActionDestroy),
				guardVerdict{allowed: true, onlyClasses: []guard.Class{guard.ClassKV}, changes: 2},
			}},
		},
		{
			// Nothing left to do, and the new namespaces still hold every key.
			PreConfig: func() {
				if ns("kamuidash-mig-routes") != "" || ns("kamuidash-mig-domains") != "" {
					t.Error("the old namespaces were not deleted")
				}
				for title, want := range map[string]map[string]Entry{"kamuidash-mig-routes-v2": routes, "kamuidash-mig-domains-v2": domains} {
					got := srv.KVNamespaces()[slices.IndexFunc(srv.KVNamespaces(), func(n cfapi.KVNamespace) bool { return n.Title == title })].Entries
					extra := 0
					if title == "kamuidash-mig-routes-v2" {
						extra = managedTenants // the configuration's own records, copied and adopted
					}
					keys := len(got)
					if e, ok := got[route.FilterKey]; ok {
						// The name filter the provider rebuilt after adopting its records there: it
						// must admit every key the namespace holds, copied or written.
						keys--
						f, err := route.DecodeFilter(e.Value)
						if err != nil {
							t.Errorf("%s: the name filter: %v", title, err)
						}
						for k := range got {
							if err == nil && k != route.FilterKey && !f.Has(k) {
								t.Errorf("%s: the name filter refuses %q", title, k)
							}
						}
					}
					if keys != len(want)+extra {
						t.Errorf("%s holds %d keys besides the name filter, want %d", title, keys, len(want)+extra)
					}
					for k, w := range want {
						sameEntry(t, k, got[k], w)
					}
				}
			},
			Config: edgeConfig(`
  routes_namespace_id  = kamuidash_kv_namespace.routes_v2.id
  domains_namespace_id = kamuidash_kv_namespace.domains_v2.id
`) + newNamespaces + newTenants,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
		{
			// The harness's state shim cannot read module state after the last step: end empty.
			Config: `# retired`,
		},
	}
	// Factories on every step make the harness run init before each one, which installs the
	// module (it would not otherwise see it).
	factories := runbookProviders(t)
	for i := range steps {
		steps[i].ProtoV6ProviderFactories = factories
		// A configuration directory (not a string) makes the harness install the module.
		dir := filepath.Join(t.TempDir(), fmt.Sprint(i+1))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(steps[i].Config), 0o644); err != nil {
			t.Fatal(err)
		}
		steps[i].Config, steps[i].ConfigDirectory = "", config.StaticDirectory(dir)
	}
	resource.Test(t, resource.TestCase{Steps: steps})
}

// startRunbookEdge runs the local edge's API and points the in-process provider at it through
// its environment fallbacks.
func startRunbookEdge(t *testing.T) (*cfapi.Server, string) {
	t.Helper()
	srv, err := cfapi.New(cfapi.Config{
		StateDir:           t.TempDir(),
		ZoneName:           "kamui.test",
		KVPropagationDelay: -1,
		Logger:             slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	id := srv.Identity()
	apiURL := hs.URL + cfapi.APIPrefix
	for env, value := range map[string]string{
		provider.EnvAPIToken:       id.APIToken,
		provider.EnvAccountID:      id.AccountID,
		provider.EnvZoneID:         id.ZoneID,
		provider.EnvAPIBaseURL:     apiURL,
		provider.EnvPlatformDomain: "kamui.test",
		provider.EnvEnvironment:    "mig",
		// modules/edge requires kamuidash/kamuidash; the harness serves the in-process provider
		// under this namespace.
		resource.EnvTfAccProviderNamespace: "kamuidash",
	} {
		t.Setenv(env, value)
	}
	return srv, apiURL
}

// runbookProviders serves the provider in-process, building the Worker from a snapshot of this
// checkout's bundled sources (an edit during the test must not show up as a Worker update).
func runbookProviders(t *testing.T) map[string]func() (tfprotov6.ProviderServer, error) {
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
	return map[string]func() (tfprotov6.ProviderServer, error){
		"kamuidash": providerserver.NewProtocol6WithError(provider.New("test", os.DirFS(dir))()),
	}
}

// seedServer writes entries into a namespace as the tenant resources would have.
func seedServer(t *testing.T, apiURL string, srv *cfapi.Server, namespaceID string, entries map[string]Entry) {
	t.Helper()
	if namespaceID == "" {
		t.Fatal("seeding: the namespace does not exist")
	}
	e := &testEdge{t: t, srv: srv, id: srv.Identity(), URL: apiURL}
	e.seeder = newSeeder(apiURL, srv.Identity().APIToken)
	e.seed(namespaceID, entries)
}

// guardVerdict is a plan check that runs the guard on the CLI's plan.
type guardVerdict struct {
	opts        guard.Options
	allowed     bool
	onlyClasses []guard.Class // every change is of one of these classes
	changes     int           // how many changes the guard lists (0: any)
	reasonHas   string
}

func (g guardVerdict) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	r, err := guard.Evaluate(req.Plan, g.opts)
	if err != nil {
		resp.Error = err
		return
	}
	var problems []string
	if r.Allowed != g.allowed {
		problems = append(problems, fmt.Sprintf("verdict %s, want allowed=%v", r.Verdict(), g.allowed))
	}
	if g.changes > 0 && len(r.Changes) != g.changes {
		problems = append(problems, fmt.Sprintf("%d changes, want %d", len(r.Changes), g.changes))
	}
	for _, c := range r.Changes {
		for _, cl := range c.Classes {
			if g.onlyClasses != nil && !slices.Contains(g.onlyClasses, cl) {
				problems = append(problems, fmt.Sprintf("%s is of class %s, want only %v", c.Address, cl, g.onlyClasses))
			}
		}
	}
	if g.reasonHas != "" && !strings.Contains(r.Reason, g.reasonHas) {
		problems = append(problems, fmt.Sprintf("the reason does not say %q", g.reasonHas))
	}
	if len(problems) > 0 {
		var changes bytes.Buffer
		for _, c := range r.Changes {
			fmt.Fprintf(&changes, "\n  %s %v %v", c.Address, c.Actions, c.Classes)
		}
		resp.Error = fmt.Errorf("guard: %s\nreason: %s\nchanges:%s", strings.Join(problems, "; "), r.Reason, changes.String())
	}
}
