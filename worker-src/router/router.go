package router

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// Router is the request handler: it verifies the signed context, then reverse-proxies to the
// upstream that context names. Build one with New; it is safe for concurrent use.
type Router struct {
	keys           [][]byte // Secret, then NextSecret when set (see signingKeyNames)
	nsPrefix       string
	maxSkew        time.Duration
	forwardedProto string
	resolve        func(route.Upstream) (*url.URL, error)
	errorHandler   func(http.ResponseWriter, *http.Request, *Failure)
	now            func() time.Time
	logger         *slog.Logger
	sampleSuccess  func() bool

	proxy    *httputil.ReverseProxy
	pool     *connPool // the direct path's connections; nil when Config.Transport is set
	metrics  metrics
	draining atomic.Bool
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
	rt := &Router{
		keys:           keys,
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
	transport := cfg.Transport
	if transport == nil {
		transport = newTransport(cfg.DialTimeout, cfg.ResponseHeaderTimeout)
		rt.pool = newConnPool(cfg.DialTimeout, cfg.ResponseHeaderTimeout)
	}
	rt.proxy = &httputil.ReverseProxy{
		Rewrite:        rt.rewrite,
		Transport:      transport,
		ModifyResponse: rt.modifyResponse,
		ErrorHandler:   rt.proxyError,
		BufferPool:     newBufferPool(),
		ErrorLog:       slog.NewLogLogger(rt.logger.Handler(), slog.LevelWarn),
	}
	return rt, nil
}

// ServeHTTP admits or refuses r, then proxies it.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := rt.now()
	rt.metrics.inFlight.Add(1)
	rec := &recorder{ResponseWriter: w}
	ex := &exchange{}
	defer rt.finish(rec, r, ex, start)

	if f := rt.admit(r, ex); f != nil {
		rt.fail(rec, r, ex, f)
		return
	}
	if rt.directEligible(r, ex.target) {
		rt.forwardDirect(rec, r, ex)
		return
	}
	rt.proxy.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
}

// admit verifies the signed context and resolves its upstream into ex; a non-nil Failure means
// the request goes no further.
func (rt *Router) admit(r *http.Request, ex *exchange) *Failure {
	// The signature binds the request target exactly as received; r.Host is the tunnel's origin
	// hostname, and the public host arrives, signed, in the context.
	c, key, err := route.VerifyHeadersWithKeys(r.Header, r.Method, r.RequestURI, rt.keys, rt.now(), rt.maxSkew)
	if err != nil {
		return &Failure{Status: http.StatusForbidden, Outcome: OutcomeDenied, Err: err}
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
	target, err := rt.resolve(up)
	if err != nil {
		return &Failure{Status: http.StatusBadGateway, Outcome: OutcomeBadUpstream, RequestID: c.RequestID, Err: err}
	}
	ex.target = target
	return nil
}

// signingKeyNames name the keys for the access log, by their index in Router.keys.
var signingKeyNames = [...]string{"current", "next"}

func (rt *Router) fail(w http.ResponseWriter, r *http.Request, ex *exchange, f *Failure) {
	ex.failure = f
	rt.errorHandler(w, r, f)
}

// finish records the request in the metrics and the access log. ReverseProxy panics with
// http.ErrAbortHandler when a body copy fails mid-stream; that is recorded, then re-raised so
// net/http tears the connection down as intended.
func (rt *Router) finish(rec *recorder, r *http.Request, ex *exchange, start time.Time) {
	p := recover()
	defer rt.metrics.inFlight.Add(-1)
	status, outcome := rec.status, OutcomeProxied
	switch {
	case ex.failure != nil:
		status, outcome = ex.failure.Status, ex.failure.Outcome
	case p != nil:
		outcome = OutcomeAborted
	}
	if status == 0 {
		status = ex.upstreamStatus
	}
	if status == 0 {
		status = http.StatusOK // net/http's answer for a handler that wrote nothing
	}
	d := rt.now().Sub(start)
	rt.metrics.observe(status, outcome, d)
	rt.logAccess(r, ex, status, outcome, rec.bytes, d)
	if p != nil {
		panic(p)
	}
}

// SetDraining marks the router as shutting down: /readyz answers 503 from now on, so load
// balancers stop sending new requests while in-flight ones finish.
func (rt *Router) SetDraining() { rt.draining.Store(true) }

// InFlight is the number of requests being handled, upgraded connections included.
func (rt *Router) InFlight() int64 { return rt.metrics.inFlight.Load() }

// Wait blocks until no request is in flight or ctx is done. http.Server.Shutdown does not wait
// for upgraded (hijacked) connections such as WebSockets; Wait does, since their handlers are
// still running.
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
