package router

import (
	"log/slog"
	"net"
	"net/url"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// Defaults for the zero values of Config.
const (
	DefaultDialTimeout           = 5 * time.Second
	DefaultResponseHeaderTimeout = 30 * time.Second
	DefaultForwardedProto        = "https"
)

// Config configures a Router. Secret and AllowedNamespacePrefix are required; every other field
// has the default its comment names.
type Config struct {
	// Secret is the per-environment HMAC key shared with the Worker. Required; never logged.
	Secret []byte

	// NextSecret is the key the Worker will sign with after a rotation of the signing secret:
	// a context verifies when it verifies under Secret or NextSecret, so the Worker can switch
	// keys without a request failing in between. Nil (or empty) means no rotation is under
	// way: only Secret verifies. Never logged; the access log names only which key matched.
	NextSecret []byte

	// AllowedNamespacePrefix is the prefix every upstream namespace must start with (for example
	// "tenant-"). A validly signed context naming any other namespace is refused with 403, so a
	// leaked secret still cannot reach the platform's own services. Required.
	AllowedNamespacePrefix string

	// MaxSkew is how far the signed context time may be from Now, either way.
	// Zero means route.DefaultMaxSkew.
	MaxSkew time.Duration

	// DialTimeout bounds connecting to an upstream (exceeded: 504).
	// Zero means DefaultDialTimeout. Ignored when Dial is set.
	DialTimeout time.Duration

	// ResponseHeaderTimeout bounds the wait for an upstream's response headers once the request
	// is sent (exceeded: 504). Bodies are not bounded: they may stream for as long as they need.
	// Zero means DefaultResponseHeaderTimeout.
	ResponseHeaderTimeout time.Duration

	// ForwardedProto is the X-Forwarded-Proto sent upstream: the scheme the public request used
	// at the edge, which the router (reached through the tunnel) cannot observe.
	// Empty means DefaultForwardedProto.
	ForwardedProto string

	// Dial connects to an upstream address ("host:port"). Nil means a TCP dial bounded by
	// DialTimeout. Whatever it returns is still wrapped by the router (idleconn.go), so the
	// idle-connection check, the response header timeout and the client watch (transport.go)
	// hold for any Dial.
	Dial func(addr string) (net.Conn, error)

	// Resolve maps a verified upstream to the URL to forward to: scheme "http" and a host, nothing
	// else (the request target goes upstream exactly as the Worker signed it, so there is no
	// path to join it to; any other URL is a 502). Nil means ClusterResolve.
	Resolve func(route.Upstream) (*url.URL, error)

	// ErrorHandler writes the client's response when the router refuses a request or cannot
	// reach the upstream. It must not reveal f.Err. Nil means WriteFailure.
	ErrorHandler func(ctx *fasthttp.RequestCtx, f *Failure)

	// Now is the clock for context freshness and durations. Nil means time.Now.
	Now func() time.Time

	// Logger receives one access-log record per request (message "access") and the HTTP
	// server's and client's own warnings. Nil means a JSON slog.Logger on standard error.
	Logger *slog.Logger

	// SampleSuccess reports whether to log the access line of a successful request (anything
	// the upstream answered below 500). Failures are always logged. Nil logs every request;
	// SampleRate builds a deterministic sampler.
	SampleSuccess func() bool
}

// ClusterResolve is the default Resolve: the service's in-cluster DNS name over plain HTTP,
// "http://service.namespace.svc.cluster.local:port".
func ClusterResolve(u route.Upstream) (*url.URL, error) {
	return &url.URL{Scheme: "http", Host: u.ClusterAddr()}, nil
}
