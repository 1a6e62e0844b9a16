package route

import (
	"encoding/json"
	"strconv"
)

// A reader takes its fast path (decodeContent, DecodeSiteManifest) only for a value that is
// byte for byte its canonical encoding: what encoding/json writes. In the Worker that check
// runs in the pass after a record's or a manifest's read, cold, after an I/O wait, where
// encoding/json's reflective encoder cost more than the few lines it takes for the contract's
// own types (docs/PERFORMANCE.md, "The Go work on the cold path"). These functions append the
// same bytes without reflection.
//
// They must equal json.Marshal for every value, not only for the values the provider writes:
// the fast path's rev check hashes what they write, so a difference would let a value through
// that the strict path refuses. Equal by construction: the keys, their order and omitempty are
// the struct tags' (TestCanonicalEncodingsFollowTheTags fails when a field is added here and
// not there), integers are strconv's, and a string with anything encoding/json escapes is
// handed to encoding/json itself. FuzzCanonicalEncodings compares them with json.Marshal.

// appendCanonical appends r's canonical encoding, Rev as it is.
func (r *Record) appendCanonical(b []byte) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(r.V), 10)
	b = appendKeyString(b, `,"app":`, r.App)
	b = appendKeyString(b, `,"status":`, string(r.Status))
	b = appendKeyString(b, `,"kind":`, string(r.Kind))
	if d := r.Dynamic; d != nil {
		b = appendKeyString(b, `,"dynamic":{"origin":`, d.Origin)
		b = appendKeyString(b, `,"upstream":`, d.Upstream)
		b = append(b, `,"timeout_ms":`...)
		b = strconv.AppendInt(b, int64(d.TimeoutMS), 10)
		b = append(b, '}')
	}
	if s := r.Static; s != nil {
		b = appendKeyString(b, `,"static":{"prefix":`, s.Prefix)
		b = appendKeyString(b, `,"index":`, s.Index)
		b = appendKeyString(b, `,"not_found":`, s.NotFound)
		b = append(b, `,"spa":`...)
		b = strconv.AppendBool(b, s.SPA)
		if s.Manifest != "" {
			b = appendKeyString(b, `,"manifest":`, s.Manifest)
		}
		b = append(b, '}')
	}
	b = appendKeyString(b, `,"rev":`, r.Rev)
	return append(b, '}')
}

// appendCanonical appends m's canonical encoding, Rev as it is.
func (m *DomainMapping) appendCanonical(b []byte) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(m.V), 10)
	b = appendKeyString(b, `,"app":`, m.App)
	b = appendKeyString(b, `,"status":`, string(m.Status))
	b = appendKeyString(b, `,"rev":`, m.Rev)
	return append(b, '}')
}

// appendCanonical appends m's canonical encoding: the files in the order of their paths'
// bytes, as encoding/json sorts a map's keys.
func (m *SiteManifest) appendCanonical(b []byte) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(m.V), 10)
	if len(m.Files) > 0 {
		b = m.appendFiles(append(b, `,"files":{`...))
	}
	if m.Shards != 0 {
		b = append(b, `,"shards":`...)
		b = strconv.AppendInt(b, int64(m.Shards), 10)
	}
	return append(b, '}')
}

// appendFiles appends the files of m, and the brace that closes them.
func (m *SiteManifest) appendFiles(b []byte) []byte {
	paths := make([]string, 0, len(m.Files))
	for p := range m.Files {
		paths = append(paths, p)
	}
	for i, p := range sortStrings(paths) {
		if i > 0 {
			b = append(b, ',')
		}
		f := m.Files[p]
		b = appendString(b, p)
		b = appendKeyString(b, `:{"object":`, f.Object)
		b = appendKeyString(b, `,"type":`, f.Type)
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, f.Size, 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

// canonicalEncoder is a contract type with its own canonical encoder.
type canonicalEncoder interface {
	appendCanonical(b []byte) []byte
}

func appendKeyString(b []byte, key, s string) []byte {
	return appendString(append(b, key...), s)
}

// AppendJSONString appends s as encoding/json writes it (appendString), for the Worker's
// encoders of its own values.
func AppendJSONString(b []byte, s string) []byte { return appendString(b, s) }

// appendString appends s as encoding/json writes it. A string of printable ASCII without the
// characters it escapes (the quote, the backslash, and <, > and & for HTML) is written as it
// is; anything else goes through encoding/json, so that its escapes are encoding/json's own.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, err := json.Marshal(s)
			if err != nil {
				panic("route: a string always marshals: " + err.Error())
			}
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// sortStrings sorts s in byte order, as encoding/json sorts a map's keys, and returns the
// sorted slice (s or a slice of the same length). Not slices.Sort: its instantiation for
// strings, which nothing else in the Worker uses, is 18 KB of the Wasm; a merge sort of a few
// lines is as fast for the paths of a manifest.
func sortStrings(s []string) []string {
	other := make([]string, len(s))
	for width := 1; width < len(s); width *= 2 {
		for lo := 0; lo < len(s); lo += 2 * width {
			mid, hi := min(lo+width, len(s)), min(lo+2*width, len(s))
			i, j, k := lo, mid, lo
			for ; i < mid && j < hi; k++ {
				if s[j] < s[i] {
					other[k], j = s[j], j+1
				} else {
					other[k], i = s[i], i+1
				}
			}
			k += copy(other[k:], s[i:mid])
			copy(other[k:], s[j:hi])
		}
		s, other = other, s
	}
	return s
}
