package workertest

import (
	"maps"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// num reads a number field of a log line; an absent one (omitempty) is 0.
func num(l map[string]any, key string) int {
	f, _ := l[key].(float64)
	return int(f)
}

// A content-addressed site in workerd: headers from the manifest (not from R2's metadata),
// and revalidation and HEAD answered without reading the object.
func TestSiteRevalidationAndHEADReadNoObject(t *testing.T) {
	want := casFiles(1)["guide/start.html"]
	plain := do(t, "GET", "cas.kamui.test", "/guide/start.html?rv=plain", identity(nil), "")
	etag := plain.header.Get("ETag")
	if plain.status != 200 || plain.body != want.body || etag != route.SiteETag(siteObject(want.body)) ||
		plain.header.Get("Content-Type") != want.typ || plain.header.Get("Last-Modified") != "" ||
		plain.header.Get("Content-Length") != strconv.Itoa(len(want.body)) {
		t.Fatalf("plain GET: %d %q %v", plain.status, plain.body, plain.header)
	}
	if l := logOf(t, plain.header.Get("X-Request-Id")); num(l, "r2_reads") != 1 || l["outcome"] != "ok" {
		t.Errorf("plain GET: log %v", l)
	}

	// Each request its own URL: the content cache misses, so the Worker decides each one.
	for i, c := range []struct {
		name, method string
		hdr          map[string]string
		status       int
	}{
		{"If-None-Match current", "GET", map[string]string{"If-None-Match": etag}, 304},
		{"HEAD", "HEAD", nil, 200},
		{"HEAD If-None-Match", "HEAD", map[string]string{"If-None-Match": etag}, 304},
		{"Range unsatisfiable", "GET", map[string]string{"Range": "bytes=1000-"}, 416},
	} {
		r := do(t, c.method, "cas.kamui.test", "/guide/start.html?rv="+strconv.Itoa(i), identity(c.hdr), "")
		if r.status != c.status || r.body != "" && c.status != 416 {
			t.Errorf("%s: %d %q", c.name, r.status, r.body)
		}
		l := logOf(t, r.header.Get("X-Request-Id"))
		if l["content_cache"] != "miss" || l["delivery"] != "static" {
			t.Fatalf("%s: not decided by the Worker: %v", c.name, l)
		}
		if _, read := l["r2_reads"]; read || num(l, "manifest_reads") != 0 {
			t.Errorf("%s: the object or the manifest was read: %v", c.name, l)
		}
		if c.status == 304 && (r.header.Get("ETag") != etag || r.header.Get("Cache-Control") != "public, max-age=0, must-revalidate") {
			t.Errorf("%s: headers %v", c.name, r.header)
		}
		if c.status == 200 {
			for _, name := range []string{"Content-Type", "Content-Length", "ETag", "Accept-Ranges", "Cache-Control", "X-Content-Type-Options"} {
				if r.header.Get(name) != plain.header.Get(name) {
					t.Errorf("%s: %s %q, GET has %q", c.name, name, r.header.Get(name), plain.header.Get(name))
				}
			}
		}
	}

	// If-Modified-Since alone: no date to compare with, the full 200.
	r := do(t, "GET", "cas.kamui.test", "/guide/start.html?rv=ims", map[string]string{"If-Modified-Since": time.Now().UTC().Add(time.Hour).Format(http.TimeFormat)}, "")
	if r.status != 200 || r.body != want.body {
		t.Errorf("If-Modified-Since alone: %d %q", r.status, r.body)
	}
	// The 404 page, and a missing path is a 404 whatever the client asks.
	nf := do(t, "GET", "cas.kamui.test", "/nope", map[string]string{"If-None-Match": "*"}, "")
	if nf.status != 404 || nf.body != "<h1>cas 404</h1>" {
		t.Errorf("404 page: %d %q", nf.status, nf.body)
	}
	// A directory's path without its slash: redirected to the directory, the query kept,
	// from the manifest alone.
	d := do(t, "GET", "cas.kamui.test", "/guide?rv=dir", nil, "")
	if d.status != 308 || d.header.Get("Location") != "/guide/?rv=dir" || d.body != "" {
		t.Errorf("directory without its slash: %d Location %q %q", d.status, d.header.Get("Location"), d.body)
	}
	if l := logOf(t, d.header.Get("X-Request-Id")); num(l, "r2_reads") != 0 || l["outcome"] != "ok" {
		t.Errorf("directory without its slash: log %v", l)
	}
}

// The record moves to a new version (one file changed): the old ETag of that file gets the
// new content with a 200, the current ETag a 304 without an object read. A second workerd
// over the same bucket with the record moved stands in for the same isolate after the
// freshness budget (which the unit tests cover with a fake clock).
func TestSiteRecordMovesToNewManifest(t *testing.T) {
	old := do(t, "GET", "cas.kamui.test", "/data.txt?move", identity(nil), "")
	oldStart := do(t, "GET", "cas.kamui.test", "/guide/start.html?move", identity(nil), "")
	if old.status != 200 || old.body != deliveryBody || oldStart.status != 200 {
		t.Fatalf("v1: %d %q, %d", old.status, old.body, oldStart.status)
	}

	cfg := hostConfig
	cfg.KV = seedKV()
	cfg.KV["ROUTES"]["cas"] = mustRecord(casRecord(casManifest(2)))
	useHost(t, startOwnHost(t, cfg, time.Minute))

	r := do(t, "GET", "cas.kamui.test", "/data.txt?move", identity(map[string]string{"If-None-Match": old.header.Get("ETag")}), "")
	etag := r.header.Get("ETag")
	if r.status != 200 || r.body != casDataV2 || etag != route.SiteETag(siteObject(casDataV2)) || etag == old.header.Get("ETag") {
		t.Fatalf("the old ETag after the move: %d %q ETag %q", r.status, r.body, etag)
	}
	if l := logOf(t, r.header.Get("X-Request-Id")); num(l, "manifest_reads") != 1 || num(l, "r2_reads") != 1 {
		t.Errorf("the old ETag after the move: log %v", l)
	}
	for _, c := range []struct{ path, etag string }{
		{"/data.txt?current", etag},
		// Unchanged by the new version: the same object, so the same ETag.
		{"/guide/start.html?current", oldStart.header.Get("ETag")},
	} {
		r := do(t, "GET", "cas.kamui.test", c.path, identity(map[string]string{"If-None-Match": c.etag}), "")
		if r.status != 304 {
			t.Errorf("%s with its current ETag: %d %q", c.path, r.status, r.body)
		}
		l := logOf(t, r.header.Get("X-Request-Id"))
		if num(l, "r2_reads") != 0 || num(l, "manifest_reads") != 0 || l["content_cache"] != "miss" {
			t.Errorf("%s with its current ETag: log %v", c.path, l)
		}
	}
}

// A manifest the Worker refuses is a 502 (static-error) naming the problem in the log only,
// read again by the next request; nothing of it reaches a header.
func TestSiteBadManifest(t *testing.T) {
	for _, c := range []struct{ app, want string }{
		{"casbad", "type"},
		{"casbig", "larger than " + strconv.Itoa(route.MaxSiteManifestBytes)},
		{"casnul", "malformed"},
	} {
		for i := 0; i < 2; i++ {
			r := do(t, "GET", c.app+".kamui.test", "/", nil, "")
			assertFixed(t, r, 502, "Set-Cookie")
			if r.header.Get("Set-Cookie") != "" {
				t.Errorf("%s: a header from the manifest: %v", c.app, r.header)
			}
			l := logOf(t, r.header.Get("X-Request-Id"))
			if e, _ := l["error"].(string); l["outcome"] != "static-error" || num(l, "manifest_reads") != 1 ||
				!strings.Contains(e, route.SiteManifestKey("sites/"+c.app+"/", "v1")) || !strings.Contains(e, c.want) {
				t.Errorf("%s: log %v", c.app, l)
			}
		}
	}
}

// In workerd, through the real shim: a site's GET after the isolate let its host go (here the
// memo alone keeps a host, every route-cache lookup failing) reads the object its path had in
// the manifest beside the record's read, one round less, and the answer is that object, read
// once even when it comes back after the record (the core names it again meanwhile). When
// the record moved to another version meanwhile, the object read ahead is not the answer: the
// new version's manifest and object are read and served, and the log counts both object reads.
func TestSiteObjectReadAheadOfTheRecord(t *testing.T) {
	cfg := hostConfig
	cfg.Bindings = maps.Clone(cfg.Bindings)
	cfg.Bindings["FRESHNESS_BUDGET_SECONDS"] = "45" // a memo of 1.5 s, manifests held for 45 s
	cfg.KV = seedKV()
	moving := func(manifest string) string {
		r := casRecord(manifest)
		r.App = "casmove"
		return mustRecord(r)
	}
	cfg.KV["ROUTES"]["casmove"] = moving(casManifest(1))
	cfg.FailCache = []string{"/route/v1/"}
	// data.txt's object answers after the record's read: the core then names the object
	// still out again, and the shim must not read it twice.
	cfg.SlowR2 = []string{siteObject(deliveryBody)}
	h := startOwnHost(t, cfg, time.Minute)
	useHost(t, h)

	for _, app := range []string{"cas", "casmove"} {
		if r := do(t, "GET", app+".kamui.test", "/guide/start.html?first", identity(nil), ""); r.status != 200 {
			t.Fatalf("first GET of %s: %d %q", app, r.status, r.body)
		}
	}
	if err := h.PutKV(client, "ROUTES", "casmove", moving(casManifest(2))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond) // past the memo

	// The bucket's own count of reads (objects and manifests) beside each log line: a key the
	// shim is asked for again while its read is out is not read twice.
	bucketReads := func() int { return countsOf(t, h).R2Reads }
	before := bucketReads()
	r := do(t, "GET", "cas.kamui.test", "/data.txt?ahead", identity(nil), "")
	if r.status != 200 || r.body != deliveryBody || r.header.Get("ETag") != route.SiteETag(siteObject(deliveryBody)) {
		t.Fatalf("GET after the memo: %d %q %v", r.status, r.body, r.header)
	}
	l := logOf(t, r.header.Get("X-Request-Id"))
	if l["route_source"] != "kv" || num(l, "kv_reads") != 1 || num(l, "r2_reads") != 1 || num(l, "manifest_reads") != 0 || num(l, "io_rounds") != 2 {
		t.Errorf("GET after the memo: log %v, want the record from KV and the object read beside it (2 rounds)", l)
	}
	if n := bucketReads() - before; n != 1 {
		t.Errorf("GET after the memo: the bucket was read %d times, want 1", n)
	}
	before = bucketReads()

	m := do(t, "GET", "casmove.kamui.test", "/data.txt?moved", identity(nil), "")
	if m.status != 200 || m.body != casDataV2 || m.header.Get("ETag") != route.SiteETag(siteObject(casDataV2)) ||
		m.header.Get("Content-Length") != strconv.Itoa(len(casDataV2)) {
		t.Fatalf("GET after the record moved: %d %q %v, want version 2's data.txt", m.status, m.body, m.header)
	}
	l = logOf(t, m.header.Get("X-Request-Id"))
	if num(l, "r2_reads") != 2 || num(l, "manifest_reads") != 1 || num(l, "io_rounds") != 4 {
		t.Errorf("GET after the record moved: log %v, want 2 object reads (one read ahead, unused), 1 manifest read, 4 rounds", l)
	}
	if n := bucketReads() - before; n != 3 {
		t.Errorf("GET after the record moved: the bucket was read %d times, want 3", n)
	}
}

// In workerd, through the real shim: a custom host this isolate resolved before, whose own
// route-cache entry is gone (here: every lookup of it fails) while its app's is not, names in
// one round its mapping's read, its app's entry (in the host lookup's place) and the object its
// path had: two rounds in all, no ROUTES read, the object read once. The log line's route cache
// stays the host's own lookup, so the app's entry was filed as the app's.
func TestCustomHostReadsAheadInOneRound(t *testing.T) {
	cfg := hostConfig
	cfg.Bindings = maps.Clone(cfg.Bindings)
	cfg.Bindings["FRESHNESS_BUDGET_SECONDS"] = "45" // a memo of 1.5 s, the route cache's far longer
	cfg.KV = seedKV()
	cfg.KV["DOMAINS"]["www.cas.example"] = mustMapping(route.DomainMapping{App: "cas", Status: route.StatusActive})
	cfg.FailCache = []string{"/route/v1/www.cas.example"}
	h := startOwnHost(t, cfg, time.Minute)
	useHost(t, h)

	if r := do(t, "GET", "www.cas.example", "/guide/start.html?first", identity(nil), ""); r.status != 200 {
		t.Fatalf("first GET: %d %q", r.status, r.body)
	}
	time.Sleep(2500 * time.Millisecond) // past the memo, well within the app's entry

	before := countsOf(t, h)
	r := do(t, "GET", "www.cas.example", "/data.txt?ahead", identity(nil), "")
	if r.status != 200 || r.body != deliveryBody || r.header.Get("ETag") != route.SiteETag(siteObject(deliveryBody)) {
		t.Fatalf("GET after the memo: %d %q %v", r.status, r.body, r.header)
	}
	l := logOf(t, r.header.Get("X-Request-Id"))
	if l["route_source"] != "kv" || l["route_cache"] != "error" || num(l, "kv_reads") != 1 || num(l, "r2_reads") != 1 ||
		num(l, "manifest_reads") != 0 || num(l, "io_rounds") != 2 {
		t.Errorf("GET after the memo: log %v, want the mapping from KV beside the app's entry and the object (2 rounds)", l)
	}
	if d := countsOf(t, h).Minus(before); d.R2Reads != 1 || d.Reads != 1 {
		t.Errorf("the bucket was read %d times and KV %d, want 1 each (the object, the mapping)", d.R2Reads, d.Reads)
	}
}

// In workerd, through the real shim: past the freshness budget the isolate has let a site's
// manifest go as well as its record, and the manifest the record last named is read ahead in
// the wire's second binding-read slot, beside the record's read and the object's: two rounds in
// all, each read made once. (The budget's floor is 45 s, so this test waits that long.)
func TestSiteManifestReadAheadPastTheBudget(t *testing.T) {
	cfg := hostConfig
	cfg.Bindings = maps.Clone(cfg.Bindings)
	cfg.Bindings["FRESHNESS_BUDGET_SECONDS"] = "45" // the floor: manifests held for 45 s
	cfg.KV = seedKV()
	h := startOwnHost(t, cfg, 2*time.Minute)
	useHost(t, h)

	if r := do(t, "GET", "cas.kamui.test", "/guide/start.html?first", identity(nil), ""); r.status != 200 {
		t.Fatalf("first GET: %d %q", r.status, r.body)
	}
	time.Sleep(46 * time.Second) // past the budget: the record and the manifest are both let go
	// The isolate's hold on the name filter is over too: another host's request reads it again
	// (the runner's), as some request does once a hold is over, so that the site's reads are named.
	if r := do(t, "GET", "nobody.kamui.test", "/", nil, ""); r.status != 404 {
		t.Fatalf("an unknown host: %d", r.status)
	}

	before := countsOf(t, h)
	r := do(t, "GET", "cas.kamui.test", "/data.txt?ahead", identity(nil), "")
	if r.status != 200 || r.body != deliveryBody {
		t.Fatalf("GET past the budget: %d %q", r.status, r.body)
	}
	l := logOf(t, r.header.Get("X-Request-Id"))
	if l["route_source"] != "kv" || num(l, "kv_reads") != 1 || num(l, "manifest_reads") != 1 || num(l, "r2_reads") != 1 ||
		num(l, "io_rounds") != 2 {
		t.Errorf("GET past the budget: log %v, want the record, the manifest and the object side by side (2 rounds)", l)
	}
	if d := countsOf(t, h).Minus(before); d.R2Reads != 2 || d.Reads != 1 {
		t.Errorf("the bucket was read %d times and KV %d; want 2 (the manifest, the object) and 1", d.R2Reads, d.Reads)
	}
}

// A split site in workerd: each request reads the version's manifest once per isolate and
// the shard of each path it looks up, and what it looks up beyond its path (a directory's
// index, the 404 page) is found in whichever shard holds it.
func TestSplitSiteReadsTheShardsItNeeds(t *testing.T) {
	h := startOwnHost(t, hostConfig, time.Minute) // a fresh isolate: nothing of the site read yet
	useHost(t, h)
	first := do(t, "GET", "casshard.kamui.test", "/pages/7.html", nil, "")
	if first.status != 200 || first.body != "<p>page 7</p>" {
		t.Fatalf("/pages/7.html: %d %q", first.status, first.body)
	}
	if l := logOf(t, first.header.Get("X-Request-Id")); num(l, "manifest_reads") != 2 || num(l, "r2_reads") != 1 {
		t.Errorf("first GET: log %v; want the manifest and one shard read, then the object", l)
	}
	for _, c := range []struct {
		path   string
		status int
		body   string
	}{
		{"/", 200, "<h1>cas home</h1>"},
		{"/guide/", 200, "<h1>cas guide</h1>"},
		{"/guide", 308, ""},
		{"/pages/none.html", 404, "<h1>cas 404</h1>"},
		{"/pages/300.html", 200, "<p>page 300</p>"},
	} {
		r := do(t, "GET", "casshard.kamui.test", c.path, nil, "")
		if r.status != c.status || r.body != c.body {
			t.Errorf("%s: %d %q, want %d %q", c.path, r.status, r.body, c.status, c.body)
		}
		// Never the whole site: the version's manifest was read once, and a request reads
		// at most the shards of the paths it looks up (its own, a directory's index, the
		// 404 page).
		if l := logOf(t, r.header.Get("X-Request-Id")); num(l, "manifest_reads") > 3 {
			t.Errorf("%s: %d manifest reads", c.path, num(l, "manifest_reads"))
		}
	}
}
