//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris

package router

import (
	"net"
	"syscall"
)

// idleProbe looks at an idle connection without reading from it. Its function value and
// buffer are made once per connection, so a check allocates nothing.
type idleProbe struct {
	raw   syscall.RawConn
	peek  func(fd uintptr)
	quiet bool
	buf   [1]byte
}

func newIdleProbe(conn net.Conn) *idleProbe {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	p := &idleProbe{raw: raw}
	p.peek = func(fd uintptr) {
		// MSG_PEEK leaves any byte where it is; MSG_DONTWAIT turns "nothing yet" into EAGAIN.
		// A byte means the upstream spoke out of turn (a late or unsolicited response), zero
		// bytes without an error is its FIN, any other error a reset: none is reusable.
		_, _, err := syscall.Recvfrom(int(fd), p.buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		p.quiet = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
	}
	return p
}

// stillQuiet reports whether nothing (no byte, no end of stream) arrived since the last
// exchange. It is one non-blocking recv in the goroutine about to use the connection; no
// goroutine watches idle connections. Control rather than Read: RawConn.Read refuses at once
// when the read deadline has passed, and the previous exchange's may have while it idled.
func (p *idleProbe) stillQuiet() bool {
	if p == nil {
		return false
	}
	p.quiet = false
	if err := p.raw.Control(p.peek); err != nil {
		return false
	}
	return p.quiet
}
