package localedge

import (
	"net"
	"strings"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// scriptFor decides which Worker serves a request, the way Cloudflare does for one zone:
//
//   - a host outside the zone is served only when it is an active custom hostname (Cloudflare
//     for SaaS); any other host never reaches this zone;
//   - the most specific Worker route whose pattern matches host and path wins (an exact host
//     beats a wildcard, a longer pattern beats a shorter one); a route without a script
//     exempts what it matches;
//   - a custom hostname no route matches by its own name is tried under its
//     custom_origin_server, which is where Cloudflare would send its traffic on the zone.
//
// It returns "" when no Worker runs for the request.
func scriptFor(host, path, zone string, routes []cfapi.Route, hostnames []cfapi.CustomHostnameStatus) string {
	inZone := host == zone || strings.HasSuffix(host, "."+zone)
	var custom *cfapi.CustomHostnameStatus
	if !inZone {
		for i := range hostnames {
			if strings.EqualFold(hostnames[i].Hostname, host) && hostnames[i].Status == "active" {
				custom = &hostnames[i]
				break
			}
		}
		if custom == nil {
			return ""
		}
	}
	if r, ok := bestRoute(host, path, routes); ok {
		return r.Script
	}
	if custom != nil && custom.CustomOriginServer != "" {
		if r, ok := bestRoute(normalizeHost(custom.CustomOriginServer), path, routes); ok {
			return r.Script
		}
	}
	return ""
}

// bestRoute returns the most specific route matching host and path.
func bestRoute(host, path string, routes []cfapi.Route) (cfapi.Route, bool) {
	var best cfapi.Route
	bestScore := -1
	for _, r := range routes {
		if score, ok := matchPattern(r.Pattern, host, path); ok && score > bestScore {
			best, bestScore = r, score
		}
	}
	return best, bestScore >= 0
}

// matchPattern matches a Workers route pattern ("*.example.com/*", "example.com/api/*",
// "*example.com/*"): a leading "*" in the host matches any prefix, a trailing "*" in the path
// any suffix. The score ranks specificity: exact hosts first, then longer patterns.
func matchPattern(pattern, host, path string) (int, bool) {
	p := strings.TrimPrefix(strings.TrimPrefix(pattern, "https://"), "http://")
	hostPattern, pathPattern, hasPath := strings.Cut(p, "/")
	pathPattern = "/" + pathPattern
	if !hasPath {
		pathPattern = "/"
	}
	hostPattern = strings.ToLower(hostPattern)
	score := len(hostPattern) + len(pathPattern)
	switch {
	case strings.HasPrefix(hostPattern, "*"):
		if !strings.HasSuffix(host, hostPattern[1:]) {
			return 0, false
		}
	case hostPattern == host:
		score += 1 << 20
	default:
		return 0, false
	}
	if prefix, wildcard := strings.CutSuffix(pathPattern, "*"); wildcard {
		if !strings.HasPrefix(path, prefix) {
			return 0, false
		}
	} else if path != pathPattern {
		return 0, false
	}
	return score, true
}

// normalizeHost lower-cases a Host header and strips its port and trailing dot.
func normalizeHost(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.TrimSuffix(strings.ToLower(h), ".")
}
