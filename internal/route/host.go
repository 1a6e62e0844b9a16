package route

import "strings"

// MaxHostLength is the longest DNS name, in its textual form without the trailing dot.
const MaxHostLength = 253

// NormalizeHost turns a Host header (or a configured hostname) into the one form used as a KV
// key and cache key: lower-case, without port and trailing dot. Anything that is not a valid DNS
// name is refused with ErrInvalidHost: IP literals, empty labels, characters outside
// [a-z0-9-], labels over 63 bytes, a numeric top-level label. The error never contains the input,
// so a caller may log it without reflecting client data.
func NormalizeHost(raw string) (string, error) {
	h := raw
	if strings.HasPrefix(h, "[") {
		return "", fieldErr("host", ErrInvalidHost, "IP literal")
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		if !isPort(h[i+1:]) {
			return "", fieldErr("host", ErrInvalidHost, "bad port")
		}
		h = h[:i]
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > MaxHostLength {
		return "", fieldErr("host", ErrInvalidHost, "empty or too long")
	}
	h = lowerASCII(h)
	// Label by label, without splitting: a request's host is checked on every request, by the
	// Worker and by the router, and a split allocates.
	last := ""
	for rest, more := h, true; more; {
		last, rest, more = strings.Cut(rest, ".")
		if !IsDNSLabel(last) {
			return "", fieldErr("host", ErrInvalidHost, "bad label")
		}
	}
	if isAllDigits(last) {
		return "", fieldErr("host", ErrInvalidHost, "numeric top-level label")
	}
	return h, nil
}

// lowerASCII lower-cases the ASCII letters of s by hand: strings.ToLower would also fold
// non-ASCII letters into valid-looking names (and any byte outside ASCII is refused anyway).
// A host already in lower case, as nearly every one is, comes back as it is, with no copy.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + ('a' - 'A')
				}
			}
			return string(b)
		}
	}
	return s
}

// IsDNSLabel reports whether s is a lower-case DNS label: 1–63 bytes of [a-z0-9-], not starting
// or ending with a hyphen. App names, Kubernetes namespaces and services follow the same rule.
func IsDNSLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func isPort(s string) bool {
	if s == "" || len(s) > 5 || !isAllDigits(s) {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n >= 1 && n <= 65535
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// ApexApp is the app that serves the platform domain's apex (e.g. "kamui.app" itself). It is
// reserved: no tenant app may take the name.
const ApexApp = "apex"

// ReservedAppNames are app names the platform keeps for itself.
var ReservedAppNames = []string{ApexApp, "www", "api", "internal", "kamui-internal"}

// IsReservedAppName reports whether name is kept by the platform.
func IsReservedAppName(name string) bool {
	for _, r := range ReservedAppNames {
		if name == r {
			return true
		}
	}
	return false
}

// PlatformApp classifies a normalised host against the normalised platform domain.
//
// A platform host names its app itself, so the Worker needs no DOMAINS read for it:
// "<app>.<platform>" gives app, the apex gives ApexApp. isPlatform is true for every host at or
// under the platform domain; for one that cannot be an app (deeper subdomains, reserved names)
// app is "" and the host is unknown without any KV read. Every other host is a custom domain
// (isPlatform false) and is looked up in DOMAINS.
func PlatformApp(host, platformDomain string) (app string, isPlatform bool) {
	if platformDomain == "" {
		return "", false
	}
	if host == platformDomain {
		return ApexApp, true
	}
	label, ok := strings.CutSuffix(host, "."+platformDomain)
	if !ok {
		return "", false
	}
	if !IsDNSLabel(label) || IsReservedAppName(label) {
		return "", true
	}
	return label, true
}

// PlatformHostname is the platform host that serves app.
func PlatformHostname(app, platformDomain string) string {
	if app == ApexApp {
		return platformDomain
	}
	return app + "." + platformDomain
}
