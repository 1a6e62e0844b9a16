package provider

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// largeSitePages is how many files the tests of split versions upload: more than
// route.SiteShardFiles, so that a version's manifest is split into shards.
const largeSitePages = 600

// pageSite is a site of n pages, each with content of its own; edited names pages whose
// content differs ("page 3" → "page 3, edited").
func pageSite(n int, edited ...int) map[string]string {
	files := make(map[string]string, n)
	for i := range n {
		files[pagePath(i)] = fmt.Sprintf("<h1>page %d</h1>", i)
	}
	for _, i := range edited {
		files[pagePath(i)] = fmt.Sprintf("<h1>page %d, edited</h1>", i)
	}
	return files
}

// staticSiteConfigOverS3 is staticSiteConfig with the edge's R2 key pair: the REST API's rate
// limit (four calls a second) would make a site of hundreds of files take minutes to upload,
// and minutes more to take back after a failed create.
func staticSiteConfigOverS3(edge *testEdge, dir string) string {
	return edge.providerBlockWithS3() + strings.TrimPrefix(staticSiteConfig(edge, dir), edge.providerBlock())
}

func pagePath(i int) string { return fmt.Sprintf("docs/page-%d/index.html", i) }

// siteVersion reads the version whose manifest is under key from the local edge's state as
// the Worker reads it: the manifest, then each of its shards. It returns the version's files
// and the keys of its shards (none for a version that is not split).
func (e *testEdge) siteVersion(key string) (map[string]route.SiteFile, []string, error) {
	body := e.staticObject(key)
	if body == nil {
		return nil, nil, fmt.Errorf("the manifest %s is not in the bucket", key)
	}
	m, err := route.DecodeSiteManifest(body)
	if err != nil {
		return nil, nil, fmt.Errorf("the manifest %s does not decode: %v", key, err)
	}
	if m.Shards == 0 {
		return m.Files, nil, nil
	}
	files := map[string]route.SiteFile{}
	var shards []string
	for i := range m.Shards {
		k := route.SiteShardKey(key, i)
		s, err := route.DecodeSiteShard(e.staticObject(k), key, i, m.Shards)
		if err != nil {
			return nil, nil, fmt.Errorf("the shard %s does not decode: %v", k, err)
		}
		maps.Copy(files, s.Files)
		shards = append(shards, k)
	}
	return files, shards, nil
}

// checkSplitVersion checks that the version under key is split and holds exactly the files
// of site, each naming its content's object; it returns the keys of its shards.
func (e *testEdge) checkSplitVersion(key string, site map[string]string) ([]string, error) {
	files, shards, err := e.siteVersion(key)
	switch {
	case err != nil:
		return nil, err
	case len(shards) < 2:
		return nil, fmt.Errorf("the version %s of %d files is not split (%d shards)", key, len(site), len(shards))
	case len(files) != len(site):
		return nil, fmt.Errorf("the shards of %s hold %d files; want %d", key, len(files), len(site))
	}
	for p, content := range site {
		if f := files[p]; f.Object != sha(content) || f.Type != "text/html; charset=utf-8" || f.Size != int64(len(content)) {
			return nil, fmt.Errorf("the shards of %s name %s as %+v", key, p, f)
		}
	}
	return shards, nil
}

// checkRepublished checks that the version under manifest holds site, split, and that the
// objects uploaded since before were its shards and its manifest alone (no file); it returns
// the shards.
func (e *testEdge) checkRepublished(manifest string, site map[string]string, before map[string]int) ([]string, error) {
	shards, err := e.checkSplitVersion(manifest, site)
	if err != nil {
		return nil, err
	}
	if n := objectPuts(e.operations()) - objectPuts(before); n != len(shards)+1 {
		return nil, fmt.Errorf("%d objects were uploaded, want the %d shards and the manifest", n, len(shards))
	}
	return shards, nil
}

// checkNothingReadSince fails when an object was read since before: a refresh and plan of a
// split version read none.
func (e *testEdge) checkNothingReadSince(before map[string]int) error {
	if n := objectGets(e.operations()) - objectGets(before); n != 0 {
		return fmt.Errorf("the refresh and plan read %d objects, want none", n)
	}
	return nil
}

// siteKeys is what the bucket holds for the given versions of site docs: each one's manifest
// and shards, and the object of each distinct content; sorted, as objectKeys lists.
func siteKeys(versions map[string][]string, sites ...map[string]string) []string {
	var keys []string
	for manifest, shards := range versions {
		keys = append(keys, manifest)
		keys = append(keys, shards...)
	}
	for _, site := range sites {
		for _, content := range site {
			keys = append(keys, siteObject(content))
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// requestLog is a local edge middleware that records every object upload and delete, through
// either API, in the order the edge received them ("PUT <key>", "DELETE <key>"); the keys of an
// S3 DeleteObjects batch in the order the batch lists them.
type requestLog struct {
	mu      sync.Mutex
	entries []string
}

func (l *requestLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entries, err := loggedRequest(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		l.mu.Lock()
		l.entries = append(l.entries, entries...)
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// loggedRequest is what the log records of r: an object's upload or delete, each key of a
// batch delete, or nothing. It leaves r's body for the edge to read.
func loggedRequest(r *http.Request) ([]string, error) {
	if r.Method == http.MethodPost && r.URL.Query().Has("delete") {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var batch struct {
			Objects []struct{ Key string } `xml:"Object"`
		}
		if err := xml.Unmarshal(body, &batch); err != nil {
			return nil, err
		}
		var entries []string
		for _, o := range batch.Objects {
			entries = append(entries, "DELETE "+o.Key)
		}
		return entries, nil
	}
	if r.Method != http.MethodPut && r.Method != http.MethodDelete {
		return nil, nil
	}
	if _, key, ok := strings.Cut(r.URL.Path, "/objects/"); ok { // the REST API
		return []string{r.Method + " " + key}, nil
	}
	if _, key, ok := strings.Cut(r.URL.Path, cfapi.S3Prefix+"/"+staticBucket+"/"); ok {
		return []string{r.Method + " " + key}, nil
	}
	return nil, nil
}

// since is the log from entry n on, and how many entries it holds in all.
func (l *requestLog) since(n int) ([]string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries[n:]), len(l.entries)
}

// checkBefore fails unless log holds every entry of first, and each of them comes before
// every entry of then.
func checkBefore(log []string, first, then []string) error {
	last := -1
	for _, e := range first {
		i := slices.Index(log, e)
		if i < 0 {
			return fmt.Errorf("%q is not in the log %v", e, log)
		}
		last = max(last, i)
	}
	for _, e := range then {
		if i := slices.Index(log, e); i >= 0 && i < last {
			return fmt.Errorf("%q came before %q", e, log[last])
		}
	}
	return nil
}

func prefixed(prefix string, keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = prefix + k
	}
	return out
}

// TestAccStaticSite_LargeSiteIsSplitIntoShards: a version of more than route.SiteShardFiles
// files is uploaded as shards and then a manifest naming how many, never the manifest first
// (the Worker may read it the moment it exists). A shard deleted behind Terraform's back is
// put back, an edit uploads its one object and the new version's pieces, and a split version
// imports.
func TestAccStaticSite_LargeSiteIsSplitIntoShards(t *testing.T) {
	var log requestLog
	edge := newTestEdgeBehind(t, log.wrap)
	dir := filepath.Join(t.TempDir(), "site")
	v1, v2 := pageSite(largeSitePages), pageSite(largeSitePages, 7)
	writeFiles(t, dir, v1)
	var manifestV1, manifestV2 string
	var shardsV1 []string
	var opsBefore map[string]int
	var logAt int
	manifestOf := func(s *terraform.State) string {
		return s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["manifest"]
	}
	// checkPublished checks the version under manifest holds site and was uploaded in this
	// step, its shards before it.
	checkPublished := func(manifest string, site map[string]string) ([]string, error) {
		shards, err := edge.checkSplitVersion(manifest, site)
		if err != nil {
			return nil, err
		}
		entries, n := log.since(logAt)
		logAt = n
		return shards, checkBefore(entries, prefixed("PUT ", shards), []string{"PUT " + manifest})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{
				Config: staticSiteConfigOverS3(edge, dir),
				Check: func(s *terraform.State) error {
					manifestV1 = manifestOf(s)
					var err error
					if shardsV1, err = checkPublished(manifestV1, v1); err != nil {
						return err
					}
					if got, want := edge.objectKeys(), siteKeys(map[string][]string{manifestV1: shardsV1}, v1); !slices.Equal(got, want) {
						return fmt.Errorf("bucket holds %d keys, want %d: %v", len(got), len(want), got)
					}
					return nil
				},
			},
			{
				// Someone deletes a shard: the version served is not whole, and the next plan
				// says so.
				Config:           staticSiteConfigOverS3(edge, dir),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: func(*terraform.State) error {
					return edge.client(t).R2DeleteObject(context.Background(), edge.Identity().AccountID, staticBucket, shardsV1[1])
				},
				ExpectNonEmptyPlan: true,
			},
			{
				// The apply puts the version's pieces back, shards first, and no object.
				PreConfig: func() { opsBefore = edge.operations(); _, logAt = log.since(0) },
				Config:    staticSiteConfigOverS3(edge, dir),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionUpdate)},
				},
				Check: func(*terraform.State) error {
					if _, err := checkPublished(manifestV1, v1); err != nil {
						return err
					}
					if n := objectPuts(edge.operations()) - objectPuts(opsBefore); n != len(shardsV1)+1 {
						return fmt.Errorf("the repair uploaded %d objects, want the %d shards and the manifest", n, len(shardsV1))
					}
					return nil
				},
			},
			{
				// One page edited: its object, the new version's shards and its manifest.
				PreConfig: func() { writeFiles(t, dir, v2); opsBefore = edge.operations(); _, logAt = log.since(0) },
				Config:    staticSiteConfigOverS3(edge, dir),
				Check: func(s *terraform.State) error {
					manifestV2 = manifestOf(s)
					shardsV2, err := checkPublished(manifestV2, v2)
					if err != nil {
						return err
					}
					if n := objectPuts(edge.operations()) - objectPuts(opsBefore); n != 1+len(shardsV2)+1 {
						return fmt.Errorf("the edit uploaded %d objects, want the edited page, %d shards and the manifest", n, len(shardsV2))
					}
					want := siteKeys(map[string][]string{manifestV1: shardsV1, manifestV2: shardsV2}, v1, v2)
					if got := edge.objectKeys(); !slices.Equal(got, want) {
						return fmt.Errorf("bucket holds %d keys, want %d: %v", len(got), len(want), got)
					}
					return nil
				},
			},
			{
				// The shards are not versions.
				ResourceName:  "kamuidash_static_site.docs",
				ImportState:   true,
				ImportStateId: staticBucket + "/docs",
				ExpectError:   regexp.MustCompile(`(?s)Cannot Import Static Site.*2 versions were found`),
			},
			{
				ResourceName: "kamuidash_static_site.docs",
				ImportState:  true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return staticBucket + "/docs/" + s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["version"], nil
				},
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"source_dir", "retain_versions", "versions", "retiring_versions"},
			},
		},
	})
}

// TestAccStaticSite_FailedCreateTakesBackItsShards: a create whose manifest upload was stored
// but answered with an error has uploaded every shard before it; the create's cleanup deletes
// them with the rest, so running the apply again creates the site.
func TestAccStaticSite_FailedCreateTakesBackItsShards(t *testing.T) {
	var failing bool
	var log requestLog
	manifest := regexp.MustCompile(`/manifests/[0-9a-f]{16}\.json$`)
	edge := newTestEdgeBehind(t, func(next http.Handler) http.Handler {
		next = log.wrap(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if failing && r.Method == http.MethodPut && manifest.MatchString(r.URL.Path) {
				next.ServeHTTP(httptest.NewRecorder(), r) // stored...
				http.Error(w, `{"success":false,"errors":[{"code":10001,"message":"after write"}]}`, http.StatusGatewayTimeout)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	dir := filepath.Join(t.TempDir(), "site")
	writeFiles(t, dir, pageSite(300))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { failing = true },
				Config:      staticSiteConfigOverS3(edge, dir),
				ExpectError: regexp.MustCompile(`Unable to Upload Static Site`),
			},
			{
				PreConfig: func() {
					entries, _ := log.since(0)
					if !slices.ContainsFunc(entries, isShardUpload) {
						t.Errorf("the failed create uploaded no shard: %v", entries)
					}
					if keys := edge.objectKeys(); len(keys) > 0 {
						t.Errorf("the failed create left %d keys: %v", len(keys), keys)
					}
					failing = false
				},
				Config: staticSiteConfigOverS3(edge, dir),
			},
		},
	})
}

// isShardUpload says whether a log entry is the upload of a shard, "…/manifests/<v>/<i>.json".
func isShardUpload(entry string) bool {
	key, ok := strings.CutPrefix(entry, "PUT ")
	_, shard, split := strings.Cut(key, "/manifests/")
	return ok && split && strings.Contains(shard, "/")
}

// TestAccStaticSite_RetiredSplitVersionGoesWhole: with retain_versions = 1, a split version
// that has retired longer than route.MaxFreshnessBudget goes with its shards and the object
// only it named, its manifest deleted before its shards and they before the object, so that
// a delete cut short never leaves a manifest naming what is gone. Shards whose manifest was
// never written (a publish that failed half way) retire and go the same way.
func TestAccStaticSite_RetiredSplitVersionGoesWhole(t *testing.T) {
	var log requestLog
	edge := newTestEdgeBehind(t, log.wrap)
	clock := newSiteClock()

	dir := filepath.Join(t.TempDir(), "site")
	config := strings.Replace(staticSiteConfigOverS3(edge, dir), "  source_dir", "  retain_versions = 1\n  source_dir", 1)
	const halfway = "fedcba9876543210"
	stray := route.SiteShardKey(siteManifest(halfway), 0)
	sites := []map[string]string{pageSite(300), pageSite(300, 0), pageSite(300, 0, 1)}
	manifests := make([]string, len(sites))
	shards := make([][]string, len(sites))
	var logAt int
	deploy := func(n int, after time.Duration) func() {
		return func() { clock.At(after); writeFiles(t, dir, sites[n]); _, logAt = log.since(0) }
	}
	// published records version n and checks what the bucket holds (the pieces of held
	// versions and their objects, and the stray shard while it retires) and which versions
	// retire since when.
	published := func(n int, held []int, stayed bool, retiring map[string]time.Duration) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			attrs := s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes
			manifests[n] = attrs["manifest"]
			var err error
			if shards[n], err = edge.checkSplitVersion(manifests[n], sites[n]); err != nil {
				return err
			}
			versions := map[string][]string{}
			var heldSites []map[string]string
			for _, v := range held {
				versions[manifests[v]] = shards[v]
				heldSites = append(heldSites, sites[v])
			}
			want := siteKeys(versions, heldSites...)
			if stayed {
				want = append(want, stray)
				slices.Sort(want)
			}
			if got := edge.objectKeys(); !slices.Equal(got, want) {
				return fmt.Errorf("bucket holds %d keys, want %d: %v", len(got), len(want), got)
			}
			if got := attrs["retiring_versions.%"]; got != fmt.Sprint(len(retiring)) {
				return fmt.Errorf("%s versions retiring, want %d", got, len(retiring))
			}
			for v, since := range retiring {
				if got := attrs["retiring_versions."+v]; got != clock.Stamp(since) {
					return fmt.Errorf("version %s retiring since %q, want %q", v, got, clock.Stamp(since))
				}
			}
			return nil
		}
	}
	versionOf := func(n int) string {
		return strings.TrimSuffix(strings.TrimPrefix(manifests[n], "sites/docs/manifests/"), ".json")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providerFactoriesWithSiteClock(clock.Now),
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{PreConfig: deploy(0, 0), Config: config, Check: published(0, []int{0}, false, nil)},
			{
				PreConfig: func() {
					deploy(1, 0)()
					body := []byte(`{"v":1}`)
					if err := edge.client(t).R2PutObject(context.Background(), edge.Identity().AccountID, staticBucket, stray,
						bytes.NewReader(body), int64(len(body)), "application/json"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				Check: func(s *terraform.State) error {
					return published(1, []int{0, 1}, true, map[string]time.Duration{versionOf(0): 0, halfway: 0})(s)
				},
			},
			{
				PreConfig: deploy(2, 61*time.Minute),
				Config:    config,
				Check: func(s *terraform.State) error {
					if err := published(2, []int{1, 2}, false, map[string]time.Duration{versionOf(1): 61 * time.Minute})(s); err != nil {
						return err
					}
					entries, _ := log.since(logAt)
					gone := siteObject(sites[0][pagePath(0)])
					if err := checkBefore(entries, []string{"DELETE " + manifests[0]}, prefixed("DELETE ", append(shards[0], stray))); err != nil {
						return fmt.Errorf("manifest before shards: %v", err)
					}
					if err := checkBefore(entries, prefixed("DELETE ", append(shards[0], stray)), []string{"DELETE " + gone}); err != nil {
						return fmt.Errorf("shards before objects: %v", err)
					}
					return nil
				},
			},
		},
	})
}

// TestAccStaticSite_LargeVersionWrittenWholeIsSplit: a large version an earlier release wrote
// in one manifest (no shards) is published again, split, by the next apply after the upgrade:
// the plan says why (a warning) and shows the update, the apply writes the shards and then the
// manifest, and uploads no file; the plan after it is empty.
func TestAccStaticSite_LargeVersionWrittenWholeIsSplit(t *testing.T) {
	var log requestLog
	edge := newTestEdgeBehind(t, log.wrap)
	dir := filepath.Join(t.TempDir(), "site")
	site := pageSite(300)
	writeFiles(t, dir, site)
	var manifest string
	var opsBefore map[string]int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{
				Config: staticSiteConfigOverS3(edge, dir),
				Check: func(s *terraform.State) error {
					// What an earlier release left: the same version in one manifest, no shards.
					manifest = s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["manifest"]
					files, shards, err := edge.siteVersion(manifest)
					if err != nil {
						return err
					}
					ctx, c := context.Background(), edge.client(t)
					for _, k := range shards {
						if err := c.R2DeleteObject(ctx, edge.Identity().AccountID, staticBucket, k); err != nil {
							return err
						}
					}
					whole, err := route.EncodeSiteManifest(route.SiteManifest{Files: files})
					if err != nil {
						return err
					}
					return c.R2PutObject(ctx, edge.Identity().AccountID, staticBucket, manifest, bytes.NewReader(whole), int64(len(whole)), "application/json")
				},
				ExpectNonEmptyPlan: true, // the refresh finds the version written whole
			},
			{
				PreConfig: func() { opsBefore = edge.operations() },
				Config:    staticSiteConfigOverS3(edge, dir),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionUpdate)},
				},
				Check: func(*terraform.State) error {
					shards, err := edge.checkRepublished(manifest, site, opsBefore)
					if err != nil {
						return err
					}
					entries, _ := log.since(0)
					return checkBefore(entries[len(entries)-len(shards)-1:], prefixed("PUT ", shards), []string{"PUT " + manifest})
				},
			},
			{
				// A refresh of a split version reads no object: its shard count is in the
				// resource's private state, and the listing shows the shards.
				PreConfig:        func() { opsBefore = edge.operations() },
				Config:           staticSiteConfigOverS3(edge, dir),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            func(*terraform.State) error { return edge.checkNothingReadSince(opsBefore) },
			},
		},
	})
}

// objectGets is how many objects were read, through either API.
func objectGets(ops map[string]int) int {
	return ops["S3 GetObject"] + ops["GET /accounts/{account_id}/r2/buckets/{bucket_name}/objects/{object_key...}"]
}

// TestAccStaticSite_SplitSiteOfAccentedNames: a large site whose names are spelled decomposed
// (NFD, as macOS's HFS+ writes them) is served under both spellings, so its manifest holds
// twice the paths the state's files attribute does (Terraform keeps every string composed).
// The plan after the apply is empty all the same, and a refresh still finds a deleted shard:
// the last one, which a split worked out from the state's paths would not have known of
// (300 paths are 2 shards, the manifest's 600 are 3).
func TestAccStaticSite_SplitSiteOfAccentedNames(t *testing.T) {
	edge := newTestEdge(t)
	dir := filepath.Join(t.TempDir(), "site")
	site, served := map[string]string{}, map[string]string{}
	for i := range 300 {
		content := fmt.Sprintf("<h1>café %d</h1>", i)
		site[fmt.Sprintf("docs/cafe\u0301-%d/index.html", i)] = content
		served[fmt.Sprintf("docs/cafe\u0301-%d/index.html", i)] = content
		served[fmt.Sprintf("docs/caf\u00e9-%d/index.html", i)] = content
	}
	writeFiles(t, dir, site)
	var manifest string
	var shards []string
	var opsBefore map[string]int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoSiteObjects,
		Steps: []resource.TestStep{
			{
				Config: staticSiteConfigOverS3(edge, dir),
				Check: func(s *terraform.State) error {
					manifest = s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["manifest"]
					var err error
					if shards, err = edge.checkSplitVersion(manifest, served); err != nil {
						return err
					}
					if len(shards) != 3 {
						return fmt.Errorf("the version is in %d shards, want 3 (600 paths)", len(shards))
					}
					if n := s.RootModule().Resources["kamuidash_static_site.docs"].Primary.Attributes["files.%"]; n != "300" {
						return fmt.Errorf("files has %s entries, want one a file: 300", n)
					}
					return nil
				},
			},
			{
				PreConfig:        func() { opsBefore = edge.operations() },
				Config:           staticSiteConfigOverS3(edge, dir),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: func(*terraform.State) error {
					if err := edge.checkNothingReadSince(opsBefore); err != nil {
						return err
					}
					return edge.client(t).R2DeleteObject(context.Background(), edge.Identity().AccountID, staticBucket, shards[2])
				},
				ExpectNonEmptyPlan: true, // the refresh finds the last shard gone
			},
			{
				PreConfig: func() { opsBefore = edge.operations() },
				Config:    staticSiteConfigOverS3(edge, dir),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("kamuidash_static_site.docs", plancheck.ResourceActionUpdate)},
				},
				Check: func(*terraform.State) error {
					_, err := edge.checkRepublished(manifest, served, opsBefore)
					return err
				},
			},
		},
	})
}
