package edge

import (
	"maps"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// coldAgain has h resolve host and read its manifest once, then lets the memo and the route
// cache (but not the manifest memo) run out: the host's next GET misses both caches and reads
// its record from KV again, the path a read ahead shortens.
func (w *world) coldAgain(t *testing.T, h *Handler, host string) {
	t.Helper()
	w.warmFilter(t, h)
	if ex, _ := w.adapt(h, get(host, "/")); ex.Plan.Status != 200 && ex.Plan.Forward == nil {
		t.Fatalf("first GET of %s: %d", host, ex.Plan.Status)
	}
	w.clock.Advance(h.Config.TTLs.RouteCache + time.Second)
	w.warmFilter(t, h)
}

// decideToRecordRead drives req until a Decide names the record's KV read, answering the
// cache lookups it names first.
func (w *world) decideToRecordRead(t *testing.T, h *Handler, req *Request) *Exchange {
	t.Helper()
	ex := w.decideUntilRead(t, h, req)
	if n := ex.Read(); n.Kind != ReadKV || n.Binding != BindingRoutes {
		t.Fatalf("%s: named %+v, want the record's read", req.URL, n)
	}
	return ex
}

// A GET of a site this isolate resolved before, once the memo and the route cache have let the
// host go, names the object its path had in that manifest beside the record's read: the answer
// takes it, whichever of the two comes back first, and the request waits on two rounds (the
// lookups, then the read and the object side by side) where it waited on three.
func TestReadAheadOverlapsTheRecordRead(t *testing.T) {
	for _, objectFirst := range []bool{true, false} {
		w := newWorld(t)
		w.coldAgain(t, w.h, "cas.kamui.test")
		objectsBefore, _ := w.objects.counts()
		req := get("cas.kamui.test", "/guide/start.html")
		ex := w.decideToRecordRead(t, w.h, req)
		want := route.SiteObjectKey("sites/cas/", objectOf("start"))
		if got := ex.ObjectKey(); got != want {
			t.Fatalf("object named beside the record's read: %q, want %q", got, want)
		}
		record := ex.Read()
		object := func() {
			r := new(ObjectRead)
			r.Object, r.Found, r.Err = w.objects.Get(want, true)
			req.Object = r
		}
		if objectFirst {
			object()
			if ex.Decide() {
				t.Fatal("decided without the record")
			}
			// The record's read is still out: named again as it is, and no object is new.
			if n := ex.Read(); !n.same(&record) || ex.ObjectKey() != "" {
				t.Fatalf("with the object back: read %+v object %q", n, ex.ObjectKey())
			}
			req.Read = w.read(record)
		} else {
			req.Read = w.read(record)
			if ex.Decide() {
				t.Fatal("decided without the object")
			}
			// Everything else is known: the object still out is the one named.
			if n := ex.Read(); ex.ObjectKey() != want || n.Kind != ReadNone {
				t.Fatalf("with the record back: object %q read %+v", ex.ObjectKey(), n)
			}
			object()
		}
		if !ex.Decide() {
			t.Fatal("not decided with the record and the object")
		}
		if ex.Plan.Status != 200 || sent(t, ex.Plan) != "start" {
			t.Fatalf("objectFirst=%v: %d %q", objectFirst, ex.Plan.Status, sent(t, ex.Plan))
		}
		l := ex.line
		if l.RouteSource != "kv" || l.KVReads != 1 || l.R2Reads != 1 || l.ManifestReads != 0 || l.IORounds != 2 {
			t.Errorf("objectFirst=%v: log %+v, want kv route, 1 KV read, 1 object read, 2 rounds", objectFirst, l)
		}
		if objects, _ := w.objects.counts(); objects != objectsBefore+1 {
			t.Errorf("objectFirst=%v: %d object reads, want 1", objectFirst, objects-objectsBefore)
		}
	}
}

// The guess decides nothing: a record that moved to another version meanwhile is read and its
// manifest too, the object that version names is read as a read of its own, and the answer is
// that object, never the one read ahead, which the log line counts as a read made.
func TestReadAheadNeverServesAnObjectTheRecordDoesNotName(t *testing.T) {
	w := newWorld(t)
	w.coldAgain(t, w.h, "cas.kamui.test")
	v2 := putSite(t, w.objects.data, "sites/cas/", "v2", map[string]siteContent{
		"guide/start.html": {"text/html; charset=utf-8", "start, version 2"},
	})
	w.routes.data["cas"] = record(t, siteRecord("cas", v2, "", false))

	req := get("cas.kamui.test", "/guide/start.html")
	ex := w.decideToRecordRead(t, w.h, req)
	guessed := route.SiteObjectKey("sites/cas/", objectOf("start"))
	if ex.ObjectKey() != guessed {
		t.Fatalf("object named ahead: %q, want %q", ex.ObjectKey(), guessed)
	}
	r := new(ObjectRead)
	r.Object, r.Found, r.Err = w.objects.Get(guessed, true)
	req.Object = r
	req.Read = w.read(ex.Read())
	if ex.Decide() {
		t.Fatal("decided before the new version's manifest was read")
	}
	if n := ex.Read(); n.Kind != ReadText || n.Key != v2 {
		t.Fatalf("named %+v, want the manifest %s", n, v2)
	}
	req.Read = w.read(ex.Read())
	if ex.Decide() {
		t.Fatal("decided with the object read ahead, which v2 does not name")
	}
	want := route.SiteObjectKey("sites/cas/", objectOf("start, version 2"))
	if ex.ObjectKey() != want {
		t.Fatalf("object named: %q, want v2's %q", ex.ObjectKey(), want)
	}
	if req.Object != nil {
		t.Fatal("the object read ahead is still the request's after another was named")
	}
	r = new(ObjectRead)
	r.Object, r.Found, r.Err = w.objects.Get(want, true)
	req.Object = r
	if !ex.Decide() {
		t.Fatal("not decided with v2's object")
	}
	if ex.Plan.Status != 200 || sent(t, ex.Plan) != "start, version 2" {
		t.Fatalf("answer %d %q, want v2's object", ex.Plan.Status, sent(t, ex.Plan))
	}
	if l := ex.line; l.R2Reads != 2 || l.ManifestReads != 1 || l.IORounds != 4 {
		t.Errorf("log %+v, want 2 object reads (one unused), 1 manifest read, 4 rounds", l)
	}
}

// Nothing is read ahead where the answer may need no object, or where the isolate has no
// guess: a HEAD, a conditional GET, a GET the content cache answers, a host never resolved
// here, a dynamic app, a path the manifest does not hold.
func TestReadAheadOnlyWhereAnObjectIsLikely(t *testing.T) {
	head := get("cas.kamui.test", "/guide/start.html")
	head.Method = "HEAD"
	conditional := get("cas.kamui.test", "/guide/start.html")
	conditional.Header = append(conditional.Header, Field{"If-None-Match", `"x"`})
	for name, req := range map[string]*Request{
		"HEAD":             head,
		"If-None-Match":    conditional,
		"not in manifest":  get("cas.kamui.test", "/nope.html"),
		"dynamic app":      get("shop.kamui.test", "/"),
		"never resolved":   get("casspa.kamui.test", "/main.js"),
		"site by prefixes": get("docs.kamui.test", "/guide/start.html"),
	} {
		// A world each: a request left at its record's read leads the host's single flight.
		w := newWorld(t)
		w.coldAgain(t, w.h, "cas.kamui.test")
		w.coldAgain(t, w.h, "shop.kamui.test")
		w.coldAgain(t, w.h, "docs.kamui.test")
		ex := w.decideUntilRead(t, w.h, req)
		if key := ex.ObjectKey(); key != "" {
			t.Errorf("%s: object %q named beside the record's read", name, key)
		}
	}

	// A content hit answers before any read (an entry another isolate stored meanwhile).
	w2 := newWorld(t)
	first, _ := w2.adapt(w2.h, get("cas.kamui.test", "/guide/start.html"))
	if first.Plan.Store == nil {
		t.Fatal("the first GET planned no content entry")
	}
	w2.clock.Advance(w2.h.Config.TTLs.RouteCache + time.Second)
	w2.warmFilter(t, w2.h)
	stored := first.Plan.Store.Header.Clone()
	stored.Set("Cache-Control", "public, max-age=60")
	w2.cache.store(first.Plan.Store.Key, Entry{Status: 200, Header: stored, Body: TextBody("start")})
	ex, steps := w2.adapt(w2.h, get("cas.kamui.test", "/guide/start.html"))
	if ex.line.ContentCache != "hit" || ex.line.R2Reads != 0 || ex.line.KVReads != 0 {
		t.Errorf("content hit: steps %q log %+v", steps, ex.line)
	}
}

// A custom host this isolate resolved to a site before, once the memo and the route cache have
// let it go, names beside its mapping's read the object its path had and, when the app's own
// route-cache entry is likely still there, that entry's lookup. With the entry the answer waits
// on two rounds (the lookups, then the three side by side), without it on three (ROUTES next);
// Run made it wait on four. The host's own lookup keeps its place in the log line, and the app's
// arriving before or after the mapping makes no difference.
func TestReadAheadOnACustomHost(t *testing.T) {
	for _, c := range []struct {
		name          string
		appEntryAlive bool
		mappingFirst  bool
	}{
		{"app entry alive", true, false},
		{"app entry alive, the mapping back first", true, true},
		{"app entry gone", false, false},
	} {
		w := newWorld(t)
		w.domains.data["www.cas.example"] = mapping(t, route.DomainMapping{App: "cas", Status: route.StatusActive})
		w.warmFilter(t, w.h)
		if ex, _ := w.adapt(w.h, get("www.cas.example", "/")); ex.Plan.Status != 200 {
			t.Fatalf("%s: first GET: %d", c.name, ex.Plan.Status)
		}
		if c.appEntryAlive {
			w.cache.mu.Lock()
			delete(w.cache.entries, route.RouteCacheKey(testPlatform, "www.cas.example"))
			w.cache.mu.Unlock()
			w.clock.Advance(w.h.Config.TTLs.Memo + time.Second)
		} else {
			w.clock.Advance(w.h.Config.TTLs.RouteCache + time.Second)
		}
		w.warmFilter(t, w.h)
		routes := w.routes.count()
		objects, _ := w.objects.counts()

		req := get("www.cas.example", "/guide/start.html")
		ex := w.decideUntilRead(t, w.h, req)
		appKey := ""
		if c.appEntryAlive {
			appKey = route.RouteCacheKey(testPlatform, "cas.kamui.test")
		}
		object := route.SiteObjectKey("sites/cas/", objectOf("start"))
		if _, rk := ex.Lookups(); ex.Read().Key != "www.cas.example" || rk != appKey || ex.ObjectKey() != object {
			t.Fatalf("%s: named read %+v, route lookup %q, object %q; want the mapping's beside %q and %q",
				c.name, ex.Read(), rk, ex.ObjectKey(), appKey, object)
		}
		if c.mappingFirst {
			req.Read = w.read(ex.Read())
			if ex.Decide() {
				t.Fatalf("%s: decided without the app's entry", c.name)
			}
			if _, rk := ex.Lookups(); rk != appKey || ex.Read().Kind != ReadNone {
				t.Fatalf("%s: with the mapping back: route lookup %q, read %+v; want the app's entry named again alone", c.name, rk, ex.Read())
			}
		}
		w.resume(ex, req)

		l := ex.line
		wantRounds, wantKV, wantRoutes := 2, 1, 0
		if !c.appEntryAlive {
			wantRounds, wantKV, wantRoutes = 3, 2, 1
		}
		objectsAfter, _ := w.objects.counts()
		if ex.Plan.Status != 200 || bodyText(t, ex.Plan.Body) != "start" {
			t.Fatalf("%s: %d %q", c.name, ex.Plan.Status, bodyText(t, ex.Plan.Body))
		}
		if l.IORounds != wantRounds || l.KVReads != wantKV || l.R2Reads != 1 || l.RouteCache != "miss" ||
			w.routes.count()-routes != wantRoutes || objectsAfter-objects != 1 {
			t.Errorf("%s: log %+v, ROUTES read %d times, %d object reads; want %d rounds, %d KV reads, %d ROUTES",
				c.name, l, w.routes.count()-routes, objectsAfter-objects, wantRounds, wantKV, wantRoutes)
		}
	}
}

// When the mapping has moved to another app since, neither guess is taken: the object read
// ahead and the hinted app's entry go unused, and the new app's record and object serve.
func TestCustomHostGuessesGiveWayToTheMapping(t *testing.T) {
	w := newWorld(t)
	w.domains.data["www.cas.example"] = mapping(t, route.DomainMapping{App: "cas", Status: route.StatusActive})
	w.warmFilter(t, w.h)
	w.adapt(w.h, get("www.cas.example", "/"))
	w.cache.mu.Lock()
	delete(w.cache.entries, route.RouteCacheKey(testPlatform, "www.cas.example"))
	w.cache.mu.Unlock()
	w.clock.Advance(w.h.Config.TTLs.Memo + w.h.Config.TTLs.DomainsKV + time.Second)
	w.warmFilter(t, w.h)
	w.domains.data["www.cas.example"] = mapping(t, route.DomainMapping{App: "casspa", Status: route.StatusActive})

	req := get("www.cas.example", "/")
	ex := w.decideUntilRead(t, w.h, req)
	if _, rk := ex.Lookups(); rk != route.RouteCacheKey(testPlatform, "cas.kamui.test") || ex.ObjectKey() == "" {
		t.Fatalf("named route lookup %q and object %q beside the mapping; want cas's guesses", rk, ex.ObjectKey())
	}
	w.resume(ex, req)
	if ex.Plan.Status != 200 || bodyText(t, ex.Plan.Body) != "spa index" || ex.line.App != "casspa" {
		t.Fatalf("after the mapping moved: %d %q app %q", ex.Plan.Status, bodyText(t, ex.Plan.Body), ex.line.App)
	}
	if l := ex.line; l.R2Reads != 2 || l.KVReads != 2 {
		t.Errorf("log %+v, want both object reads (one unused) and both KV reads counted", l)
	}
}

// Past the freshness budget the manifest memo lets the version go too: the manifest the record
// last named is then read ahead beside the record's read (ReadAhead), as its object is, and
// the three come back side by side, two rounds in all where there were three. Whichever comes
// back first, each is read once. When the record names another version since, the manifest
// read ahead goes unused (counted, as the unused object is) and the one named is read as a
// read of its own.
func TestReadAheadTheManifestPastTheBudget(t *testing.T) {
	for _, c := range []struct {
		name               string
		recordFirst, moved bool
	}{
		{"the manifest back first", false, false},
		{"the record back first", true, false},
		{"the record moved", true, true},
	} {
		w := newWorld(t)
		w.coldAgain(t, w.h, "cas.kamui.test")
		w.clock.Advance(w.h.Config.TTLs.Budget)
		w.warmFilter(t, w.h)
		want := "start"
		if c.moved {
			v2 := maps.Clone(casFiles)
			v2["guide/start.html"] = siteContent{"text/html; charset=utf-8", "start v2"}
			w.routes.data["cas"] = record(t, siteRecord("cas", putSite(t, w.objects.data, "sites/cas/", "v2", v2), "404.html", false))
			want = "start v2"
		}
		_, manifestsBefore := w.objects.counts()
		req := get("cas.kamui.test", "/guide/start.html")
		ex := w.decideToRecordRead(t, w.h, req)
		manifest := route.SiteManifestKey("sites/cas/", "v1")
		if a := ex.ReadAhead(); a.Kind != ReadText || a.Binding != BindingStatic || a.Key != manifest {
			t.Fatalf("%s: read ahead %+v, want the manifest %q", c.name, a, manifest)
		}
		if ex.ObjectKey() == "" {
			t.Fatalf("%s: no object named beside the reads", c.name)
		}
		if !c.recordFirst {
			req.Ahead = w.read(ex.ReadAhead())
			if ex.Decide() {
				t.Fatalf("%s: decided without the record", c.name)
			}
			if ex.Read().Kind != ReadKV || ex.ReadAhead().Kind != ReadNone {
				t.Fatalf("%s: with the manifest back, named %+v and ahead %+v; want the record's read again alone", c.name, ex.Read(), ex.ReadAhead())
			}
		}
		w.resume(ex, req)
		if ex.Plan.Status != 200 || bodyText(t, ex.Plan.Body) != want {
			t.Fatalf("%s: %d %q, want %q", c.name, ex.Plan.Status, bodyText(t, ex.Plan.Body), want)
		}
		_, manifestsAfter := w.objects.counts()
		l := ex.line
		wantRounds, wantManifests, wantObjects := 2, 1, 1
		if c.moved {
			wantRounds, wantManifests, wantObjects = 4, 2, 2 // v2's manifest, then its object
		}
		if l.IORounds != wantRounds || l.ManifestReads != wantManifests || l.R2Reads != wantObjects || l.KVReads != 1 ||
			manifestsAfter-manifestsBefore != wantManifests {
			t.Errorf("%s: log %+v, %d manifest reads made; want %d rounds, %d manifest and %d object reads",
				c.name, l, manifestsAfter-manifestsBefore, wantRounds, wantManifests, wantObjects)
		}
	}
}
