package route

import (
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"strconv"
	"time"
)

// The propagation probe lets a deployment tool ask the edge whether it already serves a given
// revision for a host, without the edge revealing what it serves. A GET of ProbePath on the
// host, carrying ExpectRevHeader and a probe signature (Probe.SetHeaders), is answered by the
// Worker itself (never forwarded, never served from the content cache) after resolving the host
// the way a real request would (memo, route cache, KV). The answer is 204 with RevMatchHeader set
// to one of the RevMatch values.
//
// Only a signed probe is answered. A revision is a hash of a record whose fields are mostly
// guessable (app, origin, namespace/service/port, timeout, status), so an unsigned probe would
// be an oracle: hash candidates offline, ask until the edge says "match", and learn an app's
// placement or which app a custom domain maps to. Any other request of the path, with a
// missing, wrong, stale or other host's signature, is an ordinary request of that URL and gets
// exactly what one gets.
const (
	ProbePath            = "/.well-known/kamui/route"
	ExpectRevHeader      = "Kamui-Expect-Rev"
	RevMatchHeader       = "Kamui-Rev-Match"
	ProbeTimeHeader      = "Kamui-Probe-Time"
	ProbeSignatureHeader = "Kamui-Probe-Signature"
)

// The probe's answers in RevMatchHeader.
const (
	// RevMatchRecord: the host's route record has the expected revision.
	RevMatchRecord = "record"
	// RevMatchMapping: the host's custom domain mapping has the expected revision, and the app
	// it names has a route record.
	RevMatchMapping = "mapping"
	// RevMatchMappingNoRecord: the host's custom domain mapping has the expected revision, but
	// the app it names has no route record, so visitors get the edge's 404. Not a match: a
	// verification must not pass while visitors get 404 (the record may still be on its way,
	// or the mapping names an app that does not exist).
	RevMatchMappingNoRecord = "mapping-no-record"
	// RevMatchNone: the edge serves something else for the host (or nothing).
	RevMatchNone = "none"
)

// ProbeKeyBytes is the length of a probe key.
const ProbeKeyBytes = 32

// probeKeyInfo labels the probe key's derivation, so that it is a key of its own: it signs
// probes and nothing else, and holding it opens no request context.
const probeKeyInfo = "kamuidash propagation probe key v1"

// ProbeKey derives the key that signs propagation probes from the environment's signing secret
// (HKDF-SHA256 with its own label). The Worker derives it from its SIGNING_SECRET binding; the
// provider is given the derived key, never the signing secret, so a tool that can probe cannot
// sign a request context.
//
// The derivation is RFC 5869 written out for one output block (extract with an all-zero salt,
// then expand info‖0x01) on the package's HMAC (digest.go), not crypto/hkdf, so that the Worker
// derives it with the runtime's HMAC and no standard-library crypto in its Wasm.
// TestProbeKeyIsHKDF holds it to crypto/hkdf's output.
func ProbeKey(signingSecret []byte) []byte {
	prk := hmacSHA256(make([]byte, digestSize), signingSecret)
	okm := hmacSHA256(prk[:], append([]byte(probeKeyInfo), 1))
	return okm[:ProbeKeyBytes]
}

// Probe is one propagation probe: the host asked about, the revision expected and when.
type Probe struct {
	Host      string // normalised public host
	ExpectRev string
	Time      time.Time // truncated to whole seconds on the wire
}

// canonical is the signed message: the probe's own label, the fixed method and path, host,
// expected revision and time, length-prefixed like a context.
func (p Probe) canonical() []byte {
	return lengthPrefixed("kamui-probe-v1", "GET", ProbePath, p.Host, p.ExpectRev, strconv.FormatInt(p.Time.Unix(), 10))
}

// Sign returns the signature header value for p under key.
func (p Probe) Sign(key []byte) string { return signature(hmacSHA256(key, p.canonical())) }

// SetHeaders writes the probe's expected revision, time and signature into h.
func (p Probe) SetHeaders(h HeaderSetter, key []byte) {
	h.Set(ExpectRevHeader, p.ExpectRev)
	h.Set(ProbeTimeHeader, strconv.FormatInt(p.Time.Unix(), 10))
	h.Set(ProbeSignatureHeader, p.Sign(key))
}

// VerifyProbe checks the probe in h for host (normalised, as the request was received) under
// key, within maxSkew of now (DefaultMaxSkew if zero), and returns the expected revision.
// Errors wrap the same causes as VerifyHeaders.
func VerifyProbe(h HeaderGetter, host string, key []byte, now time.Time, maxSkew time.Duration) (string, error) {
	sig := h.Get(ProbeSignatureHeader)
	if sig == "" {
		return "", ErrSignatureMissing
	}
	if len(key) == 0 {
		return "", errors.New("route: empty probe key")
	}
	secs, ok := parseUnixSeconds(h.Get(ProbeTimeHeader))
	rev := h.Get(ExpectRevHeader)
	if !ok || rev == "" {
		return "", ErrContextMalformed
	}
	p := Probe{Host: host, ExpectRev: rev, Time: time.Unix(secs, 0)}
	// The signature's text is compared, in constant time, with the one the probe should carry:
	// the same check as decoding it first, with no hex decoder in the Worker's Wasm.
	if subtle.ConstantTimeCompare([]byte(sig), []byte(p.Sign(key))) != 1 {
		return "", ErrSignatureInvalid
	}
	if err := checkAge(p.Time, now, maxSkew); err != nil {
		return "", err
	}
	return rev, nil
}

// EncodeProbeKey and DecodeProbeKey are the probe key's text form (lower-case hex), as the
// provider setting and the local edge's env file carry it.
func EncodeProbeKey(key []byte) string { return hex.EncodeToString(key) }

// DecodeProbeKey parses a probe key's text form. Its error never contains the input.
func DecodeProbeKey(s string) ([]byte, error) {
	k, err := hex.DecodeString(s)
	if err != nil || len(k) != ProbeKeyBytes {
		return nil, errors.New("a probe key is " + strconv.Itoa(2*ProbeKeyBytes) + " hexadecimal characters")
	}
	return k, nil
}
