package router_test

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

// websocketAccept is the RFC 6455 handshake answer for a client key.
func websocketAccept(key string) string {
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// echoWebSocket completes a WebSocket handshake by hand, writing interim (raw interim responses)
// before its 101, and then echoes every byte back.
func echoWebSocket(interim string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "websocket" {
			http.Error(w, "upgrade required", http.StatusUpgradeRequired)
			return
		}
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer func() { _ = conn.Close() }()
		rw.WriteString(interim + "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Accept: " + websocketAccept(r.Header.Get("Sec-WebSocket-Key")) + "\r\n\r\n")
		if rw.Flush() != nil {
			return
		}
		_, _ = io.Copy(conn, rw.Reader) // echoes until either side closes: the client checks the echo
	}
}

// A WebSocket upgrade crosses, and the echo comes back through the tunnel; an interim response
// before the tenant's 101 reaches the client as a forwarded request's does (cleaned), and the
// 101 after it is still the answer.
func TestRouter_WebSocketEcho(t *testing.T) {
	for _, tc := range []struct{ name, interim string }{
		{"plain", ""},
		{"after an early hint", "HTTP/1.1 103 Early Hints\r\nLink: </chat.js>; rel=preload\r\nKamui-App: forged\r\n\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) { testWebSocketEcho(t, tc.interim) })
	}
}

func testWebSocketEcho(t *testing.T, interim string) {
	h := newHarness(t, newBackend(t, echoWebSocket(interim)), nil)

	conn, err := net.Dial("tcp", h.front.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	// A hang fails the test instead of the run.
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}

	const key = "dGhlIHNhbXBsZSBub25jZQ=="
	req := h.request(t, validContext(http.MethodGet, "req-ws"), "/chat", nil)
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Key", key)
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Kamui-Debug", "spoofed")
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	if interim != "" {
		hint, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatal(err)
		}
		if hint.StatusCode != http.StatusEarlyHints || hint.Header.Get("Link") != "</chat.js>; rel=preload" ||
			hint.Header.Get("Kamui-App") != "" {
			t.Fatalf("interim response %d %v, want the 103 with its Link and no Kamui-* header", hint.StatusCode, hint.Header)
		}
	}
	res, err := http.ReadResponse(br, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols || res.Header.Get("Sec-WebSocket-Accept") != websocketAccept(key) {
		t.Fatalf("handshake: %d %v, want 101 with the accept key", res.StatusCode, res.Header)
	}

	for _, msg := range []string{"hello through the router", "second message"} {
		if _, err := io.WriteString(conn, msg); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(br, got); err != nil {
			t.Fatal(err)
		}
		if string(got) != msg {
			t.Errorf("echo %q, want %q", got, msg)
		}
	}

	for name := range h.backend.last().Header {
		if route.IsContextHeader(name) {
			t.Errorf("backend received %s on the upgrade request", name)
		}
	}

	// Closing our side ends both copies; the request then counts as finished.
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.rt.Wait(ctx); err != nil {
		t.Fatalf("upgraded request never finished: %v", err)
	}
	lines := h.logs.accessLines(t)
	if len(lines) != 1 || lines[0]["status"] != 101.0 || lines[0]["outcome"] != "proxied" {
		t.Errorf("access lines %v, want one proxied 101", lines)
	}
}

// An upstream's refusal to upgrade (an ordinary answer, read whole) reaches its own client
// intact while the write to that client waits and other refusals are read meanwhile: the bytes
// the client is sent must not live in a buffer the router gave back for reuse.
func TestRouter_RefusedUpgradeBodyIsNotShared(t *testing.T) {
	// One P: the buffer pools then hand a freed buffer to the next exchange deterministically.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const size = 64 << 10 // larger than the server's write buffer: written from where it lies
	h := newHarness(t, newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, strings.Repeat(r.URL.Path[1:2], size))
	}), nil)
	// A second server of the same router, whose writes to its clients wait until released.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gated := &gatedListener{Listener: ln, open: make(chan struct{}), writing: make(chan struct{}, 1)}
	srv := router.NewServer(h.rt)
	go func() { _ = srv.Serve(gated) }() // ends when the test shuts it down
	t.Cleanup(func() { _ = srv.Shutdown() })

	upgrade := func(addr, path string) (net.Conn, *http.Request) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		req := h.request(t, validContext(http.MethodGet, "req"+path), path, nil)
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Connection", "Upgrade")
		if err := req.Write(conn); err != nil {
			t.Fatal(err)
		}
		return conn, req
	}
	body := func(conn net.Conn, req *http.Request) string {
		res, err := http.ReadResponse(bufio.NewReader(conn), req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: %d %v, want the tenant's 403", req.URL.Path, res.StatusCode, err)
		}
		return string(b)
	}

	slow, slowReq := upgrade(ln.Addr().String(), "/a")
	<-gated.writing // the router is writing a's refusal, and waits
	for range 3 {
		if got := body(upgrade(h.front.Listener.Addr().String(), "/b")); got != strings.Repeat("b", size) {
			t.Fatalf("b's refusal is not b's own")
		}
	}
	close(gated.open)
	if got := body(slow, slowReq); got != strings.Repeat("a", size) {
		t.Errorf("a's refusal holds %d bytes of another exchange's", size-strings.Count(got, "a"))
	}
}

// gatedListener's connections hold every write until open is closed, telling writing when
// the first one waits.
type gatedListener struct {
	net.Listener
	open    chan struct{}
	writing chan struct{}
}

func (l *gatedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return gatedConn{Conn: c, l: l}, nil
}

type gatedConn struct {
	net.Conn
	l *gatedListener
}

func (c gatedConn) Write(p []byte) (int, error) {
	select {
	case c.l.writing <- struct{}{}:
	default:
	}
	<-c.l.open
	return c.Conn.Write(p)
}

// A request that asks for an upgrade and carries a body (h2c's upgrade may come on a POST)
// reaches the tenant with its body, whether the tenant switches or, as here, answers it as an
// ordinary request.
func TestRouter_UpgradeRequestKeepsItsBody(t *testing.T) {
	h := newHarness(t, newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body) // a short read shows in the echo
		_, _ = io.WriteString(w, "got "+string(b))
	}), nil)
	req := h.request(t, validContext(http.MethodPost, "req-upgrade-body"), "/upload", strings.NewReader("form=1"))
	req.Header.Set("Upgrade", "h2c")
	req.Header.Set("Connection", "Upgrade, HTTP2-Settings")
	req.Header.Set("HTTP2-Settings", "AAMAAABkAAQCAAAAAAIAAAAA")
	res, body := do(t, req)
	if res.StatusCode != http.StatusOK || body != "got form=1" {
		t.Errorf("got %d %q, want the tenant's echo of the body", res.StatusCode, body)
	}
}

// An upgrade request answered without a body (a HEAD's answer, a 304) gets the tenant's answer:
// the body a Content-Length announces never comes, and is not waited for.
func TestRouter_RefusedUpgradeWithoutBodyIsAnswered(t *testing.T) {
	up := newRawUpstream(t, func(conn net.Conn, _ int, req *http.Request) {
		status := "200 OK"
		if req.Method == http.MethodGet {
			status = "304 Not Modified"
		}
		_, _ = io.WriteString(conn, "HTTP/1.1 "+status+"\r\nContent-Length: 15\r\n\r\n")
	})
	h := newHarnessTo(t, up.url(), func(c *router.Config) {
		c.ResponseHeaderTimeout = 3 * time.Second // a wait for that body ends in a 504 instead of a hang
	})
	for method, want := range map[string]int{http.MethodHead: http.StatusOK, http.MethodGet: http.StatusNotModified} {
		req := h.request(t, validContext(method, "req-upgrade-"+method), "/", nil)
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Connection", "Upgrade")
		if res, _ := do(t, req); res.StatusCode != want {
			t.Errorf("%s: got %d, want the tenant's %d", method, res.StatusCode, want)
		}
	}
}

// An upgrade whose 101 cannot be written to the client (it is gone) ends there: the tenant's
// connection is closed and the exchange is recorded, so it does not count as in flight for
// ever (and hold every drain to its timeout).
func TestRouter_UpgradeWhoseClientIsGoneEnds(t *testing.T) {
	upstreamClosed := make(chan struct{})
	h := newHarness(t, newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		echoWebSocket("")(w, r) // returns when the router closes the tunnel's upstream side
		close(upstreamClosed)
	}), nil)
	// A second server of the same router, whose clients' connections refuse every write.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := router.NewServer(h.rt)
	go func() { _ = srv.Serve(brokenWritesListener{ln}) }() // ends when the test shuts it down
	t.Cleanup(func() { _ = srv.Shutdown() })

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	req := h.request(t, validContext(http.MethodGet, "req-ws-gone"), "/chat", nil)
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	req.Header.Set("Sec-WebSocket-Version", "13")
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	select {
	case <-upstreamClosed:
	case <-time.After(10 * time.Second): // a hang fails the test instead of the run
		t.Fatal("the tenant's side of an upgrade whose client is gone stayed open")
	}
	eventually(t, "the exchange recorded", func() bool { return h.rt.InFlight() == 0 })
}

// brokenWritesListener's connections fail every write, as a connection the client reset does.
type brokenWritesListener struct{ net.Listener }

func (l brokenWritesListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	return brokenWritesConn{c}, err
}

type brokenWritesConn struct{ net.Conn }

func (brokenWritesConn) Write([]byte) (int, error) { return 0, net.ErrClosed }
