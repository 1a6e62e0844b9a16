package kvmigrate

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Entry is one KV pair as the migration sees it: the value's bytes, its metadata in canonical
// JSON (nil when the key has none) and its absolute expiration (seconds since the Unix epoch,
// zero for never).
type Entry struct {
	Value      []byte
	Metadata   json.RawMessage
	Expiration int64
}

// Hash is the content hash the migration compares keys by.
type Hash [sha256.Size]byte

// String is the hash's first 12 hex digits, enough to tell two versions apart in a report.
func (h Hash) String() string { return hex.EncodeToString(h[:6]) }

// Hash is SHA-256 over the length-prefixed value, the canonical metadata and the expiration,
// so two entries hash alike exactly when a Worker could not tell them apart. The prefix keeps
// the fields from running into each other ("ab"+"c" and "a"+"bc" differ).
func (e Entry) Hash() Hash {
	h := sha256.New()
	var n [8]byte
	field := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	h.Write([]byte("kamuidash-kv-entry-v1\x00"))
	field(e.Value)
	if e.Metadata == nil {
		h.Write([]byte{0})
	} else {
		h.Write([]byte{1})
		field(e.Metadata)
	}
	binary.BigEndian.PutUint64(n[:], uint64(e.Expiration))
	h.Write(n[:])
	var out Hash
	h.Sum(out[:0])
	return out
}

// canonicalMetadata returns raw as compact JSON with object keys sorted and numbers kept as
// written, so that the same metadata read from two namespaces (or listed and then read) gives
// the same bytes. JSON null and an empty input mean "no metadata" (nil).
func canonicalMetadata(raw []byte) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("metadata is not JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("metadata holds more than one JSON document")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// metadataRev returns the `rev` field of route-data metadata ({v, rev, owner}), "" when the
// metadata is not an object or has no string rev.
func metadataRev(meta json.RawMessage) string {
	if meta == nil {
		return ""
	}
	var m struct {
		Rev string `json:"rev"`
	}
	if json.Unmarshal(meta, &m) != nil {
		return ""
	}
	return m.Rev
}
