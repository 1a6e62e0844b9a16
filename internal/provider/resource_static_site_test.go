package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
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

// objectKeys lists the bucket's keys (sorted) straight from the local edge's state.
func (e *testEdge) objectKeys(bucket string) []string {
	var keys []string
	for _, b := range e.R2Buckets() {
		if b.Name == bucket {
			for k := range b.Objects {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// versions returns the distinct version prefixes of site name in the bucket.
func (e *testEdge) versions(bucket, name string) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range e.objectKeys(bucket) {
		rest, ok := strings.CutPrefix(k, "sites/"+name+"/")
		if !ok {
			continue
		}
		v, _, _ := strings.Cut(rest, "/")
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func (e *testEdge) checkNoSiteObjects(*terraform.State) error {
	if keys := e.objectKeys(staticBucket); len(keys) > 0 {
		return fmt.Errorf("objects left after destroy: %v", keys)
	}
	return nil
}

func TestAccStaticSite_Lifecycle(t *testing.T) { testStaticSiteLifecycle(t, false) }

// Over S3: the same lifecycle with an R2 key pair set, every object call through the S3 API
// and none through the REST API.
func TestAccStaticSite_LifecycleOverS3(t *testing.T) { testStaticSiteLifecycle(t, true) }

func testStaticSiteLifecycle(t *testing.T, overS3 bool) {
	edge := newTestEdge(t)
	dir := filepath.Join(t.TempDir(), "site")
	config := func() string {
		if overS3 {
			return edge.providerBlockWithS3() + strings.TrimPrefix(staticSiteConfig(edge, dir), edge.providerBlock())
		}
		return staticSiteConfig(edge, dir)
	}
	v1 := map[string]string{"index.html": "<h1>v1</h1>", "assets/app.js": "console.log(1)", ".git/HEAD": "ref: main"}
	v2 := map[string]string{"index.html": "<h1>v2</h1>", "assets/app.js": "console.log(1)"}
	v3 := map[string]string{"index.html": "<h1>v3</h1>", "404.html": "gone"}
	writeFiles(t, dir, v1)
	var prefixV1, prefixV2 string
	prefixChanges := statecheck.CompareValue(compare.ValuesDiffer())
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{
				Config: config(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionCreate),
						// The version is known at plan time, so a record can point at it in the same plan.
						plancheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("prefix"), knownvalue.StringRegexp(regexp.MustCompile(`^sites/docs/[0-9a-f]{16}/$`))),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("id"), knownvalue.StringExact(staticBucket+"/docs")),
					statecheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("files"), knownvalue.MapSizeExact(2)),
					prefixChanges.AddStateValue("kamuidash_static_site.docs", tfjsonpath.New("prefix")),
				},
				Check: func(s *terraform.State) error {
					prefixV1 = s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["prefix"]
					want := []string{prefixV1 + "assets/app.js", prefixV1 + "index.html"}
					if got := edge.objectKeys(staticBucket); !slices.Equal(got, want) {
						return fmt.Errorf("bucket holds %v, want %v (hidden files never ship)", got, want)
					}
					for _, b := range edge.R2Buckets() {
						if o := b.Objects[prefixV1+"index.html"]; o == nil || o.ContentType != "text/html; charset=utf-8" || string(o.Content) != "<h1>v1</h1>" {
							return fmt.Errorf("index.html stored as %+v", o)
						}
					}
					return nil
				},
			},
			{
				// The same files plan nothing.
				Config:           config(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// New content is an in-place update to a new prefix; the replaced version stays.
				PreConfig: func() { writeFiles(t, dir, v2) },
				Config:    config(),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("prefix"), knownvalue.StringRegexp(regexp.MustCompile(`^sites/docs/[0-9a-f]{16}/$`))),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{prefixChanges.AddStateValue("kamuidash_static_site.docs", tfjsonpath.New("prefix"))},
				Check: func(s *terraform.State) error {
					prefixV2 = s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["prefix"]
					if got := edge.versions(staticBucket, "docs"); len(got) != 2 {
						return fmt.Errorf("versions after the first update: %v, want the new one and the one it replaced", got)
					}
					return nil
				},
			},
			{
				// A third version: the oldest goes, the one it replaces stays; a file dropped
				// from the site is not in the new version.
				PreConfig: func() { writeFiles(t, dir, v3) },
				Config:    config(),
				Check: func(s *terraform.State) error {
					prefixV3 := s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["prefix"]
					want := []string{strings.Split(prefixV2, "/")[2], strings.Split(prefixV3, "/")[2]}
					slices.Sort(want)
					got := edge.versions(staticBucket, "docs")
					slices.Sort(got)
					if !slices.Equal(got, want) || slices.Contains(got, strings.Split(prefixV1, "/")[2]) {
						return fmt.Errorf("versions = %v, want %v", got, want)
					}
					for _, k := range edge.objectKeys(staticBucket) {
						if strings.HasPrefix(k, prefixV3) && strings.HasSuffix(k, "app.js") {
							return fmt.Errorf("a file removed from the site was uploaded: %s", k)
						}
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
				// Two versions live in the bucket now; import needs exactly one.
				ExpectError: regexp.MustCompile(`(?s)Cannot Import Static Site.*exactly one version`),
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
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{
				Config: staticSiteConfig(edge, dir),
				Check: func(s *terraform.State) error {
					// Someone deletes a file from the bucket behind Terraform's back.
					prefix := s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["prefix"]
					return edge.client(t).R2DeleteObject(context.Background(), edge.Identity().AccountID, staticBucket, prefix+"about/index.html")
				},
				ExpectNonEmptyPlan: true,
			},
			{
				// The next plan re-uploads it in place.
				Config: staticSiteConfig(edge, dir),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kamuidash_static_site.docs", tfjsonpath.New("files"), knownvalue.MapSizeExact(2)),
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
				Config: staticSiteConfig(edge, dir) + fmt.Sprintf(`
resource "kamuidash_static_site" "again" {
  name       = "docs"
  bucket     = %q
  source_dir = %q
}
`, staticBucket, dir),
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
