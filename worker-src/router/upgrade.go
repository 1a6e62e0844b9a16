package router

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// Protocol upgrades (WebSocket). The HostClient pools connections and has no notion of a
// connection that stops speaking HTTP, so an upgrade gets a connection of its own: the request
// head is written and the answer's head read by fasthttp (Request.Write, ResponseHeader.Read),
// and after a 101 the client's connection is hijacked and bytes are copied both ways until
// either side closes. Upgrade and Connection: Upgrade are the only hop-by-hop headers that
// cross, and only here.

// upgradeRefusalLimit bounds the body of an upstream's refusal to upgrade (a 4xx page), which is
// read whole, unlike a streamed body.
const upgradeRefusalLimit = 1 << 20

func (rt *Router) upgrade(ctx *fasthttp.RequestCtx, ex *exchange, fwd *forwardRequest) {
	defer releaseForward(fwd)
	up, err := rt.upstreams.dial(ex.addr)
	if err != nil {
		status, outcome := classifyUpstreamError(&dialError{err: err})
		rt.fail(ctx, ex, &Failure{Status: status, Outcome: outcome, RequestID: ex.ctx.RequestID, Err: err})
		return
	}
	// The tenant may answer as to an ordinary request (RFC 9110 §7.8), which its body is part
	// of; sent before the answer is read, as forwarded requests' bodies are.
	fwd.streamBody(ctx)
	res := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(res)
	br, err := rt.sendUpgrade(ctx, up, &fwd.req, res)
	if err != nil {
		_ = up.Close() // the failure below is the one to report
		if errors.Is(err, errClientGone) {
			rt.abandon(ctx, ex, err)
			return
		}
		status, outcome := classifyUpstreamError(err)
		rt.fail(ctx, ex, &Failure{Status: status, Outcome: outcome, RequestID: ex.ctx.RequestID, Err: err})
		return
	}
	status := res.StatusCode()
	if status != http.StatusSwitchingProtocols {
		// Refused: an ordinary answer, and the connection is done.
		_ = up.Close() // nothing more is read from it
		copyResponseHead(&ctx.Response.Header, &res.Header)
		// Copied: res goes back to its pool when this returns, its body buffer with it, and the
		// server writes the client's response only after that, maybe slowly, while another
		// exchange reads its own answer into that buffer.
		ctx.Response.SetBody(res.Body())
		rt.finish(ex, status, OutcomeProxied, int64(len(res.Body())))
		return
	}
	keepUpgrade := append([]byte(nil), res.Header.Peek("Upgrade")...)
	copyResponseHead(&ctx.Response.Header, &res.Header)
	ctx.Response.Header.Set("Connection", "Upgrade")
	ctx.Response.Header.SetBytesV("Upgrade", keepUpgrade)
	// The tunnel writes the 101 itself: the server runs a hijack handler only after it wrote
	// the response, and never when that write fails (a client gone), which would leave up open
	// and the exchange in flight for ever.
	head := bytes.Clone(ctx.Response.Header.Header())
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(client net.Conn) { rt.tunnel(ex, client, head, up, br) })
}

// sendUpgrade writes req on up and reads the answer's head (and, for a refusal, its body)
// within the response header timeout, relaying interim responses to the client and watching
// it as forwarded requests do (readHead). It returns the reader holding whatever the upstream
// sent after a 101's head.
func (rt *Router) sendUpgrade(ctx *fasthttp.RequestCtx, up net.Conn, req *fasthttp.Request, res *fasthttp.Response) (*bufio.Reader, error) {
	bw := bufio.NewWriter(up)
	if err := writeAsReceived(req, bw); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(rt.upstreams.headerTimeout)
	if err := up.SetReadDeadline(deadline); err != nil {
		return nil, err
	}
	br := bufio.NewReader(up)
	res.Header.DisableNormalizing()
	// The connection is this upgrade's own, and so is the watch on the client while the 101
	// is awaited.
	watch := clientWatch{upstream: up}
	if err := readHead(br, &res.Header, ctx, &watch, deadline); err != nil {
		return nil, err
	}
	if status := res.StatusCode(); status != http.StatusSwitchingProtocols {
		// An answer to HEAD, a 204 and a 304 have no body, whatever their Content-Length says
		// (ReadBody would wait for one).
		if req.Header.IsHead() || status == http.StatusNoContent || status == http.StatusNotModified {
			return br, nil
		}
		if err := res.ReadBody(br, upgradeRefusalLimit); err != nil {
			return nil, err
		}
		return br, nil
	}
	return br, up.SetReadDeadline(time.Time{})
}

// tunnel writes the response head (the 101) to the client, then copies bytes both ways between
// the client and the upstream until either side is done, then closes both and records the
// exchange.
func (rt *Router) tunnel(ex *exchange, client net.Conn, head []byte, up net.Conn, upBuffered *bufio.Reader) {
	rt.tunnels.Store(client, up)
	defer rt.tunnels.Delete(client)
	var once sync.Once
	closeBoth := func() {
		once.Do(func() {
			_ = client.Close() // ending the tunnel: how each close went changes nothing
			_ = up.Close()
		})
	}
	if _, err := client.Write(head); err != nil {
		closeBoth()
		ex.reason = err
		rt.finish(ex, http.StatusSwitchingProtocols, OutcomeAborted, 0)
		return
	}
	var wg sync.WaitGroup
	var upErr error
	wg.Go(func() {
		_, upErr = io.Copy(client, upBuffered) // what the upstream sent after its 101, then the rest
		closeBoth()
	})
	_, clientErr := io.Copy(up, client)
	closeBoth()
	wg.Wait()
	// A close from either side is how a tunnel ends; only other errors are worth a reason.
	if err := errors.Join(ignoreClosed(upErr), ignoreClosed(clientErr)); err != nil {
		ex.reason = err
	}
	rt.finish(ex, http.StatusSwitchingProtocols, OutcomeProxied, 0)
}

func ignoreClosed(err error) error {
	if errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// closeTunnels cuts every upgraded connection, when a drain runs out of time.
func (rt *Router) closeTunnels() {
	rt.tunnels.Range(func(client, up any) bool {
		_ = client.(net.Conn).Close() //nolint:forcetypeassert // tunnels holds net.Conn pairs only
		_ = up.(net.Conn).Close()     //nolint:forcetypeassert // as above
		return true
	})
}
