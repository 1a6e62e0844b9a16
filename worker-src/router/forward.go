package router

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"net/url"
	"strings"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// exchange is one request's state, shared by ServeHTTP and the proxy hooks through the request
// context (the hooks only see the request).
type exchange struct {
	ctx            route.Context // verified
	signingKey     string        // which key verified it: "current" or "next"
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
// headers, which only the signed context may speak for, the rest of the X-Forwarded-* family
// (-Port, -Prefix, …), which frameworks also believe, and every name with an underscore (see
// hasUnderscore).
func (rt *Router) rewrite(pr *httputil.ProxyRequest) {
	ex := exchangeFrom(pr.In)
	pr.SetURL(ex.target)
	// Tenants see their public host, as behind any ingress; the service address is in the URL.
	pr.Out.Host = ex.ctx.Host
	h := pr.Out.Header
	for name := range h {
		if route.IsContextHeader(name) || hasPrefixFold(name, forwardedPrefix) || hasUnderscore(name) {
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

// hasUnderscore reports whether a header name contains "_". Such names are dropped, as nginx
// does by default (underscores_in_headers off): CGI-style stacks (PHP, WSGI, Rack) turn both
// X_Forwarded_Host and X-Forwarded-Host into HTTP_X_FORWARDED_HOST, so a client's underscore
// spelling of a header the router sets (or strips) would sit beside it or replace it.
func hasUnderscore(name string) bool { return strings.IndexByte(name, '_') >= 0 }

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

// writeRequestHead writes the upstream request line and headers for a bodiless request: the
// same message rewrite makes ReverseProxy send. The header names and values were parsed and
// validated by net/http's server, and the values set here come from the verified context. A
// failed write stays in bw, and the caller's Flush reports it.
func writeRequestHead(bw *bufio.Writer, r *http.Request, ex *exchange, forwardedProto string) {
	bw.WriteString(r.Method)
	bw.WriteByte(' ')
	bw.WriteString(r.URL.RequestURI())
	bw.WriteString(" HTTP/1.1\r\nHost: ")
	bw.WriteString(ex.ctx.Host)
	bw.WriteString("\r\n")
	connection := r.Header["Connection"]
	for name, values := range r.Header {
		if dropRequestHeader(name) || namedByConnection(connection, name) {
			continue
		}
		for _, v := range values {
			if v == "" && name == "User-Agent" {
				continue // an empty one means "send none", as for ReverseProxy
			}
			writeHeaderLine(bw, name, v)
		}
	}
	if headerHasToken(r.Header["Te"], "trailers") {
		bw.WriteString("Te: trailers\r\n")
	}
	if r.Method == http.MethodOptions {
		bw.WriteString("Content-Length: 0\r\n") // what net/http's client sends for it
	}
	writeHeaderLine(bw, "X-Request-Id", ex.ctx.RequestID)
	writeHeaderLine(bw, "X-Forwarded-Host", ex.ctx.Host)
	writeHeaderLine(bw, "X-Forwarded-Proto", forwardedProto)
	if ip, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		writeHeaderLine(bw, "X-Forwarded-For", ip)
	}
	bw.WriteString("\r\n")
}

func writeHeaderLine(bw *bufio.Writer, name, value string) {
	bw.WriteString(name)
	bw.WriteString(": ")
	bw.WriteString(value)
	bw.WriteString("\r\n")
}

// dropRequestHeader reports whether a client header (canonical name, as net/http's server
// stores it) stays behind: hop-by-hop, platform, forwarding and framing headers, which the router
// removes or writes itself, and names with an underscore (see hasUnderscore).
func dropRequestHeader(name string) bool {
	switch name {
	case "Host", "Content-Length", "Forwarded", "X-Real-Ip", "X-Request-Id":
		return true
	}
	return isHopByHop(name) || route.IsContextHeader(name) || hasPrefixFold(name, forwardedPrefix) || hasUnderscore(name)
}

// namedByConnection reports whether the Connection header lists name as hop-by-hop.
func namedByConnection(connection []string, name string) bool {
	for _, f := range connection {
		for sf := range strings.SplitSeq(f, ",") {
			if sf = textproto.TrimString(sf); sf != "" && textproto.CanonicalMIMEHeaderKey(sf) == name {
				return true
			}
		}
	}
	return false
}

// headerHasToken reports whether a comma-separated header lists token (any case).
func headerHasToken(values []string, token string) bool {
	for _, v := range values {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(textproto.TrimString(t), token) {
				return true
			}
		}
	}
	return false
}

// proxyError is ReverseProxy's ErrorHandler: a failed upstream exchange, before any response
// byte was written.
func (rt *Router) proxyError(w http.ResponseWriter, r *http.Request, err error) {
	rt.upstreamFailed(w, r, exchangeFrom(r), err)
}

// upstreamFailed answers a failed upstream exchange (called before any response byte is written).
func (rt *Router) upstreamFailed(w http.ResponseWriter, r *http.Request, ex *exchange, err error) {
	status, outcome := classifyProxyError(r, err)
	f := &Failure{Status: status, Outcome: outcome, RequestID: ex.ctx.RequestID, Err: err}
	if outcome == OutcomeClientGone {
		ex.failure = f // nobody is left to read an answer
		return
	}
	rt.fail(w, r, ex, f)
}
