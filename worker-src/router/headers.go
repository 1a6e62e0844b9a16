package router

import (
	"bytes"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// What crosses the router, header by header. Names are compared in any case: the server and
// the client keep header names as they were spelled (DisableHeaderNamesNormalizing), so that
// tenants and clients see them unchanged.
//
// Towards the tenant, a client header stays behind when it is
//   - hop-by-hop (RFC 9110 §7.6.1), or named by the request's Connection header;
//   - framing (Content-Length, Transfer-Encoding): the client fasthttp frames the body again;
//   - Host (the public host replaces it);
//   - the platform's own (Kamui-*), which only the signed context may speak for;
//   - forwarding information (Forwarded, X-Forwarded-*, X-Real-Ip, X-Request-Id), which the
//     router sets itself from the verified context;
//   - named with an underscore (see hasUnderscore).
//
// Expect is end to end, so it goes upstream as it came (RFC 9110 §10.1.1, as ReverseProxy
// forwards it). The router's server has answered "100 Continue" itself before the handler runs
// (fasthttp's default: it then streams the body), and the router's transport sends the body
// without waiting and does not relay the tenant's own 100 Continue (relayInterim, transport.go).
//
// Towards the client, hop-by-hop and Kamui-* headers of the tenant's response stay behind, on
// its interim responses (103 Early Hints) as on the final one.

// hopByHop are the headers that describe one connection, not the message.
var hopByHop = [...]string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

func isHopByHop(name []byte) bool {
	for _, h := range hopByHop {
		if equalFold(name, h) {
			return true
		}
	}
	return false
}

// dropRequestHeader reports whether a client header stays behind (see the list above); the
// Connection header's own tokens are checked by the caller.
func dropRequestHeader(name []byte) bool {
	switch {
	case isHopByHop(name), hasUnderscore(name), isContextHeader(name),
		hasPrefixFold(name, "X-Forwarded-"):
		return true
	}
	for _, h := range [...]string{"Host", "Content-Length", "Forwarded", "X-Real-Ip", "X-Request-Id"} {
		if equalFold(name, h) {
			return true
		}
	}
	return false
}

// hasUnderscore reports whether a header name contains "_". Such names are dropped, as nginx
// does by default (underscores_in_headers off): CGI-style stacks (PHP, WSGI, Rack) turn both
// X_Forwarded_Host and X-Forwarded-Host into HTTP_X_FORWARDED_HOST, so a client's underscore
// spelling of a header the router sets (or strips) would sit beside it or replace it.
func hasUnderscore(name []byte) bool { return bytes.IndexByte(name, '_') >= 0 }

func hasPrefixFold(s []byte, prefix string) bool {
	return len(s) >= len(prefix) && equalFold(s[:len(prefix)], prefix)
}

// equalFold is strings.EqualFold for a header name; it converts nothing, so it allocates nothing.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		if lower(b[i]) != lower(s[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// isContextHeader is route.IsContextHeader for a name in bytes.
func isContextHeader(name []byte) bool { return hasPrefixFold(name, route.HeaderPrefix) }

// connectionTokens are the names a Connection header lists, besides the ones that are not
// header names (close, keep-alive) and Upgrade (dropped anyway, restored for an upgrade).
func connectionTokens(dst []string, value []byte) []string {
	for t := range strings.SplitSeq(string(value), ",") {
		t = strings.TrimSpace(t)
		if t == "" || strings.EqualFold(t, "close") || strings.EqualFold(t, "keep-alive") || strings.EqualFold(t, "upgrade") {
			continue
		}
		dst = append(dst, t)
	}
	return dst
}

// hasToken reports whether a comma-separated header value lists token (any case).
func hasToken(value []byte, token string) bool {
	for t := range strings.SplitSeq(string(value), ",") {
		if strings.EqualFold(strings.TrimSpace(t), token) {
			return true
		}
	}
	return false
}

// ambiguousHead reports a request head that two HTTP parsers could read differently, which
// only a request smuggling attempt sends, so the router refuses it (fasthttp refuses a duplicate
// Content-Length and unknown transfer codings itself):
//   - Transfer-Encoding beside Content-Length: fasthttp frames it by Transfer-Encoding alone and
//     closes the connection after it (RFC 9112 §6.1 allows that), keeping no trace of the
//     Content-Length but the raw head, which is looked at only for a chunked request;
//     (A Transfer-Encoding fasthttp does not frame as chunked, "identity", is refused in
//     admit, from the walk that builds the upstream head.)
//   - obs-fold (a header line continued on the next, starting with a space or tab), which
//     fasthttp unfolds where other parsers take the continuation for a header of its own
//     (RFC 9112 §5.2: a server must reject it or replace it).
func ambiguousHead(h *fasthttp.RequestHeader) (string, bool) {
	raw := h.RawHeaders()
	if bytes.Contains(raw, []byte("\n ")) || bytes.Contains(raw, []byte("\n\t")) {
		return "obs-fold in the request head", true
	}
	if h.ContentLength() == -1 {
		for name := range h.AllInOrder() {
			if equalFold(name, "Content-Length") {
				return "Transfer-Encoding together with Content-Length", true
			}
		}
	}
	return "", false
}

// cleanResponseHeaders removes the hop-by-hop and platform headers from a tenant's response.
func cleanResponseHeaders(h *fasthttp.ResponseHeader) {
	var drop [][]byte // names as spelled: a header without normalisation is deleted by its exact name
	var named []string
	for name, value := range h.All() {
		switch {
		case equalFold(name, "Connection"):
			named = connectionTokens(named, value)
			drop = append(drop, bytes.Clone(name))
		case isHopByHop(name), isContextHeader(name):
			drop = append(drop, bytes.Clone(name))
		}
	}
	if len(named) > 0 {
		for name := range h.All() {
			for _, t := range named {
				if equalFold(name, t) {
					drop = append(drop, bytes.Clone(name))
				}
			}
		}
	}
	for _, name := range drop {
		h.DelBytes(name)
	}
	// "Connection: close" is a flag, not an entry: the client's connection is the router's to
	// keep or close.
	h.ResetConnectionClose()
}

// copyResponseHead copies the upstream answer's status and the header fields that may cross
// onto the client's response (src is cleaned first: cleanResponseHeaders).
// ResponseHeader.CopyTo resets the destination first, and with it the server's
// NoDefaultContentType (serve.go), which is set again so that no Content-Type the tenant never
// sent is made up. Its NoDefaultDate cannot be set again (fasthttp has no setter, and adding a
// Date field by name is refused), so the client gets the router's Date in place of the
// tenant's: what nginx does by default, and what RFC 9110 (6.6.1) asks of a recipient with a
// clock that forwards a response without one.
func copyResponseHead(dst, src *fasthttp.ResponseHeader) {
	cleanResponseHeaders(src)
	src.CopyTo(dst)
	dst.SetNoDefaultContentType(true)
}
