package localedge

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// Miniflare's entry worker reads these: the worker to run and the URL the Worker sees.
const (
	headerRouteOverride = "MF-Route-Override"
	headerOriginalURL   = "MF-Original-URL"
)

// edgeHandler receives public traffic on --edge and hands each request to the Worker its Host
// routes to (see scriptFor), inside workerd; anything else gets a fixed 404.
type edgeHandler struct {
	api        *cfapi.Server
	runtimeURL func() string
	isLoaded   func(script string) bool // whether workerd runs the script now
	proxy      *httputil.ReverseProxy
}

// newEdgeHandler builds the handler; gate tells it when workerd restarts (see reload.go).
func newEdgeHandler(api *cfapi.Server, runtimeURL func() string, isLoaded func(string) bool, gate *reloadGate) *edgeHandler {
	h := &edgeHandler{api: api, runtimeURL: runtimeURL, isLoaded: isLoaded}
	h.proxy = &httputil.ReverseProxy{
		Transport:     &reloadTransport{base: cleanhttp.DefaultPooledTransport(), gate: gate, runtimeURL: runtimeURL},
		FlushInterval: -1, // stream (server-sent events, long polls) as the bytes come
		Rewrite: func(pr *httputil.ProxyRequest) {
			target, _ := url.Parse(h.runtimeURL())
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host
			// The Worker sees the public URL; X-Forwarded-* stay as the client sent them, as on
			// Cloudflare where the Worker gets the client's request.
			pr.Out.Header["X-Forwarded-For"] = pr.In.Header["X-Forwarded-For"]
			pr.Out.Header["X-Forwarded-Host"] = pr.In.Header["X-Forwarded-Host"]
			pr.Out.Header["X-Forwarded-Proto"] = pr.In.Header["X-Forwarded-Proto"]
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			fixed(w, http.StatusBadGateway, "Bad gateway: the local Workers runtime did not answer.")
		},
	}
	return h
}

func (h *edgeHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A client must not pick the worker or the URL the runtime sees.
	for name := range r.Header {
		if strings.HasPrefix(strings.ToLower(name), "mf-") {
			r.Header.Del(name)
		}
	}
	host := normalizeHost(r.Host)
	zone, hostnames := h.api.Identity().ZoneName, h.api.CustomHostnames()
	if pendingCustomHostname(host, zone, hostnames) {
		// Cloudflare answers a custom hostname it cannot route yet (ownership not validated,
		// or the zone's fallback origin not active) with error 1016, Origin DNS error, as an
		// HTTP 530 (Cloudflare for SaaS troubleshooting); the Worker never sees the request.
		// Hosts that are not registered at all never reach the zone and keep the 404 below.
		fixed(w, statusOriginDNSError, "error code: 1016 (Origin DNS error): the custom hostname is not active on this zone yet "+
			"(its ownership is not validated, or the zone has no active fallback origin).")
		return
	}
	script := scriptFor(host, r.URL.Path, zone, h.api.Routes(), hostnames)
	if script == "" {
		fixed(w, http.StatusNotFound, "Not found: no Worker route matches this host on the local edge.")
		return
	}
	if _, ok := h.api.Script(script); !ok {
		fixed(w, http.StatusInternalServerError, "Worker not found: a route names a script that was never uploaded.")
		return
	}
	if h.runtimeURL() == "" {
		fixed(w, http.StatusServiceUnavailable, "The local Workers runtime is still starting.")
		return
	}
	if !h.isLoaded(script) {
		fixed(w, http.StatusInternalServerError, "Worker not running: it is still loading, or workerd refused it (see the local edge's log).")
		return
	}
	r.Header.Set(headerRouteOverride, script)
	r.Header.Set(headerOriginalURL, "http://"+r.Host+r.URL.RequestURI())
	h.proxy.ServeHTTP(w, r)
}

// statusOriginDNSError is the HTTP status of Cloudflare's 1016 error page.
const statusOriginDNSError = 530

// pendingCustomHostname reports whether host, outside the zone, is a registered custom hostname
// that is not active.
func pendingCustomHostname(host, zone string, hostnames []cfapi.CustomHostnameStatus) bool {
	if host == zone || strings.HasSuffix(host, "."+zone) {
		return false
	}
	for _, h := range hostnames {
		if strings.EqualFold(h.Hostname, host) {
			return h.Status != "active"
		}
	}
	return false
}

// fixed writes a short fixed answer that never reflects the request.
func fixed(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text + "\n"))
}
