//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris

package router

import (
	"errors"
	"net"
	"syscall"
)

// What a non-blocking peek at a connection finds.
type peekResult uint8

const (
	peekNothing peekResult = iota // nothing arrived (EAGAIN)
	peekData                      // at least one byte waits to be read
	peekEOF                       // the peer's FIN
	peekError                     // a reset, or any other error
)

// peekFD looks at what waits on the socket fd without taking it: MSG_PEEK leaves any byte where
// it is, MSG_DONTWAIT turns "nothing yet" into EAGAIN. buf holds the one byte looked at.
func peekFD(fd uintptr, buf []byte) peekResult {
	for {
		n, _, err := syscall.Recvfrom(int(fd), buf, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK:
			return peekNothing
		case err != nil:
			return peekError
		case n == 0:
			return peekEOF
		default:
			return peekData
		}
	}
}

// idleProbe looks at an idle connection without reading from it. Its function value and
// buffer are made once per connection, so a check allocates nothing.
type idleProbe struct {
	raw    syscall.RawConn
	peek   func(fd uintptr)
	result peekResult
	buf    [1]byte
}

func newIdleProbe(conn net.Conn) *idleProbe {
	raw := rawConnOf(conn)
	if raw == nil {
		return nil
	}
	p := &idleProbe{raw: raw}
	p.peek = func(fd uintptr) { p.result = peekFD(fd, p.buf[:]) }
	return p
}

// stillQuiet reports whether nothing arrived since the last exchange: a byte means the upstream
// spoke out of turn (a late or unsolicited response), zero bytes its FIN, an error a reset, and
// none of these connections is reusable. It is one non-blocking recv in the goroutine about to
// use the connection; no goroutine watches idle connections. Control rather than Read:
// RawConn.Read refuses at once when the read deadline has passed, and the previous exchange's
// may have while the connection idled.
func (p *idleProbe) stillQuiet() bool {
	if p == nil {
		return false
	}
	p.result = peekError
	if err := p.raw.Control(p.peek); err != nil {
		return false
	}
	return p.result == peekNothing
}

// rawConnOf is conn's file descriptor access, or nil for a connection that has none (one that
// is not a socket of this process, such as an in-memory pipe, or a wrapper such as TLS's).
func rawConnOf(conn net.Conn) syscall.RawConn {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// clientLeft waits, without reading anything, until something arrives on a client's
// connection, and reports whether it is the client leaving: its FIN (a half-close counts, as
// net/http's server counts it) or a reset, or the connection closed on the router's side (a
// drain that ran out of time). Bytes (a pipelined next request) say nothing about the request
// in flight, and neither does the read deadline that ends the wait (clientWatch.stop sets it).
// A connection without a file descriptor is never found gone.
func clientLeft(conn net.Conn) bool {
	raw := rawConnOf(conn)
	if raw == nil {
		return false
	}
	var buf [1]byte
	result := peekNothing
	err := raw.Read(func(fd uintptr) bool {
		result = peekFD(fd, buf[:])
		return result != peekNothing // false: wait until the socket is readable, then look again
	})
	if err != nil {
		return errors.Is(err, net.ErrClosed)
	}
	return result == peekEOF || result == peekError
}
