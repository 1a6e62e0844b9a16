package edge

import (
	"strconv"
	"strings"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// clientStaticCacheControl is what browsers get for static content: revalidate every time
// (cheap, ETag) so that a browser never extends the edge's freshness budget.
const clientStaticCacheControl = "public, max-age=0, must-revalidate"

func (h *Handler) serveStatic(ex *Exchange, req *Request, u urlParts, res resolution) Plan {
	st := res.rec.Static
	withBody := req.Method != "HEAD"
	if req.Method != "GET" && req.Method != "HEAD" {
		ex.line.Outcome = OutcomeMethodNotAllowed
		p := ex.fixed(fixedMethod)
		p.Header.Set("Allow", "GET, HEAD")
		return p
	}
	rel, ok := staticPath(u.path, st.Index)
	if st.Manifest != "" {
		return h.serveSite(ex, req, u, res, rel, ok)
	}
	// The layout by prefix: the object key is the prefix and the path.
	if (ok || st.NotFound != "") && !ex.blocking {
		return ex.wait() // the static origin is I/O
	}
	status := 200
	var obj Object
	found := false
	if ok {
		var err error
		obj, found, err = h.getObject(ex, st.Prefix+rel, withBody)
		if err != nil {
			ex.line.Outcome = OutcomeStaticError
			ex.line.Error = "STATIC: " + err.Error()
			return ex.fixed(fixedStaticError)
		}
	}
	if !found && ok && st.SPA && spaRoute(rel, st.Index) {
		// A single-page app owns every extension-less path: its index answers them.
		var err error
		if obj, found, err = h.getObject(ex, st.Prefix+st.Index, withBody); err != nil {
			ex.line.Outcome = OutcomeStaticError
			ex.line.Error = "STATIC: " + err.Error()
			return ex.fixed(fixedStaticError)
		}
	}
	if !found && st.NotFound != "" {
		nf, nfFound, err := h.getObject(ex, st.Prefix+st.NotFound, withBody)
		if err == nil && nfFound {
			obj, found, status = nf, true, 404
		}
	}
	if !found {
		ex.line.Outcome = OutcomeStaticNotFound
		return ex.fixed(fixedStaticNotFound)
	}
	ex.line.Outcome = OutcomeOK

	hdr := Header{}
	for _, name := range []string{"Content-Type", "ETag", "Last-Modified", "Content-Length", "Content-Language", "Content-Encoding"} {
		if v := obj.Header.Get(name); v != "" {
			hdr.Set(name, v)
		}
	}
	if !hdr.Has("Content-Type") {
		hdr.Set("Content-Type", "application/octet-stream")
	}
	hdr.Set("X-Content-Type-Options", "nosniff")
	p := h.staticPlan(ex, u, res, status, hdr, withBody)
	p.Body = obj.Body
	if status == 404 {
		return p // the site's 404 page is never a 304 or a 206
	}
	return ex.represent(p, req.Header)
}

// staticPlan answers with status and the representation's headers hdr, for either layout:
// a full 200 GET is stored in the content cache (with its own max-age and the marker), and
// the client gets the revalidate-every-time Cache-Control and the request id.
func (h *Handler) staticPlan(ex *Exchange, u urlParts, res resolution, status int, hdr Header, withBody bool) Plan {
	p := Plan{Status: status}
	if withBody && status == 200 {
		if ttl := h.contentTTL(res.readAt); ttl > 0 {
			stored := hdr.Clone()
			stored.Set("Cache-Control", "public, max-age="+strconv.FormatInt(int64(ttl/time.Second), 10))
			stored.Set(route.CacheMarkerHeader, h.Config.CacheMarker)
			p.Store = &Store{Key: u.key, Header: stored}
		}
	}
	hdr.Set("Cache-Control", clientStaticCacheControl)
	hdr.Set("X-Request-Id", ex.id)
	p.Header = hdr
	return p
}

// contentTTL is how long a content entry may live so that the chain KV edge cache → route
// data of age (now − readAt) → content entry stays within the freshness budget. Whole
// seconds, rounded down; zero means "do not store".
func (h *Handler) contentTTL(readAt time.Time) time.Duration {
	t := h.Config.TTLs
	age := h.now().Sub(readAt)
	if age < 0 {
		age = 0
	}
	ttl := (t.Budget - max(t.DomainsKV, t.RoutesKV) - age).Truncate(time.Second)
	if ttl < time.Second {
		return 0
	}
	return ttl
}

func (h *Handler) getObject(ex *Exchange, key string, withBody bool) (Object, bool, error) {
	ex.line.R2Reads++
	ex.line.IORounds++
	return h.Static.Get(key, withBody)
}

// staticPath maps an escaped URL path to an object path under the prefix: percent-decoded,
// index for directories, and refused (ok=false) when it could step outside the prefix.
func staticPath(escaped, index string) (string, bool) {
	p, ok := unescapePath(escaped)
	if !ok {
		return "", false
	}
	p = strings.TrimPrefix(p, "/")
	if p == "" || strings.HasSuffix(p, "/") {
		p += index
	}
	if !route.ValidSitePath(p) {
		return "", false
	}
	return p, true
}

func unescapePath(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", false
		}
		b = append(b, hi<<4|lo)
		i += 2
	}
	return string(b), true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// spaRoute reports whether a single-page app owns rel (what staticPath made of the request's
// path), so that its index answers it when no file does: an extension-less path, or a
// directory's (a path with a trailing slash, to which staticPath appended the index's name).
// A path with an extension is an asset, and a missing asset is a 404.
func spaRoute(rel, index string) bool {
	return !strings.Contains(lastSegment(rel), ".") || strings.HasSuffix(rel, "/"+index)
}

func lastSegment(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// forward builds a new upstream request from the received one. Nothing the client sent
// about routing survives: hop-by-hop fields, every Kamui-* field, and the forwarding
// fields are dropped, then set from the resolution and signed.
func (h *Handler) forward(ex *Exchange, req *Request, u urlParts, res resolution) Plan {
	d := res.rec.Dynamic
	ws := req.Method == "GET" && req.Header.hasToken("Connection", "upgrade") &&
		req.Header.hasToken("Upgrade", "websocket")
	var connListed []string
	for _, f := range req.Header {
		if strings.EqualFold(f.Name, "Connection") {
			for _, t := range strings.Split(f.Value, ",") {
				if t = strings.TrimSpace(t); t != "" {
					connListed = append(connListed, t)
				}
			}
		}
	}
	out := make(Header, 0, len(req.Header)+10)
	for _, f := range req.Header {
		if dropForUpstream(f.Name, connListed) {
			continue
		}
		out = append(out, f)
	}
	if ws {
		out.Set("Connection", "Upgrade")
		out.Set("Upgrade", "websocket")
	}
	out.Set("X-Forwarded-Host", ex.host)
	out.Set("X-Forwarded-Proto", "https")
	out.Set("X-Request-Id", ex.id)
	target := u.path
	if u.query != "" {
		target += "?" + u.query
	}
	c := route.Context{
		Method:    req.Method,
		Host:      ex.host,
		Target:    target,
		App:       res.rec.App,
		Upstream:  d.Upstream,
		RequestID: ex.id,
		Time:      h.now(),
	}
	h.signHeaders(c, &out)

	url := "https://" + d.Origin + target
	timeout := time.Duration(d.TimeoutMS) * time.Millisecond
	if h.Config.UpstreamTimeout > 0 && timeout > h.Config.UpstreamTimeout {
		timeout = h.Config.UpstreamTimeout
	}
	return Plan{Forward: &Forward{Method: req.Method, URL: url, Header: out, Timeout: timeout, WebSocket: ws}}
}

// dropForUpstream reports whether a received header stays behind. Names with an underscore
// go too, as nginx drops them by default: CGI-style stacks read X_Forwarded_Host and
// X-Forwarded-Host alike (both become HTTP_X_FORWARDED_HOST), so an underscore spelling would
// slip past every reserved-name comparison below.
func dropForUpstream(name string, connListed []string) bool {
	if isHopByHop(name) || route.IsContextHeader(name) || strings.IndexByte(name, '_') >= 0 {
		return true
	}
	l := strings.ToLower(name)
	if strings.HasPrefix(l, "x-forwarded-") || l == "forwarded" || l == "x-real-ip" ||
		l == "host" || l == "x-request-id" {
		return true
	}
	for _, c := range connListed {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}
