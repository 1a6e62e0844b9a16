package provider

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// siteClockProvider is the provider with the static site's clock replaced, so that a test ages
// a retiring version past route.MaxFreshnessBudget without waiting for it.
type siteClockProvider struct {
	*kamuidashProvider
	now func() time.Time
}

func (p *siteClockProvider) Resources(ctx context.Context) []func() fwresource.Resource {
	resources := p.kamuidashProvider.Resources(ctx)
	for i, newResource := range resources {
		if _, ok := newResource().(*staticSiteResource); ok {
			resources[i] = func() fwresource.Resource { return &staticSiteResource{now: p.now} }
		}
	}
	return resources
}

// siteClock is the static site's clock a test moves: At sets it to d after its start, a fixed
// instant, and Stamp is how the state writes that time.
type siteClock struct {
	mu         sync.Mutex
	start, now time.Time
}

func newSiteClock() *siteClock {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return &siteClock{start: start, now: start}
}

func (c *siteClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *siteClock) At(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.start.Add(d) }

func (c *siteClock) Stamp(d time.Duration) string { return c.start.Add(d).Format(time.RFC3339) }

func providerFactoriesWithSiteClock(now func() time.Time) map[string]func() (tfprotov6.ProviderServer, error) {
	base, ok := New("test", testSources)().(*kamuidashProvider)
	if !ok {
		panic("New does not return a *kamuidashProvider")
	}
	p := &siteClockProvider{kamuidashProvider: base, now: now}
	return map[string]func() (tfprotov6.ProviderServer, error){"kamuidash": providerserver.NewProtocol6WithError(p)}
}

// servedSiteProblems says what of the site a static record in namespace ns names is missing
// from the bucket: the manifest, or an object it names. nil when the record is not there yet.
func (e *testEdge) servedSiteProblems(ns, app string) []string {
	entry, ok := e.KVValue(ns, app)
	if !ok {
		return nil
	}
	rec, err := route.DecodeRecord(entry.Value)
	if err != nil || rec.Static == nil {
		return []string{fmt.Sprintf("the record of %s is not a static record (%v)", app, err)}
	}
	body := e.staticObject(rec.Static.Manifest)
	if body == nil {
		return []string{"the manifest " + rec.Static.Manifest + " the record names is gone"}
	}
	m, err := route.DecodeSiteManifest(body)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	for p, f := range m.Files {
		if e.staticObject(route.SiteObjectKey(rec.Static.Prefix, f.Object)) == nil {
			problems = append(problems, "the object of "+p+" in the served "+rec.Static.Manifest+" is gone")
		}
	}
	return problems
}

// TestAccStaticSite_RetiringVersionOutlivesTheEdgeCaches: with retain_versions = 1 every deploy
// drops the version the route record names until the record moves after it, and the edge
// serves the old record for up to its freshness budget after that. At every KV write (the
// record about to move) the version it names must still be whole; a version is deleted only by
// an apply after it has been retiring longer than route.MaxFreshnessBudget, and what an earlier
// release left in the bucket, unknown to the state, retires from the apply that finds it.
func TestAccStaticSite_RetiringVersionOutlivesTheEdgeCaches(t *testing.T) {
	var (
		mu       sync.Mutex
		edge     *testEdge
		ns       string
		problems []string
	)
	edge = newTestEdgeBehind(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet && strings.Contains(r.URL.Path, "/storage/kv/namespaces/") {
				mu.Lock()
				if ns != "" {
					problems = append(problems, edge.servedSiteProblems(ns, "docs")...)
				}
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	})
	clock := newSiteClock()

	dir := filepath.Join(t.TempDir(), "site")
	config := edge.providerBlock() + fmt.Sprintf(`
resource "kamuidash_kv_namespace" "routes" {
  title = "kamuidash-test-routes"
}
resource "kamuidash_static_site" "docs" {
  name            = "docs"
  bucket          = %q
  source_dir      = %q
  retain_versions = 1
}
resource "kamuidash_route_record" "docs" {
  app                 = "docs"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  static = {
    prefix   = kamuidash_static_site.docs.prefix
    manifest = kamuidash_static_site.docs.manifest
  }
}
`, staticBucket, dir)
	// An earlier release (one prefix per version) left version 0, which no state knows.
	const leftover = "sites/docs/0123456789abcdef/index.html"
	versions := map[int]string{0: "0123456789abcdef"}
	deploy := func(n int, after time.Duration) func() {
		return func() {
			clock.At(after)
			writeFiles(t, dir, map[string]string{"index.html": fmt.Sprintf("<h1>v%d</h1>", n), "app.js": "shared"})
		}
	}
	// expect checks, after version n was deployed, that the bucket holds the manifest and page
	// of each held version (and the shared object, and the leftover while it retires), and
	// which versions retire since when.
	expect := func(n int, held []int, retiring map[int]time.Duration) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			mu.Lock()
			defer mu.Unlock()
			ns = s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID
			attrs := s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes
			versions[n] = attrs["version"]
			if len(problems) > 0 {
				return fmt.Errorf("while the record still named it, a served version lost: %v", problems)
			}
			want := []string{siteObject("shared")}
			for _, v := range held {
				want = append(want, siteManifest(versions[v]), siteObject(fmt.Sprintf("<h1>v%d</h1>", v)))
			}
			if _, ok := retiring[0]; ok {
				want = append(want, leftover)
			}
			slices.Sort(want)
			if got := edge.objectKeys(); !slices.Equal(got, want) {
				return fmt.Errorf("bucket holds %v, want %v", got, want)
			}
			wantRetiring := map[string]string{"retiring_versions.%": fmt.Sprint(len(retiring))}
			for v, since := range retiring {
				wantRetiring["retiring_versions."+versions[v]] = clock.Stamp(since)
			}
			for k, want := range wantRetiring {
				if got := attrs[k]; got != want {
					return fmt.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providerFactoriesWithSiteClock(clock.Now),
		Steps: []resource.TestStep{
			{PreConfig: deploy(1, 0), Config: config, Check: expect(1, []int{1}, nil)},
			{
				// v1 retires: the record still names it until the apply's last write.
				PreConfig: deploy(2, 0), Config: config,
				Check: expect(2, []int{1, 2}, map[int]time.Duration{1: 0}),
			},
			{
				PreConfig: func() {
					deploy(3, 30*time.Minute)()
					body := []byte("<h1>v0</h1>")
					if err := edge.client(t).R2PutObject(context.Background(), edge.Identity().AccountID, staticBucket, leftover,
						bytes.NewReader(body), int64(len(body)), "text/html"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				// The leftover may be what a record still names: it retires from now.
				Check: expect(3, []int{1, 2, 3}, map[int]time.Duration{1: 0, 2: 30 * time.Minute, 0: 30 * time.Minute}),
			},
			{
				// v1 has retired longer than any freshness budget: it goes, with the object only
				// it named; the shared object stays.
				PreConfig: deploy(4, 61*time.Minute), Config: config,
				Check: expect(4, []int{2, 3, 4}, map[int]time.Duration{2: 30 * time.Minute, 3: 61 * time.Minute, 0: 30 * time.Minute}),
			},
			{
				PreConfig: deploy(5, 92*time.Minute), Config: config,
				Check: expect(5, []int{3, 4, 5}, map[int]time.Duration{3: 61 * time.Minute, 4: 92 * time.Minute}),
			},
		},
	})
}
