package router_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

// testNow is the fixed instant the tests' clock starts at.
var testNow = time.Unix(1_800_000_000, 0)

const (
	publicHost = "shop.tenant.test"
	nsPrefix   = "tenant-"
	upstream   = "tenant-shop/web:8080"
)

// newSecret returns a fresh random key, so no test fixture holds a real-looking secret.
func newSecret(t *testing.T) []byte {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// backend is a tenant service that records what reached it.
type backend struct {
	*httptest.Server
	hits    atomic.Int64
	conns   atomic.Int64 // connections accepted
	mu      sync.Mutex
	lastReq *http.Request // headers, host and URL of the latest request
}

// newBackend starts a service whose handler is h (nil: answer 200 "ok from backend").
func newBackend(t *testing.T, h http.HandlerFunc) *backend {
	t.Helper()
	b := &backend{}
	if h == nil {
		// Backend handlers here and in the tests leave a failed write to the client's checks on
		// what arrived.
		h = func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok from backend") }
	}
	b.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.hits.Add(1)
		b.mu.Lock()
		b.lastReq = r.Clone(r.Context())
		b.mu.Unlock()
		h(w, r)
	}))
	b.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			b.conns.Add(1)
		}
	}
	b.Start()
	t.Cleanup(b.Close)
	return b
}

func (b *backend) last() *http.Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lastReq
}

// logBuffer collects JSON log lines from concurrent handlers.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// accessLines returns the decoded access-log records.
func (l *logBuffer) accessLines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(l.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %v: %q", err, line)
		}
		if m["msg"] == "access" {
			out = append(out, m)
		}
	}
	return out
}

// frontend is the router's server on a loopback listener.
type frontend struct {
	URL      string // "http://127.0.0.1:port"
	Listener net.Listener
}

// serveRouter runs rt's server (router.NewServer, as Serve runs it) on a fresh loopback
// listener until the test ends.
func serveRouter(t *testing.T, rt *router.Router) *frontend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := router.NewServer(rt)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln) // ends when the test shuts the server down
	}()
	t.Cleanup(func() {
		// The default client may hold a connection it dialled and never used (a dial that lost
		// the race for an idle one): the server takes such a connection for idle only after 5 s,
		// so its shutdown would wait that long. Closed from the client's side, it ends now.
		http.DefaultClient.CloseIdleConnections()
		_ = srv.Shutdown() // waits for the connections the test left open to finish
		<-done
	})
	return &frontend{URL: "http://" + ln.Addr().String(), Listener: ln}
}

// harness is a router in front of a backend, both on loopback.
type harness struct {
	rt       *router.Router
	front    *frontend
	backend  *backend
	secret   []byte
	logs     *logBuffer
	resolved atomic.Value // last route.Upstream given to Resolve
}

// newHarness starts a router whose Resolve points every upstream at b. edit may adjust the
// configuration before the router is built.
func newHarness(t *testing.T, b *backend, edit func(*router.Config)) *harness {
	t.Helper()
	h := newHarnessTo(t, b.URL, edit)
	h.backend = b
	return h
}

// newHarnessTo starts a router whose Resolve points every upstream at base ("http://host:port"),
// for upstreams that are not a backend (a raw TCP server that misbehaves on purpose).
func newHarnessTo(t *testing.T, base string, edit func(*router.Config)) *harness {
	t.Helper()
	h := &harness{secret: newSecret(t), logs: &logBuffer{}}
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg := router.Config{
		Secret:                 h.secret,
		AllowedNamespacePrefix: nsPrefix,
		Now:                    func() time.Time { return testNow },
		Logger:                 slog.New(slog.NewJSONHandler(h.logs, nil)),
		Resolve: func(u route.Upstream) (*url.URL, error) {
			h.resolved.Store(u)
			return target, nil
		},
	}
	if edit != nil {
		edit(&cfg)
	}
	h.rt, err = router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.front = serveRouter(t, h.rt)
	return h
}

// validContext is a context the Worker could have sent for GET on publicHost.
func validContext(method, requestID string) route.Context {
	return route.Context{
		Method:    method,
		Host:      publicHost,
		App:       "shop",
		Upstream:  upstream,
		RequestID: requestID,
		Time:      testNow,
	}
}

// request builds a request to the router for c, signed with the harness secret.
func (h *harness) request(t *testing.T, c route.Context, path string, body io.Reader) *http.Request {
	t.Helper()
	return h.requestTo(t, h.front.URL, c, path, body)
}

// requestTo is request for a router listening at base ("http://host:port").
func (h *harness) requestTo(t *testing.T, base string, c route.Context, path string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(c.Method, base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "origin.kamui.test" // the tunnel origin, as the connector delivers it
	if c.Target == "" {
		c.Target = path
	}
	c.SetHeaders(req.Header, h.secret)
	return req
}

// do sends req and returns the response with its body read.
func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

// eventually polls cond until it holds, failing the test if it never does. It synchronises with
// other goroutines; it does not assert how long anything takes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

// requestShape is a kind of request a guarantee must hold for: with a body or without. Both
// take the router's one forwarding path, but a request with a body is streamed upstream, and
// is sent again only if none of it was read.
type requestShape struct {
	name   string
	method string
	body   string // sent when not empty
}

var requestShapes = []requestShape{
	{name: "bodiless", method: http.MethodGet},
	{name: "with-body", method: http.MethodPost, body: "a request body"},
}

// request builds a request of shape p to the router at target.
func (p requestShape) request(t *testing.T, h *harness, requestID, target string) *http.Request {
	t.Helper()
	return p.requestSignedWith(t, h, h.secret, requestID, target)
}

// requestSignedWith is request with the context signed by key.
func (p requestShape) requestSignedWith(t *testing.T, h *harness, key []byte, requestID, target string) *http.Request {
	t.Helper()
	var body io.Reader
	if p.body != "" {
		body = strings.NewReader(p.body)
	}
	req := h.request(t, validContext(p.method, requestID), target, body)
	c := validContext(p.method, requestID)
	c.Target = target
	c.SetHeaders(req.Header, key)
	return req
}

// responseShape is a way a response body comes back from the upstream. The router relays each
// the same way up to the body (forward.go: relay), then one of two ways: a body that came whole
// with its head is handed on in one piece, its connection back in the pool before the client is
// written to; any other is streamed, and its connection goes back when the stream ends. Every
// guarantee about responses holds for each shape, so such tests run over all of them. Which way
// a shape goes follows from its framing, not from timing: a chunked body is always streamed, and
// so is one larger than the transport's read buffer.
type responseShape struct {
	name    string
	size    int // the body's size in bytes
	chunked bool
}

var responseShapes = []responseShape{
	{name: "whole-with-head", size: 64},
	{name: "streamed-chunked", size: 64, chunked: true},
	{name: "streamed-larger-than-the-read-buffer", size: router.UpstreamReadBufferSize + 8<<10},
}

// body is a body of the shape's size that starts with tag, so that a test can tell whose it is.
func (s responseShape) body(tag string) string {
	if len(tag) >= s.size {
		return tag
	}
	return tag + strings.Repeat(".", s.size-len(tag))
}

// serve answers status and body through a net/http handler's w, the body framed as the shape
// says (the handler sets the head's other fields before).
func (s responseShape) serve(w http.ResponseWriter, status int, body string) {
	if s.chunked {
		w.Header().Del("Content-Length")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body[:len(body)/2])
		_ = http.NewResponseController(w).Flush() // a failed flush shows in what the client reads
		_, _ = io.WriteString(w, body[len(body)/2:])
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// writeRaw writes a whole 200 response on a bare upstream connection, body framed as the shape
// says, in one write.
func (s responseShape) writeRaw(conn net.Conn, extraHeaders, body string) {
	if !s.chunked {
		writeResponse(conn, extraHeaders, body)
		return
	}
	_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\n"+extraHeaders+"Transfer-Encoding: chunked\r\n\r\n"+
		strconv.FormatInt(int64(len(body)), 16)+"\r\n"+body+"\r\n0\r\n\r\n")
}

// methodShape is a request method and the shape the upstream answers it in.
type methodShape struct {
	method string
	shape  responseShape
}

// methodsAndShapes are a GET answered in each response shape, and a HEAD: a HEAD's answer has no
// body whatever the upstream's handler writes, so one shape stands for all.
func methodsAndShapes() []methodShape {
	runs := []methodShape{{http.MethodHead, responseShapes[0]}}
	for _, shape := range responseShapes {
		runs = append(runs, methodShape{http.MethodGet, shape})
	}
	return runs
}

// dialRouter opens a raw client connection to h's router, closed when the test ends (a test may
// close it first). Its deadline fails a hang instead of the run.
func dialRouter(t *testing.T, h *harness) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", h.front.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	return conn
}

// pages answers "page <path>" for every request; before answering, a request for one of the
// paths in slow sleeps for d.
func pages(d time.Duration, slow ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, p := range slow {
			if r.URL.Path == p {
				time.Sleep(d)
			}
		}
		_, _ = io.WriteString(w, "page "+r.URL.Path)
	}
}

// getPage is a signed GET of path to h's router.
func (h *harness) getPage(t *testing.T, path string) *http.Request {
	t.Helper()
	return h.request(t, validContext(http.MethodGet, "req-"+strings.Trim(path, "/")), path, nil)
}

// readPage reads the answer to req from br and fails the test unless it is 200 "page <path>".
func readPage(t *testing.T, br *bufio.Reader, req *http.Request) {
	t.Helper()
	res, err := http.ReadResponse(br, req)
	if err != nil {
		t.Fatalf("%s: %v", req.URL.Path, err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK || string(body) != "page "+req.URL.Path {
		t.Errorf("%s: %d %q %v, want its page", req.URL.Path, res.StatusCode, body, err)
	}
}

// allProxied fails the test unless every access line of h says proxied.
func (h *harness) allProxied(t *testing.T) {
	t.Helper()
	for _, l := range h.logs.accessLines(t) {
		if l["outcome"] != "proxied" {
			t.Errorf("access line %v, want proxied", l)
		}
	}
}
