package router

import (
	"errors"
	"net"
	"time"
)

// upstreamConn is every upstream connection as the HostClient sees it (its Dial returns one).
// It adds the two things fasthttp's client does not do:
//
//   - The idle-connection guarantee. fasthttp keeps no goroutine reading idle connections, and
//     reads whatever is on a reused socket as the next request's answer: a late or unsolicited
//     response (with someone else's Set-Cookie) would reach the next client. So before the first
//     write of a request on a connection that has carried an exchange, the connection is
//     checked without blocking (idleprobe_unix.go); if anything arrived while it idled (bytes,
//     the upstream's FIN, a reset) the write fails with errSpokeWhileIdle and nothing of the
//     request is sent. That is the one failure the router sends a request again after
//     (forward.go), since the upstream never saw it. On a platform without the check a
//     connection carries one exchange only.
//   - The response header timeout. fasthttp's ReadTimeout and request timeouts bound the whole
//     response, body included, and a streamed body may take as long as it needs. So the read
//     deadline is armed here, when the first read of a response starts (the request is then
//     written), and cleared by the router once the head has arrived (headReceived).
//
// What no HTTP/1.1 client can catch remains: bytes that arrive after the check, as the request
// is written or after, are indistinguishable from its answer. Only a misbehaving upstream can
// cause that.
type upstreamConn struct {
	net.Conn
	probe         *idleProbe // nil: the connection cannot be checked, so it is never reused
	headerTimeout time.Duration
	local         upstreamAddr

	// reading: the last call was a read, so the connection has carried an exchange and the
	// next write starts a new request on it after it sat in the pool. (The HostClient writes
	// a whole request before it reads, and reads a whole response before it pools.)
	reading bool
}

// errSpokeWhileIdle is the write refused on a reused connection that received something while
// it idled. Nothing of the request was written.
var errSpokeWhileIdle = errors.New("the upstream connection received data or was closed while idle; request not sent")

func newUpstreamConn(c net.Conn, headerTimeout time.Duration) *upstreamConn {
	u := &upstreamConn{Conn: c, probe: newIdleProbe(c), headerTimeout: headerTimeout}
	u.local = upstreamAddr{Addr: c.LocalAddr(), conn: u}
	return u
}

func (c *upstreamConn) Write(p []byte) (int, error) {
	if c.reading {
		c.reading = false
		if !c.probe.stillQuiet() {
			// The HostClient closes a connection whose write failed, so this one is done.
			return 0, errSpokeWhileIdle
		}
	}
	return c.Conn.Write(p)
}

func (c *upstreamConn) Read(p []byte) (int, error) {
	if !c.reading {
		// The request is written: the wait for its response head starts now.
		c.reading = true
		if err := c.SetReadDeadline(time.Now().Add(c.headerTimeout)); err != nil {
			return 0, err
		}
	}
	return c.Conn.Read(p)
}

// headReceived lifts the response header timeout: the body may take as long as it needs.
func (c *upstreamConn) headReceived() error { return c.SetReadDeadline(time.Time{}) }

// LocalAddr is how the router finds the connection a response came on: fasthttp hands the
// response the connection's addresses (Response.LocalAddr) and nothing else of it.
func (c *upstreamConn) LocalAddr() net.Addr { return &c.local }

// upstreamAddr is the connection's real local address, carrying the connection with it.
type upstreamAddr struct {
	net.Addr
	conn *upstreamConn
}

// connOf returns the upstreamConn an address from Response.LocalAddr belongs to, or nil.
func connOf(a net.Addr) *upstreamConn {
	if ua, ok := a.(*upstreamAddr); ok {
		return ua.conn
	}
	return nil
}
