package route

// Signer is Context.Sign and Context.SetHeaders for one key, for a Worker that signs every
// request it forwards: the key is prepared once (newKeyed: a pool of keyed MACs natively; in
// the Worker the runtime keys its own on each call), where Sign keys a new MAC per call. It is
// safe for concurrent use. Verifier is its counterpart on the router's side.
type Signer struct {
	mac keyed
}

// NewSigner returns a Signer for secret, which must not be empty (an empty key makes
// signatures anyone can make); it keeps secret as given.
func NewSigner(secret []byte) (*Signer, error) {
	if len(secret) == 0 {
		return nil, errEmptySecret
	}
	return &Signer{mac: newKeyed(secret)}, nil
}

// Sign is c.Sign(secret).
func (s *Signer) Sign(c Context) string { return signature(s.mac.sum(c.canonical())) }

// SetHeaders is c.SetHeaders(h, secret).
func (s *Signer) SetHeaders(c Context, h HeaderSetter) { c.setHeaders(h, s.Sign(c)) }
