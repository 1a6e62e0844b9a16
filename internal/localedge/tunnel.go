package localedge

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	edgeruntime "github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/runtime"
)

// routerServiceLabel is the first DNS label of the router's in-cluster service. An ingress
// service whose host starts with it ("http://kamuidash-router.kamuidash-system.svc.cluster.local:8080")
// is delivered to the router the local edge started (--router).
const routerServiceLabel = "kamuidash-router"

// tunnelHandler receives every outbound fetch of the Workers (host.mjs sends them here with
// the hostname in runtime.OriginHostHeader) and delivers it the way the tunnel would:
//
//   - the hostname must have a CNAME on the zone to <tunnel-id> + the tunnel target suffix;
//   - the tunnel's ingress rules are tried in order (hostname, then path regex); the first
//     match names the service; the catch-all rule comes last;
//   - service "http_status:N" answers N; a service on loopback is used as is; a service
//     whose host starts with "kamuidash-router." goes to the local router;
//     anything else (an in-cluster address) is unreachable locally: 502 saying so.
//
// A fetch to a loopback address passes through; any other host gets 502: the local edge
// never reaches beyond this machine.
//
// A fetch to a hostname proxied on the zone (a proxied tunnel CNAME) first goes through the
// emulated zone cache, as it would through the zone's cache on Cloudflare (see zoneCache);
// loopback pass-through is not on the zone and is never cached.
type tunnelHandler struct {
	api       *cfapi.Server
	routerURL func() string // "" when the router is not running
	cache     *zoneCache    // nil: no zone cache
	proxy     *httputil.ReverseProxy
}

type tunnelTargetKey struct{}

func newTunnelHandler(api *cfapi.Server, routerURL func() string, cache *zoneCache) *tunnelHandler {
	h := &tunnelHandler{api: api, routerURL: routerURL, cache: cache}
	h.proxy = &httputil.ReverseProxy{
		FlushInterval: -1, // stream (server-sent events, long polls) as the bytes come
		Rewrite: func(pr *httputil.ProxyRequest) {
			target, ok := pr.In.Context().Value(tunnelTargetKey{}).(*url.URL)
			if !ok {
				// deliver always sets one. Without it the outgoing URL has no scheme or host:
				// the transport refuses it and ErrorHandler answers 502.
				return
			}
			pr.SetURL(target)
			// cloudflared keeps the public Host and what the Worker set in X-Forwarded-*.
			pr.Out.Host = pr.In.Host
			pr.Out.Header["X-Forwarded-For"] = pr.In.Header["X-Forwarded-For"]
			pr.Out.Header["X-Forwarded-Host"] = pr.In.Header["X-Forwarded-Host"]
			pr.Out.Header["X-Forwarded-Proto"] = pr.In.Header["X-Forwarded-Proto"]
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			fixed(w, http.StatusBadGateway, "Bad gateway: the tunnel's origin service did not answer.")
		},
	}
	return h
}

func (h *tunnelHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	originHost := r.Header.Get(edgeruntime.OriginHostHeader)
	scheme := r.Header.Get(edgeruntime.OriginSchemeHeader)
	r.Header.Del(edgeruntime.OriginHostHeader)
	r.Header.Del(edgeruntime.OriginSchemeHeader)
	if originHost == "" {
		fixed(w, http.StatusBadRequest, "Not a Worker's outbound fetch.")
		return
	}
	if scheme != "http" {
		scheme = "https"
	}
	r.Host = originHost
	if _, proxied := h.tunnelFor(normalizeHost(originHost)); proxied && h.cache != nil {
		u := &url.URL{Scheme: scheme, Host: originHost, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
		h.cache.serve(w, r, u, http.HandlerFunc(h.deliver))
		return
	}
	h.deliver(w, r)
}

// deliver hands a fetch to the service the tunnel's ingress names for its host.
func (h *tunnelHandler) deliver(w http.ResponseWriter, r *http.Request) {
	originHost := r.Host
	target, status, problem := h.resolve(originHost, r.URL.Path)
	if target == nil {
		if problem != "" {
			fixed(w, status, problem)
		} else {
			w.WriteHeader(status)
		}
		return
	}
	r = r.WithContext(contextWith(r, target))
	h.proxy.ServeHTTP(w, r)
}

// resolve returns where a fetch to originHost goes, or a status (and a message) to answer.
func (h *tunnelHandler) resolve(originHost, path string) (*url.URL, int, string) {
	host := normalizeHost(originHost)
	tunnelID, _ := h.tunnelFor(host)
	if tunnelID == "" {
		if isLoopback(host) {
			return &url.URL{Scheme: "http", Host: originHost}, 0, ""
		}
		return nil, http.StatusBadGateway, "Bad gateway: " + host + " is neither a tunnel hostname on the local zone nor loopback; the local edge reaches nothing else."
	}
	t, ok := h.api.Tunnel(tunnelID)
	if !ok || t.Config == nil || len(t.Config.Ingress) == 0 {
		return nil, http.StatusBadGateway, "Bad gateway: the tunnel for " + host + " has no ingress configuration."
	}
	for _, rule := range t.Config.Ingress {
		if !ingressHostMatches(rule.Hostname, host) || !ingressPathMatches(rule.Path, path) {
			continue
		}
		return h.serviceTarget(rule.Service)
	}
	return nil, http.StatusBadGateway, "Bad gateway: no ingress rule of the tunnel matches " + host + "."
}

// tunnelFor finds the CNAME routing host into a tunnel ("" when there is none) and whether
// it is proxied (its traffic goes through the zone, and so through the zone cache).
func (h *tunnelHandler) tunnelFor(host string) (tunnelID string, proxied bool) {
	for _, rec := range h.api.DNSRecords() {
		if rec.Type != "CNAME" || normalizeHost(rec.Name) != host {
			continue
		}
		if id, ok := strings.CutSuffix(strings.ToLower(rec.Content), kdcf.TunnelTargetSuffix); ok && id != "" {
			return id, rec.Proxied
		}
	}
	return "", false
}

// serviceTarget maps an ingress service to this machine (see tunnelHandler).
func (h *tunnelHandler) serviceTarget(service string) (*url.URL, int, string) {
	if code, ok := strings.CutPrefix(service, "http_status:"); ok {
		n, err := strconv.Atoi(code)
		if err != nil || n < 100 || n > 599 {
			return nil, http.StatusBadGateway, "Bad gateway: the ingress rule has an invalid http_status service."
		}
		return nil, n, ""
	}
	u, err := url.Parse(service)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, http.StatusBadGateway, "Bad gateway: the local edge cannot deliver to ingress service " + strconv.Quote(service) + "."
	}
	if u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
		// As cloudflared, which refuses such an ingress rule when it loads the configuration.
		return nil, http.StatusBadGateway, "Bad gateway: ingress service " + strconv.Quote(service) + " has a path; cloudflared refuses one, even \"/\"."
	}
	host := normalizeHost(u.Host)
	switch {
	case strings.HasPrefix(host, routerServiceLabel+"."):
		router := h.routerURL()
		if router == "" {
			return nil, http.StatusBadGateway, "Bad gateway: the ingress goes to the router, which is not running (start the local edge with --router, and upload a Worker with a SIGNING_SECRET)."
		}
		target, _ := url.Parse(router)
		return target, 0, ""
	case isLoopback(host):
		return &url.URL{Scheme: u.Scheme, Host: u.Host}, 0, ""
	}
	return nil, http.StatusBadGateway, "Bad gateway: ingress service " + u.Host + " is not reachable from the local edge (only loopback services and the router are)."
}

// ingressHostMatches follows cloudflared: an empty hostname (or "*") matches everything, a
// leading "*." matches any subdomain.
func ingressHostMatches(pattern, host string) bool {
	pattern = normalizeHost(pattern)
	switch {
	case pattern == "" || pattern == "*":
		return true
	case strings.HasPrefix(pattern, "*."):
		return strings.HasSuffix(host, pattern[1:])
	}
	return pattern == host
}

// ingressPathMatches follows cloudflared: the path is a regular expression; a bad one never
// matches.
func ingressPathMatches(pattern, path string) bool {
	if pattern == "" {
		return true
	}
	re, err := regexp.Compile(pattern)
	return err == nil && re.MatchString(path)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// contextWith carries the resolved target from ServeHTTP to the proxy's Rewrite.
func contextWith(r *http.Request, target *url.URL) context.Context {
	return context.WithValue(r.Context(), tunnelTargetKey{}, target)
}
