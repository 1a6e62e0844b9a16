package workertest

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// deliveryBody is the object the conditional/range matrix reads (sites/docs/v1/data.txt).
const deliveryBody = "0123456789abcdefghij"

// staticSource makes one request for the matrix object from one source and checks, by the
// Worker's log line, that this source answered it.
type staticSource func(t *testing.T, method string, hdr map[string]string) result

// identity asks for the bytes as stored: workerd gzips a text answer for a client that
// accepts it (as Cloudflare does), and Go's client then drops the Content-Length it checks.
func identity(hdr map[string]string) map[string]string {
	out := map[string]string{"Accept-Encoding": "identity"}
	for k, v := range hdr {
		out[k] = v
	}
	return out
}

// deliveryLayouts are the static layouts the matrix runs over, each a site holding
// /data.txt (deliveryBody): by prefix (the object's own metadata, with its upload time as
// Last-Modified) and content-addressed (the manifest's entry, no Last-Modified).
var deliveryLayouts = []struct {
	name, host   string
	lastModified bool
}{
	{"by prefix", "docs.kamui.test", true},
	{"content-addressed", "cas.kamui.test", false},
}

// TestStaticDeliveryFromR2 gives every request its own URL (a query the object path
// ignores), so none can be answered by what an earlier one stored.
func TestStaticDeliveryFromR2(t *testing.T) {
	for _, layout := range deliveryLayouts {
		t.Run(layout.name, func(t *testing.T) {
			n := 0
			testDeliveryMatrix(t, layout.lastModified, func(t *testing.T, method string, hdr map[string]string) result {
				t.Helper()
				n++
				r := do(t, method, layout.host, "/data.txt?r2="+strconv.Itoa(n), identity(hdr), "")
				if l := logOf(t, r.header.Get("X-Request-Id")); l["content_cache"] != "miss" || l["delivery"] != "static" {
					t.Fatalf("%s %v: not from R2: %v", method, hdr, l)
				}
				return r
			})
		})
	}
}

// TestStaticDeliveryFromContentCache stores one URL with a plain GET, then asks the whole
// matrix of that content-cache entry.
func TestStaticDeliveryFromContentCache(t *testing.T) {
	for _, layout := range deliveryLayouts {
		t.Run(layout.name, func(t *testing.T) {
			const path = "/data.txt?cached"
			do(t, "GET", layout.host, path, nil, "")
			hit := func(r result) bool { return logOf(t, r.header.Get("X-Request-Id"))["content_cache"] == "hit" }
			// The put runs after the response (waitUntil): wait for it with HEADs, which store nothing.
			for i := 0; !hit(do(t, "HEAD", layout.host, path, nil, "")); i++ {
				if i == 50 {
					t.Fatal("the plain GET was never stored")
				}
				time.Sleep(50 * time.Millisecond)
			}
			testDeliveryMatrix(t, layout.lastModified, func(t *testing.T, method string, hdr map[string]string) result {
				t.Helper()
				r := do(t, method, layout.host, path, identity(hdr), "")
				if l := logOf(t, r.header.Get("X-Request-Id")); l["content_cache"] != "hit" {
					t.Fatalf("%s %v: not from the content cache: %v", method, hdr, l)
				}
				return r
			})
		})
	}
}

// testDeliveryMatrix asks serve for the matrix object under every condition and range.
// lastModified: the layout sends a Last-Modified; without one a condition on a date is
// ignored (the full 200, never a wrong 304).
func testDeliveryMatrix(t *testing.T, lastModified bool, serve staticSource) {
	plain := serve(t, "GET", nil)
	etag, modified := plain.header.Get("ETag"), plain.header.Get("Last-Modified")
	if plain.status != 200 || plain.body != deliveryBody || etag == "" || etag[0] != '"' || (modified != "") != lastModified {
		t.Fatalf("plain GET: %d %q ETag %q Last-Modified %q", plain.status, plain.body, etag, modified)
	}
	date := modified // the date conditions are asked with
	if !lastModified {
		date = time.Now().UTC().Format(http.TimeFormat)
	}
	lm, err := http.ParseTime(date)
	if err != nil {
		t.Fatalf("Last-Modified %q: %v", date, err)
	}
	later, earlier := lm.Add(time.Hour).Format(http.TimeFormat), lm.Add(-time.Second).Format(http.TimeFormat)

	type want struct {
		status       int
		body         string
		contentRange string
	}
	full := want{200, deliveryBody, ""}
	notModified := want{304, "", ""}
	byDate := func(w want) want {
		if !lastModified {
			return full
		}
		return w
	}
	for _, c := range []struct {
		name string
		hdr  map[string]string
		want want
	}{
		{"If-None-Match strong", map[string]string{"If-None-Match": etag}, notModified},
		{"If-None-Match weak", map[string]string{"If-None-Match": "W/" + etag}, notModified},
		{"If-None-Match list", map[string]string{"If-None-Match": `"other", ` + etag}, notModified},
		{"If-None-Match star", map[string]string{"If-None-Match": "*"}, notModified},
		{"If-None-Match other", map[string]string{"If-None-Match": `"other"`}, full},
		{"If-None-Match wins over If-Modified-Since", map[string]string{"If-None-Match": `"other"`, "If-Modified-Since": later}, full},
		{"If-Modified-Since equal", map[string]string{"If-Modified-Since": date}, byDate(notModified)},
		{"If-Modified-Since later", map[string]string{"If-Modified-Since": later}, byDate(notModified)},
		{"If-Modified-Since earlier", map[string]string{"If-Modified-Since": earlier}, full},
		{"Range", map[string]string{"Range": "bytes=2-5"}, want{206, "2345", "bytes 2-5/20"}},
		{"Range suffix", map[string]string{"Range": "bytes=-3"}, want{206, "hij", "bytes 17-19/20"}},
		{"Range open", map[string]string{"Range": "bytes=15-"}, want{206, "fghij", "bytes 15-19/20"}},
		{"Range unsatisfiable", map[string]string{"Range": "bytes=20-"}, want{416, "", "bytes */20"}},
		{"Range several", map[string]string{"Range": "bytes=0-1,4-5"}, full},
		{"Range malformed", map[string]string{"Range": "bytes=5-2"}, full},
		{"If-Range match", map[string]string{"Range": "bytes=0-3", "If-Range": etag}, want{206, "0123", "bytes 0-3/20"}},
		{"If-Range mismatch", map[string]string{"Range": "bytes=0-3", "If-Range": `"an-older-version"`}, full},
		{"If-Range weak", map[string]string{"Range": "bytes=0-3", "If-Range": "W/" + etag}, full},
		{"If-Range date", map[string]string{"Range": "bytes=0-3", "If-Range": date}, byDate(want{206, "0123", "bytes 0-3/20"})},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := serve(t, "GET", c.hdr)
			if r.status != c.want.status || r.header.Get("Content-Range") != c.want.contentRange {
				t.Fatalf("status %d Content-Range %q, want %d %q (body %q)", r.status, r.header.Get("Content-Range"), c.want.status, c.want.contentRange, r.body)
			}
			if r.header.Get("X-Request-Id") == "" || r.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("fixed headers missing: %v", r.header)
			}
			switch r.status {
			case 200, 206:
				if r.body != c.want.body || r.header.Get("Content-Length") != strconv.Itoa(len(c.want.body)) {
					t.Errorf("body %q Content-Length %q, want %q", r.body, r.header.Get("Content-Length"), c.want.body)
				}
				if r.header.Get("Accept-Ranges") != "bytes" || r.header.Get("ETag") != etag || r.header.Get("Last-Modified") != modified {
					t.Errorf("Accept-Ranges %q ETag %q", r.header.Get("Accept-Ranges"), r.header.Get("ETag"))
				}
			case 304:
				if r.body != "" || r.header.Get("ETag") != etag || r.header.Get("Last-Modified") != modified ||
					r.header.Get("Cache-Control") != "public, max-age=0, must-revalidate" {
					t.Errorf("304: body %q headers %v", r.body, r.header)
				}
				if cl := r.header.Get("Content-Length"); cl != "" && cl != "0" {
					t.Errorf("304 with Content-Length %q", cl)
				}
			}
		})
	}

	// HEAD: the headers of the GET, no body; Range is for GET only (RFC 9110 §14.2).
	for _, hdr := range []map[string]string{nil, {"Range": "bytes=0-3"}} {
		head := serve(t, "HEAD", hdr)
		if head.status != 200 || head.body != "" {
			t.Errorf("HEAD %v: %d %q", hdr, head.status, head.body)
		}
		for _, name := range []string{"Content-Type", "Content-Length", "ETag", "Last-Modified", "Accept-Ranges", "Cache-Control", "X-Content-Type-Options"} {
			if head.header.Get(name) != plain.header.Get(name) {
				t.Errorf("HEAD %v: %s %q, GET has %q", hdr, name, head.header.Get(name), plain.header.Get(name))
			}
		}
	}
	if head := serve(t, "HEAD", map[string]string{"If-None-Match": etag}); head.status != 304 {
		t.Errorf("HEAD with the current ETag: %d", head.status)
	}
}

// The site's 404 page is a 404 with its whole body whatever the client asks.
func TestStaticNotFoundPageIgnoresConditionals(t *testing.T) {
	for _, hdr := range []map[string]string{{"If-None-Match": "*"}, {"Range": "bytes=0-3"}, {"Range": "bytes=100-"}} {
		r := do(t, "GET", "docs.kamui.test", "/nope", hdr, "")
		if r.status != 404 || r.body != "<h1>docs 404</h1>" || r.header.Get("Content-Range") != "" {
			t.Errorf("%v: %d %q %v", hdr, r.status, r.body, r.header)
		}
	}
}
