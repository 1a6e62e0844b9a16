package edge

import (
	"strings"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

const dataKey = "sites/docs/v1/data.txt"

// deliveryLayout is one static layout the matrix runs over: the host of a site holding
// /data.txt (dataBody), the ETag it is served with and its Last-Modified ("": none).
type deliveryLayout struct {
	name, host, etag, modified string
}

func deliveryLayouts() []deliveryLayout {
	return []deliveryLayout{
		{"by prefix", "docs.kamui.test", fakeETag(dataKey), fakeModified},
		// The manifest's entry makes the headers: the content's hash, and no date.
		{"content-addressed", "cas.kamui.test", route.SiteETag(objectOf(dataBody)), ""},
	}
}

// staticSource serves one request for a static path from one of the two sources.
type staticSource func(t *testing.T, method, path string, hdr Header) *Exchange

// fromR2 never stores what it serves, so every request reads the bucket.
func fromR2(w *world, host string) staticSource {
	return func(t *testing.T, method, path string, hdr Header) *Exchange {
		t.Helper()
		req := get(host, path)
		req.Method, req.Header = method, hdr
		ex := w.serve(w.h, req)
		if ex.line.Delivery != "static" {
			t.Fatalf("%s %s %v: delivered by %q, want the bucket", method, path, hdr, ex.line.Delivery)
		}
		return ex
	}
}

// fromCache first stores path as the adapter does (a plain GET's Plan.Store), then answers
// every request from that content-cache entry.
func fromCache(t *testing.T, w *world, host, path string) staticSource {
	p := w.serve(w.h, get(host, path)).Plan
	if p.Store == nil {
		t.Fatalf("GET %s: nothing stored", path)
	}
	w.cache.store(p.Store.Key, Entry{Status: p.Status, Header: p.Store.Header, Body: p.Body})
	return func(t *testing.T, method, path string, hdr Header) *Exchange {
		t.Helper()
		req := get(host, path)
		req.Method, req.Header = method, hdr
		ex := w.serve(w.h, req)
		if ex.line.ContentCache != "hit" {
			t.Fatalf("%s %s %v: content cache %q, want a hit", method, path, hdr, ex.line.ContentCache)
		}
		return ex
	}
}

func TestDeliveryFromR2(t *testing.T) {
	for _, l := range deliveryLayouts() {
		t.Run(l.name, func(t *testing.T) {
			w := newWorld(t)
			testDelivery(t, l, fromR2(w, l.host))
		})
	}
}

func TestDeliveryFromContentCache(t *testing.T) {
	for _, l := range deliveryLayouts() {
		t.Run(l.name, func(t *testing.T) {
			w := newWorld(t)
			testDelivery(t, l, fromCache(t, w, l.host, "/data.txt"))
		})
	}
}

func testDelivery(t *testing.T, l deliveryLayout, serve staticSource) {
	etag := l.etag
	type want struct {
		status       int
		body         string
		contentRange string
	}
	full := want{200, dataBody, ""}
	notModified := want{304, "", ""}
	// byDate is what a condition on the date gets: without a Last-Modified, the full 200.
	byDate := func(w want) want {
		if l.modified == "" {
			return full
		}
		return w
	}
	for _, c := range []struct {
		name string
		hdr  Header
		want want
	}{
		{"plain", nil, full},
		{"If-None-Match current", Header{{"If-None-Match", etag}}, notModified},
		{"If-None-Match weak form", Header{{"If-None-Match", "W/" + etag}}, notModified},
		{"If-None-Match list", Header{{"If-None-Match", `"other", W/"x,y", ` + etag}}, notModified},
		{"If-None-Match star", Header{{"If-None-Match", "*"}}, notModified},
		{"If-None-Match other", Header{{"If-None-Match", `"other"`}}, full},
		{"If-None-Match malformed", Header{{"If-None-Match", strings.Trim(etag, `"`)}}, full},
		{"If-None-Match wins over If-Modified-Since", Header{{"If-None-Match", `"other"`}, {"If-Modified-Since", fakeModified}}, full},
		{"If-Modified-Since equal", Header{{"If-Modified-Since", fakeModified}}, byDate(notModified)},
		{"If-Modified-Since later", Header{{"If-Modified-Since", "Mon, 30 Nov 2026 00:00:00 GMT"}}, byDate(notModified)},
		{"If-Modified-Since earlier", Header{{"If-Modified-Since", "Sun, 29 Nov 2026 10:59:59 GMT"}}, full},
		{"If-Modified-Since obsolete form", Header{{"If-Modified-Since", "Sunday, 29-Nov-26 11:00:00 GMT"}}, full},
		{"Range closed", Header{{"Range", "bytes=2-5"}}, want{206, "2345", "bytes 2-5/20"}},
		{"Range open", Header{{"Range", "bytes=15-"}}, want{206, "fghij", "bytes 15-19/20"}},
		{"Range suffix", Header{{"Range", "bytes=-3"}}, want{206, "hij", "bytes 17-19/20"}},
		{"Range suffix longer than the body", Header{{"Range", "bytes=-50"}}, want{206, full.body, "bytes 0-19/20"}},
		{"Range past the end clipped", Header{{"Range", "bytes=18-100"}}, want{206, "ij", "bytes 18-19/20"}},
		{"Range unsatisfiable", Header{{"Range", "bytes=20-"}}, want{416, "", "bytes */20"}},
		{"Range empty suffix", Header{{"Range", "bytes=-0"}}, want{416, "", "bytes */20"}},
		{"Range several", Header{{"Range", "bytes=0-1,4-5"}}, full},
		{"Range backwards", Header{{"Range", "bytes=5-2"}}, full},
		{"Range signed", Header{{"Range", "bytes=+1-2"}}, full},
		{"Range other unit", Header{{"Range", "items=0-1"}}, full},
		{"Range garbage", Header{{"Range", "bytes=abc"}}, full},
		{"If-Range current", Header{{"Range", "bytes=0-3"}, {"If-Range", etag}}, want{206, "0123", "bytes 0-3/20"}},
		{"If-Range weak", Header{{"Range", "bytes=0-3"}, {"If-Range", "W/" + etag}}, full},
		{"If-Range other", Header{{"Range", "bytes=0-3"}, {"If-Range", `"old"`}}, full},
		{"If-Range date", Header{{"Range", "bytes=0-3"}, {"If-Range", fakeModified}}, byDate(want{206, "0123", "bytes 0-3/20"})},
		{"If-Range other date", Header{{"Range", "bytes=0-3"}, {"If-Range", "Mon, 30 Nov 2026 00:00:00 GMT"}}, full},
		{"If-None-Match before Range", Header{{"Range", "bytes=0-3"}, {"If-None-Match", etag}}, notModified},
	} {
		t.Run(c.name, func(t *testing.T) {
			ex := serve(t, "GET", "/data.txt", c.hdr)
			p := ex.Plan
			if p.Status != c.want.status || p.Header.Get("Content-Range") != c.want.contentRange {
				t.Fatalf("status %d Content-Range %q, want %d %q", p.Status, p.Header.Get("Content-Range"), c.want.status, c.want.contentRange)
			}
			if p.Header.Get("X-Request-Id") != ex.RequestID() || p.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("fixed headers missing: %v", p.Header)
			}
			if p.Status != 200 && p.Store != nil {
				t.Errorf("a %d is stored", p.Status)
			}
			switch p.Status {
			case 200, 206:
				if got := sent(t, p); got != c.want.body {
					t.Errorf("body %q, want %q", got, c.want.body)
				}
				if p.Header.Get("Content-Length") != itoa(len(c.want.body)) || p.Header.Get("Accept-Ranges") != "bytes" {
					t.Errorf("Content-Length %q Accept-Ranges %q", p.Header.Get("Content-Length"), p.Header.Get("Accept-Ranges"))
				}
				if p.Header.Get("ETag") != etag || p.Header.Get("Last-Modified") != l.modified ||
					p.Header.Get("Cache-Control") != clientStaticCacheControl {
					t.Errorf("headers %v", p.Header)
				}
			case 304:
				if p.Body != nil || p.Header.Has("Content-Length") || p.Header.Has("Content-Type") {
					t.Errorf("304 with a body or its metadata: %v", p.Header)
				}
				if p.Header.Get("ETag") != etag || p.Header.Get("Last-Modified") != l.modified ||
					p.Header.Get("Cache-Control") != clientStaticCacheControl {
					t.Errorf("304 headers %v", p.Header)
				}
			case 416:
				if p.Range != nil || p.Header.Get("Cache-Control") != "no-store" {
					t.Errorf("416: range %v headers %v", p.Range, p.Header)
				}
			}
		})
	}

	// HEAD: the headers of a GET without Range, no body; Range is for GET only (RFC 9110
	// §14.2), conditionals apply.
	get := serve(t, "GET", "/data.txt", nil).Plan
	for _, hdr := range []Header{nil, {{"Range", "bytes=0-3"}}} {
		head := serve(t, "HEAD", "/data.txt", hdr).Plan
		if head.Status != 200 || head.Body != nil || head.Range != nil || head.Store != nil {
			t.Errorf("HEAD %v: %d body %v range %v store %v", hdr, head.Status, head.Body, head.Range, head.Store)
		}
		for _, name := range []string{"Content-Type", "Content-Length", "ETag", "Last-Modified", "Accept-Ranges", "Cache-Control", "X-Content-Type-Options"} {
			if head.Header.Get(name) != get.Header.Get(name) {
				t.Errorf("HEAD %v: %s %q, GET has %q", hdr, name, head.Header.Get(name), get.Header.Get(name))
			}
		}
	}
	if head := serve(t, "HEAD", "/data.txt", Header{{"If-None-Match", etag}}).Plan; head.Status != 304 {
		t.Errorf("HEAD with the current ETag: %d", head.Status)
	}
}

// The site's 404 page stays a 404 with its whole body whatever the client asks.
func TestNotFoundPageIgnoresConditionalsAndRanges(t *testing.T) {
	w := newWorld(t)
	for _, hdr := range []Header{
		{{"If-None-Match", "*"}},
		{{"If-None-Match", fakeETag("sites/docs/v1/404.html")}},
		{{"If-Modified-Since", fakeModified}},
		{{"Range", "bytes=0-1"}},
		{{"Range", "bytes=100-"}},
	} {
		req := get("docs.kamui.test", "/missing")
		req.Header = hdr
		p := w.serve(w.h, req).Plan
		if p.Status != 404 || sent(t, p) != "docs 404" || p.Range != nil || p.Store != nil || p.Header.Has("Accept-Ranges") {
			t.Errorf("%v: %d %q range %v store %v", hdr, p.Status, sent(t, p), p.Range, p.Store)
		}
	}
}

// The SPA fallback is the 200 representation of its URL (the index, stored under that URL):
// its ETag revalidates like any other, from either source.
func TestSPAFallbackRevalidates(t *testing.T) {
	w := newWorld(t)
	req := get("spa.kamui.test", "/app/settings")
	req.Header = Header{{"If-None-Match", fakeETag("sites/spa/v1/index.html")}}
	if p := w.serve(w.h, req).Plan; p.Status != 304 {
		t.Errorf("revalidated SPA route: %d", p.Status)
	}
	req.Header = Header{{"Range", "bytes=0-2"}}
	if p := w.serve(w.h, req).Plan; p.Status != 206 || sent(t, p) != "spa" {
		t.Errorf("range of an SPA route: %d %q", p.Status, sent(t, p))
	}
}

// A content-cache entry without a size (stored before sizes were) still revalidates, and
// answers a Range with the whole body rather than a guess.
func TestCacheEntryWithoutSize(t *testing.T) {
	w := newWorld(t)
	w.cache.store("https://docs.kamui.test/old.html", Entry{Status: 200, Body: TextBody("old"),
		Header: Header{{"ETag", `"old"`}, {"Cache-Control", "max-age=60"}, {"Kamui-Cache-Marker", testMarker}}})
	req := get("docs.kamui.test", "/old.html")
	req.Header = Header{{"Range", "bytes=0-0"}}
	if p := w.serve(w.h, req).Plan; p.Status != 200 || sent(t, p) != "old" || p.Header.Has("Accept-Ranges") {
		t.Errorf("range without a size: %d %q %v", p.Status, sent(t, p), p.Header)
	}
	req.Header = Header{{"If-None-Match", `"old"`}}
	if p := w.serve(w.h, req).Plan; p.Status != 304 {
		t.Errorf("revalidation without a size: %d", p.Status)
	}
}

func TestHTTPDateOrders(t *testing.T) {
	dates := []string{"Sat, 31 Dec 2025 23:59:59 GMT", "Thu, 01 Jan 2026 00:00:00 GMT",
		"Sat, 31 Jan 2026 00:00:00 GMT", "Sun, 01 Feb 2026 00:00:00 GMT", "Sun, 01 Feb 2026 00:00:01 GMT"}
	prev := int64(-1)
	for _, d := range dates {
		n, ok := httpDate(d)
		if !ok || n <= prev {
			t.Errorf("%q: %d ok=%v after %d", d, n, ok, prev)
		}
		prev = n
	}
	for _, bad := range []string{"", "Sun, 01 Foo 2026 00:00:00 GMT", "Sun, 01 Feb 2026 00:00:00 UTC", "Sun Nov  6 08:49:37 1994"} {
		if _, ok := httpDate(bad); ok {
			t.Errorf("%q read as a date", bad)
		}
	}
}
