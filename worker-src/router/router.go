package router

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// Router is the request handler: it verifies the signed context, then forwards to the upstream
// that context names. Build one with New and serve it with Serve (or any fasthttp.Server, with
// the settings Serve uses); it is safe for concurrent use.
type Router struct {
	verifier       *route.Verifier // Secret, then NextSecret when set (see signingKeyNames)
	nsPrefix       string
	maxSkew        time.Duration
	forwardedProto string
	resolve        func(route.Upstream) (*url.URL, error)
	errorHandler   func(*fasthttp.RequestCtx, *Failure)
	now            func() time.Time
	logger         *slog.Logger
	sampleSuccess  func() bool

	upstreams *upstreams
	metrics   metrics
	draining  atomic.Bool
	tunnels   sync.Map // upgraded connections, closed when a drain runs out of time (upgrade.go)
}

// New checks cfg and returns a Router with cfg's defaults filled in.
func New(cfg Config) (*Router, error) {
	if len(cfg.Secret) == 0 {
		return nil, errors.New("router: a signing secret is required")
	}
	if cfg.AllowedNamespacePrefix == "" {
		// An empty prefix would admit the platform's own namespaces.
		return nil, errors.New("router: an allowed namespace prefix is required")
	}
	keys := [][]byte{cfg.Secret}
	if len(cfg.NextSecret) > 0 {
		keys = append(keys, cfg.NextSecret)
	}
	verifier, err := route.NewVerifier(keys)
	if err != nil {
		return nil, fmt.Errorf("router: %w", err)
	}
	rt := &Router{
		verifier:       verifier,
		nsPrefix:       cfg.AllowedNamespacePrefix,
		maxSkew:        cfg.MaxSkew,
		forwardedProto: cfg.ForwardedProto,
		resolve:        cfg.Resolve,
		errorHandler:   cfg.ErrorHandler,
		now:            cfg.Now,
		logger:         cfg.Logger,
		sampleSuccess:  cfg.SampleSuccess,
	}
	if rt.maxSkew <= 0 {
		rt.maxSkew = route.DefaultMaxSkew
	}
	if rt.forwardedProto == "" {
		rt.forwardedProto = DefaultForwardedProto
	}
	if rt.resolve == nil {
		rt.resolve = ClusterResolve
	}
	if rt.errorHandler == nil {
		rt.errorHandler = WriteFailure
	}
	if rt.now == nil {
		rt.now = time.Now
	}
	if rt.logger == nil {
		rt.logger = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	rt.upstreams = newUpstreams(cfg.Dial, cfg.DialTimeout, cfg.ResponseHeaderTimeout)
	return rt, nil
}

// exchange is one request's state, from admission to the access-log line.
type exchange struct {
	start      time.Time
	method     string // copied: the request's buffers are reused once its response is written
	path       string // the target's path, for the log only (never the query)
	ctx        route.Context
	signingKey string    // which key verified it: "current" or "next"
	addr       string    // the upstream's "host:port"
	reason     error     // why it failed or was cut off, for the log only
	body       relayBody // the response body's relay, allocated with the exchange (relaybody.go)
	trip       roundTrip // what the transport needs of the client (transport.go)
}

// ServeFastHTTP admits or refuses the request, then forwards it. The exchange is recorded
// (metrics, access log) when its response is complete: here for answers without a body or
// with one that came whole with its head (forward.go: relay), when the body stream closes for
// the others (relaybody.go), when the tunnel closes for upgrades.
func (rt *Router) ServeFastHTTP(ctx *fasthttp.RequestCtx) {
	// fasthttp's server holds a response back unflushed when the next request has already
	// arrived (pipelining), and runs that request's handler meanwhile: an interim response the
	// transport writes on the connection (relayInterim) would overtake it. A handler that set a
	// write deadline has its response flushed at once (Server.serveConn), and this one changes
	// nothing else: there is no write deadline (the server has no WriteTimeout) and the server
	// clears it again after the response.
	_ = ctx.SetWriteDeadline(time.Time{}) // fails only on a broken connection, which the write reports
	rt.metrics.inFlight.Add(1)
	ex := &exchange{start: rt.now(), method: methodString(ctx.Method()), path: logPath(ctx.RequestURI())}
	fwd := acquireForward()
	f := rt.admit(ctx, ex, fwd)
	switch {
	case f != nil:
		releaseForward(fwd)
		rt.fail(ctx, ex, f)
	case fwd.upgrade:
		rt.upgrade(ctx, ex, fwd) // takes fwd
	default:
		rt.forward(ctx, ex, fwd) // takes fwd
	}
}

// admit checks the request's framing, verifies the signed context and resolves its upstream
// into ex, and builds the upstream request's head in fwd; a non-nil Failure means the request
// goes no further.
func (rt *Router) admit(ctx *fasthttp.RequestCtx, ex *exchange, fwd *forwardRequest) *Failure {
	if why, ambiguous := ambiguousHead(&ctx.Request.Header); ambiguous {
		return &Failure{Status: http.StatusBadRequest, Outcome: OutcomeMalformed, Err: errors.New(why)}
	}
	target := ctx.Request.Header.RequestURI()
	sig := fwd.build(ctx, rt.forwardedProto)
	if fwd.transferEncoding && ctx.Request.Header.ContentLength() != -1 {
		// A Transfer-Encoding fasthttp did not frame as chunked: "identity", which HTTP/1.1
		// no longer has and fasthttp takes as none (framing by Content-Length, or no body at
		// all), where net/http answers 501. Two parsers would read the body differently.
		return &Failure{Status: http.StatusBadRequest, Outcome: OutcomeMalformed, Err: errors.New("a Transfer-Encoding other than chunked")}
	}
	// The signature binds the request target exactly as received; the Host is the tunnel's
	// origin hostname, and the public host arrives, signed, in the context. Its time is checked
	// against the request's arrival, read once for the exchange.
	c, key, err := rt.verifier.VerifyHeaders(sig, ex.method, string(target), ex.start, rt.maxSkew)
	if err != nil {
		return &Failure{Status: http.StatusForbidden, Outcome: OutcomeDenied, Err: err}
	}
	if len(target) == 0 || target[0] != '/' {
		// Only origin form ("/path?query") is forwarded as it is; the Worker sends nothing else.
		return &Failure{Status: http.StatusForbidden, Outcome: OutcomeDenied, Err: errors.New("request target not in origin form")}
	}
	ex.ctx, ex.signingKey = c, signingKeyNames[key]
	up, err := route.ParseUpstream(c.Upstream)
	if err != nil {
		return &Failure{Status: http.StatusBadGateway, Outcome: OutcomeBadUpstream, RequestID: c.RequestID, Err: err}
	}
	if !strings.HasPrefix(up.Namespace, rt.nsPrefix) {
		return &Failure{Status: http.StatusForbidden, Outcome: OutcomeNamespaceRefused, RequestID: c.RequestID,
			Err: errors.New("upstream namespace outside the allowed prefix")}
	}
	u, err := rt.resolve(up)
	if err != nil {
		return &Failure{Status: http.StatusBadGateway, Outcome: OutcomeBadUpstream, RequestID: c.RequestID, Err: err}
	}
	if ex.addr, err = upstreamAddress(u); err != nil {
		return &Failure{Status: http.StatusBadGateway, Outcome: OutcomeBadUpstream, RequestID: c.RequestID, Err: err}
	}
	fwd.setContext(c)
	return nil
}

// upstreamAddress is the "host:port" of a resolved upstream URL, which must be plain http and
// name nothing but a host.
func upstreamAddress(u *url.URL) (string, error) {
	if u.Scheme != "http" || u.Host == "" || u.User != nil || u.Opaque != "" || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("resolved upstream is not a plain http://host[:port] URL")
	}
	if u.Port() == "" {
		return u.Host + ":80", nil
	}
	return u.Host, nil
}

// signingKeyNames name the keys for the access log, by their index in the verifier's keys.
var signingKeyNames = [...]string{"current", "next"}

// abandon records an exchange whose client left before its answer (errClientGone) and closes
// the client's connection with nothing written to it: a hijack with no response, after which
// fasthttp closes the connection.
func (rt *Router) abandon(ctx *fasthttp.RequestCtx, ex *exchange, err error) {
	ex.reason = err
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(closeHijacked)
	rt.finish(ex, StatusClientClosedRequest, OutcomeClientGone, 0)
}

// closeHijacked leaves a hijacked connection to fasthttp, which closes it.
func closeHijacked(net.Conn) {}

// fail answers the request itself and records it.
func (rt *Router) fail(ctx *fasthttp.RequestCtx, ex *exchange, f *Failure) {
	ex.reason = f.Err
	rt.errorHandler(ctx, f)
	if f.Status == http.StatusBadRequest {
		ctx.SetConnectionClose() // the rest of what arrived on this connection cannot be trusted
	}
	rt.finish(ex, f.Status, f.Outcome, int64(len(ctx.Response.Body())))
}

// finish records the exchange in the metrics and the access log, once.
func (rt *Router) finish(ex *exchange, status int, outcome Outcome, bytes int64) {
	d := rt.now().Sub(ex.start)
	rt.metrics.observe(status, outcome, d)
	rt.logAccess(ex, status, outcome, bytes, d)
	rt.metrics.inFlight.Add(-1)
}

// SetDraining marks the router as shutting down: /readyz answers 503 from now on, so load
// balancers stop sending new requests while in-flight ones finish.
func (rt *Router) SetDraining() { rt.draining.Store(true) }

// InFlight is the number of requests being handled, upgraded connections included.
func (rt *Router) InFlight() int64 { return rt.metrics.inFlight.Load() }

// Wait blocks until no request is in flight or ctx is done. A server's shutdown does not wait
// for upgraded (hijacked) connections such as WebSockets, nor for a response body still
// streaming after its handler returned; Wait does.
func (rt *Router) Wait(ctx context.Context) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for rt.InFlight() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}
