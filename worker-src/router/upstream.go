package router

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// The direct path. Profiles of the router under load showed most of its time outside its own
// code: httputil.ReverseProxy clones every request and header map, and http.Transport hands each
// exchange between three goroutines (the caller, the connection's writeLoop and its readLoop),
// so every request paid several cross-goroutine wake-ups on top of its socket calls. Requests
// that need none of that machinery take this path instead: the handler goroutine writes the
// request head straight onto a pooled keep-alive connection and parses the answer with
// http.ReadResponse, then streams the body with a pooled buffer.
//
// It is taken only for requests without a body and with a method that may be retried (GET,
// HEAD, OPTIONS), that ask for no protocol upgrade, with the default transport and a target
// that is a bare http scheme and host. That is what lets it be small and still safe: a
// keep-alive connection the upstream closes just as it is reused can be detected then, and
// such a request can simply be sent again on a fresh connection. Everything else (bodies,
// unsafe methods, WebSockets, a custom Transport) goes through ReverseProxy.
//
// Idle connections and the next client. A connection in the pool belongs to no exchange, so
// whatever arrives on it then (a late second response from a buggy or hostile service, with
// someone's Set-Cookie; the upstream's FIN) must never be read as the next request's answer.
// http.Transport has a goroutine per connection reading it while idle and drops one that
// receives anything ("Unsolicited response received on idle HTTP channel"). The direct path
// has no such goroutine: when it takes a connection out of the pool it peeks at the socket
// without blocking (idleprobe_unix.go), and a connection that received bytes or end of stream
// is closed and never reused; on a platform without that peek it reuses no connection at all.
// What no HTTP/1.1 client can catch remains: bytes that arrive after the check, in the instant
// before the next request is written or after it, are indistinguishable from that request's
// answer. Only an upstream that misbehaves can cause it, and it is as true of http.Transport.

// directEligible reports whether r can take the direct path to target.
func (rt *Router) directEligible(r *http.Request, target *url.URL) bool {
	if rt.pool == nil || r.Body != http.NoBody && r.Body != nil || r.ContentLength != 0 {
		return false
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		return false
	}
	if _, upgrade := r.Header["Upgrade"]; upgrade {
		return false
	}
	if len(r.TransferEncoding) > 0 || len(r.Trailer) > 0 {
		return false
	}
	return target.Scheme == "http" && target.Host != "" && target.Opaque == "" && target.User == nil &&
		target.Path == "" && target.RawPath == "" && target.RawQuery == ""
}

// upstreamConn is one keep-alive connection to an upstream.
type upstreamConn struct {
	conn   net.Conn
	br     *bufio.Reader
	bw     *bufio.Writer
	host   string
	idleAt time.Time
	reused bool       // it has carried an exchange before, so the upstream may have closed it meanwhile
	probe  *idleProbe // nil when the connection cannot be checked, which makes it single-use
}

// close gives the connection up; nothing waits on how closing it went.
func (c *upstreamConn) close() { _ = c.conn.Close() }

// connPool keeps idle keep-alive connections per upstream address, most recently used first out,
// so a burst reuses warm connections and the oldest ones age out.
type connPool struct {
	dialer                *net.Dialer
	responseHeaderTimeout time.Duration
	maxIdlePerHost        int
	idleTimeout           time.Duration

	hosts sync.Map // address → *hostPool
}

type hostPool struct {
	mu    sync.Mutex
	idle  []*upstreamConn // oldest first
	sweep *time.Timer     // armed while idle is non-empty
}

func newConnPool(dialTimeout, responseHeaderTimeout time.Duration) *connPool {
	if dialTimeout <= 0 {
		dialTimeout = DefaultDialTimeout
	}
	if responseHeaderTimeout <= 0 {
		responseHeaderTimeout = DefaultResponseHeaderTimeout
	}
	return &connPool{
		dialer:                &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second},
		responseHeaderTimeout: responseHeaderTimeout,
		maxIdlePerHost:        DefaultMaxIdleConnsPerHost,
		idleTimeout:           idleConnTimeout,
	}
}

// idleConnTimeout is how long an unused upstream connection is kept (http.DefaultTransport's).
const idleConnTimeout = 90 * time.Second

// upstreamBufferSize sizes each connection's read and write buffers: a request or response head
// fits with room to spare, and bodies stream through in few reads.
const upstreamBufferSize = 16 << 10

func (p *connPool) host(addr string) *hostPool {
	if hp, ok := p.hosts.Load(addr); ok {
		return hp.(*hostPool) //nolint:forcetypeassert // hosts holds *hostPool only (stored below)
	}
	hp, _ := p.hosts.LoadOrStore(addr, &hostPool{})
	return hp.(*hostPool) //nolint:forcetypeassert // as above
}

// get returns the most recently idled connection to addr on which nothing arrived while it was
// idle, or dials a new one. Connections that did receive something (a response nobody asked
// for, the upstream's FIN or reset) are closed on the way.
func (p *connPool) get(ctx context.Context, addr string) (*upstreamConn, error) {
	hp := p.host(addr)
	for {
		hp.mu.Lock()
		n := len(hp.idle)
		if n == 0 {
			hp.mu.Unlock()
			return p.dial(ctx, addr)
		}
		c := hp.idle[n-1]
		hp.idle[n-1] = nil
		hp.idle = hp.idle[:n-1]
		hp.mu.Unlock()
		// Checked outside the lock: a syscall, and the connection is ours alone now.
		if c.probe.stillQuiet() {
			return c, nil
		}
		c.close()
	}
}

func (p *connPool) dial(ctx context.Context, addr string) (*upstreamConn, error) {
	conn, err := p.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &upstreamConn{
		conn:  conn,
		br:    bufio.NewReaderSize(conn, upstreamBufferSize),
		bw:    bufio.NewWriterSize(conn, upstreamBufferSize),
		host:  addr,
		probe: newIdleProbe(conn),
	}, nil
}

// put returns c to the idle pool, or closes it when the pool for its host is full or c cannot
// be checked when it is taken out again.
func (p *connPool) put(c *upstreamConn) {
	if !reuseIdleConns || c.probe == nil {
		c.close()
		return
	}
	c.reused = true
	c.idleAt = time.Now()
	hp := p.host(c.host)
	hp.mu.Lock()
	if len(hp.idle) >= p.maxIdlePerHost {
		hp.mu.Unlock()
		c.close()
		return
	}
	hp.idle = append(hp.idle, c)
	if hp.sweep == nil {
		hp.sweep = time.AfterFunc(p.idleTimeout, func() { p.sweep(hp) })
	}
	hp.mu.Unlock()
}

// sweep closes the connections idle for longer than idleTimeout, and re-arms itself while any
// remain.
func (p *connPool) sweep(hp *hostPool) {
	cutoff := time.Now().Add(-p.idleTimeout)
	hp.mu.Lock()
	n := 0
	for n < len(hp.idle) && hp.idle[n].idleAt.Before(cutoff) {
		hp.idle[n].close()
		n++
	}
	hp.idle = append(hp.idle[:0], hp.idle[n:]...)
	clear(hp.idle[len(hp.idle) : len(hp.idle)+n])
	if len(hp.idle) > 0 {
		hp.sweep.Reset(time.Until(hp.idle[0].idleAt.Add(p.idleTimeout)) + time.Millisecond)
	} else {
		hp.sweep = nil
	}
	hp.mu.Unlock()
}

// errBadUpgrade is an upstream answering 101 to a request that asked for no upgrade.
var errBadUpgrade = errors.New("upstream switched protocols without being asked to")

// forwardDirect proxies r to ex.target over the pool. Until the response head has arrived,
// failures go through upstreamFailed; after that a broken stream aborts the handler as
// ReverseProxy does (panic with http.ErrAbortHandler), so the client sees the response cut off.
func (rt *Router) forwardDirect(w http.ResponseWriter, r *http.Request, ex *exchange) {
	ctx := r.Context()
	addr := ex.target.Host
	if ex.target.Port() == "" {
		addr += ":80"
	}
	var (
		c    *upstreamConn
		res  *http.Response
		err  error
		stop func() bool
	)
	// One retry, and only when a reused connection turned out to be closed before it answered
	// anything: the request never reached a live upstream, and it has no body to replay. (A
	// connection the upstream closed while it idled is dropped by get already; this is the
	// close that crosses the request on the wire.)
	for attempt := 0; ; attempt++ {
		if c, err = rt.pool.get(ctx, addr); err != nil {
			rt.upstreamFailed(w, r, ex, err)
			return
		}
		// The client leaving ends the exchange at once, whatever it is waiting for, so
		// neither a slow upstream nor an endless stream outlives the request.
		conn := c.conn
		// SetDeadline fails only on a closed connection, which ends the exchange as well.
		stop = context.AfterFunc(ctx, func() { _ = conn.SetDeadline(aLongTimeAgo) })
		res, err = rt.exchange(w, c, r, ex)
		if err == nil {
			break
		}
		stop()
		c.close()
		if !c.reused || attempt > 0 || ctx.Err() != nil || !errors.Is(err, errClosedBeforeAnswer) {
			rt.upstreamFailed(w, r, ex, err)
			return
		}
	}
	rt.copyResponse(w, r, res, ex, c)
	if !stop() || res.Close || c.br.Buffered() > 0 {
		c.close()
		return
	}
	rt.pool.put(c)
}

// aLongTimeAgo is a deadline in the past, which makes blocked reads and writes return at once.
var aLongTimeAgo = time.Unix(1, 0)

// errClosedBeforeAnswer marks a reused connection that ended before the first byte of a response.
var errClosedBeforeAnswer = errors.New("upstream closed the idle connection before answering")

// exchange writes r's head on c and reads the response head, relaying 1xx interim responses.
// The response header timeout covers the wait for the first byte and the head.
func (rt *Router) exchange(w http.ResponseWriter, c *upstreamConn, r *http.Request, ex *exchange) (*http.Response, error) {
	writeRequestHead(c.bw, r, ex, rt.forwardedProto)
	if err := c.bw.Flush(); err != nil {
		if c.reused {
			return nil, errors.Join(errClosedBeforeAnswer, err)
		}
		return nil, err
	}
	if err := c.conn.SetReadDeadline(time.Now().Add(rt.pool.responseHeaderTimeout)); err != nil {
		return nil, err // not waiting for a head without a limit
	}
	// A client that left before this line had its past deadline overwritten just now.
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	if _, err := c.br.Peek(1); err != nil {
		if c.reused && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
			return nil, errors.Join(errClosedBeforeAnswer, err)
		}
		return nil, err
	}
	for {
		res, err := http.ReadResponse(c.br, r)
		if err != nil {
			return nil, err
		}
		switch {
		case res.StatusCode == http.StatusSwitchingProtocols:
			return nil, errBadUpgrade
		case res.StatusCode >= 200:
			// The body may stream for as long as it needs. When it is already buffered
			// (most small answers) nothing reads the connection again before the next
			// exchange sets a new deadline, and the timer need not be touched.
			if res.Body != http.NoBody && (res.ContentLength < 0 || int64(c.br.Buffered()) < res.ContentLength) {
				if err := c.conn.SetReadDeadline(time.Time{}); err != nil {
					return nil, err // the head's deadline would cut the body short
				}
				// Clearing the deadline must not undo the cancellation of a client that left.
				// (The caller closes the connection; draining the body could block.)
				if err := r.Context().Err(); err != nil {
					return nil, err
				}
			}
			return res, nil
		}
		// An interim response (103 Early Hints, say) is relayed as ReverseProxy relays it:
		// with its own headers only, platform headers removed.
		deleteContextHeaders(res.Header)
		h := w.Header()
		for k, vv := range res.Header {
			h[k] = vv
		}
		w.WriteHeader(res.StatusCode)
		clear(h)
	}
}

// copyResponse relays res to w: head, body, then trailers.
func (rt *Router) copyResponse(w http.ResponseWriter, r *http.Request, res *http.Response, ex *exchange, c *upstreamConn) {
	removeHopByHop(res.Header)
	deleteContextHeaders(res.Header)
	ex.upstreamStatus = res.StatusCode
	h := w.Header()
	for k, vv := range res.Header {
		if prev, ok := h[k]; ok {
			vv = append(prev, vv...)
		}
		h[k] = vv // res is this exchange's alone: its slices need no copy
	}
	announcedTrailers := len(res.Trailer)
	if announcedTrailers > 0 {
		names := make([]string, 0, len(res.Trailer))
		for k := range res.Trailer {
			names = append(names, k)
		}
		h.Add("Trailer", strings.Join(names, ", "))
	}
	w.WriteHeader(res.StatusCode)
	if res.Body == http.NoBody {
		return
	}
	if announcedTrailers > 0 {
		// Forces chunking, so net/http does not compute a Content-Length for a short body. A
		// client that has gone makes the copy below fail as well.
		_ = http.NewResponseController(w).Flush()
	}
	if err := copyBody(w, res.Body, res.ContentLength < 0 || isEventStream(res.Header)); err != nil {
		c.close()
		var readErr *upstreamReadError
		if errors.As(err, &readErr) && r.Context().Err() == nil {
			rt.logger.LogAttrs(context.Background(), slog.LevelWarn, "upstream body read failed",
				slog.String("request_id", ex.ctx.RequestID), slog.String("error", readErr.err.Error()))
		}
		panic(http.ErrAbortHandler)
	}
	_ = res.Body.Close() // at EOF already: this only releases it
	if len(res.Trailer) == announcedTrailers {
		for k, vv := range res.Trailer {
			h[k] = vv
		}
		return
	}
	for k, vv := range res.Trailer {
		for _, v := range vv {
			h.Add(http.TrailerPrefix+k, v)
		}
	}
}

// upstreamReadError is a body copy that failed on the upstream side (the client side failing is
// a client that left, which is not worth a log line of its own).
type upstreamReadError struct{ err error }

func (e *upstreamReadError) Error() string { return "reading the upstream body: " + e.err.Error() }

// copyBody streams src to w through a pooled buffer, flushing after every write when the
// response is a stream of unknown length (as ReverseProxy does), so events are not held back.
func copyBody(w http.ResponseWriter, src io.Reader, flush bool) error {
	bufp := copyBuffers.Get().(*[]byte) //nolint:forcetypeassert // the pool's New and every Put give *[]byte
	defer copyBuffers.Put(bufp)
	buf := *bufp
	var rc *http.ResponseController
	if flush {
		rc = http.NewResponseController(w)
	}
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
			if rc != nil {
				if err := rc.Flush(); err != nil {
					return err
				}
			}
		}
		switch {
		case rerr == io.EOF:
			return nil
		case rerr != nil:
			return &upstreamReadError{rerr}
		}
	}
}

// copyBuffers recycles body-copy buffers: without them every response allocates 32 KiB.
var copyBuffers = sync.Pool{New: func() any {
	b := make([]byte, copyBufferSize)
	return &b
}}

func isEventStream(h http.Header) bool {
	const eventStream = "text/event-stream"
	ct := h["Content-Type"]
	return len(ct) > 0 && len(ct[0]) >= len(eventStream) && strings.EqualFold(ct[0][:len(eventStream)], eventStream)
}

// hopByHop are the headers that describe one connection, not the message (RFC 9110 §7.6.1), in
// canonical form; ReverseProxy removes the same set.
var hopByHop = [...]string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

func isHopByHop(name string) bool {
	for _, h := range hopByHop {
		if name == h {
			return true
		}
	}
	return false
}

// removeHopByHop deletes the hop-by-hop headers from h, and any header its Connection names.
func removeHopByHop(h http.Header) {
	for _, f := range h["Connection"] {
		for sf := range strings.SplitSeq(f, ",") {
			if sf = textproto.TrimString(sf); sf != "" {
				h.Del(sf)
			}
		}
	}
	for _, name := range hopByHop {
		delete(h, name)
	}
}

func deleteContextHeaders(h http.Header) {
	for name := range h {
		if route.IsContextHeader(name) {
			delete(h, name)
		}
	}
}
