package route

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"hash"
	"sync"
)

// Signer is Context.Sign and Context.SetHeaders for one key, for a Worker that signs every
// request it forwards: the MAC is keyed once and reused, where Sign keys a new one per call
// (hmac.New allocates two SHA-256 states and hashes the key's pads, which in the Worker's
// Wasm, without the host's SHA instructions, is most of a signature's cost). It is safe for
// concurrent use. Verifier is its counterpart on the router's side.
type Signer struct {
	macs sync.Pool // hash.Hash keyed with the secret, reset after each use
}

// NewSigner returns a Signer for secret, which must not be empty (an empty key makes
// signatures anyone can make); it keeps secret as given.
func NewSigner(secret []byte) (*Signer, error) {
	if len(secret) == 0 {
		return nil, errors.New("route: empty signing secret")
	}
	s := new(Signer)
	s.macs.New = func() any { return hmac.New(sha256.New, secret) }
	return s, nil
}

// Sign is c.Sign(secret).
func (s *Signer) Sign(c Context) string {
	mac := s.macs.Get().(hash.Hash) //nolint:forcetypeassert // the pool holds hash.Hash only
	sig := c.signWith(mac)
	mac.Reset()
	s.macs.Put(mac)
	return sig
}

// SetHeaders is c.SetHeaders(h, secret).
func (s *Signer) SetHeaders(c Context, h HeaderSetter) { c.setHeaders(h, s.Sign(c)) }
