package route

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"
)

// names returns n distinct app-like names from a seeded generator, so the measured rates are
// the same on every run.
func names(seed uint64, n int, prefix string) []string {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.FormatUint(r.Uint64(), 36) + "-" + strconv.Itoa(i)
	}
	return out
}

// TestFilterMillionNames holds the filter to the bounds: a million names in at most
// 1.5 MB, at most 1 % false positives measured on names outside the set, none of the set refused.
func TestFilterMillionNames(t *testing.T) {
	in := names(1, 1_000_000, "")
	b := BuildFilter(in)
	if len(b) > 1_500_000 {
		t.Errorf("a filter of 1,000,000 names takes %d bytes; the bound is 1,500,000", len(b))
	}
	f, err := DecodeFilter(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range in {
		if !f.Has(s) {
			t.Fatalf("false negative for %q", s)
		}
	}
	out := names(2, 200_000, "x")
	fp := 0
	for _, s := range out {
		if f.Has(s) {
			fp++
		}
	}
	rate := float64(fp) / float64(len(out))
	t.Logf("1,000,000 names: %d bytes, measured false positives %.4f %%, expected %.4f %%", len(b), 100*rate, 100*f.FalsePositiveRate())
	if rate > 0.01 {
		t.Errorf("measured false-positive rate %.4f > 1 %%", rate)
	}
	if f.FalsePositiveRate() > 0.01 || f.Len() != len(in) {
		t.Errorf("expected rate %.4f, len %d", f.FalsePositiveRate(), f.Len())
	}
}

// TestFilterSmallSets: small namespaces (the usual case) stay under the bound too, thanks to the
// minimum width, and the empty set admits nothing (a namespace without keys has no hosts).
func TestFilterSmallSets(t *testing.T) {
	for _, n := range []int{0, 1, 3, 50, 1000} {
		in := names(uint64(n)+10, n, "")
		f, err := DecodeFilter(BuildFilter(in))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range in {
			if !f.Has(s) {
				t.Fatalf("n=%d: false negative for %q", n, s)
			}
		}
		fp := 0
		out := names(uint64(n)+99, 20_000, "y")
		for _, s := range out {
			if f.Has(s) {
				fp++
			}
		}
		if rate := float64(fp) / float64(len(out)); rate > 0.01 {
			t.Errorf("n=%d: measured false-positive rate %.4f > 1 %%", n, rate)
		}
	}
}

func TestFilterDeterministic(t *testing.T) {
	a := BuildFilter([]string{"shop", "docs", "shop", "api2"})
	b := BuildFilter([]string{"api2", "docs", "shop"})
	if string(a) != string(b) {
		t.Error("the same set of names gave different bytes")
	}
	if c := BuildFilter([]string{"api2", "docs", "shop", "more"}); string(c) == string(a) {
		t.Error("different sets gave the same bytes")
	}
	f, _ := DecodeFilter(a)
	if f.Len() != 3 {
		t.Errorf("Len = %d, want 3 (duplicates count once)", f.Len())
	}
}

// TestDecodeFilterRefuses: every damaged or foreign value is an error, of the schema cause only
// when it is an intact header of another version; the Worker then runs without a filter.
func TestDecodeFilterRefuses(t *testing.T) {
	good := BuildFilter([]string{"shop", "docs"})
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := map[string]struct {
		b    []byte
		want error
	}{
		"empty":           {nil, ErrFilterCorrupt},
		"short header":    {good[:20], ErrFilterCorrupt},
		"truncated":       {good[:len(good)-8], ErrFilterCorrupt},
		"trailing byte":   {append(append([]byte(nil), good...), 0), ErrFilterCorrupt},
		"magic":           {mut(func(b []byte) []byte { b[0] = 'X'; return b }), ErrFilterCorrupt},
		"version":         {mut(func(b []byte) []byte { b[4] = FilterSchemaVersion + 1; return b }), ErrFilterSchema},
		"zero probes":     {mut(func(b []byte) []byte { b[5] = 0; return b }), ErrFilterCorrupt},
		"flipped bit":     {mut(func(b []byte) []byte { b[40] ^= 4; return b }), ErrFilterCorrupt},
		"seed changed":    {mut(func(b []byte) []byte { b[9] ^= 1; return b }), ErrFilterCorrupt},
		"words too large": {mut(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[20:], 1<<30); return b }), ErrFilterCorrupt},
		// A binary value read as text: bytes that are not UTF-8 come back as U+FFFD.
		"read as text": {[]byte(string([]rune(string(good)))), ErrFilterCorrupt},
		"a record":     {[]byte(`{"v":1,"app":"shop"}`), ErrFilterCorrupt},
	}
	for name, c := range cases {
		if string(c.b) == string(good) {
			t.Fatalf("%s: the damage changed nothing", name)
		}
		if f, err := DecodeFilter(c.b); !errors.Is(err, c.want) || f != nil {
			t.Errorf("%s: DecodeFilter = %v, %v; want %v", name, f, err, c.want)
		}
	}
	if _, err := DecodeFilter(good); err != nil {
		t.Fatalf("the intact filter: %v", err)
	}
}

func TestFilterKeyIsNoResourceKey(t *testing.T) {
	if IsDNSLabel(FilterKey) {
		t.Error("FilterKey is a DNS label, so it could be an app name")
	}
	if _, err := NormalizeHost(FilterKey); err == nil {
		t.Error("FilterKey is a valid host, so it could be a custom hostname")
	}
}
