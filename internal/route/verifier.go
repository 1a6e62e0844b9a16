package route

import (
	"errors"
	"time"
)

// Verifier is VerifyHeadersWithKeys for a fixed set of keys, for a server that verifies every
// request it receives: each key's MAC is keyed once and reused (newKeyed). It is safe for
// concurrent use.
type Verifier struct {
	keys [][]byte
	macs []keyed // per key
}

// NewVerifier returns a Verifier for keys, which must be non-empty each (see
// VerifyHeadersWithKeys); it keeps keys as given.
func NewVerifier(keys [][]byte) (*Verifier, error) {
	if len(keys) == 0 {
		return nil, errors.New("route: no signing secret")
	}
	v := &Verifier{keys: keys, macs: make([]keyed, len(keys))}
	for i, k := range keys {
		if len(k) == 0 {
			return nil, errEmptySecret
		}
		v.macs[i] = newKeyed(k)
	}
	return v, nil
}

// VerifyHeaders is VerifyHeadersWithKeys under v's keys.
func (v *Verifier) VerifyHeaders(h HeaderGetter, method, target string, now time.Time, maxSkew time.Duration) (c Context, key int, err error) {
	return verifyHeaders(h, method, target, v.keys, v, now, maxSkew)
}

func (v *Verifier) sum(i int, msg []byte) [digestSize]byte { return v.macs[i].sum(msg) }
