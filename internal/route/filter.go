package route

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
)

// The name filter lets the Worker refuse an unknown host with no per-host KV read: on Cloudflare
// for SaaS every label under the platform's wildcard reaches the Worker, so a flood of random
// labels would otherwise cost one KV read each.
//
// Each namespace carries its own filter, under FilterKey in that namespace: ROUTES' holds every
// app name (its keys), DOMAINS' every mapped custom hostname (its keys). One filter per namespace,
// not one for both, because a resource knows only its own namespace, and the filter is rebuilt
// from that namespace's key listing alone; it also moves with its namespace in a migration. The
// Worker asks ROUTES' filter about the app a platform host names, DOMAINS' about a custom host.
//
// The filter is a Bloom filter (FilterBitsPerName bits and FilterHashes probes per name: about
// 0.8 % false positives, 1,000,000 names in 1,250,032 bytes). It is a binary value, written with
// KV's base64 bulk write and read by the Worker as an ArrayBuffer. Layout, little-endian:
//
//	0   4  magic "KDNF"
//	4   1  FilterSchemaVersion
//	5   1  k, the probes per name (1..16)
//	6   2  zero
//	8   8  seed of the name hash
//	16  4  n, the names it holds (informational)
//	20  4  w, the bit array's length in 64-bit words (m = 64·w bits, w ≥ 1)
//	24  8  checksum of bytes 0..24 and the bit array
//	32  8w the bit array: bit i is byte i/8, mask 1<<(i%8)
//
// A filter that is absent, of another schema version, or fails any check (length, magic,
// checksum) is no filter at all: the Worker then reads KV for every host as it would without one,
// never "refuse everything". The version is in the value, not in the key, so that a Worker that
// meets a newer schema says so (ErrFilterSchema) instead of silently finding nothing.
const (
	// FilterKey cannot be an app name (a DNS label) nor a custom hostname: '_' is in neither, so
	// it never collides with a resource's key. Readers of a namespace's listing skip it and its
	// companion (IsFilterKey).
	FilterKey = "_kamui-filter"
	// FilterRecentKey is the filter's companion in the same namespace: the keys written there in
	// the last few minutes, which a writer's own listing may not show yet (see the provider's
	// rebuild). Only the provider reads it; the Worker never does.
	FilterRecentKey     = "_kamui-filter-recent"
	FilterSchemaVersion = 1
	FilterHashes        = 7
	FilterBitsPerName   = 10
	filterMagic         = "KDNF"
	filterHeaderBytes   = 32
	// filterMinWords keeps a filter of a handful of names from being a few bits wide, where a
	// single collision would be a large false-positive rate.
	filterMinWords = 8
	// MaxFilterBytes is KV's value limit (25 MiB): about 20 million names.
	MaxFilterBytes = 25 << 20
)

// IsFilterKey reports whether a listed key is one of the filter's own (derived data, never an
// app or a host): readers of a namespace's listing skip them.
func IsFilterKey(name string) bool { return name == FilterKey || name == FilterRecentKey }

// The causes DecodeFilter fails with (errors.Is).
var (
	// ErrFilterSchema: the value is a name filter of another schema version.
	ErrFilterSchema = errors.New("name filter of another schema version")
	// ErrFilterCorrupt: the value is not a whole, intact name filter.
	ErrFilterCorrupt = errors.New("corrupt name filter")
)

// Filter is a decoded name filter. Its zero value is not usable; a nil *Filter is "no filter".
type Filter struct {
	k    uint32
	seed uint64
	n    uint32
	bits []byte
}

// BuildFilter returns the encoded filter of names (duplicates count once; the order does not
// matter). The same set of names always gives the same bytes: the seed is derived from the
// sorted names, so a rebuild that changes nothing writes nothing new, and two processes that
// list the same keys publish identical filters.
func BuildFilter(names []string) []byte {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	seed := uint64(0x6b616d7569646173) // "kamuidas"
	for _, s := range sorted {
		seed = fnv1a(seed, s)
		seed = fnv1a(seed, "\x00")
	}
	seed = mix64(seed)
	words := (len(sorted)*FilterBitsPerName + 63) / 64
	words = max(words, filterMinWords)
	b := make([]byte, filterHeaderBytes+8*words)
	copy(b, filterMagic)
	b[4] = FilterSchemaVersion
	b[5] = FilterHashes
	binary.LittleEndian.PutUint64(b[8:], seed)
	binary.LittleEndian.PutUint32(b[16:], uint32(len(sorted)))
	binary.LittleEndian.PutUint32(b[20:], uint32(words))
	f := &Filter{k: FilterHashes, seed: seed, n: uint32(len(sorted)), bits: b[filterHeaderBytes:]}
	m := uint64(len(f.bits)) * 8
	for _, s := range sorted {
		h1, h2 := filterHash(seed, s)
		for i := uint64(0); i < FilterHashes; i++ {
			bit := (h1 + i*h2) % m
			f.bits[bit>>3] |= 1 << (bit & 7)
		}
	}
	binary.LittleEndian.PutUint64(b[24:], filterChecksum(b))
	return b
}

// DecodeFilter checks and decodes an encoded filter. The returned Filter shares b's memory.
func DecodeFilter(b []byte) (*Filter, error) {
	if len(b) < filterHeaderBytes || string(b[:4]) != filterMagic {
		return nil, ErrFilterCorrupt
	}
	if b[4] != FilterSchemaVersion {
		return nil, ErrFilterSchema
	}
	k := uint32(b[5])
	words := binary.LittleEndian.Uint32(b[20:])
	if k < 1 || k > 16 || b[6] != 0 || b[7] != 0 || words < 1 || len(b) > MaxFilterBytes ||
		uint64(len(b)) != filterHeaderBytes+8*uint64(words) ||
		binary.LittleEndian.Uint64(b[24:]) != filterChecksum(b) {
		return nil, ErrFilterCorrupt
	}
	return &Filter{k: k, seed: binary.LittleEndian.Uint64(b[8:]), n: binary.LittleEndian.Uint32(b[16:]),
		bits: b[filterHeaderBytes:]}, nil
}

// Has reports whether name may be in the set: false is certain, true is wrong for about one
// name in FalsePositiveRate's reciprocal that is not in it.
func (f *Filter) Has(name string) bool {
	h1, h2 := filterHash(f.seed, name)
	m := uint64(len(f.bits)) * 8
	for i := uint64(0); i < uint64(f.k); i++ {
		bit := (h1 + i*h2) % m
		if f.bits[bit>>3]&(1<<(bit&7)) == 0 {
			return false
		}
	}
	return true
}

// Len is the number of names the filter was built from.
func (f *Filter) Len() int { return int(f.n) }

// FalsePositiveRate is the expected share of names outside the set that Has admits,
// (1 − e^(−kn/m))^k: what a flood of random names costs in KV reads, per name.
func (f *Filter) FalsePositiveRate() float64 {
	m := float64(len(f.bits) * 8)
	return math.Pow(1-math.Exp(-float64(f.k)*float64(f.n)/m), float64(f.k))
}

// filterHash derives the two hashes of double hashing (Kirsch–Mitzenmacher) from one 64-bit
// FNV-1a of the seeded name, spread by splitmix64's finaliser. Written out rather than
// hash/fnv: that package's hash.Hash machinery would all come along into the Worker's Wasm.
func filterHash(seed uint64, name string) (h1, h2 uint64) {
	h := fnv1a(seed, name)
	return mix64(h), mix64(h^0x9e3779b97f4a7c15) | 1
}

func fnv1a(h uint64, s string) uint64 {
	h ^= 14695981039346656037
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ z>>31
}

// filterChecksum guards against a truncated or garbled value (a binary filter read as text, a
// partial write), not against tampering: whoever can write the namespace can write records too.
// It folds 64-bit words, so checking a megabyte costs the Worker well under a millisecond.
func filterChecksum(b []byte) uint64 {
	h := uint64(14695981039346656037)
	fold := func(w uint64) { h = (h ^ w) * 1099511628211 }
	for i := 0; i < 24; i += 8 {
		fold(binary.LittleEndian.Uint64(b[i:]))
	}
	for i := filterHeaderBytes; i+8 <= len(b); i += 8 {
		fold(binary.LittleEndian.Uint64(b[i:]))
	}
	return mix64(h)
}
