package edge

import (
	"encoding/base64"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// TestDecodedAgreesWithTheContract: what decoded hands out, first time or remembered, is what
// route.DecodeRecord and route.DecodeDomainMapping say, refusals included, and a refused value
// is judged again every time rather than remembered.
func TestDecodedAgreesWithTheContract(t *testing.T) {
	var d decoded
	good := []byte(record(t, dynamicRecord("shop")))
	tampered := []byte(record(t, dynamicRecord("shop"))[:len(good)-3] + `x"}`)
	for i := 0; i < 3; i++ {
		if r, err := d.record(good); err != nil || r.App != "shop" || r.Dynamic == nil {
			t.Fatalf("pass %d: record %+v, %v", i, r, err)
		}
		if _, err := d.record(tampered); err == nil {
			t.Fatalf("pass %d: a record whose rev does not match its content decoded", i)
		}
	}
	if d.decodes != 4 { // the good record once, the tampered one every time
		t.Errorf("decodes %d, want 4", d.decodes)
	}

	m := []byte(mapping(t, route.DomainMapping{App: "shop", Status: route.StatusActive}))
	for i := 0; i < 2; i++ {
		if got, err := d.mapping(m); err != nil || got.App != "shop" {
			t.Fatalf("pass %d: mapping %+v, %v", i, got, err)
		}
	}
	if _, err := d.mapping([]byte(`{"v":1,"app":"shop","status":"active","rev":"x","extra":1}`)); err == nil {
		t.Error("a mapping with an unknown field decoded")
	}
}

// TestDecodedEntries: a route-cache entry is decoded once, an entry this isolate stored not at
// all, and one that is not a valid entry is refused each time.
func TestDecodedEntries(t *testing.T) {
	var d decoded
	rec := []byte(record(t, dynamicRecord("shop")))
	header := func(c cachedRoute) string {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	exp := time.Now().Add(time.Minute).UnixMilli()
	h := header(cachedRoute{V: routeEntryVersion, Host: "shop.kamui.test", App: "shop", Record: rec, Exp: exp})
	for i := 0; i < 3; i++ {
		if e, ok := d.entry(h); !ok || e.rec.App != "shop" || e.c.Host != "shop.kamui.test" {
			t.Fatalf("pass %d: entry %+v, %v", i, e, ok)
		}
	}
	if d.decodes != 2 { // the envelope and its record, once
		t.Errorf("decodes %d after three reads of one entry, want 2", d.decodes)
	}

	for name, bad := range map[string]string{
		"not base64":      "%%%",
		"another version": header(cachedRoute{V: routeEntryVersion + 1, Host: "shop.kamui.test", App: "shop", Record: rec, Exp: exp}),
		"another app":     header(cachedRoute{V: routeEntryVersion, Host: "shop.kamui.test", App: "cart", Record: rec, Exp: exp}),
		"no record":       header(cachedRoute{V: routeEntryVersion, Host: "shop.kamui.test", App: "shop", Exp: exp}),
	} {
		for i := 0; i < 2; i++ {
			if _, ok := d.entry(bad); ok {
				t.Errorf("%s: pass %d accepted", name, i)
			}
		}
	}

	stored := header(cachedRoute{V: routeEntryVersion, Host: "cart.kamui.test", Absent: true, Exp: exp})
	d.stored(stored, decodedEntry{c: cachedRoute{V: routeEntryVersion, Host: "cart.kamui.test", Absent: true, Exp: exp}})
	before := d.decodes
	if e, ok := d.entry(stored); !ok || !e.c.Absent || d.decodes != before {
		t.Errorf("a stored entry: %+v %v, decodes %d → %d; want it served without decoding", e, ok, before, d.decodes)
	}
}

// TestDecodedIsBounded: each map starts over when full.
func TestDecodedIsBounded(t *testing.T) {
	var d decoded
	for i := 0; i <= maxDecoded; i++ {
		d.stored("entry-"+strconv.Itoa(i), decodedEntry{})
	}
	if n := len(d.entries); n != 1 {
		t.Errorf("after %d entries the map holds %d, want 1 (it started over)", maxDecoded+1, n)
	}
}

// TestRouteCacheHitsDecodeOnce: a host served from its route-cache entry again and again (its
// memo expiring in between) decodes nothing after its first resolution stored the entry.
func TestRouteCacheHitsDecodeOnce(t *testing.T) {
	w := newWorld(t)
	upstreamOf(t, w.serve(w.h, get("shop.kamui.test", "/")))
	after := w.h.decoded.decodes
	for i := 0; i < 3; i++ {
		w.clock.Advance(w.h.Config.TTLs.Memo + time.Second)
		ex := w.serve(w.h, get("shop.kamui.test", "/"))
		upstreamOf(t, ex)
		if ex.line.RouteSource != "route-cache" {
			t.Fatalf("pass %d: route source %q, want the route cache", i, ex.line.RouteSource)
		}
	}
	if w.h.decoded.decodes != after {
		t.Errorf("decodes %d → %d over three route-cache hits of an entry this isolate stored; want none", after, w.h.decoded.decodes)
	}
}

// decoded copies its keys: a key may be a piece of a whole message (the adapter decodes one into
// a single string), which the map must not keep alive.
func TestDecodedDoesNotKeepWhatItsKeysArePiecesOf(t *testing.T) {
	const values, size = 100, 128 << 10
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d := new(decoded)
	for i := range values {
		whole := strconv.Itoa(i) + strings.Repeat("x", size)
		d.stored(whole[:8], decodedEntry{})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > values*size/4 {
		t.Errorf("%d keys of 8 bytes keep %d bytes alive", len(d.entries), grown)
	}
	runtime.KeepAlive(d)
}
