package provider

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/rollout"
)

// fullEdge is a whole local edge (API, the Worker in workerd, tunnel emulation, the router)
// running in the test process, for the tests that need real requests through the Worker.
type fullEdge struct {
	env map[string]string
}

func startFullEdge(t *testing.T, options ...func(*localedge.Options)) *fullEdge {
	t.Helper()
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var logs lockedBuilder
	opts := localedge.Options{
		StateDir:  filepath.Join(dir, "state"),
		APIAddr:   "127.0.0.1:0",
		EdgeAddr:  "127.0.0.1:0",
		ReadyFile: ready,
		ZoneName:  "kamui.test",
		// Slower than the test edge's synchronous writes, so verification has to wait.
		KVPropagation:          time.Second,
		Router:                 true,
		RouterUpstreamTemplate: "127.0.0.1:{port}",
		RouterNamespacePrefix:  "tenant-",
	}
	for _, o := range options {
		o(&opts)
	}
	go func() {
		done <- localedge.Run(ctx, opts, io.Discard, &logs)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the local edge: %v", err)
		}
	})
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if _, err := os.Stat(ready); err == nil {
			env, err := rollout.ReadEnvFile(ready)
			if err != nil {
				t.Fatal(err)
			}
			return &fullEdge{env: env}
		}
		select {
		case err := <-done:
			t.Fatalf("the local edge stopped: %v\n%s", err, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the local edge did not become ready:\n%s", logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// lockedBuilder collects the local edge's logs from its goroutines.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// reachesBackend checks, right after an apply, that GET / for host through the edge answers
// 200 and that the backend (whose requests hits counts) has been reached: verify_propagation
// should have waited until it would.
func (e *fullEdge) reachesBackend(host string, hits *atomic.Int32) resource.TestCheckFunc {
	return func(*terraform.State) error {
		req, _ := http.NewRequest(http.MethodGet, e.env["KAMUIDASH_EDGE_URL"]+"/", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.StatusCode != 200 || hits.Load() == 0 {
			return fmt.Errorf("right after apply the edge answered HTTP %d for %s (backend hits %d); verify_propagation should have waited",
				resp.StatusCode, host, hits.Load())
		}
		return nil
	}
}

// withVerifyPropagation adds verify_propagation = true to a provider block.
func withVerifyPropagation(block string) string {
	return strings.TrimSuffix(block, "}\n") + "  verify_propagation = true\n}\n"
}

func (e *fullEdge) providerBlock() string {
	return fmt.Sprintf(`
provider "kamuidash" {
  api_token       = %q
  account_id      = %q
  zone_id         = %q
  api_base_url    = %q
  platform_domain = "kamui.test"
  environment     = "test"
  edge_url        = %q
  probe_key       = %q
}
`, e.env["CLOUDFLARE_API_TOKEN"], e.env["KAMUIDASH_ACCOUNT_ID"], e.env["KAMUIDASH_ZONE_ID"], e.env["KAMUIDASH_API_BASE_URL"],
		e.env["KAMUIDASH_EDGE_URL"], e.env["KAMUIDASH_PROBE_KEY"])
}

// propagationConfig is the edge and one app, with the provider's verify_propagation. The Worker
// signs with the local edge's own secret, whose probe key the provider block carries (both from
// the env file).
func propagationConfig(e *fullEdge, port int, timeout string) string {
	return withVerifyPropagation(e.providerBlock()) + fmt.Sprintf(`
resource "kamuidash_kv_namespace" "routes" {
  title = "routes"
}

resource "kamuidash_kv_namespace" "domains" {
  title = "domains"
}

resource "kamuidash_tunnel" "edge" {
  name            = "edge"
  origin_hostname = "origin.kamui.test"
  router_service  = "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080"
}

resource "kamuidash_edge_worker" "edge" {
  name                 = "edge"
  routes_namespace_id  = kamuidash_kv_namespace.routes.id
  domains_namespace_id = kamuidash_kv_namespace.domains.id
  static_bucket        = "static"
  freshness_budget     = "45s"
  signing_secret       = %q
  cache_marker         = "marker-test-only-0123"
  routes               = ["*.kamui.test/*"]
}

resource "kamuidash_tenant_app" "shop" {
  name                = "shop"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  origin              = kamuidash_tunnel.edge.origin_hostname
  namespace           = "tenant-shop"
  service             = "web"
  port                = %d
  timeout             = %q
  depends_on          = [kamuidash_edge_worker.edge]
}
`, e.env["KAMUIDASH_LOCAL_SIGNING_SECRET"], port, timeout)
}

// TestAccTenantApp_VerifyPropagation runs against a whole local edge: apply returns only once
// the Worker in workerd serves the new record (KV propagation is a second there), and a real
// request then reaches the tenant backend; a placement nobody answers at fails the apply with
// the edge's status.
func TestAccTenantApp_VerifyPropagation(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	e := startFullEdge(t)
	var hits atomic.Int32
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = fmt.Fprintln(w, "shop") // the checks read what arrives through the edge
	}))
	defer backend.Close()
	port := tcpPort(t, backend.Listener)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := tcpPort(t, closed)
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}

	servesShop := e.reachesBackend("shop.kamui.test", &hits)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: propagationConfig(e, port, "10s"),
				Check:  servesShop,
			},
			{
				Config: propagationConfig(e, port, "20s"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kamuidash_tenant_app.shop", plancheck.ResourceActionUpdate)},
				},
				Check: servesShop,
			},
			{
				Config:      propagationConfig(e, closedPort, "20s"),
				ExpectError: regexp.MustCompile(`(?s)Request Through the New Route Failed.*HTTP 502`),
			},
		},
	})
}

// A create whose check fails leaves the resource tainted, and the next apply replaces it:
// deletes the record it had just written and writes it again (a custom domain: deletes its
// custom hostname and validates a new one). The failure says so, and how to keep what was
// written, instead of only "apply again".
func TestAccTenantApp_VerifyPropagationFailedCreateSaysItIsTainted(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	e := startFullEdge(t)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := tcpPort(t, closed)
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      propagationConfig(e, closedPort, "10s"),
				ExpectError: regexp.MustCompile(`(?s)Request Through the New Route Failed.*HTTP 502.*tainted.*terraform untaint`),
			},
			{
				// What the advice is about: the next plan replaces the app.
				Config:             propagationConfig(e, closedPort, "10s"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kamuidash_tenant_app.shop", plancheck.ResourceActionReplace)},
				},
			},
		},
	})
}

// TestAccTenantApp_VerifyPropagationNeedsProbeKey: without a probe key every probe would be an
// ordinary request, so the plan is refused up front rather than an apply waiting in vain.
func TestAccTenantApp_VerifyPropagationNeedsProbeKey(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: withVerifyPropagation(edge.providerBlock()) + `
resource "kamuidash_kv_namespace" "routes" {
  title = "routes"
}

resource "kamuidash_tenant_app" "shop" {
  name                = "shop"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  origin              = "origin.kamui.test"
  namespace           = "tenant-shop"
  service             = "web"
  port                = 8080
}`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Probe Key Needed.*KAMUIDASH_PROBE_KEY`),
		}},
	})
}

// TestAccCustomDomain_VerifyPropagationNeedsItsApp: a custom domain whose app has no route
// record is served, to the edge's 404, so its verification does not pass: it waits out the
// provider's propagation_wait and then says the domain's app is missing. Pointed at an app that
// exists, the domain verifies, and a request for it reaches the app.
func TestAccCustomDomain_VerifyPropagationNeedsItsApp(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	e := startFullEdge(t, func(o *localedge.Options) { o.AutoValidate = 500 * time.Millisecond })
	var hits atomic.Int32
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = fmt.Fprintln(w, "shop")
	}))
	defer backend.Close()
	config := func(app string) string {
		cfg := propagationConfig(e, tcpPort(t, backend.Listener), "10s")
		// A wait that covers the freshness budget (45s), as the edge Worker's plan asks.
		cfg = strings.Replace(cfg, "  verify_propagation = true\n", "  verify_propagation = true\n  propagation_wait   = \"45s\"\n", 1)
		// Custom hostnames reach the Worker through the zone's catch-all route.
		cfg = strings.Replace(cfg, `routes               = ["*.kamui.test/*"]`, `routes               = ["*.kamui.test/*", "*/*"]`, 1)
		return cfg + fmt.Sprintf(`
resource "kamuidash_fallback_origin" "this" {
  hostname = "fallback.kamui.test"
}

resource "kamuidash_custom_domain" "www" {
  hostname             = "www.shop.example"
  app                  = %s
  domains_namespace_id = kamuidash_kv_namespace.domains.id
  depends_on           = [kamuidash_fallback_origin.this, kamuidash_edge_worker.edge]
}
`, app)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(`"shoq"`), // a typo: no app of that name
				ExpectError: regexp.MustCompile(`(?s)Route Did Not Propagate.*after 45s.*www\.shop\.example.*the app it names has no\s+route\s+record` +
					`.*Check the domain's app.*Tainted`),
			},
			{
				Config: config("kamuidash_tenant_app.shop.name"),
				Check:  e.reachesBackend("www.shop.example", &hits),
			},
		},
	})
}

// tcpPort is the port a TCP listener listens on.
func tcpPort(t *testing.T, ln net.Listener) int {
	t.Helper()
	addr, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("a TCP listener's address is a %T", ln.Addr())
	}
	return addr.Port
}
