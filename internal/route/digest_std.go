//go:build !(js && wasm && hostdigest)

package route

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"sync"
)

// sha256Sum is SHA-256 of b.
func sha256Sum(b []byte) [digestSize]byte { return sha256.Sum256(b) }

// hmacSHA256 is HMAC-SHA256 of msg under key.
func hmacSHA256(key, msg []byte) (sum [digestSize]byte) {
	mac := hmac.New(sha256.New, key)
	mac.Write(msg)
	mac.Sum(sum[:0])
	return sum
}

// pooledMACs hands out HMAC-SHA256 states keyed once and reset after each use: hmac.New
// allocates two SHA-256 states and hashes the key's pads on every call.
type pooledMACs struct{ pool sync.Pool }

func newKeyed(key []byte) keyed {
	m := new(pooledMACs)
	m.pool.New = func() any { return hmac.New(sha256.New, key) }
	return m
}

func (m *pooledMACs) sum(msg []byte) (sum [digestSize]byte) {
	mac := m.pool.Get().(hash.Hash) //nolint:forcetypeassert // the pool holds hash.Hash only
	mac.Write(msg)
	mac.Sum(sum[:0])
	mac.Reset()
	m.pool.Put(mac)
	return sum
}
