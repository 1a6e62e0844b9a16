package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/staticsite"
)

// providerBlockWithS3 is providerBlock with the edge's R2 S3 endpoint and key pair.
func (e *fullEdge) providerBlockWithS3() string {
	return strings.TrimSuffix(e.providerBlock(), "}\n") + fmt.Sprintf(`  r2_s3_endpoint       = %q
  r2_access_key_id     = %q
  r2_secret_access_key = %q
}
`, e.env["KAMUIDASH_R2_S3_ENDPOINT"], e.env["KAMUIDASH_R2_ACCESS_KEY_ID"], e.env["KAMUIDASH_R2_SECRET_ACCESS_KEY"])
}

// calls reads the local edge's call accounting.
func (e *fullEdge) calls(t *testing.T) map[string]int {
	t.Helper()
	root := strings.TrimSuffix(e.env["KAMUIDASH_API_BASE_URL"], cfapi.APIPrefix)
	req, _ := http.NewRequest(http.MethodGet, root+cfapi.AdminPrefix+"/calls", nil)
	req.Header.Set("Authorization", "Bearer "+e.env["CLOUDFLARE_API_TOKEN"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var body struct {
		Result cfapi.CallStats `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return operationCounts(body.Result)
}

type edgeAnswer struct {
	status int
	header http.Header
	body   string
}

// get sends a request for host through the edge.
func (e *fullEdge) get(host, path string, header map[string]string) (edgeAnswer, error) {
	req, err := http.NewRequest(http.MethodGet, e.env["KAMUIDASH_EDGE_URL"]+path, nil)
	if err != nil {
		return edgeAnswer{}, err
	}
	req.Host = host
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return edgeAnswer{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return edgeAnswer{resp.StatusCode, resp.Header, string(b)}, err
}

// eventually polls until ok accepts the answer: a record reaches the edge within the freshness
// budget (45 s here), as on Cloudflare.
func (e *fullEdge) eventually(what, host, path string, header map[string]string, ok func(edgeAnswer) bool) error {
	deadline := time.Now().Add(90 * time.Second)
	for {
		a, err := e.get(host, path, header)
		if err == nil && ok(a) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: the edge still answers HTTP %d %q (%v) after 90 s", what, a.status, a.body, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func (e *fullEdge) siteKeys(t *testing.T) []string {
	t.Helper()
	c, err := kdcf.New(kdcf.Config{APIToken: e.env["CLOUDFLARE_API_TOKEN"], BaseURL: e.env["KAMUIDASH_API_BASE_URL"], UserAgent: "kamuidash-acctest"})
	if err != nil {
		t.Fatal(err)
	}
	objects, _, err := c.R2ListObjects(context.Background(), e.env["KAMUIDASH_ACCOUNT_ID"], staticBucket, "sites/docs/")
	if err != nil {
		t.Fatal(err)
	}
	return keysOf(objects)
}

// TestAccStaticSite_ServedThroughTheLocalEdge is the static site end to end, on the CLI the
// run names: the bundled Worker in workerd serves the site through its manifest; an edit of
// one file uploads that file and a manifest, and a browser holding the old ETag gets the new
// content; a rollback is a record change alone; destroy leaves no object behind.
func TestAccStaticSite_ServedThroughTheLocalEdge(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (scripts/test.sh does)")
	}
	edge := startFullEdge(t)
	dir := filepath.Join(t.TempDir(), "site")
	// "café.html" named as macOS's HFS+ names it: "e" and a combining accent (NFD).
	const cafeNFD = "cafe\u0301.html"
	v1 := map[string]string{"index.html": "<h1>v1</h1>", "assets/app.js": "console.log(1)", "404.html": "not here", cafeNFD: "menu"}
	v2 := map[string]string{"index.html": "<h1>v2</h1>", "assets/app.js": "console.log(1)", "404.html": "not here", cafeNFD: "menu"}
	writeFiles(t, dir, v1)
	first, err := staticsite.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	config := func(manifest string) string {
		return withVerifyPropagation(edge.providerBlockWithS3()) + fmt.Sprintf(`
resource "kamuidash_kv_namespace" "routes" {
  title = "static-e2e-routes"
}

resource "kamuidash_kv_namespace" "domains" {
  title = "static-e2e-domains"
}

resource "kamuidash_edge_worker" "edge" {
  name                 = "static-e2e"
  routes_namespace_id  = kamuidash_kv_namespace.routes.id
  domains_namespace_id = kamuidash_kv_namespace.domains.id
  static_bucket        = %[1]q
  freshness_budget     = "45s"
  signing_secret       = %[3]q
  cache_marker         = "marker-test-only-0123"
  routes               = ["*.kamui.test/*"]
}

resource "kamuidash_static_site" "docs" {
  name       = "docs"
  bucket     = %[1]q
  source_dir = %[2]q
}

resource "kamuidash_route_record" "docs" {
  app                 = "docs"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  depends_on          = [kamuidash_edge_worker.edge]
  static = {
    prefix    = kamuidash_static_site.docs.prefix
    manifest  = %[4]s
    not_found = "404.html"
  }
}
`, staticBucket, dir, edge.env["KAMUIDASH_LOCAL_SIGNING_SECRET"], manifest)
	}
	const current = "kamuidash_static_site.docs.manifest"
	var before map[string]int
	host := "docs.kamui.test"
	served := func(body string) func(edgeAnswer) bool {
		return func(a edgeAnswer) bool { return a.status == 200 && a.body == body }
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if keys := edge.siteKeys(t); len(keys) > 0 {
				return fmt.Errorf("objects left after destroy: %v", keys)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: config(current),
				Check: func(*terraform.State) error {
					etag := `"` + sha("<h1>v1</h1>") + `"`
					if err := edge.eventually("the first version", host, "/", nil, func(a edgeAnswer) bool {
						return served("<h1>v1</h1>")(a) && a.header.Get("ETag") == etag
					}); err != nil {
						return err
					}
					if err := edge.eventually("a revalidation of the current version", host, "/", map[string]string{"If-None-Match": etag},
						func(a edgeAnswer) bool { return a.status == 304 && a.body == "" }); err != nil {
						return err
					}
					if err := edge.eventually("the site's 404 page", host, "/nothing", nil, func(a edgeAnswer) bool { return a.status == 404 && a.body == "not here" }); err != nil {
						return err
					}
					// A browser sends the spelling of its link, composed (NFC, as typed) or not.
					for _, spelling := range []string{"/caf%C3%A9.html", "/cafe%CC%81.html"} {
						if err := edge.eventually("café.html spelled "+spelling, host, spelling, nil, served("menu")); err != nil {
							return err
						}
					}
					return nil
				},
			},
			{
				Config:           config(current),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// One file edited: one object and the manifest uploaded, then the record moves.
				PreConfig: func() { writeFiles(t, dir, v2); before = edge.calls(t) },
				Config:    config(current),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("kamuidash_route_record.docs", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("kamuidash_edge_worker.edge", plancheck.ResourceActionNoop),
				}},
				Check: func(*terraform.State) error {
					after := edge.calls(t)
					if n := objectPuts(after) - objectPuts(before); n != 2 {
						return fmt.Errorf("the edit uploaded %d objects, want 2 (index.html and the manifest)", n)
					}
					// The record's key is not new to ROUTES, so the name filter is not rebuilt (it had
					// made this edit 6 REST calls instead of 2): the one KV write is the record's bulk
					// write, and no value is written alone, as a rebuild writes the filter and its
					// recent keys.
					const kv = "/accounts/{account_id}/storage/kv/namespaces/{namespace_id}"
					d := callDelta(before, after)
					if d["PUT "+kv+"/bulk"] != 1 || d["PUT "+kv+"/values/{key_name}"] != 0 || d["GET "+kv+"/values/{key_name}"] != 0 {
						return fmt.Errorf("the edit's KV calls %v: want one bulk write (the record) and no filter rebuild", d)
					}
					// A browser revalidating its v1 copy gets the new content in full.
					return edge.eventually("a revalidation with the old ETag", host, "/", map[string]string{"If-None-Match": `"` + sha("<h1>v1</h1>") + `"`},
						func(a edgeAnswer) bool {
							return served("<h1>v2</h1>")(a) && a.header.Get("ETag") == `"`+sha("<h1>v2</h1>")+`"`
						})
				},
			},
			{
				// Rollback: the record points at the kept first manifest; nothing is uploaded.
				PreConfig: func() { before = edge.calls(t) },
				Config:    config(fmt.Sprintf("%q", staticsite.ManifestKey("docs", first.Version))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("kamuidash_route_record.docs", plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					if n := objectPuts(edge.calls(t)) - objectPuts(before); n != 0 {
						return fmt.Errorf("the rollback uploaded %d objects, want none", n)
					}
					return edge.eventually("the rolled-back version", host, "/", nil, served("<h1>v1</h1>"))
				},
			},
		},
	})
}

// callDelta is the calls of each operation made between two snapshots.
func callDelta(before, after map[string]int) map[string]int {
	d := map[string]int{}
	for op, n := range after {
		if n -= before[op]; n != 0 {
			d[op] = n
		}
	}
	return d
}
