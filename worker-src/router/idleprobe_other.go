//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || solaris)

package router

import "net"

// reuseIdleConns: without a non-blocking peek (see idleprobe_unix.go) nothing tells a quiet
// idle connection from one holding a late response for the next client, so the direct path
// closes every connection after one exchange (http.Transport, which watches its idle
// connections from a goroutine of their own, still pools the ReverseProxy path's).
const reuseIdleConns = false

type idleProbe struct{}

func newIdleProbe(net.Conn) *idleProbe { return nil }

func (*idleProbe) stillQuiet() bool { return false }
