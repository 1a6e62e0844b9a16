package router_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// slowness is how long the slow backends below take to answer: well past the router's delay
// before it watches the client (150 ms), so the watch runs.
const slowness = 400 * time.Millisecond

// The client leaving while the router waits for the response head ends the upstream exchange:
// the tenant sees its request cancelled (its connection closed), long before the header
// timeout, and the exchange is logged as client_gone.
func TestRouter_ClientGoneCancelsTheUpstream(t *testing.T) {
	for _, p := range requestShapes {
		t.Run(p.name, func(t *testing.T) {
			entered, cancelled := make(chan struct{}), make(chan struct{})
			b := newBackend(t, func(_ http.ResponseWriter, r *http.Request) {
				// net/http's server notices its client (the router) leaving once the request
				// body is read.
				_, _ = io.Copy(io.Discard, r.Body)
				close(entered)
				<-r.Context().Done()
				close(cancelled)
			})
			h := newHarness(t, b, nil)
			conn := dialRouter(t, h)
			if err := p.request(t, h, "req-gone", "/").Write(conn); err != nil {
				t.Fatal(err)
			}
			<-entered
			leaveAndExpectCancelled(t, h, conn, cancelled, "request")
		})
	}
}

// A client that half-closes (sends its FIN but still reads) is gone too, as net/http's server
// counts it: nothing is written to it, and its connection is closed.
func TestRouter_ClientGoneGetsNothing(t *testing.T) {
	entered := make(chan struct{})
	b := newBackend(t, func(_ http.ResponseWriter, r *http.Request) {
		close(entered)
		<-r.Context().Done()
	})
	h := newHarness(t, b, nil)
	conn := dialRouter(t, h)
	if err := h.getPage(t, "/half").Write(conn); err != nil {
		t.Fatal(err)
	}
	<-entered
	tcp, ok := conn.(*net.TCPConn)
	if !ok {
		t.Fatalf("the client's connection is a %T, not TCP", conn)
	}
	if err := tcp.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(conn)
	if err != nil || len(got) != 0 {
		t.Errorf("the half-closed client read %q (%v), want nothing and the connection's end", got, err)
	}
}

// A slow upstream (slower than the delay before the client is watched) still answers a
// keep-alive client that stays, and that client's connection then carries its next requests:
// the watch leaves no read deadline behind on it.
func TestRouter_SlowUpstreamAnswersAWatchedClient(t *testing.T) {
	b := newBackend(t, pages(slowness, "/slow"))
	h := newHarness(t, b, nil)
	conn := dialRouter(t, h)
	br := bufio.NewReader(conn)
	for _, path := range []string{"/slow", "/slow", "/fast"} {
		req := h.getPage(t, path)
		if err := req.Write(conn); err != nil {
			t.Fatal(err)
		}
		readPage(t, br, req)
	}
	if n := b.conns.Load(); n != 1 {
		t.Errorf("the backend accepted %d connections, want 1 (the watch leaves the upstream connection alone)", n)
	}
	h.allProxied(t)
}

// A client that pipelines its next request while the first one's head is awaited is not taken
// for gone: the bytes on its connection are a request, and it gets both answers, in order.
func TestRouter_PipelinedRequestIsNotAClientGone(t *testing.T) {
	first := make(chan struct{})
	slow := pages(slowness, "/first")
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/first" {
			close(first)
		}
		slow(w, r)
	})
	h := newHarness(t, b, nil)
	conn := dialRouter(t, h)
	reqs := []*http.Request{h.getPage(t, "/first"), h.getPage(t, "/second")}
	if err := reqs[0].Write(conn); err != nil {
		t.Fatal(err)
	}
	<-first
	if err := reqs[1].Write(conn); err != nil { // arrives while /first is awaited
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	for _, req := range reqs {
		readPage(t, br, req)
	}
	h.allProxied(t)
}

// The same holds while an upgrade waits for the tenant's 101: a client that leaves ends the
// exchange, and the tenant sees its request cancelled.
func TestRouter_ClientGoneBeforeTheUpgradeCancelsIt(t *testing.T) {
	entered, cancelled := make(chan struct{}), make(chan struct{})
	b := newBackend(t, func(_ http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "websocket" {
			t.Errorf("the tenant got Upgrade %q, want the client's websocket", r.Header.Get("Upgrade"))
		}
		close(entered)
		<-r.Context().Done()
		close(cancelled)
	})
	h := newHarness(t, b, nil)
	conn := dialRouter(t, h)
	req := h.request(t, validContext(http.MethodGet, "req-upgrade-gone"), "/ws", nil)
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	req.Header.Set("Sec-WebSocket-Version", "13")
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	<-entered
	leaveAndExpectCancelled(t, h, conn, cancelled, "upgrade")
}

// leaveAndExpectCancelled closes the client's connection while the tenant works on its
// request, then expects the tenant to see the upstream request (what: "request", "upgrade")
// cancelled and the exchange logged once as client_gone, 499.
func leaveAndExpectCancelled(t *testing.T, h *harness, conn net.Conn, cancelled <-chan struct{}, what string) {
	t.Helper()
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second): // a hang fails the test instead of the run
		t.Fatalf("the upstream %s was not cancelled after the client left", what)
	}
	eventually(t, "a client_gone access line", func() bool {
		lines := h.logs.accessLines(t)
		return len(lines) == 1 && lines[0]["outcome"] == "client_gone" && lines[0]["status"] == 499.0
	})
}
