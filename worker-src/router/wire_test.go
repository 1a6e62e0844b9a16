package router_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawExchange writes raw bytes to the router and returns the first response, or nil when the
// router closed the connection without one. The deadline fails a hang instead of the run.
func rawExchange(t *testing.T, h *harness, raw string) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", h.front.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return nil
	}
	_, _ = io.Copy(io.Discard, res.Body) // the status is what the tests check
	_ = res.Body.Close()
	return res
}

// signedHead is a request head with a valid signed context for method and target, without the
// final empty line, for tests that add framing headers of their own.
func signedHead(t *testing.T, h *harness, method, target string) string {
	t.Helper()
	req := h.request(t, validContext(method, "req-raw"), target, nil)
	var b strings.Builder
	b.WriteString(method + " " + target + " HTTP/1.1\r\nHost: origin.kamui.test\r\n")
	for name, values := range req.Header {
		for _, v := range values {
			b.WriteString(name + ": " + v + "\r\n")
		}
	}
	return b.String()
}

// Request smuggling: a message whose length two parsers could read differently is refused
// before anything reaches the tenant, and nothing after it on the connection is read as a
// request of its own.
func TestRouter_RefusesAmbiguousFraming(t *testing.T) {
	smuggled := "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
	for _, tc := range []struct{ name, framing, body string }{
		{"transfer-encoding and content-length", "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n",
			"0\r\n\r\n" + smuggled},
		{"content-length and transfer-encoding", "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n",
			"0\r\n\r\n" + smuggled},
		{"duplicate content-length", "Content-Length: 4\r\nContent-Length: 40\r\n", "abcd" + smuggled},
		{"obs-fold", "X-Folded: a\r\n b\r\nContent-Length: 4\r\n", "abcd" + smuggled},
		{"obs-fold in content-length", "Content-Length: 4\r\n 0\r\n", "abcd" + smuggled},
		{"unknown transfer-coding", "Transfer-Encoding: gzip, chunked\r\n", "0\r\n\r\n" + smuggled},
		// "identity" (removed from HTTP/1.1): fasthttp frames such a request by its
		// Content-Length, or as bodiless without one, where net/http answers 501.
		{"identity and content-length", "Transfer-Encoding: identity\r\nContent-Length: 4\r\n", "abcd" + smuggled},
		{"content-length and identity", "Content-Length: 4\r\nTransfer-Encoding: identity\r\n", "abcd" + smuggled},
		{"identity alone", "Transfer-Encoding: identity\r\n", "abcd" + smuggled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t, nil)
			h := newHarness(t, b, nil)
			res := rawExchange(t, h, signedHead(t, h, http.MethodPost, "/")+tc.framing+"\r\n"+tc.body)
			if res == nil || res.StatusCode != http.StatusBadRequest {
				t.Errorf("got %v, want 400", res)
			}
			if n := b.hits.Load(); n != 0 {
				t.Errorf("the backend received %d requests, want none", n)
			}
		})
	}
}

// The request head is bounded (what Cloudflare forwards, 32 KiB): a larger one is refused and
// never reaches the tenant; one within the bound passes.
func TestRouter_BoundsTheRequestHead(t *testing.T) {
	b := newBackend(t, nil)
	h := newHarness(t, b, nil)
	ok := signedHead(t, h, http.MethodGet, "/") + "Cookie: " + strings.Repeat("c", 16<<10) + "\r\n\r\n"
	if res := rawExchange(t, h, ok); res == nil || res.StatusCode != http.StatusOK {
		t.Fatalf("a 16 KiB cookie: got %v, want 200", res)
	}
	tooBig := signedHead(t, h, http.MethodGet, "/") + "Cookie: " + strings.Repeat("c", 40<<10) + "\r\n\r\n"
	if res := rawExchange(t, h, tooBig); res != nil && res.StatusCode < 400 {
		t.Errorf("a 40 KiB head: got %d, want a refusal", res.StatusCode)
	}
	if n := b.hits.Load(); n != 1 {
		t.Errorf("the backend received %d requests, want only the one within the bound", n)
	}
}

// A client that sends its head a byte at a time and never finishes (slowloris) is cut off; it
// does not hold a connection for ever. The server's header timeout is what does it; the test
// only checks that the connection ends, not when.
func TestRouter_TimesOutASlowlorisClient(t *testing.T) {
	h := newHarness(t, newBackend(t, nil), nil)
	conn, err := net.Dial("tcp", h.front.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n"); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(closed)
		_, _ = io.Copy(io.Discard, conn) // returns when the router closes the connection
	})
	// Trickle header bytes until the router gives up; bounded so a router that never does
	// fails the test instead of the run.
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-closed:
			wg.Wait()
			return
		case <-time.After(500 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the router kept a connection whose head never finished")
		}
		_, _ = io.WriteString(conn, "X") // fails once the router has closed: the loop then ends
	}
}

// The request target reaches the tenant exactly as the Worker signed it: fasthttp's client
// would otherwise remove dot segments, collapse slashes and re-encode.
func TestRouter_ForwardsTheSignedTargetExactly(t *testing.T) {
	var mu sync.Mutex
	var got, auth []string
	up := newRawUpstream(t, func(conn net.Conn, _ int, req *http.Request) {
		mu.Lock()
		got = append(got, req.RequestURI)
		auth = append(auth, req.Header.Get("Authorization"))
		mu.Unlock()
		writeResponse(conn, "", "ok")
	})
	h := newHarnessTo(t, up.url(), nil)
	targets := []string{"/a/../b", "//double//slash", "/%2e%2e/%2F?q=a%20b&&x", "/caf%C3%A9;p=1", "/A/b/C",
		// fasthttp's client parses a target that starts with "//" and holds "://" further on as
		// an absolute URI ("api" its host): Request.Write used to rebuild the target from that
		// (losing "/api") and to turn "user:pw@" into an Authorization header. The Worker signs
		// such paths as they are (an attack found it).
		"//api/v1/login?next=https://example.com/", "//user:pw@x/admin?u=http://y",
		// An empty query, which that rebuild dropped too.
		"/empty-query?"}
	for _, target := range targets {
		if res := rawExchange(t, h, signedHead(t, h, http.MethodGet, target)+"\r\n"); res == nil || res.StatusCode != http.StatusOK {
			t.Errorf("%s: got %v, want 200", target, res)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, " ") != strings.Join(targets, " ") {
		t.Errorf("the upstream saw %q, want %q", got, targets)
	}
	for i, a := range auth {
		if a != "" {
			t.Errorf("%s reached the tenant with Authorization %q, which the client never sent", got[i], a)
		}
	}
}

// A client's request trailers stay behind at the router: a trailer field is a header that
// arrives after the body, and a Kamui-* one, or any other the tenant would read as it reads
// headers, must not reach the tenant where the router's checks of the head never saw it. The
// body itself arrives whole.
func TestRouter_DropsRequestTrailers(t *testing.T) {
	type arrived struct {
		body    string
		trailer http.Header
	}
	got := make(chan arrived, 1)
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body) // r.Trailer is complete once the body is read
		got <- arrived{string(body), r.Trailer.Clone()}
		_, _ = io.WriteString(w, "ok")
	})
	h := newHarness(t, b, nil)
	head := signedHead(t, h, http.MethodPost, "/upload") +
		"Transfer-Encoding: chunked\r\nTrailer: Kamui-App, X-Checksum\r\n\r\n"
	res := rawExchange(t, h, head+"5\r\nhello\r\n0\r\nKamui-App: other-tenant\r\nX-Checksum: abc\r\n\r\n")
	if res == nil || res.StatusCode != http.StatusOK {
		t.Fatalf("got %v, want 200", res)
	}
	a := <-got
	if a.body != "hello" {
		t.Errorf("the tenant read body %q, want %q", a.body, "hello")
	}
	for name, v := range a.trailer {
		if len(v) > 0 || strings.HasPrefix(strings.ToLower(name), "kamui-") {
			t.Errorf("the tenant got trailer %s: %q", name, v)
		}
	}
	if v := b.last().Header.Values("Trailer"); len(v) > 0 {
		t.Errorf("the tenant was announced trailers %q", v)
	}
}
