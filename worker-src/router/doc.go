// Package router is the internal router of the KamuiDash edge: the only service the Cloudflare
// Tunnel reaches. It accepts a request only when it carries a valid, fresh context signed by the
// Worker (see internal/route), then forwards it to the tenant service that context names.
// While the signing secret rotates, a context signed with the current key or the next one
// verifies (Config.NextSecret), so the Worker can switch keys with no request refused.
//
// The router is built on valyala/fasthttp: its server (request bodies streamed) in front, one
// HostClient per upstream address (response bodies streamed) behind, with one forwarding path
// for every request shape. Each HostClient carries its exchanges through the router's own
// RoundTripper (transport.go), built on the HostClient's exported connection and buffer pools
// and fasthttp's request writer and response readers, so that the router holds the upstream
// connection while it waits for the response head: it relays interim responses as they come
// and, from 150 ms into the wait, watches the client, whose leaving ends the exchange
// (clientwatch.go). A WebSocket upgrade gets a connection of its own, watched the same way
// until the 101, after which bytes are copied both ways over the hijacked client connection
// (upgrade.go). fasthttp's
// defaults that would change what crosses are set on purpose, each where it is set
// (NewServer, upstreams.go): targets are forwarded exactly as signed (no path normalisation),
// header names as spelled, nothing is replayed by the library, no default Server,
// Content-Type or User-Agent is added (a relayed answer's Date is the router's, as nginx
// does: copyResponseHead), multipart bodies are not parsed. Its behaviour varies
// only through the documented hooks of Config. Admin returns the second, operator-facing
// handler (/healthz, /readyz, /metrics, on net/http), and Serve runs both with a graceful drain.
//
// One exchange's bytes never reach another's client while a connection idles: fasthttp's client
// reads whatever is on a reused socket as the next answer, so before a request is written on a
// reused connection the transport checks it without blocking (idleconn.go), and one that
// received anything while idle (a late or unsolicited response, its close) is closed and the
// request goes out on another connection: the one case a request is sent again, since nothing
// of it was written. A connection on which more than the response arrived is not reused either. What HTTP/1.1 cannot tell apart remains: bytes an upstream sends just as
// the next request is written, or after, read as that request's answer. Only a misbehaving
// upstream can cause that, and no proxy can prevent it.
//
// A request head that two parsers could read differently (Transfer-Encoding beside
// Content-Length, a Transfer-Encoding other than chunked such as "identity", obs-fold, a
// duplicate Content-Length) is refused with 400 before anything is forwarded, and the
// connection closed.
//
// What the router answers itself, always with a fixed plain-text body and Cache-Control: no-store:
//
//   - 400 when the request head is ambiguous (above);
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
// Besides headers and bodies, trailers cross (trailers.go), and a client's Expect goes upstream
// (the router's server answers its 100 Continue). The tenant's interim responses (103 Early
// Hints and the like) reach the client as they arrive, cleaned as final responses are; its 100
// Continue does not: the router's server answers a client's Expect itself, and the client's
// body has been sent whole by the time the tenant's answer is read (relayInterim).
//
// The response header timeout bounds the wait for the final head, interim responses included;
// the body may take as long as it needs. A client that leaves (its FIN or a reset) while the
// head is awaited ends the upstream exchange at once: from a short delay into the wait
// (clientWatchDelay) its connection is watched (clientwatch.go), and when it goes the upstream
// connection is closed and the exchange logged as client_gone (499), with nothing written to
// the client. A client gone during the body is noticed by the failed write, logged as aborted.
//
// Metrics (Prometheus text format on the admin handler): kamui_router_requests_total{class,outcome},
// the kamui_router_request_duration_seconds histogram, kamui_router_in_flight_requests and
// kamui_router_ready.
//
// Imports: the standard library, internal/route and github.com/valyala/fasthttp (with what it
// needs). The provider builds the binary offline from the sources it embeds, the dependency's
// included.
package router
