package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// apiTap sits in front of a test edge's API: it counts the calls by kind, records every value
// written to each key, and can make a bulk write report chosen keys unsuccessful (without
// writing them), as Cloudflare's bulk endpoint can.
type apiTap struct {
	mu       sync.Mutex
	calls    map[string]int
	written  map[string]map[string]bool // key → the distinct values written to it
	failKeys map[string]bool
}

func newAPITap() *apiTap {
	return &apiTap{calls: map[string]int{}, written: map[string]map[string]bool{}, failKeys: map[string]bool{}}
}

// isFilterValue reports whether an API path names one of the name filter's own values.
func isFilterValue(path string) bool {
	i := strings.LastIndex(path, "/values/")
	return i >= 0 && route.IsFilterKey(path[i+len("/values/"):])
}

// callKind names a request by what it does to the budget.
func callKind(r *http.Request) string {
	p := r.URL.Path
	switch {
	// The name filter's own calls (per namespace and batch: its recent keys read and written,
	// the filter written and read back) are the filter's budget, counted apart from the
	// resources' own.
	case isFilterValue(p) && r.Method == http.MethodGet:
		return "filter read"
	case isFilterValue(p):
		return "filter write"
	case strings.Contains(p, "/values/") && r.Method == http.MethodGet:
		return "kv read"
	case strings.Contains(p, "/metadata/"):
		return "kv metadata read"
	case strings.Contains(p, "/values/"):
		return "kv single write"
	case strings.HasSuffix(p, "/bulk/get"):
		return "kv bulk read"
	case strings.HasSuffix(p, "/bulk") || strings.HasSuffix(p, "/bulk/delete"):
		return "kv bulk write"
	case strings.HasSuffix(p, "/keys"):
		return "kv listing"
	case strings.HasSuffix(p, "/custom_hostnames") && r.Method == http.MethodGet:
		return "hostname listing"
	case strings.Contains(p, "/custom_hostnames/") && r.Method == http.MethodGet:
		return "hostname read"
	case strings.HasSuffix(p, "/purge_cache"):
		return "purge"
	}
	return r.Method + " other"
}

func (a *apiTap) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind := callKind(r)
		a.mu.Lock()
		a.calls[kind]++
		a.mu.Unlock()
		if kind != "kv bulk write" || r.Method != http.MethodPut {
			next.ServeHTTP(w, r)
			return
		}
		var items []map[string]any
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &items); err != nil {
			http.Error(w, "bad bulk body", http.StatusBadRequest)
			return
		}
		var kept []map[string]any
		var failed []string
		a.mu.Lock()
		for _, it := range items {
			key, _ := it["key"].(string)
			if a.failKeys[key] {
				failed = append(failed, key)
				continue
			}
			value, _ := it["value"].(string)
			if a.written[key] == nil {
				a.written[key] = map[string]bool{}
			}
			a.written[key][value] = true
			kept = append(kept, it)
		}
		a.mu.Unlock()
		if len(failed) == 0 {
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
			return
		}
		if len(kept) > 0 {
			b, _ := json.Marshal(kept)
			inner := r.Clone(r.Context())
			inner.Body, inner.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
			rec := &discardWriter{header: http.Header{}}
			next.ServeHTTP(rec, inner)
			if rec.status >= 300 {
				http.Error(w, "the kept part of the bulk write failed", rec.status)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		out, _ := json.Marshal(map[string]any{"success": true, "errors": []any{}, "messages": []any{},
			"result": map[string]any{"successful_key_count": len(kept), "unsuccessful_keys": failed}})
		_, _ = w.Write(out) // the client checks what arrives
	})
}

type discardWriter struct {
	header http.Header
	status int
}

func (d *discardWriter) Header() http.Header { return d.header }
func (d *discardWriter) Write(b []byte) (int, error) {
	if d.status == 0 {
		d.status = http.StatusOK
	}
	return len(b), nil
}
func (d *discardWriter) WriteHeader(s int) { d.status = s }

func (a *apiTap) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = map[string]int{}
}

func (a *apiTap) count(kind string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls[kind]
}

func (a *apiTap) summary() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, _ := json.Marshal(a.calls)
	return string(b)
}

func (a *apiTap) failWrites(keys ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.failKeys = map[string]bool{}
	for _, k := range keys {
		a.failKeys[k] = true
	}
}

// manyTenants is n dynamic apps and the first d of them with a custom domain each.
func manyTenants(edge *testEdge, n, d int, port int) string {
	var b strings.Builder
	b.WriteString(edge.providerBlock())
	b.WriteString(`
resource "kamuidash_kv_namespace" "routes" {
  title = "routes"
}
resource "kamuidash_kv_namespace" "domains" {
  title = "domains"
}
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `
resource "kamuidash_tenant_app" "app%[1]d" {
  name                = "app-%02[1]d"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  origin              = "origin.kamui.test"
  namespace           = "tenant-app-%02[1]d"
  service             = "web"
  port                = %[2]d
}
`, i, port)
	}
	for i := 0; i < d; i++ {
		fmt.Fprintf(&b, `
resource "kamuidash_custom_domain" "www%[1]d" {
  hostname             = "www.app-%02[1]d.example"
  domains_namespace_id = kamuidash_kv_namespace.domains.id
  app                  = kamuidash_tenant_app.app%[1]d.name
}
`, i)
	}
	return b.String()
}

// planCheckFunc turns a function into a plan check: the plan is computed (so the refresh it
// carries is done) when it runs.
type planCheckFunc func() error

func (f planCheckFunc) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = f()
}

// TestAccEconomy_RefreshFromListings: after an apply of 40 apps and 10 custom domains, a
// refresh reads no KV value and no hostname at all: one listing per namespace and one of the
// zone's hostnames serve every Read. A record changed outside Terraform is found with one bulk
// read of just that key.
func TestAccEconomy_RefreshFromListings(t *testing.T) {
	tap := newAPITap()
	edge := newTestEdgeBehind(t, tap.wrap, func(c *cfapi.Config) { c.AutoValidate = 1 }, activeFallbackOrigin)
	config := manyTenants(edge, 40, 10, 8080)
	var routesNS string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: tap.reset,
				Config:    config,
				PlanOnly:  true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{planCheckFunc(func() error {
					reads := tap.count("kv read") + tap.count("kv metadata read") + tap.count("kv bulk read") + tap.count("hostname read")
					if reads != 0 || tap.count("kv listing") > 2 || tap.count("hostname listing") > 1 {
						return fmt.Errorf("a refresh of 40 apps and 10 domains made %s: want no value or hostname read, at most one listing per namespace and one of the hostnames", tap.summary())
					}
					return nil
				})}},
			},
			{
				// A record changed outside Terraform (another writer stamps its own metadata).
				PreConfig: func() {
					for _, ns := range edge.KVNamespaces() {
						if ns.Title == "routes" {
							routesNS = ns.ID
						}
					}
					changeRecord(t, edge, routesNS, "app-07", 9090)
					tap.reset()
				},
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kamuidash_tenant_app.app7", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("kamuidash_tenant_app.app8", plancheck.ResourceActionNoop),
					planCheckFunc(func() error {
						if got := tap.count("kv bulk read") + tap.count("kv read"); got != 1 {
							return fmt.Errorf("the drifted record took %d reads (%s), want 1", got, tap.summary())
						}
						return nil
					}),
				}},
			},
		},
	})
}

// changeRecord rewrites app's record with another port, as a tool other than this provider
// would (with its own revision in the metadata).
func changeRecord(t *testing.T, edge *testEdge, ns, app string, port int) {
	t.Helper()
	value, rec, err := route.EncodeRecord(route.Record{App: app, Status: route.StatusActive, Kind: route.KindDynamic,
		Dynamic: &route.Dynamic{Origin: "origin.kamui.test", Upstream: fmt.Sprintf("tenant-%s/web:%d", app, port), TimeoutMS: 30000}})
	if err != nil {
		t.Fatal(err)
	}
	id := edge.Identity()
	req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("%s/accounts/%s/storage/kv/namespaces/%s/bulk", edge.URL, id.AccountID, ns),
		strings.NewReader(fmt.Sprintf(`[{"key":%q,"value":%q,"metadata":%s}]`, app, value, route.EncodeMetadata(rec.Rev, ownerTenantApp))))
	req.Header.Set("Authorization", "Bearer "+id.APIToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("changing %s outside Terraform: %v %v", app, err, resp)
	}
	_ = resp.Body.Close()
}

// TestAccEconomy_CreatesShareBulkWrites: 60 new apps and 20 custom domains at Terraform's
// default parallelism (10) share bulk writes, with no single-key write, no read (the listings
// say the keys are free) and no purge (a new host has nothing worth purging).
func TestAccEconomy_CreatesShareBulkWrites(t *testing.T) {
	tap := newAPITap()
	edge := newTestEdgeBehind(t, tap.wrap, func(c *cfapi.Config) { c.AutoValidate = 1 }, activeFallbackOrigin)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: manyTenants(edge, 60, 20, 8080),
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{planCheckFunc(func() error {
				// At Terraform's default -parallelism (10) the floor is ⌈60/10⌉ + ⌈20/10⌉ = 8; the
				// mappings are written as their hostnames validate, in poll rounds, and a loaded
				// machine stretches Terraform's gaps between starts past the batches' lull, so
				// the bound asks for sharing (a call per 4 writes at most), not the floor.
				// TestKVBatches_StaggeredStartsFillBatchesToTheParallelism pins the batching.
				const goal = (60 + 20) / 4
				writes, single := tap.count("kv bulk write"), tap.count("kv single write")
				reads := tap.count("kv read") + tap.count("kv bulk read")
				if single != 0 || writes == 0 || writes > goal || reads != 0 || tap.count("purge") != 0 {
					return fmt.Errorf("creating 60 apps and 20 custom domains made %s: want at most %d bulk writes, no single-key write, read or purge", tap.summary(), goal)
				}
				return nil
			})}},
		}},
	})
}

// TestAccEconomy_HalfFailedBulkWrite: when the bulk API keeps reporting two keys unsuccessful,
// exactly their two apps fail (by name), the others are applied and in state, no key gets two
// different values, and once the API recovers the next apply creates just the two.
func TestAccEconomy_HalfFailedBulkWrite(t *testing.T) {
	tap := newAPITap()
	edge := newTestEdgeBehind(t, tap.wrap)
	config := manyTenants(edge, 12, 0, 8080)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { tap.failWrites("app-03", "app-07") },
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)"app-0[37]".*reported unsuccessful.*"app-0[37]".*reported unsuccessful`),
			},
			{
				PreConfig: func() { tap.failWrites() },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kamuidash_tenant_app.app3", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("kamuidash_tenant_app.app7", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("kamuidash_tenant_app.app4", plancheck.ResourceActionNoop),
				}},
			},
		},
	})
	tap.mu.Lock()
	defer tap.mu.Unlock()
	for key, values := range tap.written {
		if len(values) != 1 {
			t.Errorf("%s was written with %d different values", key, len(values))
		}
	}
	if len(tap.written) != 12 {
		t.Errorf("%d keys written, want the 12 apps", len(tap.written))
	}
}

// TestAccEconomy_SurvivesRateLimitsAndErrors: an apply through a storm of 429s and slow
// answers completes with state matching the API (the harness re-plans and expects it empty), a
// refresh through a burst of 5xx (fewer than one call's five attempts) succeeds on the
// provider's retries, and once the API is healthy the plan is empty. The burst is a count, not
// a fraction: with a random 30 % of answers failing, a call could lose every attempt now and
// then, and the step, which expects success, failed one run in a few.
func TestAccEconomy_SurvivesRateLimitsAndErrors(t *testing.T) {
	tap := newAPITap()
	edge := newTestEdgeBehind(t, tap.wrap, func(c *cfapi.Config) { c.AutoValidate = 1 }, activeFallbackOrigin)
	config := manyTenants(edge, 20, 5, 8080)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					must(t, edge.SetFaults(cfapi.FaultSpec{Status: http.StatusTooManyRequests, RetryAfterSeconds: 1, Fraction: 0.25, LatencyMillis: 20}))
				},
				Config: config,
			},
			{
				PreConfig: func() {
					must(t, edge.SetFaults(cfapi.FaultSpec{Status: http.StatusServiceUnavailable, Count: 4}))
				},
				Config:   config,
				PlanOnly: true,
			},
			{
				PreConfig: func() { must(t, edge.SetFaults(cfapi.FaultSpec{})) },
				Config:    config,
				PlanOnly:  true,
			},
		},
	})
	tap.mu.Lock()
	defer tap.mu.Unlock()
	for key, values := range tap.written {
		if len(values) != 1 {
			t.Errorf("%s was written with %d different values", key, len(values))
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// moveConfig is an app, a route record and a custom domain whose namespaces are the named
// kamuidash_kv_namespace resources.
func moveConfig(edge *testEdge, routes, domains string) string {
	return edge.providerBlock() + fmt.Sprintf(`
resource "kamuidash_kv_namespace" "routes_a" {
  title = "routes-a"
}
resource "kamuidash_kv_namespace" "routes_b" {
  title = "routes-b"
}
resource "kamuidash_kv_namespace" "domains_a" {
  title = "domains-a"
}
resource "kamuidash_kv_namespace" "domains_b" {
  title = "domains-b"
}
resource "kamuidash_tenant_app" "shop" {
  name                = "shop"
  routes_namespace_id = kamuidash_kv_namespace.%[1]s.id
  origin              = "origin.kamui.test"
  namespace           = "tenant-shop"
  service             = "web"
  port                = 8080
}
resource "kamuidash_route_record" "docs" {
  app                 = "docs"
  routes_namespace_id = kamuidash_kv_namespace.%[1]s.id
  static = {
    prefix = "sites/docs/v1/"
  }
}
resource "kamuidash_custom_domain" "www" {
  hostname             = "www.shop.example"
  domains_namespace_id = kamuidash_kv_namespace.%[2]s.id
  app                  = kamuidash_tenant_app.shop.name
}
`, routes, domains)
}

// copyNamespace copies every key of from into to with its value and metadata, as `kv migrate`
// does.
func copyNamespace(t *testing.T, edge *testEdge, from, to string) {
	t.Helper()
	var items []map[string]any
	for _, ns := range edge.KVNamespaces() {
		if ns.ID != from {
			continue
		}
		for key, e := range ns.Entries {
			items = append(items, map[string]any{"key": key, "value": string(e.Value), "metadata": e.Metadata})
		}
	}
	if len(items) == 0 {
		t.Fatalf("namespace %s has nothing to copy", from)
	}
	body, _ := json.Marshal(items)
	id := edge.Identity()
	req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("%s/accounts/%s/storage/kv/namespaces/%s/bulk", edge.URL, id.AccountID, to), bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+id.APIToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("copying %s to %s: %v %v", from, to, err, resp)
	}
	_ = resp.Body.Close()
}

func (e *testEdge) namespaceID(t *testing.T, title string) string {
	t.Helper()
	for _, ns := range e.KVNamespaces() {
		if ns.Title == title {
			return ns.ID
		}
	}
	t.Fatalf("no namespace %q", title)
	return ""
}

// TestAccEconomy_ResourcesFollowTheirDataToANewNamespace: after the route data was copied into
// new namespaces, pointing the app, the record and the custom domain at them is an update in
// place that adopts the copies (no write) and leaves the old namespaces' keys alone; a move to a
// namespace without the copy writes the key there.
func TestAccEconomy_ResourcesFollowTheirDataToANewNamespace(t *testing.T) {
	tap := newAPITap()
	edge := newTestEdgeBehind(t, tap.wrap, func(c *cfapi.Config) { c.AutoValidate = 1 }, activeFallbackOrigin)
	inPlace := func(addrs ...string) []plancheck.PlanCheck {
		var checks []plancheck.PlanCheck
		for _, a := range addrs {
			checks = append(checks, plancheck.ExpectResourceAction(a, plancheck.ResourceActionUpdate))
		}
		return checks
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: moveConfig(edge, "routes_a", "domains_a")},
			{
				PreConfig: func() {
					copyNamespace(t, edge, edge.namespaceID(t, "routes-a"), edge.namespaceID(t, "routes-b"))
					copyNamespace(t, edge, edge.namespaceID(t, "domains-a"), edge.namespaceID(t, "domains-b"))
					tap.reset()
				},
				Config: moveConfig(edge, "routes_b", "domains_b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: inPlace("kamuidash_tenant_app.shop", "kamuidash_route_record.docs", "kamuidash_custom_domain.www"),
					PostApplyPostRefresh: []plancheck.PlanCheck{planCheckFunc(func() error {
						if got := tap.count("kv bulk write") + tap.count("kv single write"); got != 0 {
							return fmt.Errorf("following copies made %d writes (%s), want none: identical keys are adopted", got, tap.summary())
						}
						for _, ns := range []string{"routes-a", "domains-a"} {
							if len(namespaceEntries(edge, edge.namespaceID(t, ns))) == 0 {
								return fmt.Errorf("the move emptied the old namespace %s", ns)
							}
						}
						return nil
					})},
				},
			},
			{
				// Back to the first namespaces after they were emptied: the keys are written.
				PreConfig: func() {
					for _, title := range []string{"routes-a", "domains-a"} {
						clearNamespace(t, edge, edge.namespaceID(t, title))
					}
					tap.reset()
				},
				Config: moveConfig(edge, "routes_a", "domains_a"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: inPlace("kamuidash_tenant_app.shop", "kamuidash_route_record.docs", "kamuidash_custom_domain.www"),
					PostApplyPostRefresh: []plancheck.PlanCheck{planCheckFunc(func() error {
						if got := len(namespaceEntries(edge, edge.namespaceID(t, "routes-a"))); got != 2 {
							return fmt.Errorf("routes-a holds %d keys after the move back, want shop and docs", got)
						}
						if got := len(namespaceEntries(edge, edge.namespaceID(t, "domains-a"))); got != 1 {
							return fmt.Errorf("domains-a holds %d keys after the move back, want the mapping", got)
						}
						return nil
					})},
				},
			},
		},
	})
}

// namespaceEntries are the namespace's resource keys: the name filter's own (route.IsFilterKey),
// which every new key rebuilds, are left out.
func namespaceEntries(edge *testEdge, id string) map[string]*cfapi.KVEntry {
	for _, ns := range edge.KVNamespaces() {
		if ns.ID == id {
			entries := make(map[string]*cfapi.KVEntry, len(ns.Entries))
			for k, e := range ns.Entries {
				if !route.IsFilterKey(k) {
					entries[k] = e
				}
			}
			return entries
		}
	}
	return nil
}

func clearNamespace(t *testing.T, edge *testEdge, id string) {
	t.Helper()
	var keys []string
	for k := range namespaceEntries(edge, id) {
		keys = append(keys, k)
	}
	body, _ := json.Marshal(keys)
	ident := edge.Identity()
	req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("%s/accounts/%s/storage/kv/namespaces/%s/bulk/delete", edge.URL, ident.AccountID, id), bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+ident.APIToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("clearing %s: %v %v", id, err, resp)
	}
	_ = resp.Body.Close()
}

// TestAccEconomyOff_OneCallPerResource keeps the per-resource path (the benchmark's anchor)
// working: create, an empty re-plan, an update and a destroy, with single-key calls only.
func TestAccEconomyOff_OneCallPerResource(t *testing.T) {
	t.Setenv(EnvAPIEconomy, "off")
	tap := newAPITap()
	edge := newTestEdgeBehind(t, tap.wrap, func(c *cfapi.Config) { c.AutoValidate = 1 }, activeFallbackOrigin)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: manyTenants(edge, 3, 1, 8080)},
			{
				Config: manyTenants(edge, 3, 1, 9090),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kamuidash_tenant_app.app1", plancheck.ResourceActionUpdate),
				}},
			},
		},
	})
	// The only listings are the name filter's, one per rebuild (it is built from the listing).
	if tap.count("kv bulk write") != 0 || tap.count("kv bulk read") != 0 || tap.count("kv single write") == 0 ||
		tap.count("kv listing") > tap.count("filter write") || tap.count("filter write") == 0 {
		t.Errorf("with the economy off the provider made %s: want single-key calls only, and a listing per filter rebuild", tap.summary())
	}
}
