package router

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// upstreams holds one fasthttp.HostClient per upstream address ("host:port"), made on first use.
// The addresses are tenants' values (a route's upstream), so the set is not bounded: once more
// than maxUpstreamClients are held, making another drops those with no connection open (a
// request holding one it got just before goes on with it, unaffected).
type upstreams struct {
	dial          func(addr string) (net.Conn, error)
	headerTimeout time.Duration

	clients sync.Map // address → *fasthttp.HostClient

	mu      sync.Mutex // held only when a client is made
	count   int        // clients stored
	sweepAt int        // count at which the next sweep runs
}

// maxUpstreamClients is how many upstream clients are held before unused ones are dropped.
const maxUpstreamClients = 1024

// Connection pool sizes and limits of every HostClient.
const (
	// upstreamIdleTimeout is how long an unused upstream connection is kept (net/http's
	// default; fasthttp's own is 10 s).
	upstreamIdleTimeout = 90 * time.Second
	// upstreamMaxConns bounds the connections to one upstream. fasthttp's default (512) answers
	// ErrNoFreeConns at once beyond it; a proxy in front of a busy service should rather open
	// what the traffic needs, as net/http's Transport did (no limit).
	upstreamMaxConns = 1 << 16
	// upstreamReadBufferSize also bounds an upstream's response head (fasthttp's default of 4 KiB
	// refuses ordinary answers with a few cookies and a content security policy).
	upstreamReadBufferSize = 32 << 10
	// upstreamWriteBufferSize holds a request head and a body of up to about 32 KiB (a form, a
	// JSON document, a small upload) in one write; a larger body fills it, and the rest is
	// copied straight to the connection. A writer is the HostClient's only while it writes.
	// At 16 KiB a 16 KiB body left in two writes (TestRouter_SendsHeadAndSmallBodyInOneWrite).
	upstreamWriteBufferSize = 32 << 10
)

func newUpstreams(dial func(string) (net.Conn, error), dialTimeout, headerTimeout time.Duration) *upstreams {
	if dialTimeout <= 0 {
		dialTimeout = DefaultDialTimeout
	}
	if headerTimeout <= 0 {
		headerTimeout = DefaultResponseHeaderTimeout
	}
	if dial == nil {
		dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
		dial = func(addr string) (net.Conn, error) { return dialer.Dial("tcp", addr) }
	}
	return &upstreams{dial: dial, headerTimeout: headerTimeout}
}

func (u *upstreams) client(addr string) *fasthttp.HostClient {
	if c, ok := u.clients.Load(addr); ok {
		return c.(*fasthttp.HostClient) //nolint:forcetypeassert // clients holds *HostClient only
	}
	c, loaded := u.clients.LoadOrStore(addr, u.newClient(addr))
	if !loaded {
		u.added(addr)
	}
	return c.(*fasthttp.HostClient) //nolint:forcetypeassert // as above
}

// added counts the client just stored for addr and, past the bound, drops every other client
// with no connection open. The next sweep waits until the count doubles, so clients that all
// hold connections do not make every new one walk the map.
func (u *upstreams) added(addr string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.count++
	if u.count < max(u.sweepAt, maxUpstreamClients) {
		return
	}
	u.clients.Range(func(k, c any) bool {
		//nolint:forcetypeassert // clients holds *HostClient only
		if k != addr && c.(*fasthttp.HostClient).ConnsCount() == 0 && u.clients.CompareAndDelete(k, c) {
			u.count--
		}
		return true
	})
	u.sweepAt = 2 * u.count
}

// newClient builds the HostClient for addr. Every fasthttp default that changes what reaches the
// tenant or the client is set here on purpose; see each comment.
func (u *upstreams) newClient(addr string) *fasthttp.HostClient {
	return &fasthttp.HostClient{
		Addr: addr,
		Dial: func(addr string) (net.Conn, error) {
			c, err := u.dial(addr)
			if err != nil {
				return nil, &dialError{err: err}
			}
			return newUpstreamConn(c), nil
		},
		// The router's own exchange on a pooled connection (transport.go): the idle check, the
		// response header timeout, the client watched while the head is awaited, interim
		// responses relayed.
		Transport: &transport{headerTimeout: u.headerTimeout},
		// Never replayed by the library: fasthttp sends GET, HEAD, PUT and QUERY again after
		// any failure by default, although the tenant may have acted on the first one. The one
		// request the router sends again is one the upstream never received (forward.go). (The
		// router's transport never asks for a retry; these say so once more.)
		MaxIdemponentCallAttempts: 1,
		RetryIfErr:                func(*fasthttp.Request, int, error) (bool, bool) { return false, false },
		// The target goes upstream exactly as the Worker signed it: fasthttp would otherwise
		// remove "..", collapse "//" and re-encode the path.
		DisablePathNormalizing: true,
		// Response header names reach the client as the tenant spelled them.
		DisableHeaderNamesNormalizing: true,
		// Bodies stream both ways; nothing larger than the read buffer is held whole (fasthttp
		// reads a response body into memory by default). A body that came with its head is
		// taken from that buffer (transport.go).
		StreamResponseBody: true,
		// No "User-Agent: fasthttp" on requests whose client sent none.
		NoDefaultUserAgentHeader: true,
		MaxConns:                 upstreamMaxConns,
		MaxIdleConnDuration:      upstreamIdleTimeout,
		// The most recently used connection first: warm connections serve a burst and the
		// surplus ages out (fasthttp's default, FIFO, keeps every connection barely alive).
		ConnPoolStrategy: fasthttp.LIFO,
		ReadBufferSize:   upstreamReadBufferSize,
		WriteBufferSize:  upstreamWriteBufferSize,
		// ReadTimeout and WriteTimeout stay zero: they would bound whole bodies. The response
		// head is bounded by the transport.
		SecureErrorLogMessage: true,
	}
}

// dialError marks a failure to connect, whatever form the Dial hook gives it.
type dialError struct{ err error }

func (e *dialError) Error() string { return "dial: " + e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// isDialError reports whether err is a failure to connect.
func isDialError(err error) bool {
	var de *dialError
	return errors.As(err, &de)
}
