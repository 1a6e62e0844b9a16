package router_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

// A connection goes back to the pool after each exchange, however the response's body came
// back: five sequential requests use one.
func TestRouter_ReusesUpstreamConnections(t *testing.T) {
	for _, shape := range responseShapes {
		t.Run(shape.name, func(t *testing.T) {
			want := shape.body("ok from backend")
			b := newBackend(t, func(w http.ResponseWriter, _ *http.Request) { shape.serve(w, http.StatusOK, want) })
			h := newHarness(t, b, nil)
			for i := range 5 {
				res, body := do(t, h.request(t, validContext(http.MethodGet, "req-reuse"), "/", nil))
				if res.StatusCode != http.StatusOK || body != want {
					t.Fatalf("request %d: got %d and %d bytes of body, want 200 and %d bytes", i, res.StatusCode, len(body), len(want))
				}
			}
			if n := b.conns.Load(); n != 1 {
				t.Errorf("the backend accepted %d connections for 5 sequential requests, want 1", n)
			}
		})
	}
}

func TestRouter_ReplacesAnIdleConnectionTheUpstreamClosed(t *testing.T) {
	b := newBackend(t, nil)
	h := newHarness(t, b, nil)
	if res, _ := do(t, h.request(t, validContext(http.MethodGet, "req-first"), "/", nil)); res.StatusCode != http.StatusOK {
		t.Fatalf("first request: got %d", res.StatusCode)
	}
	// The upstream drops its idle keep-alive connection, as a server restarting or timing out
	// idle connections does; the router finds out before writing the next request on it, and
	// sends that request on a fresh connection.
	b.CloseClientConnections()
	res, body := do(t, h.request(t, validContext(http.MethodGet, "req-again"), "/", nil))
	if res.StatusCode != http.StatusOK || body != "ok from backend" {
		t.Fatalf("after the upstream closed the idle connection: got %d %q, want 200", res.StatusCode, body)
	}
	if n := b.conns.Load(); n != 2 {
		t.Errorf("the backend accepted %d connections, want 2 (one replaced)", n)
	}
	if lines := h.logs.accessLines(t); len(lines) != 2 || lines[1]["outcome"] != "proxied" {
		t.Errorf("access lines %v, want two proxied", lines)
	}
}

func TestRouter_DropsHeadersTheConnectionHeaderNames(t *testing.T) {
	for _, shape := range responseShapes {
		t.Run(shape.name, func(t *testing.T) {
			want := shape.body("ok")
			b := newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Connection", "X-Upstream-Hop")
				w.Header().Set("X-Upstream-Hop", "hop")
				w.Header().Set("Keep-Alive", "timeout=5")
				shape.serve(w, http.StatusOK, want)
			})
			h := newHarness(t, b, nil)
			req := h.request(t, validContext(http.MethodGet, "req-hop"), "/", nil)
			// Named in another spelling, before and after the Connection header in the head
			// (the client writes header names in order), one of them twice, and one a header
			// fasthttp keeps apart from the others (User-Agent).
			req.Header.Set("Connection", "X-Client-Hop, a-client-hop, user-agent")
			req.Header.Set("X-Client-Hop", "hop")
			req.Header["A-Client-Hop"] = []string{"hop 1", "hop 2"}
			req.Header.Set("User-Agent", "hop")
			req.Header.Set("X-Kept", "kept")
			req.Header.Set("Proxy-Authorization", "Basic c2VjcmV0")
			res, got := do(t, req)
			if res.StatusCode != http.StatusOK || got != want {
				t.Fatalf("got %d and %d bytes of body, want 200 and %d bytes", res.StatusCode, len(got), len(want))
			}
			sent := h.backend.last().Header
			if sent.Get("X-Kept") != "kept" {
				t.Errorf("backend did not receive X-Kept: %v", sent)
			}
			for _, name := range []string{"X-Client-Hop", "A-Client-Hop", "User-Agent", "Proxy-Authorization"} {
				if v := sent.Get(name); v != "" {
					t.Errorf("backend received hop-by-hop %s: %q", name, v)
				}
			}
			for _, name := range []string{"X-Upstream-Hop", "Keep-Alive"} {
				if v := res.Header.Get(name); v != "" {
					t.Errorf("client received hop-by-hop %s: %q", name, v)
				}
			}
		})
	}
}

func TestRouter_HeadAndOptions(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "11")
		w.Header().Set("X-Method", r.Method)
		if r.Method != http.MethodHead {
			_, _ = io.WriteString(w, "hello world")
		}
	})
	h := newHarness(t, b, nil)
	for _, method := range []string{http.MethodHead, http.MethodOptions, http.MethodHead} {
		res, body := do(t, h.request(t, validContext(method, "req-"+method), "/", nil))
		wantBody := "hello world"
		if method == http.MethodHead {
			wantBody = ""
		}
		if res.StatusCode != http.StatusOK || res.Header.Get("X-Method") != method || body != wantBody ||
			res.ContentLength != 11 {
			t.Errorf("%s: got %d, X-Method %q, length %d, body %q", method, res.StatusCode,
				res.Header.Get("X-Method"), res.ContentLength, body)
		}
	}
}

func TestRouter_RelaysTrailers(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Trailer", "X-Checksum, Kamui-App")
		_, _ = io.WriteString(w, "body")
		w.Header().Set("X-Checksum", "abc")
		w.Header().Set("Kamui-App", "forged")
		w.Header().Set(http.TrailerPrefix+"X-Late", "late")
	})
	h := newHarness(t, b, nil)
	res, body := do(t, h.request(t, validContext(http.MethodGet, "req-trailer"), "/", nil))
	if body != "body" || res.Trailer.Get("X-Checksum") != "abc" || res.Trailer.Get("X-Late") != "late" {
		t.Errorf("body %q, trailers %v; want the backend's", body, res.Trailer)
	}
	if v, ok := res.Trailer["Kamui-App"]; ok {
		t.Errorf("a Kamui-* trailer reached the client (announced or sent): %q", v)
	}
}

// An event stream must reach the client event by event, not when the upstream is done.
func TestRouter_FlushesEventStreams(t *testing.T) {
	release := make(chan struct{})
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: first\n\n")
		_ = http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, "data: last\n\n")
	})
	h := newHarness(t, b, nil)
	defer close(release)
	req := h.request(t, validContext(http.MethodGet, "req-sse"), "/events", nil)
	line := make(chan string, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			line <- err.Error()
			return
		}
		defer func() { _ = res.Body.Close() }()
		l, _ := bufio.NewReader(res.Body).ReadString('\n')
		line <- l
	}()
	select {
	case l := <-line:
		if l != "data: first\n" {
			t.Errorf("first line %q, want the first event", l)
		}
	case <-time.After(10 * time.Second): // a hang fails the test instead of the run
		t.Error("the first event did not arrive while the stream stayed open")
	}
}

// The response header timeout bounds the wait for the head only: a body may take longer.
func TestRouter_SlowBodyOutlivesTheHeaderTimeout(t *testing.T) {
	const headerTimeout = 50 * time.Millisecond
	for _, length := range []string{"10", ""} { // known length, then chunked
		sent, release := make(chan struct{}), make(chan struct{})
		b := newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
			if length != "" {
				w.Header().Set("Content-Length", length)
			}
			_, _ = io.WriteString(w, "first")
			_ = http.NewResponseController(w).Flush()
			close(sent)
			<-release
			_, _ = io.WriteString(w, "-last")
		})
		h := newHarness(t, b, func(c *router.Config) { c.ResponseHeaderTimeout = headerTimeout })
		req := h.request(t, validContext(http.MethodGet, "req-slow-body"), "/", nil)
		got := make(chan string, 1)
		go func() {
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				got <- err.Error()
				return
			}
			defer func() { _ = res.Body.Close() }()
			body, err := io.ReadAll(res.Body)
			if err != nil {
				got <- err.Error()
				return
			}
			got <- string(body)
		}()
		<-sent
		time.Sleep(4 * headerTimeout) // the head is in, the body is not: past the header timeout
		close(release)
		select {
		case body := <-got:
			if body != "first-last" {
				t.Errorf("length %q: got %q, want the whole body", length, body)
			}
		case <-time.After(10 * time.Second): // a hang fails the test instead of the run
			t.Fatalf("length %q: no response", length)
		}
	}
}

// An exchange without a body (HEAD, 204, 304) ends with the connection back in the pool and the
// read deadline of the wait for its head still set. A connection idle for longer than the
// header timeout must serve the next request all the same: each exchange sets its own deadline
// before it reads.
func TestRouter_ReusesAConnectionIdleLongerThanTheHeaderTimeout(t *testing.T) {
	const headerTimeout = 50 * time.Millisecond
	b := newBackend(t, nil)
	h := newHarness(t, b, func(c *router.Config) { c.ResponseHeaderTimeout = headerTimeout })
	for i, method := range []string{http.MethodHead, http.MethodGet, http.MethodHead, http.MethodGet} {
		if i > 0 {
			time.Sleep(3 * headerTimeout)
		}
		res, body := do(t, h.request(t, validContext(method, "req-idle-past-timeout"), "/", nil))
		want := "ok from backend"
		if method == http.MethodHead {
			want = ""
		}
		if res.StatusCode != http.StatusOK || body != want {
			t.Fatalf("request %d (%s): got %d %q, want 200 and %q", i, method, res.StatusCode, body, want)
		}
	}
	if n := b.conns.Load(); n != 1 {
		t.Errorf("the backend accepted %d connections for 4 sequential requests, want 1", n)
	}
}

// countingConn counts the writes made on an upstream connection. It hides the connection's
// ReadFrom, so that every byte goes through Write.
type countingConn struct {
	net.Conn
	writes *atomic.Int32
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// A request whose head and body fit the upstream write buffer goes upstream in one write: a
// 16 KiB body (a form, a JSON document, a small upload) with its head, rather than a full
// buffer and then the rest, one more system call and packet for every such request.
func TestRouter_SendsHeadAndSmallBodyInOneWrite(t *testing.T) {
	var received atomic.Int64
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		received.Store(n)
		_, _ = io.WriteString(w, "ok")
	})
	var writes atomic.Int32
	h := newHarness(t, b, func(c *router.Config) {
		c.Dial = func(addr string) (net.Conn, error) {
			conn, err := net.Dial("tcp", addr)
			return countingConn{conn, &writes}, err
		}
	})
	body := strings.Repeat("x", 16<<10)
	res, _ := do(t, h.request(t, validContext(http.MethodPost, "req-one-write"), "/upload", strings.NewReader(body)))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("got %d, want 200", res.StatusCode)
	}
	if got := received.Load(); got != int64(len(body)) {
		t.Fatalf("backend received %d bytes of body, want %d", got, len(body))
	}
	if n := writes.Load(); n != 1 {
		t.Errorf("the request went upstream in %d writes, want 1", n)
	}
}
