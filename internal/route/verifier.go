package route

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"hash"
	"sync"
	"time"
)

// Verifier is VerifyHeadersWithKeys for a fixed set of keys, for a server that verifies every
// request it receives: each key's MAC is keyed once and reused (hmac.New allocates and hashes
// the key's pad for every call). It is safe for concurrent use.
type Verifier struct {
	keys [][]byte
	macs []sync.Pool // per key: hash.Hash keyed with it, reset after each use
}

// NewVerifier returns a Verifier for keys, which must be non-empty each (see
// VerifyHeadersWithKeys); it keeps keys as given.
func NewVerifier(keys [][]byte) (*Verifier, error) {
	if len(keys) == 0 {
		return nil, errors.New("route: no signing secret")
	}
	v := &Verifier{keys: keys, macs: make([]sync.Pool, len(keys))}
	for i, k := range keys {
		if len(k) == 0 {
			return nil, errors.New("route: empty signing secret")
		}
		v.macs[i].New = func() any { return hmac.New(sha256.New, k) }
	}
	return v, nil
}

// VerifyHeaders is VerifyHeadersWithKeys under v's keys.
func (v *Verifier) VerifyHeaders(h HeaderGetter, method, target string, now time.Time, maxSkew time.Duration) (c Context, key int, err error) {
	return verifyHeaders(h, method, target, v.keys, v, now, maxSkew)
}

func (v *Verifier) get(i int) hash.Hash {
	return v.macs[i].Get().(hash.Hash) //nolint:forcetypeassert // the pool holds hash.Hash only
}

func (v *Verifier) put(i int, m hash.Hash) {
	m.Reset()
	v.macs[i].Put(m)
}
