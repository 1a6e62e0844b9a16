package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/workers"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/bundle"
	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge"
)

const edgeWorkerAddr = "kamuidash_edge_worker.edge"

func edgeWorkerConfig(edge *testEdge, extra string) string {
	return edge.providerBlock() + `
resource "kamuidash_kv_namespace" "routes" {
  title = "kamuidash-test-routes"
}
resource "kamuidash_kv_namespace" "domains" {
  title = "kamuidash-test-domains"
}
resource "kamuidash_edge_worker" "edge" {
  name                 = "kamuidash-edge-test"
  routes_namespace_id  = kamuidash_kv_namespace.routes.id
  domains_namespace_id = kamuidash_kv_namespace.domains.id
  static_bucket        = "kamuidash-test-static"
  signing_secret       = "0123456789abcdef0123456789abcdef-test"
  cache_marker         = "marker-0123456789-test"
  routes               = ["*.kamui.test/*", "kamui.test/*"]
  ` + extra + `
}
`
}

// forkOf copies the bundled sources into a temporary checkout, with edit applied to the
// Worker's JS shim, standing in for a team's fork in source_dir.
func forkOf(t *testing.T, edit func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	err := fs.WalkDir(testSources, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		inTree := p == "." || p == "worker-src" || p == "internal" || strings.HasPrefix(p, "worker-src/") || p == "internal/route" || strings.HasPrefix(p, "internal/route/")
		if !inTree {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, p), 0o755)
		}
		b, err := fs.ReadFile(testSources, p)
		if err != nil {
			return err
		}
		if p == "worker-src/edge/js/worker.mjs" {
			b = []byte(edit(string(b)))
		}
		return os.WriteFile(filepath.Join(dir, p), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAccEdgeWorker_Lifecycle(t *testing.T) {
	edge := newTestEdge(t)
	built, err := (&bundle.Builder{Sources: testSources}).Worker(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fork := forkOf(t, func(s string) string { return s + "\n// a fork's change\n" })
	etagChanges := statecheck.CompareValue(compare.ValuesDiffer())
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if names := edge.ScriptNames(); len(names) != 0 {
				return fmt.Errorf("scripts left after destroy: %v", names)
			}
			if routes := edge.Routes(); len(routes) != 0 {
				return fmt.Errorf("routes left after destroy: %v", routes)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: edgeWorkerConfig(edge, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					// The artifact's hash is in the plan, before anything is uploaded.
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(edgeWorkerAddr, tfjsonpath.New("content_sha256"), knownvalue.StringExact(built.SHA256)),
						plancheck.ExpectKnownValue(edgeWorkerAddr, tfjsonpath.New("size_bytes"), knownvalue.Int64Exact(built.Size)),
						// The pinned release, whatever go the machine has.
						plancheck.ExpectKnownValue(edgeWorkerAddr, tfjsonpath.New("build_toolchain"), knownvalue.StringExact(bundle.PinnedToolchain)),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{etagChanges.AddStateValue(edgeWorkerAddr, tfjsonpath.New("etag"))},
				Check: func(s *terraform.State) error {
					script, ok := edge.Script("kamuidash-edge-test")
					if !ok {
						return fmt.Errorf("script not uploaded")
					}
					uploaded := map[string]string{}
					for _, m := range script.Modules {
						uploaded[m.Name] = string(m.Content)
					}
					for _, f := range built.Files {
						if uploaded[f.Name] != string(f.Content) {
							return fmt.Errorf("module %s not uploaded byte-exact", f.Name)
						}
					}
					if script.MainModule != built.MainModule {
						return fmt.Errorf("main module = %q", script.MainModule)
					}
					var names []string
					for _, rt := range edge.Routes() {
						names = append(names, rt.Pattern+"→"+rt.Script)
					}
					if len(names) != 2 {
						return fmt.Errorf("routes = %v", names)
					}
					return nil
				},
			},
			{
				// Same sources and settings: nothing to do.
				Config: edgeWorkerConfig(edge, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// A setting is an in-place upload of the same script.
				Config: edgeWorkerConfig(edge, `freshness_budget = "5m0s"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(edgeWorkerAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{etagChanges.AddStateValue(edgeWorkerAddr, tfjsonpath.New("etag"))},
			},
			{
				// A source edit (a fork) is an in-place update with a new hash.
				Config: edgeWorkerConfig(edge, `freshness_budget = "5m0s"`+"\n  source_dir = "+fmt.Sprintf("%q", fork)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(edgeWorkerAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(edgeWorkerAddr, tfjsonpath.New("content_sha256"),
							knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`))),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					etagChanges.AddStateValue(edgeWorkerAddr, tfjsonpath.New("etag")),
					statecheck.ExpectKnownValue(edgeWorkerAddr, tfjsonpath.New("content_sha256"), knownvalue.StringFunc(func(v string) error {
						if v == built.SHA256 {
							return fmt.Errorf("the fork built to the embedded sources' hash")
						}
						return nil
					})),
				},
			},
			{
				ResourceName:      edgeWorkerAddr,
				ImportState:       true,
				ImportStateVerify: true,
				// Secrets are never read back from the API, and an import cannot know which
				// sources built the uploaded code.
				ImportStateVerifyIgnore: []string{"signing_secret", "cache_marker", "content_sha256", "size_bytes", "build_toolchain", "source_dir"},
			},
		},
	})
}

// The Worker's durations spelled otherwise than the state has are the same settings: no upload.
func TestAccEdgeWorker_DurationSpellingsPlanNoChange(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: edgeWorkerConfig(edge, `freshness_budget = "120s"`+"\n"+`upstream_timeout = "90000ms"`)},
			{
				Config: edgeWorkerConfig(edge, `freshness_budget = "2m0s"`+"\n"+`upstream_timeout = "1m30s"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// Without them the defaults apply, the same durations again.
				Config: edgeWorkerConfig(edge, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// The zone routes are a set: the same patterns in another order plan no change, and a pattern
// fewer is an update that removes its route.
func TestAccEdgeWorker_RoutesInAnotherOrderPlanNoChange(t *testing.T) {
	edge := newTestEdge(t)
	withRoutes := func(routes string) string {
		return strings.Replace(edgeWorkerConfig(edge, ""), `routes               = ["*.kamui.test/*", "kamui.test/*"]`, "routes = "+routes, 1)
	}
	patterns := func() []string {
		var p []string
		for _, rt := range edge.Routes() {
			p = append(p, rt.Pattern)
		}
		slices.Sort(p)
		return p
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: withRoutes(`["*.kamui.test/*", "kamui.test/*"]`)},
			{
				Config: withRoutes(`["kamui.test/*", "*.kamui.test/*"]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config: withRoutes(`["kamui.test/*"]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(edgeWorkerAddr, plancheck.ResourceActionUpdate)},
				},
				Check: func(*terraform.State) error {
					if got := patterns(); !slices.Equal(got, []string{"kamui.test/*"}) {
						return fmt.Errorf("zone routes %v, want [kamui.test/*]", got)
					}
					return nil
				},
			},
		},
	})
}

// State written while routes was a list (schema version 0) upgrades to the set of its patterns
// through the provider's protocol server, as Terraform asks for it: every other attribute as it
// was, a repeated pattern once, an empty list an empty set and a null list null.
func TestEdgeWorkerStateUpgrade_RoutesListBecomesASet(t *testing.T) {
	ctx := context.Background()
	server, err := providerserver.NewProtocol6WithError(New("test", testSources)())()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, routes string
		want         []string // nil: a null set
	}{
		{"patterns", `["kamui.test/*", "*.kamui.test/*", "kamui.test/*"]`, []string{"*.kamui.test/*", "kamui.test/*"}},
		{"empty", `[]`, []string{}},
		{"null", `null`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Placeholders of exactly the minimum sizes, not secrets.
			v0 := `{"id": "kamuidash-edge-test", "name": "kamuidash-edge-test", "source_dir": null,
				"routes_namespace_id": "0123456789abcdef0123456789abcdef", "domains_namespace_id": "fedcba9876543210fedcba9876543210",
				"static_bucket": "kamuidash-test-static", "freshness_budget": "120s", "upstream_timeout": "90000ms",
				"log_sample_rate": 0.01, "signing_secret": "` + strings.Repeat("s", route.MinSigningSecretBytes) + `",
				"cache_marker": "` + strings.Repeat("m", route.MinCacheMarkerBytes) + `", "routes": ` + c.routes + `,
				"content_sha256": "abc", "size_bytes": 42, "build_toolchain": "go1.26.8", "etag": "etag-1"}`
			resp, err := server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
				TypeName: "kamuidash_edge_worker", Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(v0)},
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range resp.Diagnostics {
				t.Errorf("%s: %s: %s", d.Severity, d.Summary, d.Detail)
			}
			if resp.UpgradedState == nil {
				t.Fatal("no upgraded state")
			}
			current := edgeWorkerSchemaV1()
			raw, err := resp.UpgradedState.Unmarshal(current.Type().TerraformType(ctx))
			if err != nil {
				t.Fatal(err)
			}
			var m edgeWorkerModel
			if diags := (tfsdk.State{Schema: current, Raw: raw}).Get(ctx, &m); diags.HasError() {
				t.Fatal(diags)
			}
			if c.want == nil {
				if !m.Routes.IsNull() {
					t.Errorf("routes = %s, want null", m.Routes)
				}
			} else {
				var got []string
				if diags := m.Routes.ElementsAs(ctx, &got, false); diags.HasError() || m.Routes.IsNull() {
					t.Fatalf("routes = %s: %v", m.Routes, diags)
				}
				slices.Sort(got)
				if !slices.Equal(got, c.want) {
					t.Errorf("routes = %v, want %v", got, c.want)
				}
			}
			if m.Name.ValueString() != "kamuidash-edge-test" || m.FreshnessBudget.ValueString() != "120s" ||
				m.UpstreamTimeout.ValueString() != "90000ms" || m.LogSampleRate.ValueFloat64() != 0.01 ||
				m.SizeBytes.ValueInt64() != 42 || m.Etag.ValueString() != "etag-1" || !m.SourceDir.IsNull() ||
				m.SigningSecret.ValueString() != strings.Repeat("s", route.MinSigningSecretBytes) {
				t.Errorf("the other attributes changed: name %s, budget %s, timeout %s, rate %s, size %s, etag %s, source_dir %s",
					m.Name, m.FreshnessBudget, m.UpstreamTimeout, m.LogSampleRate, m.SizeBytes, m.Etag, m.SourceDir)
			}
		})
	}
}

func TestAccEdgeWorker_ValidatedAtPlan(t *testing.T) {
	edge := newTestEdge(t)
	for name, tc := range map[string]struct{ extra, want string }{
		"budget under KV's minimum": {`freshness_budget = "30s"`, `(?s)freshness_budget.*between 45s and\s+1h0m0s`},
		"fractional budget":         {`freshness_budget = "60.5s"`, `whole seconds`},
		"missing source_dir":        {`source_dir = "/nonexistent/fork"`, `(?s)Unable to Build Edge Worker|Does Not Build`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      edgeWorkerConfig(edge, tc.extra),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}

func TestAccEdgeWorker_MissingToolchainIsAPlanDiagnostic(t *testing.T) {
	edge := newTestEdge(t)
	t.Setenv(bundle.GoEnvVar, "/nonexistent/go")
	t.Setenv("PATH", "/nonexistent")
	// A fork, so the embedded build's artifact cache cannot answer without a toolchain.
	fork := forkOf(t, func(s string) string { return s + "\n// toolchain test\n" })
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      edgeWorkerConfig(edge, "source_dir = "+fmt.Sprintf("%q", fork)),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Go Toolchain Not Found.*install Go`),
		}},
	})
}

func TestAccEdgeWorker_ExistingScriptAsksForImport(t *testing.T) {
	edge := newTestEdge(t)
	if _, err := edge.client(t).UploadWorker(context.Background(), edge.Identity().AccountID, "kamuidash-edge-test", kdcf.WorkerUpload{
		MainModule: "a.mjs",
		Modules:    []kdcf.WorkerModule{{Name: "a.mjs", MIMEType: "application/javascript+module", Content: []byte("export default {}")}},
	}); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      edgeWorkerConfig(edge, ""),
			ExpectError: regexp.MustCompile(`(?s)Edge Worker Already Exists.*terraform\s+import`),
		}},
	})
	if s, _ := edge.Script("kamuidash-edge-test"); s == nil || s.MainModule != "a.mjs" {
		t.Fatal("the existing script was overwritten")
	}
}

// TestAccEdgeWorker_UploadStoredWithoutAnAnswerIsTakenAsUploaded: the API stored the first
// deployment's script but its answer never came. The script holds exactly what was sent: the
// create takes it as uploaded (with a warning), where it failed and left a script the next
// apply asked to import.
func TestAccEdgeWorker_UploadStoredWithoutAnAnswerIsTakenAsUploaded(t *testing.T) {
	edge := newTestEdgeBehind(t, loseAnswers(http.MethodPut, "/workers/scripts/kamuidash-edge-test", nil))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: edgeWorkerConfig(edge, ""),
			Check: func(s *terraform.State) error {
				sc, _ := edge.Script("kamuidash-edge-test")
				if sc == nil {
					return fmt.Errorf("no script stored")
				}
				if got := s.RootModule().Resources[edgeWorkerAddr].Primary.Attributes["etag"]; got != sc.ETag {
					return fmt.Errorf("state etag %q, the stored script's %q", got, sc.ETag)
				}
				return nil
			},
		}},
	})
}

// TestAccEdgeWorker_RouteCreatedWithoutAnAnswerIsKept: a route's create was carried out but its
// answer never came. The create looks again: a route of the pattern to this script is that
// create's, and the apply carries on. Before, the create failed after the upload and the
// Worker was tainted: the next apply would replace it (every request failing meanwhile), and
// the guard refuses such a plan until the Worker is untainted by hand.
func TestAccEdgeWorker_RouteCreatedWithoutAnAnswerIsKept(t *testing.T) {
	edge := newTestEdgeBehind(t, loseAnswers(http.MethodPost, "/workers/routes", nil))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: edgeWorkerConfig(edge, ""),
				Check: func(*terraform.State) error {
					var names []string
					for _, rt := range edge.Routes() {
						names = append(names, rt.Pattern+"→"+rt.Script)
					}
					slices.Sort(names)
					if want := []string{"*.kamui.test/*→kamuidash-edge-test", "kamui.test/*→kamuidash-edge-test"}; !slices.Equal(names, want) {
						return fmt.Errorf("routes = %v, want %v", names, want)
					}
					return nil
				},
			},
			{
				Config: edgeWorkerConfig(edge, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// TestAccEdgeWorker_UploadFailedBesideAnotherScriptStillFails: the upload's answer was lost and
// the script under its name is not what was sent (another writer's): the create fails as
// before, and leaves that script alone.
func TestAccEdgeWorker_UploadFailedBesideAnotherScriptStillFails(t *testing.T) {
	contentType, body, err := kdcf.EncodeWorkerUpload(map[string]any{"main_module": "other.mjs"},
		[]kdcf.WorkerModule{{Name: "other.mjs", MIMEType: "application/javascript+module", Content: []byte("export default {}")}})
	if err != nil {
		t.Fatal(err)
	}
	edge := newTestEdgeBehind(t, loseAnswers(http.MethodPut, "/workers/scripts/kamuidash-edge-test", func(r *http.Request) *http.Request {
		r = r.Clone(r.Context())
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		r.Header.Set("Content-Type", contentType)
		return r
	}))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      edgeWorkerConfig(edge, ""),
			ExpectError: regexp.MustCompile(`(?s)Unable to Upload Edge Worker`),
		}},
	})
	if sc, _ := edge.Script("kamuidash-edge-test"); sc == nil || sc.MainModule != "other.mjs" {
		t.Fatal("the other writer's script was not left alone")
	}
}

// sameBindings compares what the API gives back with what was uploaded: a secret's text never
// comes back and is not compared; any other value, a type or a missing binding is a difference.
func TestSameBindingsLeavesOnlySecretTextUncompared(t *testing.T) {
	uploaded := []map[string]any{
		{"type": "kv_namespace", "name": "ROUTES", "namespace_id": "ns1"},
		{"type": "r2_bucket", "name": "STATIC", "bucket_name": "b1"},
		{"type": "plain_text", "name": "PLATFORM_DOMAIN", "text": "kamui.test"},
		{"type": "secret_text", "name": "SIGNING_SECRET", "text": "s3cr3t"},
	}
	readBack := func(edit func(b []map[string]any) []map[string]any) []map[string]any {
		var out []map[string]any
		for _, b := range uploaded {
			c := map[string]any{}
			for k, v := range b {
				c[k] = v
			}
			if c["type"] == "secret_text" {
				delete(c, "text")
			}
			out = append(out, c)
		}
		slices.Reverse(out) // the order is the API's
		return edit(out)
	}
	same := func(b []map[string]any) []map[string]any { return b }
	if !sameBindings(readBack(same), uploaded) {
		t.Error("the bindings as read back differ from those uploaded")
	}
	for name, edit := range map[string]func([]map[string]any) []map[string]any{
		"another namespace": func(b []map[string]any) []map[string]any { b[3]["namespace_id"] = "ns2"; return b },
		"another bucket":    func(b []map[string]any) []map[string]any { b[2]["bucket_name"] = "b2"; return b },
		"another text":      func(b []map[string]any) []map[string]any { b[1]["text"] = "other.test"; return b },
		"a secret as text":  func(b []map[string]any) []map[string]any { b[0]["type"] = "plain_text"; return b },
		"a binding missing": func(b []map[string]any) []map[string]any { return b[1:] },
		"a binding too many": func(b []map[string]any) []map[string]any {
			return append(b, map[string]any{"type": "plain_text", "name": "X", "text": "x"})
		},
	} {
		if sameBindings(readBack(edit), uploaded) {
			t.Errorf("%s: taken as the same bindings", name)
		}
	}
}

// Every binding the provider uploads is one the Worker reads, of the kind the contract
// (route.WorkerBindings) names, with a value the Worker accepts and reads back as configured:
// the upload's metadata goes through the Worker's own ParseConfig.
func TestEdgeWorkerBindingsMatchTheWorkersContract(t *testing.T) {
	for _, c := range []struct {
		budget, timeout string
		rate            float64
	}{
		{route.DefaultFreshnessBudget.String(), maxUpstreamTimeout.String(), 0.01},
		{route.MinFreshnessBudget.String(), "100ms", 0},
		{route.MaxFreshnessBudget.String(), "2.5s", 1},
		{"17m3s", "30s", 1.0 / 3},
	} {
		m := edgeWorkerModel{
			RoutesNamespaceID:  types.StringValue("routes-namespace-id"),
			DomainsNamespaceID: types.StringValue("domains-namespace-id"),
			StaticBucket:       types.StringValue("static-bucket"),
			FreshnessBudget:    timetypes.NewGoDurationValueFromStringMust(c.budget),
			UpstreamTimeout:    timetypes.NewGoDurationValueFromStringMust(c.timeout),
			LogSampleRate:      types.Float64Value(c.rate),
			// Placeholders of exactly the minimum sizes, not secrets.
			SigningSecret: types.StringValue(strings.Repeat("s", route.MinSigningSecretBytes)),
			CacheMarker:   types.StringValue(strings.Repeat("m", route.MinCacheMarkerBytes)),
		}
		got := edgeWorkerBindings(m, "kamui.test")
		if len(got) != len(route.WorkerBindings) {
			t.Fatalf("%d bindings, the contract has %d", len(got), len(route.WorkerBindings))
		}
		texts := map[string]string{}
		for i, b := range got {
			want := route.WorkerBindings[i]
			value, ok := b[bindingValueField(want.Kind)].(string)
			if b["name"] != want.Name || b["type"] != string(want.Kind) || !ok || value == "" || len(b) != 3 {
				t.Errorf("binding %d: %v; the contract says %+v", i, redactedBinding(b), want)
				continue
			}
			if want.Format == route.FormatObject {
				continue
			}
			if _, err := want.Parse(value); err != nil {
				t.Errorf("%s: %v", want.Name, err)
			}
			texts[want.Name] = value
		}
		cfg, err := edge.ParseConfig(func(name string) (string, bool) { v, ok := texts[name]; return v, ok })
		if err != nil {
			t.Errorf("budget %s, timeout %s, rate %v: the Worker refuses the upload: %v", c.budget, c.timeout, c.rate, err)
			continue
		}
		budget, _ := time.ParseDuration(c.budget)
		timeout, _ := time.ParseDuration(c.timeout)
		if cfg.TTLs.Budget != budget || cfg.UpstreamTimeout != timeout || cfg.PlatformDomain != "kamui.test" ||
			cfg.LogSamplePerMillion != int(c.rate*1_000_000) ||
			string(cfg.SigningSecret) != m.SigningSecret.ValueString() || cfg.CacheMarker != m.CacheMarker.ValueString() {
			t.Errorf("budget %s, timeout %s, rate %v: the Worker reads budget %v, timeout %v, rate %d, domain %q",
				c.budget, c.timeout, c.rate, cfg.TTLs.Budget, cfg.UpstreamTimeout, cfg.LogSamplePerMillion, cfg.PlatformDomain)
		}
	}
}

// redactedBinding is a binding's metadata fit for a test failure: secret text left out.
func redactedBinding(b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range b {
		out[k] = v
	}
	if out["type"] == string(route.SecretTextBinding) {
		out["text"] = "(redacted)"
	}
	return out
}

// TestAccEdgeWorker_PlatformDomainChangeReuploads: the Worker's PLATFORM_DOMAIN binding is the
// provider's platform_domain; moving the platform to another domain must plan an in-place
// upload, not leave the Worker serving the old domain behind an empty plan.
func TestAccEdgeWorker_PlatformDomainChangeReuploads(t *testing.T) {
	edge := newTestEdge(t)
	moved := strings.Replace(edgeWorkerConfig(edge, ""), `platform_domain = "kamui.test"`, `platform_domain = "apps.kamui.test"`, 1)
	bound := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			s, _ := edge.Script("kamuidash-edge-test")
			if s == nil {
				return fmt.Errorf("no script")
			}
			for _, b := range s.Bindings {
				if b.Name() == route.BindingPlatformDomain {
					if b["text"] != want {
						return fmt.Errorf("PLATFORM_DOMAIN binding = %v, want %q", b["text"], want)
					}
					return nil
				}
			}
			return fmt.Errorf("no PLATFORM_DOMAIN binding")
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: edgeWorkerConfig(edge, ""), Check: bound("kamui.test")},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(edgeWorkerAddr, plancheck.ResourceActionUpdate)},
				},
				Check: bound("apps.kamui.test"),
			},
			{
				Config:           moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}

// TestAccEdgeWorker_RouteRepointedInDashboardIsRepaired: a zone route of the Worker pointed at
// another script (or set to no Worker) in the dashboard shows as an update, and the apply
// points it back, rather than failing to create a route whose pattern already exists.
func TestAccEdgeWorker_RouteRepointedInDashboardIsRepaired(t *testing.T) {
	edge := newTestEdge(t)
	config := edgeWorkerConfig(edge, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(*terraform.State) error {
					c, zone := edge.client(t), edge.Identity().ZoneID
					routes, err := c.ListWorkerRoutes(context.Background(), zone)
					if err != nil {
						return err
					}
					for _, rt := range routes {
						if rt.Pattern == "kamui.test/*" {
							_, err := c.Workers.Routes.Update(context.Background(), rt.ID, workers.RouteUpdateParams{
								ZoneID: cf.F(zone), Pattern: cf.F(rt.Pattern), Script: cf.F("someone-elses-worker")})
							return err
						}
					}
					return fmt.Errorf("no route kamui.test/*")
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(edgeWorkerAddr, plancheck.ResourceActionUpdate)},
				},
				Check: func(*terraform.State) error {
					routes, err := edge.client(t).ListWorkerRoutes(context.Background(), edge.Identity().ZoneID)
					if err != nil {
						return err
					}
					for _, rt := range routes {
						if rt.Pattern == "kamui.test/*" && rt.Script != "kamuidash-edge-test" {
							return fmt.Errorf("route %s still goes to %q", rt.Pattern, rt.Script)
						}
					}
					return nil
				},
			},
			{
				Config:           config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}

// TestAccEdgeWorker_AddedRouteOfAnotherWorkerIsNotTakenOver: a pattern added to routes that
// another script already owns (and never was this Worker's) fails the apply, as on a create,
// and the other script keeps its route: only a route re-pointed away from this Worker is
// pointed back.
func TestAccEdgeWorker_AddedRouteOfAnotherWorkerIsNotTakenOver(t *testing.T) {
	edge := newTestEdge(t)
	const foreign = "api.kamui.test/*"
	if err := edge.client(t).CreateWorkerRoute(context.Background(), edge.Identity().ZoneID, foreign, "someone-elses-worker"); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: edgeWorkerConfig(edge, "")},
			{
				Config: strings.Replace(edgeWorkerConfig(edge, ""), `"kamui.test/*"]`, `"kamui.test/*", "`+foreign+`"]`, 1),
				// The apply fails; the foreign route is checked after the test.
				ExpectError: regexp.MustCompile(`(?s)Unable to Create Worker Route.*already exists`),
			},
		},
	})
	routes, err := edge.client(t).ListWorkerRoutes(context.Background(), edge.Identity().ZoneID)
	if err != nil {
		t.Fatal(err)
	}
	kept := false
	for _, rt := range routes {
		kept = kept || rt.Pattern == foreign && rt.Script == "someone-elses-worker"
	}
	if !kept {
		t.Fatalf("the route %s of someone-elses-worker was taken over: the zone has %+v", foreign, routes)
	}
}

// TestAccEdgeWorker_TwoResourcesOfOneNameAreRefused: two resources of one configuration naming
// the same script are created in parallel; both would find the name free, and each upload
// would overwrite the other's, every plan after re-uploading one of them. The second is
// refused.
func TestAccEdgeWorker_TwoResourcesOfOneNameAreRefused(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: edgeWorkerConfig(edge, "") + `
resource "kamuidash_edge_worker" "twin" {
  name                 = "kamuidash-edge-test"
  routes_namespace_id  = kamuidash_kv_namespace.routes.id
  domains_namespace_id = kamuidash_kv_namespace.domains.id
  static_bucket        = "kamuidash-test-static"
  signing_secret       = "fedcba9876543210fedcba9876543210-twin"
  cache_marker         = "marker-9876543210-twin"
}
`,
			ExpectError: regexp.MustCompile(`Edge Worker Already Exists`),
		}},
	})
}
