package router

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Server limits that protect the router without bounding legitimate streams: headers must
// arrive promptly (slow-header attacks), bodies may take as long as they need.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 2 * time.Minute
)

// Serve runs rt on ln and its Admin handler on adminLn until ctx is done, then drains: /readyz
// turns 503, ln stops accepting, and in-flight requests (upgraded connections included) get up
// to drainTimeout to finish before the remaining connections are closed. The admin port stays up
// during the drain so probes and scrapes see it. It returns nil after a clean drain.
func Serve(ctx context.Context, rt *Router, ln, adminLn net.Listener, drainTimeout time.Duration) error {
	errorLog := slog.NewLogLogger(rt.logger.Handler(), slog.LevelWarn)
	srv := &http.Server{Handler: rt, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout, ErrorLog: errorLog}
	admin := &http.Server{Handler: rt.Admin(), ReadHeaderTimeout: readHeaderTimeout, ErrorLog: errorLog}

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
	drainErr := srv.Shutdown(dctx)
	if drainErr == nil {
		drainErr = rt.Wait(dctx)
	}
	if drainErr != nil {
		_ = srv.Close() // cuts off what is left: the drain error says why
		drainErr = fmt.Errorf("router: drain did not finish within %s: %w", drainTimeout, drainErr)
	}
	_ = admin.Close() // the router is stopping; what closing the admin port says changes nothing
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("router: serve: %w", serveErr)
	}
	return drainErr
}
