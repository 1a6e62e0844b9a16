package router_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

// rawUpstream is a tenant service on a bare TCP listener, so a test can make it break HTTP/1.1
// in ways net/http's server never would. Requests are parsed with http.ReadRequest; answer
// writes the bytes that go back, given the request and the number of the connection (from 1)
// it came on.
type rawUpstream struct {
	ln     net.Listener
	answer func(conn net.Conn, connID int, req *http.Request)

	mu       sync.Mutex
	conns    []net.Conn
	requests []rawRequest
	closed   map[int]bool // connections whose peer (the router) closed them
	nextID   int
}

type rawRequest struct {
	path   string
	connID int
}

func newRawUpstream(t *testing.T, answer func(conn net.Conn, connID int, req *http.Request)) *rawUpstream {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &rawUpstream{ln: ln, answer: answer, closed: map[int]bool{}}
	var serving sync.WaitGroup
	t.Cleanup(func() {
		_ = ln.Close() // the test is over: these only free what it held
		u.mu.Lock()
		for _, c := range u.conns {
			_ = c.Close() // the router may still hold them in its idle pool
		}
		u.mu.Unlock()
		serving.Wait()
	})
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			u.mu.Lock()
			u.nextID++
			id := u.nextID
			u.conns = append(u.conns, conn)
			u.mu.Unlock()
			serving.Add(1)
			go func() {
				defer serving.Done()
				u.serve(conn, id)
			}()
		}
	}()
	return u
}

func (u *rawUpstream) serve(conn net.Conn, id int) {
	defer func() { _ = conn.Close() }()
	br := bufio.NewReader(conn)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			u.mu.Lock()
			u.closed[id] = true
			u.mu.Unlock()
			return
		}
		_, _ = io.Copy(io.Discard, req.Body) // a body cut short fails the next ReadRequest
		u.mu.Lock()
		u.requests = append(u.requests, rawRequest{path: req.URL.Path, connID: id})
		u.mu.Unlock()
		u.answer(conn, id, req)
	}
}

func (u *rawUpstream) url() string { return "http://" + u.ln.Addr().String() }

// connOf is the connection the request for path came on last (0: it never arrived).
func (u *rawUpstream) connOf(path string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	id := 0
	for _, r := range u.requests {
		if r.path == path {
			id = r.connID
		}
	}
	return id
}

// count is how many times a request for path arrived.
func (u *rawUpstream) count(path string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := 0
	for _, r := range u.requests {
		if r.path == path {
			n++
		}
	}
	return n
}

func (u *rawUpstream) isClosed(connID int) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.closed[connID]
}

func writeResponse(conn net.Conn, extraHeaders, body string) {
	// The router's side checks what arrives.
	_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\n"+extraHeaders+"Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
}

// An upstream that writes a second response nobody asked for, on a connection the router keeps
// for reuse, must not get it delivered to the next client: a connection that received anything
// while idle is closed, never reused, and the next request goes out on another one, whole
// (a body included).
func TestRouter_NeverDeliversALateResponseToTheNextClient(t *testing.T) {
	for _, p := range requestShapes {
		for _, shape := range responseShapes {
			t.Run(p.name+"/"+shape.name, func(t *testing.T) { testLateResponse(t, p, shape) })
		}
	}
}

// testLateResponse is one row of TestRouter_NeverDeliversALateResponseToTheNextClient: alice's
// request of shape p, her answer of the given shape, then the late one.
func testLateResponse(t *testing.T, p requestShape, shape responseShape) {
	alicePage := shape.body("alice's page")
	sendLate, lateWritten := make(chan struct{}), make(chan struct{})
	up := newRawUpstream(t, func(conn net.Conn, _ int, req *http.Request) {
		switch req.URL.Path {
		case "/alice":
			shape.writeRaw(conn, "", alicePage)
			// Once alice has her answer (the connection now idles in the router's pool), a
			// buggy or hostile service sends another response, with alice's session cookie,
			// on the same connection.
			<-sendLate
			writeResponse(conn, "Set-Cookie: session=alice\r\n", "alice's late page")
			close(lateWritten)
		default:
			writeResponse(conn, "", "page for "+req.URL.Path)
		}
	})
	h := newHarnessTo(t, up.url(), nil)

	res, body := do(t, p.request(t, h, "req-alice", "/alice"))
	if res.StatusCode != http.StatusOK || body != alicePage {
		t.Fatalf("alice: got %d and %d bytes of body, want 200 and her %d bytes", res.StatusCode, len(body), len(alicePage))
	}
	close(sendLate)
	<-lateWritten
	aliceConn := up.connOf("/alice")

	res, body = do(t, p.request(t, h, "req-bob", "/bob"))
	if res.StatusCode != http.StatusOK || body != "page for /bob" {
		t.Errorf("bob: got %d %q, want his own page", res.StatusCode, body)
	}
	if c := res.Header.Get("Set-Cookie"); c != "" {
		t.Errorf("bob received Set-Cookie %q from alice's exchange", c)
	}
	if bobConn := up.connOf("/bob"); bobConn == aliceConn {
		t.Errorf("bob's request went over alice's connection (%d) after it received unsolicited bytes", aliceConn)
	}
	eventually(t, "the router closed alice's connection", func() bool { return up.isClosed(aliceConn) })
}

// A response whose framing two parsers could read differently (a hidden second response in
// it, with alice's cookie) leaves no bytes behind for the next client: whatever the router
// makes of alice's answer, the connection carried something past the end it found, so it is
// not reused, and bob gets his own page on another connection.
func TestRouter_AmbiguouslyFramedResponseReachesNoOtherClient(t *testing.T) {
	const hidden = "HTTP/1.1 200 OK\r\nSet-Cookie: session=alice\r\nContent-Length: 10\r\n\r\nalice's!!!"
	streamed := router.UpstreamReadBufferSize + 8<<10
	for _, tc := range []struct{ name, head, body string }{
		{"content-length and chunked", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n" + hidden},
		{"chunked and content-length", "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", "0\r\n\r\n" + hidden},
		{"duplicate content-length", "Content-Length: 5\r\nContent-Length: 0\r\n", "hello" + hidden},
		{"content-length shorter than sent", "Content-Length: 5\r\n", "hello" + hidden},
		// The same past a body too large to come whole with its head: streamed, not taken whole.
		{"content-length shorter than sent, streamed", "Content-Length: " + strconv.Itoa(streamed) + "\r\n",
			strings.Repeat(".", streamed) + hidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := newRawUpstream(t, func(conn net.Conn, _ int, req *http.Request) {
				if req.URL.Path == "/alice" {
					_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\n"+tc.head+"\r\n"+tc.body)
					return
				}
				writeResponse(conn, "", "page for "+req.URL.Path)
			})
			h := newHarnessTo(t, up.url(), nil)
			if res, body := do(t, h.request(t, validContext(http.MethodGet, "req-alice"), "/alice", nil)); strings.Contains(body, "alice's!!!") {
				t.Errorf("alice got the hidden response as her body: %d %q", res.StatusCode, body)
			}
			aliceConn := up.connOf("/alice")
			res, body := do(t, h.request(t, validContext(http.MethodGet, "req-bob"), "/bob", nil))
			if res.StatusCode != http.StatusOK || body != "page for /bob" {
				t.Errorf("bob: got %d %q, want his own page", res.StatusCode, body)
			}
			if c := res.Header.Get("Set-Cookie"); c != "" {
				t.Errorf("bob received Set-Cookie %q from alice's exchange", c)
			}
			if up.connOf("/bob") == aliceConn {
				t.Errorf("bob's request went over alice's connection (%d), which had bytes past alice's answer", aliceConn)
			}
		})
	}
}

// A request is never sent twice once any of it may have reached the upstream: a reused
// connection the upstream closes after reading the request, before answering, is a 502, and
// the upstream saw the request once. (A connection it closed while idle is replaced before
// anything is written: TestRouter_ReplacesAnIdleConnectionTheUpstreamClosed.)
func TestRouter_NeverReplaysAWrittenRequest(t *testing.T) {
	for _, p := range requestShapes {
		for _, shape := range responseShapes {
			t.Run(p.name+"/"+shape.name, func(t *testing.T) {
				firstPage := shape.body("page for /first")
				var mu sync.Mutex
				perConn := map[int]int{}
				up := newRawUpstream(t, func(conn net.Conn, connID int, req *http.Request) {
					mu.Lock()
					perConn[connID]++
					n := perConn[connID]
					mu.Unlock()
					if n > 1 {
						// A server that stops keeping connections alive, after reading the
						// second request.
						tcp, ok := conn.(*net.TCPConn)
						if !ok {
							t.Errorf("the upstream's connection is a %T, not TCP", conn)
							return
						}
						if err := tcp.CloseWrite(); err != nil {
							t.Error(err)
						}
						return
					}
					shape.writeRaw(conn, "", firstPage)
				})
				h := newHarnessTo(t, up.url(), nil)
				if res, body := do(t, p.request(t, h, "req-first", "/first")); res.StatusCode != http.StatusOK || body != firstPage {
					t.Fatalf("first: got %d and %d bytes of body, want 200 and %d bytes", res.StatusCode, len(body), len(firstPage))
				}
				res, _ := do(t, p.request(t, h, "req-second", "/second"))
				if res.StatusCode != http.StatusBadGateway {
					t.Errorf("second, on a reused connection closed after reading it: got %d, want 502", res.StatusCode)
				}
				if n := up.count("/second"); n != 1 {
					t.Errorf("the upstream received /second %d times, want once (no replay)", n)
				}
			})
		}
	}
}

// An upstream may close keep-alive connections while they idle in the pool (a restart, its
// own idle timeout). Each request finds that out before writing anything and goes out on a
// fresh connection: no client sees an error, however many pooled connections went stale.
func TestRouter_ReplacesEveryStaleIdleConnection(t *testing.T) {
	for _, p := range requestShapes {
		for _, shape := range responseShapes {
			t.Run(p.name+"/"+shape.name, func(t *testing.T) {
				// Three connections in the pool: three requests in flight at once.
				release := make(chan struct{})
				var started sync.WaitGroup
				started.Add(3)
				var warming atomic.Int64
				page := shape.body("ok from backend")
				slow := newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
					if warming.Add(1) <= 3 {
						started.Done()
						<-release
					}
					shape.serve(w, http.StatusOK, page)
				})
				hs := newHarnessTo(t, slow.URL, nil)
				results := make([]<-chan result, 3)
				for i := range results {
					results[i] = send(p.request(t, hs, "req-warm", "/"))
				}
				started.Wait()
				close(release)
				for _, r := range results {
					if got := <-r; got.status != http.StatusOK {
						t.Fatalf("warming up: %d %v", got.status, got.err)
					}
				}
				slow.CloseClientConnections() // every pooled connection goes stale
				for i := range 3 {
					if res, body := do(t, p.request(t, hs, "req-after", "/")); res.StatusCode != http.StatusOK || body != page {
						t.Errorf("request %d after the upstream closed its idle connections: %d and %d bytes of body", i, res.StatusCode, len(body))
					}
				}
			})
		}
	}
}
