package router

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// transport is the fasthttp.RoundTripper of every upstream HostClient (upstreams.go): what
// fasthttp's own transport does (HostClient.Do's default), built from the HostClient's exported
// connection and buffer pools and the Request and Response readers and writers, with what the
// router needs while it holds the connection:
//
//   - the idle check before a request is written on a reused connection (idleconn.go);
//   - the response header timeout, armed once the request is written and lifted once the final
//     head is in: the body may take as long as it needs (fasthttp's ReadTimeout would bound the
//     whole response);
//   - the client's connection watched while the head is awaited, so that a client that leaves
//     ends the upstream exchange at once (clientwatch.go, errClientGone);
//   - interim responses (103 Early Hints and the like) relayed to the client as they arrive,
//     where fasthttp reads past them (relayInterim).
//
// As in fasthttp's transport, a response body is streamed (the router's HostClients set
// StreamResponseBody), and its connection goes back to the pool only once the body was read to
// its end and neither side asked to close; closing the stream early closes the connection,
// interrupting a Read in flight (upstreamBody). A body that came whole with its head (a small
// response's, framed by its Content-Length) is taken at once instead, as fasthttp's own
// transport takes every body without StreamResponseBody: its connection goes back to the pool
// before the client is written to, and the router hands it on in one piece (relay).
//
// The HostClient settings this transport does not implement are the ones the router leaves
// unset: ReadTimeout, WriteTimeout, MaxConnDuration, MaxResponseBodySize and request timeouts.
// Nothing is sent again here: the router decides that (forward.go), so RoundTrip never asks
// HostClient.Do to retry.
type transport struct {
	headerTimeout time.Duration
}

// roundTrip is what the transport needs of a request beyond the request itself. forward sets it
// as the request's user value (roundTripKey); a request without one is carried all the same,
// with no client to watch or relay interim responses to.
type roundTrip struct {
	client *fasthttp.RequestCtx
	body   upstreamBody // the response body's reader, allocated with the exchange
}

// roundTripKey is the user value key of a request's roundTrip.
type roundTripKey struct{}

// maxInterimResponses bounds the interim responses read before the final one, as fasthttp's
// Response.ReadLimitBody does (its limit of 100 is not exported).
const maxInterimResponses = 100

var (
	// errClientGone ends an exchange whose client left while the response head was awaited
	// (or while an interim response was relayed to it).
	errClientGone = errors.New("the client went away before the response head arrived")

	errTooManyInterimResponses = errors.New("too many interim (1xx) responses")
	errNotUpstreamConn         = errors.New("the HostClient's connection was not dialled by the router")
)

// writeAsReceived writes req with its request target exactly as the client sent it (and the
// Worker signed it). HostClient.Do parses the target into req's URI first, and Request.Write
// then rebuilds the target from that parse whenever there is one: a target starting with "//"
// and holding "://" further on parses as an absolute URI, so "//api/login?next=https://x"
// went out as "/login?next=https://x", "//user:pw@x/…" also gained an Authorization header,
// and an empty query lost its "?". Dropping the parse (the Host header is set, so Write needs
// none) writes the target as the header holds it.
func writeAsReceived(req *fasthttp.Request, w *bufio.Writer) error {
	req.SetURI(nil)
	return req.Write(w)
}

// RoundTrip sends req on a connection of hc and reads the response head into resp, leaving the
// body to be streamed (see transport).
func (t *transport) RoundTrip(hc *fasthttp.HostClient, req *fasthttp.Request, resp *fasthttp.Response) (bool, error) {
	trip, _ := req.UserValue(roundTripKey{}).(*roundTrip)
	if trip == nil {
		trip = new(roundTrip)
	}
	cc, err := hc.AcquireConn(0, req.ConnectionClose())
	if err != nil {
		return false, err
	}
	uc, ok := cc.Conn().(*upstreamConn)
	if !ok {
		hc.CloseConn(cc)
		return false, errNotUpstreamConn
	}
	if uc.done == nil {
		uc.done = bindConn(hc.ReleaseConn, hc.CloseConn, cc)
	}
	// A connection that has carried an exchange has idled in the pool since (fasthttp notes
	// when it went back there); a new one has not.
	if !cc.LastUseTime().IsZero() && !uc.probe.stillQuiet() {
		uc.done(false)
		return false, errSpokeWhileIdle
	}
	conn := uc.Conn
	resp.ParseNetConn(conn)

	bw := hc.AcquireWriter(conn)
	err = writeAsReceived(req, bw)
	if err == nil {
		err = bw.Flush()
	}
	hc.ReleaseWriter(bw)
	if err != nil {
		uc.done(false)
		return false, err
	}

	// The request is out: the wait for its response head starts now. The deadline bounds the
	// interim responses as well, and their relaying to the client.
	deadline := time.Now().Add(t.headerTimeout)
	if err = conn.SetReadDeadline(deadline); err != nil {
		uc.done(false)
		return false, err
	}
	if hc.DisableHeaderNamesNormalizing {
		resp.Header.DisableNormalizing()
	}
	br := hc.AcquireReader(conn)
	if err = readHead(br, &resp.Header, trip.client, &uc.watch, deadline); err != nil {
		hc.ReleaseReader(br)
		uc.done(false)
		return false, err
	}

	if resp.SkipBody || req.Header.IsHead() {
		resp.SkipBody = true
	}
	// No connection that cannot be checked goes back to the pool (see idleconn.go).
	reuse := uc.probe != nil && !req.ConnectionClose() && !resp.ConnectionClose()
	switch status := resp.StatusCode(); {
	case status == fasthttp.StatusSwitchingProtocols:
		// The connection speaks another protocol now: it never goes back to the pool. (The
		// router refuses the answer: an upgrade takes a connection of its own, upgrade.go.)
		reuse = false
	case resp.SkipBody || status < 200 || status == fasthttp.StatusNoContent || status == fasthttp.StatusNotModified:
		// No body: the exchange is over.
	case bodyCameWithHead(resp, br):
		// A small response's body arrives with its head: fasthttp takes it from the reader's
		// buffer (no read on the connection, and at most the buffer's size), and the
		// connection is free again before the client is sent a byte. The read deadline of the
		// wait for the head stays on the pooled connection, as after an answer without a body:
		// every exchange sets its own before it reads.
		resp.StreamBody = false
		if err = resp.ReadBody(br, 0); err != nil {
			hc.ReleaseReader(br)
			uc.done(false)
			return false, err
		}
	default:
		// The head is in: the body is not bounded by the header timeout.
		if err = conn.SetReadDeadline(time.Time{}); err != nil {
			hc.ReleaseReader(br)
			uc.done(false)
			return false, err
		}
		trip.body.start(hc, uc, br, resp, reuse)
		return false, nil
	}
	// Bytes already read past the response's end are an upstream speaking out of turn: such a
	// connection is not reused (and the bytes are dropped with the reader).
	reuse = reuse && br.Buffered() == 0
	hc.ReleaseReader(br)
	uc.done(reuse)
	return false, nil
}

// bodyCameWithHead reports whether resp's body, framed by its Content-Length, is in br's buffer
// already. A chunked body, or one framed by the connection's end, is always streamed.
func bodyCameWithHead(resp *fasthttp.Response, br *bufio.Reader) bool {
	length := resp.Header.ContentLength()
	return length >= 0 && length <= br.Buffered()
}

// bindConn returns the function that hands cc back to its HostClient (release to the pool or
// close). The type of cc is fasthttp's own and unexported, so it is held here by inference.
func bindConn[C any](release, closeConn func(C), cc C) func(reuse bool) {
	return func(reuse bool) {
		if reuse {
			release(cc)
		} else {
			closeConn(cc)
		}
	}
}

// readHead reads the final response head into h. When there is a client, the interim
// responses before it are relayed to it, and watch (the upstream connection's) watches it
// meanwhile: a client that leaves ends the wait with errClientGone, whatever the read returned,
// since the watch closed the connection.
func readHead(br *bufio.Reader, h *fasthttp.ResponseHeader, client *fasthttp.RequestCtx, watch *clientWatch, deadline time.Time) error {
	if client == nil {
		return readFinalHead(br, h, nil, deadline)
	}
	watch.start(client.Conn())
	err := readFinalHead(br, h, client, deadline)
	if watch.stop() {
		return errClientGone
	}
	return err
}

// readFinalHead reads response heads into h until the final one, relaying the interim ones to
// client when there is one. A 101 Switching Protocols is final: what follows it is not HTTP.
func readFinalHead(br *bufio.Reader, h *fasthttp.ResponseHeader, client *fasthttp.RequestCtx, deadline time.Time) error {
	for n := 0; ; n++ {
		if err := h.Read(br); err != nil {
			return err
		}
		status := h.StatusCode()
		if status < 100 || status > 199 || status == fasthttp.StatusSwitchingProtocols {
			return nil
		}
		if n >= maxInterimResponses {
			return errTooManyInterimResponses
		}
		if client != nil {
			if err := relayInterim(client, h, deadline); err != nil {
				return fmt.Errorf("%w (relaying an interim response: %w)", errClientGone, err)
			}
		}
	}
}

// relayInterim writes an interim response head to the client, cleaned as a final response's
// head is (cleanResponseHeaders), within deadline.
//
// The client's connection is free for it: fasthttp's server writes a handler's response only
// after the handler has returned (Server.serveConn: the handler runs, then writeResponse), and
// it answered the request's Expect: 100-continue, if any, before the handler ran. One case
// remains, a response the server held back unflushed because the next request had already
// arrived (pipelining); ServeFastHTTP makes the server flush every response (see there), so no
// earlier answer can be overtaken.
//
// Not relayed:
//   - 100 Continue. The router's server has answered the client's Expect: 100-continue itself
//     before the handler ran (fasthttp's default, with no ContinueHandler), so the tenant's
//     would be a second one; and without an Expect it tells the client nothing. Either way the
//     client's body has been sent whole by the time the tenant's answer is read (the transport
//     writes the request, body included, before it reads).
//   - Anything to an HTTP/1.0 client, which a server must not send a 1xx to (RFC 9110 §15.2).
func relayInterim(client *fasthttp.RequestCtx, h *fasthttp.ResponseHeader, deadline time.Time) error {
	if h.StatusCode() == fasthttp.StatusContinue || !client.Request.Header.IsHTTP11() {
		return nil
	}
	cleanResponseHeaders(h)
	conn := client.Conn()
	if err := conn.SetWriteDeadline(deadline); err != nil {
		return err
	}
	_, err := conn.Write(h.Header())
	if errLift := conn.SetWriteDeadline(time.Time{}); err == nil {
		err = errLift
	}
	return err
}

// upstreamBody is a streamed response body as the transport hands it over (the response's
// BodyStream, a fasthttp.ReadCloserWithError), with the connection it is read from. It keeps
// the semantics of fasthttp's own (clientStreamBody): reads are serialised; closing it returns
// the connection to the pool only when the body was read to its end, without an error, and
// neither side asked to close, and closes the connection otherwise, which interrupts a Read in
// flight, whose end it waits for before anything is released.
//
// fasthttp's body reader (Response.ReadBody with StreamBody) lives in a Response of its own
// (raw): installing another stream in the response closes the one it has. At the body's end,
// the trailer section that reader collected is read again, by fasthttp, into the response's
// header, where fasthttp's own transport leaves it.
type upstreamBody struct {
	raw       *fasthttp.Response // reads the body off br; its header collects the trailer section
	dst       *fasthttp.Response // the response this is the body of
	br        *bufio.Reader
	hc        *fasthttp.HostClient
	conn      *upstreamConn
	reuse     bool // neither side asked to close the connection
	fullyRead bool
	closed    atomic.Bool
	readMu    sync.Mutex
}

// start installs b as resp's body, read from br on conn.
func (b *upstreamBody) start(hc *fasthttp.HostClient, conn *upstreamConn, br *bufio.Reader, resp *fasthttp.Response, reuse bool) {
	length := resp.Header.ContentLength()
	raw := fasthttp.AcquireResponse()
	if hc.DisableHeaderNamesNormalizing {
		raw.Header.DisableNormalizing()
	}
	raw.Header.SetContentLength(length) // what the reader frames the body by
	raw.StreamBody = true
	_ = raw.ReadBody(br, 0) // with StreamBody it sets up the reader and reads nothing: no error
	b.raw, b.dst, b.br, b.hc, b.conn, b.reuse = raw, resp, br, hc, conn, reuse
	b.fullyRead = length == 0
	b.closed.Store(false)
	resp.SetBodyStream(b, length)
}

func (b *upstreamBody) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, io.ErrClosedPipe
	}
	b.readMu.Lock()
	defer b.readMu.Unlock()
	if b.closed.Load() {
		return 0, io.ErrClosedPipe
	}
	n, err := b.raw.BodyStream().Read(p)
	if err == io.EOF && !b.fullyRead {
		b.fullyRead = true
		err = b.moveTrailers()
	}
	return n, err
}

// moveTrailers reads the trailer section raw's reader collected into dst's header.
func (b *upstreamBody) moveTrailers() error {
	if len(b.raw.Header.PeekTrailerKeys()) == 0 {
		return io.EOF
	}
	section := b.raw.Header.TrailerHeader()
	if err := b.dst.Header.ReadTrailer(bufio.NewReaderSize(bytes.NewReader(section), len(section))); err != nil {
		return err // what fasthttp accepted once it accepts again: not expected
	}
	return io.EOF
}

// CloseWithError ends the body, releasing the connection (see upstreamBody). Later Reads fail.
func (b *upstreamBody) CloseWithError(err error) error {
	if !b.closed.CompareAndSwap(false, true) {
		return nil
	}
	locked := b.readMu.TryLock()
	reuse := b.reuse && err == nil && locked && b.fullyRead
	if !reuse {
		// The connection is done: closing it interrupts a Read in flight.
		_ = b.conn.Close() // closing again (the HostClient does, below) reports an error: ignored
	}
	if !locked {
		b.readMu.Lock() // the interrupted Read returns
	}
	_ = b.raw.CloseBodyStream() // releases fasthttp's reader, which reports nothing on close
	fasthttp.ReleaseResponse(b.raw)
	b.raw = nil
	// Bytes read past the body's end are an upstream speaking out of turn (see RoundTrip).
	reuse = reuse && b.br.Buffered() == 0
	b.hc.ReleaseReader(b.br)
	b.br = nil
	conn := b.conn
	b.readMu.Unlock()
	conn.done(reuse) // last: the connection may carry another exchange at once
	return nil
}
