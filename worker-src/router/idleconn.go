package router

import (
	"errors"
	"net"
)

// upstreamConn is every upstream connection as the HostClient holds it (its Dial returns one):
// the connection itself and what the router's transport (transport.go) keeps with it from one
// exchange to the next. The transport reads and writes the connection itself, not through this
// wrapper.
//
// The idle-connection guarantee lives here: fasthttp keeps no goroutine reading idle
// connections, and reads whatever is on a reused socket as the next request's answer, so a
// late or unsolicited response (with someone else's Set-Cookie) would reach the next client.
// Before a request is written on a connection that has carried an exchange, the transport
// checks it without blocking (probe, idleprobe_unix.go); if anything arrived while it idled
// (bytes, the upstream's FIN, a reset) the connection is closed and the request fails with
// errSpokeWhileIdle, with nothing of it written or read. That is the one failure the router
// sends a request again after (forward.go), since the upstream never saw it. On a platform
// without the check a connection carries one exchange only.
//
// What no HTTP/1.1 client can catch remains: bytes that arrive after the check, as the request
// is written or after, are indistinguishable from its answer. Only a misbehaving upstream can
// cause that.
type upstreamConn struct {
	net.Conn
	probe *idleProbe // nil: the connection cannot be checked, so it is never reused
	// done hands the connection back to its HostClient: to the pool when reuse is true, closed
	// otherwise. Bound on the connection's first exchange (fasthttp names its connection
	// handle's type only inside its own package, so it is kept in a function).
	done func(reuse bool)
	// watch ends the exchange when its client leaves before the response head (clientwatch.go).
	watch clientWatch
}

// errSpokeWhileIdle is a reused connection that received something while it idled, refused
// before anything of the request was written.
var errSpokeWhileIdle = errors.New("the upstream connection received data or was closed while idle; request not sent")

func newUpstreamConn(c net.Conn) *upstreamConn {
	u := &upstreamConn{Conn: c, probe: newIdleProbe(c)}
	u.watch.upstream = c
	return u
}
