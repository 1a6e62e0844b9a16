package router

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// forwardRequest is the upstream request being built for one client request, and the signed
// context headers found on the way (a single pass over the client's headers does both).
type forwardRequest struct {
	req     fasthttp.Request
	signed  signedHeaders
	upgrade bool // the client asked for a protocol upgrade (upgrade.go)
	// transferEncoding: the client's head has a Transfer-Encoding header (see admit).
	transferEncoding bool
	tokens           []string
}

var forwardPool = sync.Pool{New: func() any { return new(forwardRequest) }}

func acquireForward() *forwardRequest {
	return forwardPool.Get().(*forwardRequest) //nolint:forcetypeassert // the pool holds *forwardRequest only
}

func releaseForward(f *forwardRequest) {
	f.req.Reset()
	f.signed = signedHeaders{}
	f.upgrade, f.transferEncoding = false, false
	f.tokens = f.tokens[:0]
	forwardPool.Put(f)
}

// build copies what may cross from the client's request into f.req (see headers.go), keeping
// names as spelled and the target exactly as received, and returns the signed context headers.
// The client's header is walked once (each walk parses the raw head again): a header the
// Connection header names may come before it, so those are taken out of f.req afterwards, which
// only a request with such a Connection header pays for.
func (f *forwardRequest) build(ctx *fasthttp.RequestCtx, forwardedProto string) *signedHeaders {
	in := &ctx.Request.Header
	out := &f.req.Header
	out.DisableNormalizing()
	// fasthttp adds "Content-Type: application/octet-stream" to a body without one by default.
	out.SetNoDefaultContentType(true)
	out.SetMethodBytes(in.Method())
	out.SetRequestURIBytes(in.RequestURI())
	var upgrade []byte
	for name, value := range in.AllInOrder() {
		switch {
		case isContextHeader(name):
			f.signed.record(name, value)
		case equalFold(name, "Connection"):
			f.tokens = connectionTokens(f.tokens, value)
			f.upgrade = f.upgrade || hasToken(value, "upgrade")
		case equalFold(name, "Upgrade"):
			upgrade = value
		case equalFold(name, "Transfer-Encoding"):
			f.transferEncoding = true // hop-by-hop: not forwarded
		case !dropRequestHeader(name):
			out.AddBytesKV(name, value)
		}
	}
	f.signed.freeze()
	if len(f.tokens) > 0 {
		f.dropNamedByConnection(out)
	}
	f.upgrade = f.upgrade && len(upgrade) > 0
	if f.upgrade {
		out.Set("Connection", "Upgrade")
		out.SetBytesV("Upgrade", upgrade)
	}
	out.Set("X-Forwarded-Proto", forwardedProto)
	// The router's peer is the tunnel connector, so that is the only address it can vouch for.
	// (Written as net.IP.String writes it, without the allocation.)
	if a, ok := ctx.RemoteAddr().(*net.TCPAddr); ok {
		var buf [64]byte
		out.SetBytesV("X-Forwarded-For", a.AddrPort().Addr().Unmap().WithZone("").AppendTo(buf[:0]))
	}
	return &f.signed
}

// dropNamedByConnection removes from out the headers the client's Connection header named, in
// any spelling: out keeps names as spelled, and its deletion matches them exactly.
func (f *forwardRequest) dropNamedByConnection(out *fasthttp.RequestHeader) {
	var drop [][]byte
	for name := range out.All() {
		if f.namedByConnection(name) {
			drop = append(drop, bytes.Clone(name))
		}
	}
	for _, name := range drop {
		out.DelBytes(name)
	}
}

func (f *forwardRequest) namedByConnection(name []byte) bool {
	for _, t := range f.tokens {
		if equalFold(name, t) {
			return true
		}
	}
	return false
}

// streamBody makes the client's request body, if it has one, the upstream request's, streamed.
func (f *forwardRequest) streamBody(ctx *fasthttp.RequestCtx) {
	if length := ctx.Request.Header.ContentLength(); length > 0 || length == -1 {
		// The server's read deadline covered the head; a body may take as long as it needs.
		// A connection whose deadline cannot be changed is broken, which the body read reports.
		_ = ctx.Conn().SetReadDeadline(time.Time{})
		f.req.SetBodyStream(ctx.RequestBodyStream(), length)
	}
}

// setContext adds what the verified context says: the public host, the request id.
func (f *forwardRequest) setContext(c route.Context) {
	// Tenants see their public host, as behind any ingress; the HostClient knows the address.
	f.req.Header.SetHost(c.Host)
	f.req.UseHostHeader = true
	f.req.Header.Set("X-Request-Id", c.RequestID)
	f.req.Header.Set("X-Forwarded-Host", c.Host)
}

// signedHeaders are the Kamui-* headers of a request, by name in any spelling; the first of
// each name counts (every one of them is removed before forwarding). record keeps views into
// the request's header, valid while the handler runs; freeze copies them, in one allocation,
// before they are verified and kept in the exchange.
type signedHeaders struct {
	raw    [signedCount][]byte
	values [signedCount]string
}

// The signed headers, by their index in signedHeaders.
const (
	signedHost = iota
	signedApp
	signedUpstream
	signedRequestID
	signedTime
	signedSignature
	signedCount
)

func signedIndex(name []byte) int {
	switch {
	case equalFold(name, route.HeaderHost):
		return signedHost
	case equalFold(name, route.HeaderApp):
		return signedApp
	case equalFold(name, route.HeaderUpstream):
		return signedUpstream
	case equalFold(name, route.HeaderRequestID):
		return signedRequestID
	case equalFold(name, route.HeaderContextTime):
		return signedTime
	case equalFold(name, route.HeaderContextSignature):
		return signedSignature
	}
	return -1
}

func (s *signedHeaders) record(name, value []byte) {
	if i := signedIndex(name); i >= 0 && len(s.raw[i]) == 0 {
		s.raw[i] = value
	}
}

// freeze copies the recorded values out of the request's header into one string.
func (s *signedHeaders) freeze() {
	n := 0
	for _, v := range s.raw {
		n += len(v)
	}
	var b strings.Builder
	b.Grow(n)
	for _, v := range s.raw {
		b.Write(v)
	}
	all, off := b.String(), 0
	for i, v := range s.raw {
		s.values[i] = all[off : off+len(v)]
		off += len(v)
		s.raw[i] = nil
	}
}

// Get is route.HeaderGetter over the frozen headers.
func (s *signedHeaders) Get(key string) string {
	switch key {
	case route.HeaderHost:
		return s.values[signedHost]
	case route.HeaderApp:
		return s.values[signedApp]
	case route.HeaderUpstream:
		return s.values[signedUpstream]
	case route.HeaderRequestID:
		return s.values[signedRequestID]
	case route.HeaderContextTime:
		return s.values[signedTime]
	case route.HeaderContextSignature:
		return s.values[signedSignature]
	}
	return ""
}

// maxUnsentAttempts bounds how often a request goes out again after a reused connection
// refused it unsent (errSpokeWhileIdle): each such failure retires one pooled connection, and
// a fresh connection is never refused, so a handful covers an upstream that restarted.
const maxUnsentAttempts = 8

// errBadUpgrade is an upstream answering 101 to a request that asked for no upgrade.
var errBadUpgrade = errors.New("upstream switched protocols without being asked to")

// forward sends the request upstream over the address's HostClient and relays the answer.
func (rt *Router) forward(ctx *fasthttp.RequestCtx, ex *exchange, fwd *forwardRequest) {
	defer releaseForward(fwd)
	fwd.streamBody(ctx)
	hc := rt.upstreams.client(ex.addr)
	res := fasthttp.AcquireResponse()
	// The transport watches the client while the head is awaited and relays interim
	// responses to it (transport.go).
	ex.trip.client = ctx
	fwd.req.SetUserValue(roundTripKey{}, &ex.trip)
	for attempt := 1; ; attempt++ {
		err := hc.Do(&fwd.req, res)
		if err == nil {
			break
		}
		// The only failure that is sent again: the request never left. The transport refuses
		// a reused connection before it writes anything or reads anything of the body, which
		// is still the request's stream, untouched (see idleconn.go).
		if errors.Is(err, errSpokeWhileIdle) && attempt < maxUnsentAttempts {
			continue
		}
		fasthttp.ReleaseResponse(res)
		if errors.Is(err, errClientGone) {
			rt.abandon(ctx, ex, err)
			return
		}
		status, outcome := classifyUpstreamError(err)
		rt.fail(ctx, ex, &Failure{Status: status, Outcome: outcome, RequestID: ex.ctx.RequestID, Err: err})
		return
	}
	// Interim responses (103 Early Hints) have reached the client already, as they arrived
	// (relayInterim); this is the final response.
	if res.StatusCode() == http.StatusSwitchingProtocols {
		fasthttp.ReleaseResponse(res) // the transport closed the connection: it speaks another protocol now
		rt.fail(ctx, ex, &Failure{Status: http.StatusBadGateway, Outcome: OutcomeUpstreamError, RequestID: ex.ctx.RequestID, Err: errBadUpgrade})
		return
	}
	rt.relay(ctx, ex, res)
}

// relay hands the upstream's response to the server: the head now, the body as a stream the
// server copies to the client after the handler returns, res released when that is done; or,
// when the transport took the body whole with the head (its connection already back in the
// pool), the body itself, and the exchange is recorded now, as an answer the router made
// itself is: a failed write of those few bytes to the client is not seen (nginx, too, logs the
// status it sent).
func (rt *Router) relay(ctx *fasthttp.RequestCtx, ex *exchange, res *fasthttp.Response) {
	var announced []byte // the tenant's Trailer header, which copyResponseHead leaves behind
	if len(res.Header.PeekTrailerKeys()) > 0 {
		announced = res.Header.Peek(fasthttp.HeaderTrailer) // a copy
	}
	copyResponseHead(&ctx.Response.Header, &res.Header)
	if announced != nil {
		announceTrailers(&ctx.Response.Header, announced)
	}
	status := res.StatusCode()
	if res.BodyStream() == nil { // HEAD, 204, 304, or a body taken whole: the connection is back in the pool
		body := res.Body() // (a stream it would read through: there is none)
		if len(body) > 0 {
			ctx.Response.SetBody(body) // a copy: res goes back to its pool now
		}
		fasthttp.ReleaseResponse(res)
		rt.finish(ex, status, OutcomeProxied, int64(len(body)))
		return
	}
	// The connection is this exchange's until the stream closes (transport.go: upstreamBody).
	length := res.Header.ContentLength()
	if length < 0 {
		length = -1 // chunked to the client, whether the upstream chunked or closed to end it
	}
	ex.body = relayBody{rt: rt, ex: ex, res: res, out: &ctx.Response.Header, status: status}
	ctx.Response.SetBodyStream(&ex.body, length)
}

// logPath is the target's path for the access log: never the query (it may carry tokens),
// bounded in size.
func logPath(target []byte) string {
	for i, c := range target {
		if c == '?' {
			target = target[:i]
			break
		}
	}
	return string(target[:min(len(target), maxLoggedPath)])
}

// methodString returns the method as a string, without allocating for the common ones.
func methodString(m []byte) string {
	for _, known := range [...]string{http.MethodGet, http.MethodPost, http.MethodHead, http.MethodPut,
		http.MethodDelete, http.MethodOptions, http.MethodPatch} {
		if string(m) == known {
			return known
		}
	}
	return string(m)
}
