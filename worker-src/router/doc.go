// Package router is the internal router of the KamuiDash edge: the only service the Cloudflare
// Tunnel reaches. It accepts a request only when it carries a valid, fresh context signed by the
// Worker (see internal/route), then forwards it to the tenant service that context names.
//
// A Router is a plain http.Handler built on httputil.ReverseProxy, so bodies stream both ways and
// WebSocket upgrades pass through. Its behaviour varies only through the documented hooks of
// Config. Admin returns the second, operator-facing handler (/healthz, /readyz, /metrics), and
// Serve runs both with a graceful drain.
//
// Only the standard library and internal/route are imported, so the binary builds offline and
// hermetically.
package router
