package provider

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

const staticBucket = "kamuidash-test-static"

func staticSiteConfig(edge *testEdge, dir string) string {
	return edge.providerBlock() + fmt.Sprintf(`
resource "kamuidash_static_site" "docs" {
  name       = "docs"
  bucket     = %q
  source_dir = %q
}
`, staticBucket, dir)
}

// writeFiles replaces dir's content with files.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// objectKeys lists the keys of the tests' bucket (staticBucket), sorted, straight from the
// local edge's state.
func (e *testEdge) objectKeys() []string {
	var keys []string
	for _, b := range e.R2Buckets() {
		if b.Name == staticBucket {
			for k := range b.Objects {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// staticObject is one object's content in the static bucket, straight from the local edge's
// state.
func (e *testEdge) staticObject(key string) []byte {
	for _, b := range e.R2Buckets() {
		if o := b.Objects[key]; b.Name == staticBucket && o != nil {
			return o.Content
		}
	}
	return nil
}

func (e *testEdge) checkNoSiteObjects(*terraform.State) error {
	if keys := e.objectKeys(); len(keys) > 0 {
		return fmt.Errorf("objects left after destroy: %v", keys)
	}
	return nil
}

// operations counts the calls of each operation the local edge has answered so far.
func (e *testEdge) operations() map[string]int { return operationCounts(e.Calls()) }

// operationCounts is a call accounting's calls by operation.
func operationCounts(stats cfapi.CallStats) map[string]int {
	out := map[string]int{}
	for _, op := range stats.Operations {
		out[op.Operation] = op.Calls
	}
	return out
}

// objectPuts is how many objects were uploaded, through either API.
func objectPuts(ops map[string]int) int {
	return ops["S3 PutObject"] + ops["PUT /accounts/{account_id}/r2/buckets/{bucket_name}/objects/{object_key...}"]
}

func sha(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

func siteObject(content string) string { return "sites/docs/objects/" + sha(content) }

func siteManifest(version string) string { return "sites/docs/manifests/" + version + ".json" }

func TestAccStaticSite_Lifecycle(t *testing.T) { testStaticSiteLifecycle(t, false) }

// Over S3: the same lifecycle with an R2 key pair set, every object call through the S3 API
// and none through the REST API.
func TestAccStaticSite_LifecycleOverS3(t *testing.T) { testStaticSiteLifecycle(t, true) }

func testStaticSiteLifecycle(t *testing.T, overS3 bool) {
	edge := newTestEdge(t)
	dir := filepath.Join(t.TempDir(), "site")
	config := func(extra string) string {
		c := staticSiteConfig(edge, dir)
		if overS3 {
			c = edge.providerBlockWithS3() + strings.TrimPrefix(c, edge.providerBlock())
		}
		return strings.Replace(c, "  source_dir", extra+"  source_dir", 1)
	}
	v1 := map[string]string{"index.html": "<h1>v1</h1>", "assets/app.js": "console.log(1)", ".git/HEAD": "ref: main"}
	v2 := map[string]string{"index.html": "<h1>v2</h1>", "assets/app.js": "console.log(1)"}
	v3 := map[string]string{"index.html": "<h1>v3</h1>", "404.html": "gone"}
	writeFiles(t, dir, v1)
	var versionV1, versionV2 string
	var opsBefore map[string]int
	version := func(s *terraform.State) string {
		return s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["version"]
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{
				Config: config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionCreate),
						// Known at plan time, so a record can point at the version in the same plan.
						plancheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("prefix"), knownvalue.StringExact("sites/docs/")),
						plancheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(`^sites/docs/manifests/[0-9a-f]{16}\.json$`))),
						plancheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("files"), knownvalue.MapExact(map[string]knownvalue.Check{
							"index.html": knownvalue.StringExact(sha("<h1>v1</h1>")), "assets/app.js": knownvalue.StringExact(sha("console.log(1)")),
						})),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("id"), knownvalue.StringExact(staticBucket+"/docs")),
					statecheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("versions"), knownvalue.ListSizeExact(1)),
				},
				Check: func(s *terraform.State) error {
					versionV1 = version(s)
					want := []string{siteManifest(versionV1), siteObject("console.log(1)"), siteObject("<h1>v1</h1>")}
					slices.Sort(want)
					if got := edge.objectKeys(); !slices.Equal(got, want) {
						return fmt.Errorf("bucket holds %v, want %v (hidden files never ship)", got, want)
					}
					m, err := route.DecodeSiteManifest(edge.staticObject(siteManifest(versionV1)))
					if err != nil {
						return fmt.Errorf("the manifest does not decode: %v", err)
					}
					if f := m.Files["index.html"]; f.Object != sha("<h1>v1</h1>") || f.Type != "text/html; charset=utf-8" || f.Size != 11 {
						return fmt.Errorf("manifest names index.html as %+v", f)
					}
					return nil
				},
			},
			{
				// The same files plan nothing.
				Config:           config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// One file edited: the plan names it, the apply uploads its object and the new
				// manifest and nothing else, and the version it replaces stays whole.
				PreConfig: func() { writeFiles(t, dir, v2); opsBefore = edge.operations() },
				Config:    config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("files").AtMapKey("index.html"), knownvalue.StringExact(sha("<h1>v2</h1>"))),
						plancheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("versions"), knownvalue.ListSizeExact(2)),
					},
				},
				Check: func(s *terraform.State) error {
					versionV2 = version(s)
					if n := objectPuts(edge.operations()) - objectPuts(opsBefore); n != 2 {
						return fmt.Errorf("the edit uploaded %d objects, want 2 (the edited file and the manifest)", n)
					}
					want := []string{siteManifest(versionV1), siteManifest(versionV2), siteObject("console.log(1)"), siteObject("<h1>v1</h1>"), siteObject("<h1>v2</h1>")}
					slices.Sort(want)
					if got := edge.objectKeys(); !slices.Equal(got, want) {
						return fmt.Errorf("bucket holds %v, want %v", got, want)
					}
					return nil
				},
			},
			{
				// A third version with two kept: the first version leaves the window but retires,
				// its manifest and the object only it named staying, since a record may still
				// name it at the edge for up to an hour (resource_static_site_retire_test.go).
				PreConfig: func() { writeFiles(t, dir, v3) },
				Config:    config("  retain_versions = 2\n"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("retiring_versions"), knownvalue.MapSizeExact(1)),
				},
				Check: func(s *terraform.State) error {
					if since := s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["retiring_versions."+versionV1]; since == "" {
						return fmt.Errorf("version %s left the window without retiring", versionV1)
					}
					want := []string{siteManifest(version(s)), siteManifest(versionV2), siteManifest(versionV1), siteObject("console.log(1)"),
						siteObject("<h1>v1</h1>"), siteObject("<h1>v2</h1>"), siteObject("<h1>v3</h1>"), siteObject("gone")}
					slices.Sort(want)
					if got := edge.objectKeys(); !slices.Equal(got, want) {
						return fmt.Errorf("bucket holds %v, want %v", got, want)
					}
					return nil
				},
			},
			{
				ResourceName:  "kamuidash_static_site.docs",
				ImportState:   true,
				ImportStateId: staticBucket + "/docs",
				// Three versions live in the bucket now: import asks which one is current.
				ExpectError: regexp.MustCompile(`(?s)Cannot Import Static Site.*3 versions were found.*kamuidash-test-static/docs/<version>`),
			},
			{
				ResourceName: "kamuidash_static_site.docs",
				ImportState:  true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return staticBucket + "/docs/" + version(s), nil
				},
				ImportStateVerify: true,
				// The configuration's, not the bucket's: the next apply takes them. When a
				// version started retiring is in no bucket: the next apply that finds the
				// others starts their wait afresh.
				ImportStateVerifyIgnore: []string{"source_dir", "retain_versions", "versions", "retiring_versions"},
			},
		},
	})
	calls := edge.Calls()
	if overS3 && (calls.ObjectStorage.Calls != 0 || calls.S3.Calls == 0) {
		t.Errorf("over S3: %d object calls through the REST API and %d through S3, want none and some", calls.ObjectStorage.Calls, calls.S3.Calls)
	}
	if !overS3 && calls.S3.Calls != 0 {
		t.Errorf("without a key pair: %d calls through S3", calls.S3.Calls)
	}
}

func TestAccStaticSite_DriftImportAndConflicts(t *testing.T) {
	edge := newTestEdge(t)
	dir := filepath.Join(t.TempDir(), "site")
	writeFiles(t, dir, map[string]string{"index.html": "<h1>hi</h1>", "about/index.html": "about"})
	var opsBefore map[string]int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{
				Config: staticSiteConfig(edge, dir),
				Check: func(s *terraform.State) error {
					// Someone deletes an object from the bucket behind Terraform's back.
					return edge.client(t).R2DeleteObject(context.Background(), edge.Identity().AccountID, staticBucket, siteObject("about"))
				},
				ExpectNonEmptyPlan: true,
			},
			{
				// The next plan shows the path whose object is gone, and the apply uploads that
				// object alone (the manifest is in place).
				PreConfig: func() { opsBefore = edge.operations() },
				Config:    staticSiteConfig(edge, dir),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("files").AtMapKey("about/index.html"), knownvalue.StringExact(sha("about"))),
				},
				Check: func(*terraform.State) error {
					if n := objectPuts(edge.operations()) - objectPuts(opsBefore); n != 1 {
						return fmt.Errorf("the repair uploaded %d objects, want 1", n)
					}
					if !slices.Contains(edge.objectKeys(), siteObject("about")) {
						return fmt.Errorf("the deleted object is still missing")
					}
					return nil
				},
			},
			{
				ResourceName:            "kamuidash_static_site.docs",
				ImportState:             true,
				ImportStateId:           staticBucket + "/docs",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"source_dir"},
			},
			{
				// A second resource for the same site refuses to take over its objects.
				Config:      twoResourcesOfOneSite(edge, dir),
				ExpectError: regexp.MustCompile(`(?s)Static Site Already Exists.*terraform\s+import`),
			},
		},
	})
}

func TestAccStaticSite_BadDirectoryFailsAtPlan(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      staticSiteConfig(edge, filepath.Join(t.TempDir(), "missing")),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Unusable Static Site Directory.*built site`),
		}},
	})
}

// TestAccStaticSite_EscapingLinkFailsAtPlan: a link that leaves source_dir fails the plan with
// the link's path, before anything is uploaded.
func TestAccStaticSite_EscapingLinkFailsAtPlan(t *testing.T) {
	edge := newTestEdge(t)
	outer := t.TempDir()
	dir := filepath.Join(outer, "site")
	writeFiles(t, dir, map[string]string{"index.html": "<h1>docs</h1>", "assets/app.js": "1"})
	writeFiles(t, filepath.Join(outer, "private"), map[string]string{"key.pem": "secret"})
	if err := os.Symlink("../../private/key.pem", filepath.Join(dir, "assets", "key.pem")); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{{
			Config:      staticSiteConfig(edge, dir),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Unusable Static Site Directory.*"assets/key.pem"\s+is\s+a\s+symbolic\s+link\s+to\s+"\.\./\.\./private/key.pem",\s+which\s+is\s+outside\s+the\s+site\s+directory`),
		}},
	})
}

// Half the R2 S3 settings is an error naming what is missing, never a silent fall-back to the
// REST API.
func TestAccStaticSite_IncompleteS3SettingsAreRefused(t *testing.T) {
	edge := newTestEdge(t)
	dir := filepath.Join(t.TempDir(), "site")
	writeFiles(t, dir, map[string]string{"index.html": "hi"})
	block := strings.TrimSuffix(edge.providerBlock(), "}\n") + "  r2_secret_access_key = \"s3cr3t-value\"\n}\n"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      block + strings.TrimPrefix(staticSiteConfig(edge, dir), edge.providerBlock()),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Incomplete R2 S3 Settings.*r2_s3_endpoint \(or\s+KAMUIDASH_R2_S3_ENDPOINT\) is not set`),
		}},
	})
}

// failUploadsOf answers 500 to every upload of an object whose key holds marker, through
// either API, so an apply fails part-way through a site.
func failUploadsOf(marker *string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if m := *marker; m != "" && r.Method == http.MethodPut && strings.Contains(r.URL.EscapedPath(), m) {
				http.Error(w, `{"success":false,"errors":[{"code":10001,"message":"injected"}]}`, http.StatusInternalServerError)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// A create that fails part-way takes back what it uploaded; an update that fails leaves the
// served version whole and the state on it, and the next apply finishes the job.
func TestAccStaticSite_FailedUploadLeavesNothingHalfWritten(t *testing.T) {
	var marker string
	edge := newTestEdgeBehind(t, failUploadsOf(&marker))
	dir := filepath.Join(t.TempDir(), "site")
	files := map[string]string{"index.html": "<h1>hi</h1>", "a.css": "a", "b.css": "b", "c.css": "c"}
	writeFiles(t, dir, files)
	var manifestV1 string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { marker = sha("c") },
				Config:      staticSiteConfig(edge, dir),
				ExpectError: regexp.MustCompile(`(?s)Unable to Upload Static Site.*c\.css`),
			},
			{
				// Nothing of the failed create is left, so the retry is a plain create.
				PreConfig: func() {
					if keys := edge.objectKeys(); len(keys) > 0 {
						t.Errorf("the failed create left %v", keys)
					}
					marker = ""
				},
				Config: staticSiteConfig(edge, dir),
				Check: func(s *terraform.State) error {
					manifestV1 = s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["manifest"]
					return nil
				},
			},
			{
				// The edit's object cannot be uploaded: the apply fails before any manifest.
				PreConfig: func() {
					files["index.html"] = "<h1>new</h1>"
					writeFiles(t, dir, files)
					marker = sha("<h1>new</h1>")
				},
				Config:      staticSiteConfig(edge, dir),
				ExpectError: regexp.MustCompile(`(?s)Unable to Upload Static Site.*no manifest was written, so the version\s+served\s+is\s+unchanged`),
			},
			{
				PreConfig: func() {
					keys := edge.objectKeys()
					var manifests []string
					for _, k := range keys {
						if strings.Contains(k, "/manifests/") {
							manifests = append(manifests, k)
						}
					}
					if !slices.Equal(manifests, []string{manifestV1}) {
						t.Errorf("manifests after the failed edit: %v, want only %s", manifests, manifestV1)
					}
					marker = ""
				},
				Config: staticSiteConfig(edge, dir),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("files").AtMapKey("index.html"), knownvalue.StringExact(sha("<h1>new</h1>"))),
				},
			},
		},
	})
}

// A new name replaces the site: the new one is uploaded afresh with only its own version kept,
// and the old one's objects are gone.
func TestAccStaticSite_RenameReplaces(t *testing.T) {
	edge := newTestEdge(t)
	dir := filepath.Join(t.TempDir(), "site")
	writeFiles(t, dir, map[string]string{"index.html": "<h1>hi</h1>"})
	renamed := func() string {
		return strings.Replace(staticSiteConfig(edge, dir), `name       = "docs"`, `name       = "handbook"`, 1)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{Config: staticSiteConfig(edge, dir)},
			{
				// A second version, so the old site has two kept versions to leave behind.
				PreConfig: func() { writeFiles(t, dir, map[string]string{"index.html": "<h1>hi again</h1>"}) },
				Config:    staticSiteConfig(edge, dir),
			},
			{
				Config: renamed(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionReplace),
						plancheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("versions"), knownvalue.ListSizeExact(1)),
					},
				},
				Check: func(*terraform.State) error {
					for _, k := range edge.objectKeys() {
						if !strings.HasPrefix(k, "sites/handbook/") {
							return fmt.Errorf("the replaced site left %s", k)
						}
					}
					return nil
				},
			},
		},
	})
}

// twoResourcesOfOneSite is staticSiteConfig with a second resource for the same site.
func twoResourcesOfOneSite(edge *testEdge, dir string) string {
	return staticSiteConfig(edge, dir) + fmt.Sprintf(`
resource "kamuidash_static_site" "again" {
  name       = "docs"
  bucket     = %q
  source_dir = %q
}
`, staticBucket, dir)
}

// checkObjectsHoldTheirHash fails when an object under the site's objects/ holds bytes whose
// SHA-256 is not the one its key names.
func (e *testEdge) checkObjectsHoldTheirHash() error {
	for _, k := range e.objectKeys() {
		if obj, ok := strings.CutPrefix(k, "sites/docs/objects/"); ok {
			sum := sha256.Sum256(e.staticObject(k))
			if got := hex.EncodeToString(sum[:]); got != obj {
				return fmt.Errorf("%s holds %q (sha256 %s)", k, e.staticObject(k), got)
			}
		}
	}
	return nil
}

// TestAccStaticSite_FileChangedDuringTheUploadIsNotStoredUnderItsOldHash: a file rewritten in
// place with the same size while the apply uploads it (here: between a failed attempt and the
// retry that reads it again) must not land under the planned content's hash, where every
// version naming that hash would serve it with a false ETag. Over the REST API (no checksum)
// the upload is hashed as it goes and the object deleted; over S3 the store refuses it. Either
// way the apply fails saying the file changed, and the next plan uploads the new content.
func TestAccStaticSite_FileChangedDuringTheUploadIsNotStoredUnderItsOldHash(t *testing.T) {
	for _, overS3 := range []bool{false, true} {
		t.Run(map[bool]string{false: "rest", true: "s3"}[overS3], func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "site")
			edge := newTestEdgeBehind(t, rewriteDuringUpload(t, dir, "AAAA", "BBBB", func() bool { return true }))
			config := func() string {
				block := edge.providerBlock()
				if overS3 {
					block = edge.providerBlockWithS3()
				}
				return block + strings.TrimPrefix(staticSiteConfig(edge, dir), edge.providerBlock())
			}
			writeFiles(t, dir, map[string]string{"index.html": "<h1>hi</h1>", "app.js": "AAAA"})
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             edge.checkNoSiteObjects,
				Steps: []resource.TestStep{
					{Config: config(), ExpectError: regexp.MustCompile(map[bool]string{
						false: `"app.js" changed while it was uploaded`,
						true:  `(?s)"app.js" changed while it was uploaded.*the store refused it`, // its checksum
					}[overS3])},
					{
						PreConfig: func() {
							if err := edge.checkObjectsHoldTheirHash(); err != nil {
								t.Errorf("after the failed apply: %v", err)
							}
						},
						Config: config(),
						Check:  func(*terraform.State) error { return edge.checkObjectsHoldTheirHash() },
					},
				},
			})
		})
	}
}

// TestAccStaticSite_FailedCreateTakesBackWhatItMayHaveStored: an upload the store wrote but
// answered with an error (a gateway timeout after the write) leaves an object the create did
// not see succeed. The create's cleanup deletes every key it started to upload, so running the
// apply again creates the site instead of finding the prefix taken.
func TestAccStaticSite_FailedCreateTakesBackWhatItMayHaveStored(t *testing.T) {
	var marker string
	edge := newTestEdgeBehind(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if m := marker; m != "" && r.Method == http.MethodPut && strings.Contains(r.URL.EscapedPath(), m) {
				next.ServeHTTP(httptest.NewRecorder(), r) // stored...
				http.Error(w, `{"success":false,"errors":[{"code":10001,"message":"after write"}]}`, http.StatusGatewayTimeout)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	dir := filepath.Join(t.TempDir(), "site")
	writeFiles(t, dir, map[string]string{"index.html": "<h1>hi</h1>", "a.css": "a", "c.css": "c"})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{PreConfig: func() { marker = sha("c") }, Config: staticSiteConfig(edge, dir),
				ExpectError: regexp.MustCompile(`Unable to Upload Static Site`)},
			{PreConfig: func() { marker = "" }, Config: staticSiteConfig(edge, dir)},
		},
	})
}

// TestAccStaticSite_BucketCreatedWithoutAnAnswerIsUsed: the bucket's create was carried out but
// its answer never came. The bucket did not exist when the create began, and a bucket is only
// ever found or made, never deleted, so the create uses it. Before, the apply failed.
func TestAccStaticSite_BucketCreatedWithoutAnAnswerIsUsed(t *testing.T) {
	edge := newTestEdgeBehind(t, loseAnswers(http.MethodPost, "/r2/buckets", nil))
	dir := filepath.Join(t.TempDir(), "site")
	writeFiles(t, dir, map[string]string{"index.html": "<h1>hi</h1>"})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{{
			Config: staticSiteConfig(edge, dir),
			Check: func(*terraform.State) error {
				if got := string(edge.staticObject(siteObject("<h1>hi</h1>"))); got != "<h1>hi</h1>" {
					return fmt.Errorf("index.html's object holds %q", got)
				}
				return nil
			},
		}},
	})
}

// TestAccStaticSite_TwoResourcesOfOneSiteAreRefused: two resources of one configuration naming
// the same site both found its prefix empty (the listing is slowed here so that they always
// overlap) and both took it, each one's prune then deleting the other's objects. The second
// create is refused.
func TestAccStaticSite_TwoResourcesOfOneSiteAreRefused(t *testing.T) {
	edge := newTestEdgeBehind(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/objects") && r.URL.Query().Get("prefix") == "sites/docs/" {
				time.Sleep(time.Second)
			}
			next.ServeHTTP(w, r)
		})
	})
	dir := filepath.Join(t.TempDir(), "site")
	writeFiles(t, dir, map[string]string{"index.html": "<h1>hi</h1>"})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      twoResourcesOfOneSite(edge, dir),
			ExpectError: regexp.MustCompile(`(?s)Static Site Already Exists.*Another kamuidash_static_site of this configuration`),
		}},
	})
}

// TestStaticSiteCreate_InterruptedTakesBackWhatItStored: Terraform cancels the request's
// context when the user interrupts an apply. A create interrupted after the store took an
// object must still delete it (the cleanup cannot run on the cancelled context), or the
// retry finds the prefix taken and import finds no version to import.
func TestStaticSiteCreate_InterruptedTakesBackWhatItStored(t *testing.T) {
	srv := newTestAPIServer(t)
	interruptedCreate(t, srv, func(interrupt func()) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut && strings.Contains(r.URL.EscapedPath(), sha("c")) {
				srv.ServeHTTP(httptest.NewRecorder(), r) // stored, and then the user interrupts
				interrupt()
				<-r.Context().Done() // the answer never comes: the client gave up on it
				return
			}
			srv.ServeHTTP(w, r)
		}
	})
	assertNoSiteObjects(t, srv)
}

// TestStaticSiteCreate_UploadStoredAfterTheTakeBackIsDeletedToo: an upload abandoned in flight
// had no answer, and the store may still write it after the take-back's delete for its key
// (CI once saw index.html's object left so). The take-back looks again after a pause.
func TestStaticSiteCreate_UploadStoredAfterTheTakeBackIsDeletedToo(t *testing.T) {
	srv := newTestAPIServer(t)
	late, deleted := make(chan struct{}), make(chan struct{})
	var lateOnce, deletedOnce sync.Once
	interruptedCreate(t, srv, func(interrupt func()) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == http.MethodPut && strings.Contains(r.URL.EscapedPath(), sha("<h1>hi</h1>")):
				body, err := io.ReadAll(r.Body)
				if err != nil {
					t.Errorf("reading the late upload: %v", err)
					return
				}
				lateOnce.Do(func() { close(late) })
				// The client gives up on it; the store writes it once its delete has gone by.
				select {
				case <-deleted:
				case <-time.After(10 * time.Second):
					t.Error("the take-back never deleted index.html's object")
				}
				r = r.Clone(context.Background())
				r.Body = io.NopCloser(bytes.NewReader(body))
				srv.ServeHTTP(httptest.NewRecorder(), r)
			case r.Method == http.MethodPut && strings.Contains(r.URL.EscapedPath(), sha("c")):
				// Its body read, the server notices the client leaving.
				_, _ = io.Copy(io.Discard, r.Body)
				select { // both uploads are under way before the user interrupts
				case <-late:
				case <-time.After(10 * time.Second):
					t.Error("index.html's upload never started")
				}
				interrupt()
				<-r.Context().Done()
			case r.Method == http.MethodDelete && strings.Contains(r.URL.EscapedPath(), sha("<h1>hi</h1>")):
				srv.ServeHTTP(w, r)
				deletedOnce.Do(func() { close(deleted) })
			default:
				srv.ServeHTTP(w, r)
			}
		}
	})
	assertNoSiteObjects(t, srv)
}

func newTestAPIServer(t *testing.T) *cfapi.Server {
	t.Helper()
	srv, err := cfapi.New(cfapi.Config{StateDir: t.TempDir(), ZoneName: "kamui.test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// interruptedCreate creates the site docs (index.html and c.css) over the REST API through the
// handler serve builds, which calls interrupt to cancel the create's context as a user's
// interrupt does, and checks that the create failed.
func interruptedCreate(t *testing.T, srv *cfapi.Server, serve func(interrupt func()) http.HandlerFunc) {
	t.Helper()
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	hs := httptest.NewServer(serve(interrupt))
	defer hs.Close()
	id := srv.Identity()
	c, err := kdcf.New(kdcf.Config{APIToken: id.APIToken, BaseURL: hs.URL + cfapi.APIPrefix, UserAgent: "kamuidash-test"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "site")
	writeFiles(t, dir, map[string]string{"index.html": "<h1>hi</h1>", "c.css": "c"})

	r := &staticSiteResource{data: &providerData{Client: c, AccountID: id.AccountID}}
	var schemaResp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &schemaResp)
	null := tftypes.NewValue(schemaResp.Schema.Type().TerraformType(ctx), nil)
	plan := tfsdk.Plan{Schema: schemaResp.Schema, Raw: null}
	if d := plan.Set(ctx, &staticSiteModel{
		ID: types.StringUnknown(), Name: types.StringValue("docs"), Bucket: types.StringValue(staticBucket),
		SourceDir: types.StringValue(dir), RetainVersions: types.Int64Value(defaultRetainVersions), Version: types.StringUnknown(),
		Prefix: types.StringUnknown(), Manifest: types.StringUnknown(), Versions: types.ListUnknown(types.StringType),
		Files: types.MapUnknown(types.StringType), Retiring: types.MapUnknown(types.StringType),
	}); d.HasError() {
		t.Fatal(d)
	}
	resp := &fwresource.CreateResponse{State: tfsdk.State{Schema: schemaResp.Schema, Raw: null}}
	r.Create(ctx, fwresource.CreateRequest{Plan: plan}, resp)
	if !resp.Diagnostics.HasError() {
		t.Fatal("the interrupted create reported no error")
	}
}

func assertNoSiteObjects(t *testing.T, srv *cfapi.Server) {
	t.Helper()
	for _, b := range srv.R2Buckets() {
		for k := range b.Objects {
			t.Errorf("the interrupted create left %s: a retry would find the site's prefix taken", k)
		}
	}
}

// TestAccStaticSite_RevertKeepsTheObjectAKeptVersionNames: an edit that reverts a file to the
// content an older kept version holds needs no upload of it, the object is there. Uploading it
// again over the REST API, with the file rewritten during that upload, made the check of what
// was sent fail and delete the object, which the kept version still names: a rollback to it
// would have served an error for that path.
func TestAccStaticSite_RevertKeepsTheObjectAKeptVersionNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	// The build rewrites app.js while its upload is under way; the retry reads it.
	var rewriting bool
	edge := newTestEdgeBehind(t, rewriteDuringUpload(t, dir, "AAAA", "CCCC", func() bool { return rewriting }))
	var manifestV1 string
	var opsBefore map[string]int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { writeFiles(t, dir, map[string]string{"index.html": "x", "app.js": "AAAA"}) },
				Config:    staticSiteConfig(edge, dir),
				Check: func(s *terraform.State) error {
					manifestV1 = s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["manifest"]
					return nil
				},
			},
			{
				PreConfig: func() { writeFiles(t, dir, map[string]string{"index.html": "x", "app.js": "BBBB"}) },
				Config:    staticSiteConfig(edge, dir),
			},
			{
				// Back to the first version's app.js: the manifest is all there is to upload.
				PreConfig: func() {
					writeFiles(t, dir, map[string]string{"index.html": "x", "app.js": "AAAA"})
					rewriting, opsBefore = true, edge.operations()
				},
				Config: staticSiteConfig(edge, dir),
				Check: func(*terraform.State) error {
					if n := objectPuts(edge.operations()) - objectPuts(opsBefore); n != 1 {
						return fmt.Errorf("the revert uploaded %d objects, want 1 (the manifest)", n)
					}
					for _, key := range []string{manifestV1, siteObject("AAAA")} {
						if edge.staticObject(key) == nil {
							return fmt.Errorf("the first version, still kept, lost %s", key)
						}
					}
					return edge.checkObjectsHoldTheirHash()
				},
			},
		},
	})
}

// rewriteDuringUpload is a local edge middleware for a build that rewrites dir's app.js while
// it is uploaded: the first upload of the object holding from (while during says so) rewrites
// the file to to and fails, as an upload cut off by the change would.
func rewriteDuringUpload(t *testing.T, dir, from, to string, during func() bool) func(http.Handler) http.Handler {
	var once sync.Once
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if during() && r.Method == http.MethodPut && strings.Contains(r.URL.EscapedPath(), sha(from)) {
				failed := false
				once.Do(func() {
					if err := os.WriteFile(filepath.Join(dir, "app.js"), []byte(to), 0o644); err != nil {
						t.Error(err)
					}
					failed = true
				})
				if failed {
					http.Error(w, `{"success":false,"errors":[{"code":10001,"message":"injected"}]}`, http.StatusInternalServerError)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}
