package cfapi

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// newID returns 32 lowercase hex characters, the shape of Cloudflare's account, zone, namespace
// and record identifiers (the OpenAPI description caps them at 32).
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// newUUID returns a random version-4 UUID, the shape of tunnel and certificate-pack ids.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// randomBytes returns n bytes from crypto/rand.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// newSecret returns n random bytes hex-encoded, for the API token.
func newSecret(n int) string { return hex.EncodeToString(randomBytes(n)) }
