package router

import (
	"errors"
	"net"
	"sync"
	"time"
)

// clientWatchDelay is how long the transport waits for a response head before it starts
// watching the client's connection. Most heads arrive well within it, and those exchanges
// pay for a timer reset and stop only: no goroutine, no system call on the client's
// connection. Past it, a client that leaves (a closed browser tab, a tunnel connector that
// gave up) is noticed within this much of the wait's start, instead of when the response
// header timeout ends the wait (30 s by default) with the tenant still working for nobody.
// 150 ms is above the time a typical dynamic page takes to start answering and short next to
// the timeouts a client gives up after.
const clientWatchDelay = 150 * time.Millisecond

// clientWatch ends an upstream exchange whose client has gone while the response head is
// awaited. Each upstream connection has one, made on its first exchange with a client
// (an upstream connection carries one exchange at a time), so arming it allocates nothing.
//
// start arms a timer; if the head has not arrived when it fires, the timer's goroutine peeks
// at the client's connection until something arrives on it (clientLeft): the client's FIN or
// a reset closes the upstream connection, which ends the transport's wait for the head at
// once. stop, when the head arrived or the exchange failed, stops the timer or, if the watch
// already runs, wakes it with a past read deadline on the client's connection, waits for it
// to end and clears that deadline again: fasthttp's server sets its own read deadlines before
// it reads the next request from that connection.
type clientWatch struct {
	upstream net.Conn      // closed when the client is found gone
	timer    *time.Timer   // runs watch; stopped between exchanges
	ended    chan struct{} // a watch that started sends here when it is over

	mu      sync.Mutex
	client  net.Conn // the client of the exchange in flight
	stopped bool     // stop has begun: the watch may no longer close the upstream connection
	gone    bool     // the watch found the client gone and closed the upstream connection
}

// start watches client from clientWatchDelay on, until stop.
func (w *clientWatch) start(client net.Conn) {
	w.mu.Lock()
	w.client, w.stopped, w.gone = client, false, false
	w.mu.Unlock()
	if w.timer == nil {
		w.ended = make(chan struct{}, 1)
		w.timer = time.AfterFunc(clientWatchDelay, w.watch)
		return
	}
	w.timer.Reset(clientWatchDelay)
}

// stop ends the watch and reports whether it found the client gone, in which case it has
// closed the upstream connection: the exchange is over, whatever the transport read.
func (w *clientWatch) stop() bool {
	if w.timer.Stop() {
		return false // the watch never started
	}
	// The watch has started, or is about to (a timer whose function was started cannot be
	// stopped): make it give up, wake it, and wait for it to end.
	w.mu.Lock()
	w.stopped = true
	client := w.client
	w.mu.Unlock()
	// A connection whose deadline cannot be set is closed, which wakes the watch as well.
	_ = client.SetReadDeadline(aLongTimeAgo)
	<-w.ended
	_ = client.SetReadDeadline(time.Time{})
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gone
}

// aLongTimeAgo is a read deadline that has passed: it wakes a blocked read at once.
var aLongTimeAgo = time.Unix(1, 0)

// watch runs on the timer's goroutine once the head is late.
func (w *clientWatch) watch() {
	defer func() { w.ended <- struct{}{} }()
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	client := w.client
	// The server's read deadline for the request head is still set on a request without a
	// body (the handler lifts it for a body only): it must not end the watch. Under mu, so that
	// stop's past deadline, which comes after, is the one that holds.
	err := client.SetReadDeadline(time.Time{})
	w.mu.Unlock()
	// A connection closed on the router's side (a drain that ran out of time) has no client.
	if !errors.Is(err, net.ErrClosed) && (err != nil || !clientLeft(client)) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped { // else the head came first: the transport has the connection back
		w.gone = true
		_ = w.upstream.Close() // the wait for the head ends with an error the transport replaces
	}
}
