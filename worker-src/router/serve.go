package router

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// Server limits that protect the router without bounding legitimate streams: a request head
// must arrive promptly (slow-header attacks), bodies may take as long as they need.
const (
	// readHeaderTimeout bounds reading a request head, from its first byte (fasthttp's
	// ReadTimeout; the handler lifts it for the body).
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 2 * time.Minute
	// maxRequestHeadBytes bounds a request head (fasthttp's ReadBufferSize, whose default of
	// 4 KiB refuses ordinary requests with a few cookies): what Cloudflare itself forwards.
	maxRequestHeadBytes = 32 << 10
)

// NewServer returns the fasthttp.Server Serve runs rt with. Every default of fasthttp's that
// changes what reaches the tenant or the client is set on purpose; see each comment.
func NewServer(rt *Router) *fasthttp.Server {
	return &fasthttp.Server{
		Handler: rt.ServeFastHTTP,
		// Request bodies reach the handler as a stream; fasthttp reads a body whole by default
		// (up to 4 MiB, refusing larger ones).
		StreamRequestBody: true,
		// fasthttp parses multipart bodies into memory and temporary files by default.
		DisablePreParseMultipartForm: true,
		// Header names reach the tenant as the client spelled them.
		DisableHeaderNamesNormalizing: true,
		// The tenant's answer goes out as it came: no Server or Content-Type of the router's own
		// beside (or instead of) the tenant's, and no Date on the router's own answers. (A
		// relayed answer gets the router's Date in place of the tenant's: copyResponseHead.)
		NoDefaultServerHeader: true,
		NoDefaultDate:         true,
		NoDefaultContentType:  true,
		ReadTimeout:           readHeaderTimeout,
		IdleTimeout:           idleTimeout,
		// WriteTimeout stays zero: it would bound whole response bodies, which stream for as
		// long as they need.
		ReadBufferSize: maxRequestHeadBytes,
		// The connection is closed after the last response once a shutdown has begun, so
		// keep-alive clients move to another replica.
		CloseOnShutdown: true,
		// Request contents (cookies, tokens) never reach the log.
		SecureErrorLogMessage: true,
		Logger:                slog.NewLogLogger(rt.logger.Handler(), slog.LevelWarn),
	}
}

// Serve runs rt on ln and its Admin handler on adminLn until ctx is done, then drains: /readyz
// turns 503, ln stops accepting, and in-flight requests (upgraded connections and streaming
// bodies included) get up to drainTimeout to finish before the remaining connections are
// closed. The admin port stays up during the drain so probes and scrapes see it. It returns nil
// after a clean drain.
func Serve(ctx context.Context, rt *Router, ln, adminLn net.Listener, drainTimeout time.Duration) error {
	srv := NewServer(rt)
	conns := trackConns(srv)
	admin := &http.Server{Handler: rt.Admin(), ReadHeaderTimeout: readHeaderTimeout,
		ErrorLog: slog.NewLogLogger(rt.logger.Handler(), slog.LevelWarn)}

	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	go func() { errc <- admin.Serve(adminLn) }()

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc: // a listener broke: stop the other one too
	}

	rt.SetDraining()
	dctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	drainErr := srv.ShutdownWithContext(dctx)
	if drainErr == nil {
		drainErr = rt.Wait(dctx)
	}
	if drainErr != nil {
		// fasthttp leaves what is still open running: cut it off. The drain error says why.
		conns.closeAll()
		rt.closeTunnels()
		drainErr = fmt.Errorf("router: drain did not finish within %s: %w", drainTimeout, drainErr)
	}
	_ = admin.Close() // the router is stopping; what closing the admin port says changes nothing
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("router: serve: %w", serveErr)
	}
	return drainErr
}

// openConns are a server's client connections from accept to close (or hijack, after which
// the tunnel has them).
type openConns struct{ m sync.Map }

func trackConns(srv *fasthttp.Server) *openConns {
	oc := &openConns{}
	srv.ConnState = func(c net.Conn, s fasthttp.ConnState) {
		switch s {
		case fasthttp.StateNew:
			oc.m.Store(c, struct{}{})
		case fasthttp.StateClosed, fasthttp.StateHijacked:
			oc.m.Delete(c)
		}
	}
	return oc
}

func (oc *openConns) closeAll() {
	oc.m.Range(func(c, _ any) bool {
		_ = c.(net.Conn).Close() //nolint:forcetypeassert // only net.Conn keys are stored
		return true
	})
}
