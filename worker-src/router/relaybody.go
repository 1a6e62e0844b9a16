package router

import (
	"io"

	"github.com/valyala/fasthttp"
)

// relayBody is an upstream response body on its way to the client. The server reads it after
// the handler returned and closes it when the response is written or the write failed; that is
// when the exchange is complete and recorded. It implements fasthttp.ReadCloserWithError, so it
// learns whether the client write failed.
type relayBody struct {
	rt      *Router
	ex      *exchange
	res     *fasthttp.Response       // the upstream response; its stream holds the connection
	out     *fasthttp.ResponseHeader // the client's response header, written before the body
	status  int
	n       int64
	readErr error
	ended   bool // the upstream body reached its end (and its trailers were copied)
}

func (b *relayBody) Read(p []byte) (int, error) {
	n, err := b.res.BodyStream().Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF && !b.ended:
		b.ended = true
		// The upstream's trailer section has been read; the server writes the client's
		// after this body (trailers.go).
		copyTrailers(b.out, &b.res.Header)
	case err != nil && err != io.EOF:
		b.readErr = err
	}
	return n, err
}

// CloseWithError releases the upstream connection (back to the pool after a whole body, closed
// otherwise) and records the exchange.
func (b *relayBody) CloseWithError(writeErr error) error {
	_ = b.res.CloseBodyStream() // a body not read to its end closes the connection: nothing to report
	fasthttp.ReleaseResponse(b.res)
	outcome := OutcomeProxied
	switch {
	case b.readErr != nil:
		outcome, b.ex.reason = OutcomeAborted, b.readErr
	case writeErr != nil:
		outcome, b.ex.reason = OutcomeAborted, writeErr
	}
	b.rt.finish(b.ex, b.status, outcome, b.n)
	return nil
}
