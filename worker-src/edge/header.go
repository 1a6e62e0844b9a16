package edge

import "strings"

// Field is one header line. Names keep the case they arrived with; lookups ignore case.
type Field struct{ Name, Value string }

// Header is an ordered header list. A slice rather than a map because the adapter builds
// it from a JS Headers iterator and repeated fields (Set-Cookie) must survive untouched.
type Header []Field

// Get returns the first value of name, or "".
func (h Header) Get(name string) string {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Has reports whether name is present at all (even with an empty value).
func (h Header) Has(name string) bool {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}

// Set replaces every value of name with value.
func (h *Header) Set(name, value string) {
	h.Del(name)
	*h = append(*h, Field{name, value})
}

// Add appends a value.
func (h *Header) Add(name, value string) { *h = append(*h, Field{name, value}) }

// Del removes every value of name.
func (h *Header) Del(name string) {
	out := (*h)[:0]
	for _, f := range *h {
		if !strings.EqualFold(f.Name, name) {
			out = append(out, f)
		}
	}
	*h = out
}

// Clone returns a copy that shares nothing with h.
func (h Header) Clone() Header { return append(Header(nil), h...) }

// tokens reports whether the comma-separated value of name contains token (case-insensitive),
// as in "Connection: keep-alive, Upgrade".
func (h Header) hasToken(name, token string) bool {
	for _, f := range h {
		if !strings.EqualFold(f.Name, name) {
			continue
		}
		for _, t := range strings.Split(f.Value, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// hopByHop are the RFC 9110 §7.6.1 connection-specific fields plus the legacy ones
// proxies still see; a new upstream request never inherits them.
var hopByHop = []string{
	"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
	"TE", "Trailer", "Transfer-Encoding", "Upgrade",
}

func isHopByHop(name string) bool {
	for _, n := range hopByHop {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}
