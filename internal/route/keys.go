package route

import (
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"strings"
	"time"
)

// Rotating the signing secret. The Worker signs with one key; during a rotation the router
// verifies under two (the current one and the next), so the Worker can switch between them in
// a plan of its own, with no request signed by a key the router does not know.

// VerifyHeadersWithKeys is VerifyHeaders under several keys: the context verifies when its
// signature verifies under any of them, and key is the index of that key (-1 with an error).
// Every key is tried whichever matches, each compared in constant time, so the time taken
// says nothing about which key (if any) matched. Every key must be non-empty.
func VerifyHeadersWithKeys(h HeaderGetter, method, target string, keys [][]byte, now time.Time, maxSkew time.Duration) (c Context, key int, err error) {
	return verifyHeaders(h, method, target, keys, freshMACs(keys), now, maxSkew)
}

// macSource is HMAC-SHA256 of a message under keys[i].
type macSource interface {
	sum(i int, msg []byte) [digestSize]byte
}

// freshMACs keys a new MAC for every use.
type freshMACs [][]byte

func (k freshMACs) sum(i int, msg []byte) [digestSize]byte { return hmacSHA256(k[i], msg) }

// errEmptySecret refuses an empty key, which would accept signatures anyone can make.
var errEmptySecret = errors.New("route: empty signing secret")

// verifyHeaders is VerifyHeadersWithKeys with the MACs from macs.
func verifyHeaders(h HeaderGetter, method, target string, keys [][]byte, macs macSource,
	now time.Time, maxSkew time.Duration) (c Context, key int, err error) {
	sig := h.Get(HeaderContextSignature)
	if sig == "" {
		return Context{}, -1, ErrSignatureMissing
	}
	if len(keys) == 0 {
		return Context{}, -1, errors.New("route: no signing secret")
	}
	for _, k := range keys {
		if len(k) == 0 {
			return Context{}, -1, errEmptySecret
		}
	}
	secs, ok := parseUnixSeconds(h.Get(HeaderContextTime))
	if !ok {
		return Context{}, -1, ErrContextMalformed
	}
	c = Context{
		Method:    method,
		Host:      h.Get(HeaderHost),
		Target:    target,
		App:       h.Get(HeaderApp),
		Upstream:  h.Get(HeaderUpstream),
		RequestID: h.Get(HeaderRequestID),
		Time:      time.Unix(secs, 0),
	}
	if c.App == "" || c.Upstream == "" || c.RequestID == "" || c.Target == "" {
		return Context{}, -1, ErrContextMalformed
	}
	if host, err := NormalizeHost(c.Host); err != nil || host != c.Host {
		return Context{}, -1, ErrContextMalformed
	}
	got, ok := strings.CutPrefix(sig, signatureVersion)
	var gotMAC [digestSize]byte // decoded and summed into arrays: verifying allocates less
	if !ok || !decodeHex(gotMAC[:], got) {
		return Context{}, -1, ErrSignatureInvalid
	}
	msg := c.canonical()
	matched := -1
	for i := range keys {
		sum := macs.sum(i, msg)
		equal := subtle.ConstantTimeCompare(gotMAC[:], sum[:])
		first := equal & subtle.ConstantTimeEq(int32(matched), -1)
		matched = subtle.ConstantTimeSelect(first, i, matched)
	}
	if matched < 0 {
		return Context{}, -1, ErrSignatureInvalid
	}
	// Age is checked after the MAC, so an attacker learns nothing about timing windows from
	// unsigned garbage.
	if err := checkAge(c.Time, now, maxSkew); err != nil {
		return Context{}, -1, err
	}
	return c, matched, nil
}

// decodeHex decodes s, which must be exactly 2*len(dst) hex digits, into dst. It decodes in
// halves of at most 32 digits: converting a string that short to a []byte that does not escape
// needs no allocation (hex.DecodeString would make two per request).
func decodeHex(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	for len(s) > 0 {
		n := min(len(s), 32)
		if _, err := hex.Decode(dst, []byte(s[:n])); err != nil {
			return false
		}
		dst, s = dst[n/2:], s[n:]
	}
	return true
}
