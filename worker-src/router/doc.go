// Package router is the internal router of the KamuiDash edge: the only service the Cloudflare
// Tunnel reaches. It accepts a request only when it carries a valid, fresh context signed by the
// Worker (see internal/route), then forwards it to the tenant service that context names.
// While the signing secret rotates, a context signed with the current key or the next one
// verifies (Config.NextSecret), so the Worker can switch keys with no request refused.
//
// A Router is a plain http.Handler. Bodies stream both ways and WebSocket upgrades pass through
// (httputil.ReverseProxy); bodiless GET, HEAD and OPTIONS requests, the bulk of dynamic traffic,
// take a shorter path over pooled keep-alive connections (see upstream.go for why). Its
// behaviour varies only through the documented hooks of Config. Admin returns the second,
// operator-facing handler (/healthz, /readyz, /metrics), and Serve runs both with a graceful
// drain.
//
// One exchange's bytes never reach another's client while a connection idles: on either path,
// an upstream connection that receives anything (a late or unsolicited response, its close)
// while it sits unused is closed, never reused, as net/http's Transport does. The direct path
// checks with a non-blocking peek when it takes the connection from its pool; a platform
// without that peek gets no reuse on the direct path. What HTTP/1.1 cannot tell apart remains:
// bytes an upstream sends just as the next request is written, or after, read as that
// request's answer. Only a misbehaving upstream can cause that, and no proxy can prevent it.
//
// What the router answers itself, always with a fixed plain-text body and Cache-Control: no-store:
//
//   - 403 when the signed context is missing, wrong, stale or from the future, or the Host is not
//     a valid DNS name (the body never says which; the access log does), and when the upstream's
//     namespace lacks the allowed prefix;
//   - 502 when the upstream cannot be parsed, resolved or connected to, or breaks the exchange;
//   - 504 when connecting or waiting for the response headers times out.
//
// The gateway errors name the verified request id so a tenant can quote it.
//
// What the tenant service sees: the public Host; X-Request-Id, X-Forwarded-Host and
// X-Forwarded-Proto from the verified context and configuration; X-Forwarded-For set to the
// router's peer (the tunnel connector) alone. Every Kamui-* header is removed, and so are any
// Forwarded, X-Forwarded-*, X-Real-Ip and X-Request-Id the client sent, and every header whose
// name contains an underscore (X_Forwarded_Host, Kamui_App, …), as nginx drops them by default:
// CGI-style stacks read X_Forwarded_Host and X-Forwarded-Host as one HTTP_X_FORWARDED_HOST.
// Kamui-* headers in the service's response are removed too.
//
// Metrics (Prometheus text format on the admin handler): kamui_router_requests_total{class,outcome},
// the kamui_router_request_duration_seconds histogram, kamui_router_in_flight_requests and
// kamui_router_ready.
//
// Only the standard library and internal/route are imported, so the binary builds offline and
// hermetically.
package router
