package route

import (
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Headers of the resolved context the Worker sends to the router. The router refuses a request
// whose signature is missing, wrong or stale, and strips every header with HeaderPrefix before
// forwarding. The Worker drops every client-sent header with HeaderPrefix, so none of these can
// be forged from outside.
const (
	HeaderPrefix           = "Kamui-"
	HeaderHost             = "Kamui-Host"
	HeaderApp              = "Kamui-App"
	HeaderUpstream         = "Kamui-Upstream"
	HeaderRequestID        = "Kamui-Request-Id"
	HeaderContextTime      = "Kamui-Context-Time"
	HeaderContextSignature = "Kamui-Context-Signature"
)

// DefaultMaxSkew is how far the context time may be from the verifier's clock, either way.
const DefaultMaxSkew = 30 * time.Second

// signatureVersion prefixes every signature so the scheme can change without ambiguity.
const signatureVersion = "v1="

// Why a context was refused. The router logs the cause; the client only sees a fixed 403.
var (
	ErrSignatureMissing = errors.New("context signature missing")
	ErrSignatureInvalid = errors.New("context signature invalid")
	ErrContextMalformed = errors.New("context malformed")
	ErrContextStale     = errors.New("context stale")
	ErrContextFuture    = errors.New("context from the future")
)

// Context is the routing decision the Worker made for one request, as the router receives it.
//
// The Host the router sees is the tunnel's origin hostname (the Worker fetches the origin, and
// the connector keeps that Host), so the public host travels in HeaderHost, covered by the
// signature. Target binds the signature to one request target, so a captured header set cannot
// be replayed against another path within the skew window.
type Context struct {
	Method    string
	Host      string // normalised public host
	Target    string // request target as sent: path, then "?" and the query if any
	App       string
	Upstream  string // "namespace/service:port"
	RequestID string
	Time      time.Time // truncated to whole seconds on the wire
}

// HeaderGetter and HeaderSetter are the parts of a header map this package needs; net/http's
// Header satisfies both, and so does the Worker's own small header type.
type HeaderGetter interface{ Get(key string) string }
type HeaderSetter interface{ Set(key, value string) }

// Sign returns the signature header value for c under secret.
func (c Context) Sign(secret []byte) string { return signature(hmacSHA256(secret, c.canonical())) }

// signature is the header value of a MAC: the scheme's version, then the MAC in hex.
func signature(mac [digestSize]byte) string { return signatureVersion + hex.EncodeToString(mac[:]) }

// canonical is the signed message. Each field is length-prefixed, so no choice of values can
// make two different contexts produce the same bytes.
func (c Context) canonical() []byte {
	var unix [20]byte // the time's decimal digits, without a string of their own
	return lengthPrefixed("kamui-context-v1",
		c.Method, c.Host, c.Target, c.App, c.Upstream, c.RequestID,
		string(strconv.AppendInt(unix[:0], c.Time.Unix(), 10)))
}

// lengthPrefixed joins fields as "<len>:<field>" each, so no choice of values can make two
// different field lists produce the same bytes. The result is allocated once, at its size
// (this runs for every request the router verifies).
func lengthPrefixed(fields ...string) []byte {
	n := 0
	for _, f := range fields {
		n += len(f) + 1 + decimalDigits(len(f))
	}
	b := make([]byte, 0, n)
	for _, f := range fields {
		b = strconv.AppendInt(b, int64(len(f)), 10)
		b = append(b, ':')
		b = append(b, f...)
	}
	return b
}

// decimalDigits is the length of n (≥ 0) written in decimal.
func decimalDigits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// parseUnixSeconds parses a signed time: decimal seconds, no sign.
func parseUnixSeconds(ts string) (int64, bool) {
	secs, err := strconv.ParseInt(ts, 10, 64)
	return secs, err == nil && ts != "" && ts[0] != '+' && ts[0] != '-'
}

// checkAge refuses a signed time further than maxSkew (DefaultMaxSkew if zero) from now.
func checkAge(t, now time.Time, maxSkew time.Duration) error {
	if maxSkew <= 0 {
		maxSkew = DefaultMaxSkew
	}
	age := now.Sub(t)
	switch {
	case age > maxSkew:
		return ErrContextStale
	case age < -maxSkew:
		return ErrContextFuture
	}
	return nil
}

// SetHeaders writes c and its signature into h. Method and Target are not written: they are the
// forwarded request's own.
func (c Context) SetHeaders(h HeaderSetter, secret []byte) { c.setHeaders(h, c.Sign(secret)) }

func (c Context) setHeaders(h HeaderSetter, signature string) {
	h.Set(HeaderHost, c.Host)
	h.Set(HeaderApp, c.App)
	h.Set(HeaderUpstream, c.Upstream)
	h.Set(HeaderRequestID, c.RequestID)
	h.Set(HeaderContextTime, strconv.FormatInt(c.Time.Unix(), 10))
	h.Set(HeaderContextSignature, signature)
}

// VerifyHeaders rebuilds the context from h plus the request's own method and target (for a
// net/http server, r.Method and r.RequestURI: the target exactly as received), checks its
// signature in constant time and its age against now within maxSkew (DefaultMaxSkew if zero),
// and returns it. Errors wrap one of the ErrSignature*/ErrContext* causes.
func VerifyHeaders(h HeaderGetter, method, target string, secret []byte, now time.Time, maxSkew time.Duration) (Context, error) {
	// One key is the general case's (keys.go) first and only.
	c, _, err := VerifyHeadersWithKeys(h, method, target, [][]byte{secret}, now, maxSkew)
	return c, err
}

// IsContextHeader reports whether name (any case) is one of the platform's internal headers,
// which no client may send and no response may carry out.
func IsContextHeader(name string) bool {
	return len(name) >= len(HeaderPrefix) && strings.EqualFold(name[:len(HeaderPrefix)], HeaderPrefix)
}
