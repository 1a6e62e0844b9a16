package router

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// exchange is one request's state, shared by ServeHTTP and the proxy hooks through the request
// context (the hooks only see the request).
type exchange struct {
	ctx            route.Context // verified
	target         *url.URL
	upstreamStatus int // seen in ModifyResponse; an upgrade's 101 never passes through WriteHeader
	failure        *Failure
}

type exchangeKey struct{}

func exchangeFrom(r *http.Request) *exchange {
	ex, _ := r.Context().Value(exchangeKey{}).(*exchange)
	return ex
}

// rewrite builds the upstream request. ReverseProxy has already dropped hop-by-hop headers and
// the client's Forwarded and X-Forwarded-For/-Host/-Proto; still untrusted are the platform's own
// headers, which only the signed context may speak for, and the rest of the X-Forwarded-* family
// (-Port, -Prefix, …), which frameworks also believe.
func (rt *Router) rewrite(pr *httputil.ProxyRequest) {
	ex := exchangeFrom(pr.In)
	pr.SetURL(ex.target)
	// Tenants see their public host, as behind any ingress; the service address is in the URL.
	pr.Out.Host = ex.ctx.Host
	h := pr.Out.Header
	for name := range h {
		if route.IsContextHeader(name) || hasPrefixFold(name, forwardedPrefix) {
			delete(h, name)
		}
	}
	h.Del("X-Real-Ip")
	h.Set("X-Request-Id", ex.ctx.RequestID)
	h.Set("X-Forwarded-Host", ex.ctx.Host)
	h.Set("X-Forwarded-Proto", rt.forwardedProto)
	// The router's peer is the tunnel connector, so that is the only address it can vouch for.
	if ip, _, err := net.SplitHostPort(pr.In.RemoteAddr); err == nil {
		h.Set("X-Forwarded-For", ip)
	}
}

const forwardedPrefix = "X-Forwarded-"

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// modifyResponse keeps platform headers from leaking out of the cluster and notes the status.
func (rt *Router) modifyResponse(res *http.Response) error {
	for name := range res.Header {
		if route.IsContextHeader(name) {
			delete(res.Header, name)
		}
	}
	if ex := exchangeFrom(res.Request); ex != nil {
		ex.upstreamStatus = res.StatusCode
	}
	return nil
}

// proxyError answers a failed upstream exchange (called before any response byte is written).
func (rt *Router) proxyError(w http.ResponseWriter, r *http.Request, err error) {
	ex := exchangeFrom(r)
	status, outcome := classifyProxyError(r, err)
	f := &Failure{Status: status, Outcome: outcome, RequestID: ex.ctx.RequestID, Err: err}
	if outcome == OutcomeClientGone {
		ex.failure = f // nobody is left to read an answer
		return
	}
	rt.fail(w, r, ex, f)
}
