package edge

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// splitFiles is a site large enough to be split into shards: pages, an index, a directory
// and a 404 page.
func splitFiles() map[string]siteContent {
	files := map[string]siteContent{
		"index.html":      {"text/html; charset=utf-8", "home"},
		"404.html":        {"text/html; charset=utf-8", "big 404"},
		"docs/index.html": {"text/html; charset=utf-8", "docs index"},
	}
	for i := range 3 * route.SiteShardFiles {
		files["pages/"+strconv.Itoa(i)+".html"] = siteContent{"text/html; charset=utf-8", "page " + strconv.Itoa(i)}
	}
	return files
}

// putSplitSite writes version v1 of the site under sites/big/ as the provider does when it has
// more than route.SiteShardFiles files: each content once, then the shards, then the version's
// manifest naming their count. It returns the manifest key and the count.
func putSplitSite(t testing.TB, objects map[string]string, files map[string]siteContent) (string, int) {
	t.Helper()
	const prefix = "sites/big/"
	m := route.SiteManifest{Files: map[string]route.SiteFile{}}
	for p, c := range files {
		obj := objectOf(c.body)
		objects[route.SiteObjectKey(prefix, obj)] = c.body
		m.Files[p] = route.SiteFile{Object: obj, Type: c.typ, Size: int64(len(c.body))}
	}
	key := route.SiteManifestKey(prefix, "v1")
	root, shards, err := route.SplitSiteManifest(key, m)
	if err != nil || len(shards) < 2 {
		t.Fatalf("split into %d shards: %v", len(shards), err)
	}
	for i, s := range shards {
		b, err := route.EncodeSiteShard(s, key, i, len(shards))
		if err != nil {
			t.Fatal(err)
		}
		objects[route.SiteShardKey(key, i)] = string(b)
	}
	b, err := route.EncodeSiteManifest(root)
	if err != nil {
		t.Fatal(err)
	}
	objects[key] = string(b)
	return key, len(shards)
}

// drivers are the two ways a request is served: as the wasm adapter drives it (Decide, and
// the reads it names), and in one blocking Run.
var drivers = []struct {
	name  string
	serve func(w *world, h *Handler, req *Request) *Exchange
}{
	{"decide", func(w *world, h *Handler, req *Request) *Exchange { ex, _ := w.adapt(h, req); return ex }},
	{"run", func(w *world, h *Handler, req *Request) *Exchange { return w.serve(h, req) }},
}

// A request to a split version reads the version's manifest and the one shard of its path,
// not the whole site; a later request reads only a shard the isolate has not read yet.
func TestSplitSiteReadsOnlyTheShardOfThePath(t *testing.T) {
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			w := newWorld(t)
			key, n := putSplitSite(t, w.objects.data, splitFiles())
			w.routes.data["big"] = record(t, siteRecord("big", key, "404.html", false))
			w.warmFilter(t, w.h)
			shardOf := func(p string) string { return route.SiteShardKey(key, route.SiteShard(key, p, n)) }

			_, m0 := w.objects.counts()
			ex := d.serve(w, w.h, get("big.kamui.test", "/pages/17.html"))
			if ex.Plan.Status != 200 || sent(t, ex.Plan) != "page 17" {
				t.Fatalf("/pages/17.html: %d %q", ex.Plan.Status, sent(t, ex.Plan))
			}
			if got := w.objects.texts[m0:]; len(got) != 2 || got[0] != key || got[1] != shardOf("pages/17.html") {
				t.Errorf("manifest reads %v; want the version's manifest, then %s", got, shardOf("pages/17.html"))
			}
			if ex.line.ManifestReads != 2 {
				t.Errorf("log counts %d manifest reads, want 2", ex.line.ManifestReads)
			}

			// Another path of the same shard: no manifest read; of another shard: that shard.
			var same, other string
			for i := range 3 * route.SiteShardFiles {
				p := "pages/" + strconv.Itoa(i) + ".html"
				switch {
				case same == "" && p != "pages/17.html" && shardOf(p) == shardOf("pages/17.html"):
					same = p
				case other == "" && shardOf(p) != shardOf("pages/17.html"):
					other = p
				}
			}
			for _, c := range []struct {
				path  string
				reads []string
			}{{same, nil}, {other, []string{shardOf(other)}}} {
				_, m0 := w.objects.counts()
				ex := d.serve(w, w.h, get("big.kamui.test", "/"+c.path))
				if want := "page " + strings.TrimSuffix(strings.TrimPrefix(c.path, "pages/"), ".html"); ex.Plan.Status != 200 || sent(t, ex.Plan) != want {
					t.Errorf("/%s: %d %q, want %q", c.path, ex.Plan.Status, sent(t, ex.Plan), want)
				}
				if got := w.objects.texts[m0:]; strings.Join(got, ",") != strings.Join(c.reads, ",") {
					t.Errorf("/%s: manifest reads %v, want %v", c.path, got, c.reads)
				}
			}
		})
	}
}

// What a request looks up beyond its own path (a directory's index, a single-page app's
// index, the 404 page) is found in its own shard, whichever that is.
func TestSplitSiteLooksUpAcrossShards(t *testing.T) {
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			w := newWorld(t)
			key, _ := putSplitSite(t, w.objects.data, splitFiles())
			w.routes.data["big"] = record(t, siteRecord("big", key, "404.html", false))
			w.routes.data["bigspa"] = record(t, siteRecord("bigspa", key, "", true))
			w.routes.data["bare"] = record(t, siteRecord("bare", key, "", false))
			for _, c := range []struct {
				host, path string
				status     int
				body       string // or, for a redirect, its location
			}{
				{"big", "/", 200, "home"},
				{"big", "/docs/", 200, "docs index"},
				{"big", "/docs", 308, "/docs/"},
				{"big", "/pages/none.html", 404, "big 404"},
				{"bigspa", "/app/settings", 200, "home"},
				{"bigspa", "/docs", 308, "/docs/"},
				{"bare", "/pages/none.html", 404, ""},
			} {
				h := w.handler(t) // a fresh isolate: every shard read anew
				w.warmFilter(t, h)
				ex := d.serve(w, h, get(c.host+".kamui.test", c.path))
				got := ex.Plan.Header.Get("Location")
				if c.status != 308 {
					got = sent(t, ex.Plan)
				}
				if ex.Plan.Status != c.status || (c.body != "" && got != c.body) {
					t.Errorf("%s%s: %d %q, want %d %q", c.host, c.path, ex.Plan.Status, got, c.status, c.body)
				}
			}
		})
	}
}

// A shard that is missing, or holds a path of another shard, is a 502 naming it, and is never
// remembered: the version is served as soon as the shard is put right.
func TestSplitSiteBadShard(t *testing.T) {
	for _, c := range []struct {
		name   string
		break_ func(objects map[string]string, shard, other string)
		want   string
	}{
		{"missing", func(o map[string]string, shard, _ string) { delete(o, shard) }, "not found"},
		{"of another shard", func(o map[string]string, shard, other string) { o[shard] = o[other] }, "another shard"},
		{"not a shard", func(o map[string]string, shard, _ string) { o[shard] = `{"v":1,"shards":2}` }, "shards"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			key, n := putSplitSite(t, w.objects.data, splitFiles())
			w.routes.data["big"] = record(t, siteRecord("big", key, "", false))
			shard := route.SiteShardKey(key, route.SiteShard(key, "pages/17.html", n))
			other := route.SiteShardKey(key, (route.SiteShard(key, "pages/17.html", n)+1)%n)
			good := w.objects.data[shard]
			c.break_(w.objects.data, shard, other)
			for range 2 {
				ex := w.serve(w.h, get("big.kamui.test", "/pages/17.html"))
				assertFixed(t, ex, 502)
				if ex.line.Outcome != OutcomeStaticError || !strings.Contains(ex.line.Error, shard) || !strings.Contains(ex.line.Error, c.want) {
					t.Errorf("outcome %q, error %q; want static-error naming %s and %q", ex.line.Outcome, ex.line.Error, shard, c.want)
				}
			}
			w.objects.data[shard] = good
			if p := w.serve(w.h, get("big.kamui.test", "/pages/17.html")).Plan; p.Status != 200 || sent(t, p) != "page 17" {
				t.Errorf("after the fix: %d %q", p.Status, sent(t, p))
			}
		})
	}
}

// The read ahead of a split version: the object its path had, when the memo holds the
// path's shard; the version's manifest when the memo let that go, else the path's shard.
func TestReadAheadOfASplitSite(t *testing.T) {
	w := newWorld(t)
	key, n := putSplitSite(t, w.objects.data, splitFiles())
	w.routes.data["big"] = record(t, siteRecord("big", key, "404.html", false))
	host := "big.kamui.test"
	w.warmFilter(t, w.h)
	if ex, _ := w.adapt(w.h, get(host, "/pages/17.html")); ex.Plan.Status != 200 {
		t.Fatalf("first GET: %d", ex.Plan.Status)
	}
	w.clock.Advance(w.h.Config.TTLs.RouteCache + time.Second)
	w.warmFilter(t, w.h)

	req := get(host, "/pages/17.html")
	ex := w.decideToRecordRead(t, w.h, req)
	if want := route.SiteObjectKey("sites/big/", objectOf("page 17")); ex.ObjectKey() != want {
		t.Errorf("object named ahead %q, want %q", ex.ObjectKey(), want)
	}
	if a := ex.ReadAhead(); a.Kind != ReadNone {
		t.Errorf("read ahead %+v with the manifest and its shard live", a)
	}
	w.resume(ex, req)
	w.clock.Advance(w.h.Config.TTLs.Memo + time.Second) // the route cache is cleared below
	// A path whose shard the isolate never read: no object guessed, the shard read ahead.
	shardOf := func(p string) string { return route.SiteShardKey(key, route.SiteShard(key, p, n)) }
	other := ""
	for i := 0; other == ""; i++ {
		if p := "pages/" + strconv.Itoa(i) + ".html"; shardOf(p) != shardOf("pages/17.html") {
			other = p
		}
	}
	w.clearCache()
	w.warmFilter(t, w.h)
	req = get(host, "/"+other)
	ex = w.decideToRecordRead(t, w.h, req)
	if ex.ObjectKey() != "" || ex.ReadAhead().Key != shardOf(other) {
		t.Errorf("/%s: object %q and read ahead %+v; want none and %s", other, ex.ObjectKey(), ex.ReadAhead(), shardOf(other))
	}
	w.resume(ex, req)
	if ex.Plan.Status != 200 || ex.line.ManifestReads != 1 {
		t.Errorf("/%s: %d with %d manifest reads, want 200 with the shard's alone", other, ex.Plan.Status, ex.line.ManifestReads)
	}

	// Past the budget the version's manifest goes first.
	w.clock.Advance(w.h.Config.TTLs.Budget)
	w.clearCache()
	w.warmFilter(t, w.h)
	req = get(host, "/pages/17.html")
	ex = w.decideToRecordRead(t, w.h, req)
	if ex.ReadAhead().Key != key {
		t.Errorf("past the budget: read ahead %+v, want the version's manifest", ex.ReadAhead())
	}
	w.resume(ex, req)
	if ex.Plan.Status != 200 || bodyText(t, ex.Plan.Body) != "page 17" {
		t.Errorf("past the budget: %d %q", ex.Plan.Status, bodyText(t, ex.Plan.Body))
	}
}

// A request that needs several shards of a split version is served, as the adapter drives it,
// when the memo does not keep the version's manifest between the passes (its bounds let it go,
// or it keeps nothing): the exchange never waits for a shard's read it leads itself.
func TestSplitSiteServedWhenTheMemoLetsTheManifestGo(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(h *Handler)
	}{
		{"one entry", func(h *Handler) { h.sites.maxManifests = 1 }},
		{"no memo", func(h *Handler) { h.Config.TTLs.Budget = 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			key, _ := putSplitSite(t, w.objects.data, splitFiles())
			w.routes.data["big"] = record(t, siteRecord("big", key, "404.html", false))
			w.routes.data["bigspa"] = record(t, siteRecord("bigspa", key, "", true))
			for _, r := range []struct{ host, path, body string }{
				{"big", "/pages/17.html", "page 17"},
				{"big", "/pages/none.html", "big 404"},
				{"bigspa", "/app/settings", "home"},
			} {
				h := w.handler(t)
				c.set(h)
				waited := false
				h.WaitShared = func(done <-chan struct{}) {
					select {
					case <-done:
					case <-time.After(50 * time.Millisecond):
						waited = true // its own flight: it never ends
					}
				}
				w.warmFilter(t, h)
				ex, _ := w.adapt(h, get(r.host+".kamui.test", r.path))
				if sent(t, ex.Plan) != r.body || waited {
					t.Errorf("%s%s: %d %q (waited on itself: %v), want %q", r.host, r.path, ex.Plan.Status, sent(t, ex.Plan), waited, r.body)
				}
			}
		})
	}
}
