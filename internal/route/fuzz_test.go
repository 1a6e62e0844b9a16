package route

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Run each target for a minute with, for example:
//
//	go test ./internal/route -run '^$' -fuzz '^FuzzNormalizeHost$' -fuzztime 60s
//	go test ./internal/route -run '^$' -fuzz '^FuzzDecodeRecord$' -fuzztime 60s
//
// (make fuzz runs all of them.) Seed corpora live in testdata/fuzz/<target>/.

func FuzzNormalizeHost(f *testing.F) {
	for _, s := range []string{"shop.kamui.app", "Shop.Kamui.App.:443", "[::1]:80", "a..b", "127.0.0.1", "xn--bcher-kva.example"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		h, err := NormalizeHost(raw)
		if err != nil {
			if !errors.Is(err, ErrInvalidHost) {
				t.Fatalf("error without ErrInvalidHost cause: %v", err)
			}
			return
		}
		// A normalised host is a fixed point, fits DNS limits and has only safe bytes.
		if again, err := NormalizeHost(h); err != nil || again != h {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", raw, h, again, err)
		}
		if len(h) == 0 || len(h) > MaxHostLength {
			t.Fatalf("length %d out of range for %q", len(h), raw)
		}
		for _, l := range strings.Split(h, ".") {
			if !IsDNSLabel(l) {
				t.Fatalf("bad label %q in %q", l, h)
			}
		}
	})
}

func FuzzDecodeRecord(f *testing.F) {
	for _, r := range []Record{dynamicRecord(), staticRecord()} {
		b, _, err := EncodeRecord(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"v":2}`))
	f.Add([]byte(`{"v":1,"app":"a","app":"b"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRecord(b)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		// Whatever decodes must be exactly what the encoder would write for it.
		enc, again, err := EncodeRecord(r)
		if err != nil {
			t.Fatalf("decoded record does not re-encode: %v", err)
		}
		if again.Rev != r.Rev {
			t.Fatalf("rev changed on re-encode: %s -> %s", r.Rev, again.Rev)
		}
		if _, err := DecodeRecord(enc); err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
	})
}

func FuzzDecodeDomainMapping(f *testing.F) {
	b, _, err := EncodeDomainMapping(DomainMapping{App: "shop", Status: StatusActive})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeDomainMapping(b)
		if err != nil {
			return
		}
		if _, again, err := EncodeDomainMapping(m); err != nil || again.Rev != m.Rev {
			t.Fatalf("decoded mapping does not re-encode to the same rev: %v", err)
		}
	})
}

// FuzzDecodeFilter: whatever the bytes, DecodeFilter returns a filter or one of its two causes,
// never panics, and a filter it accepts answers Has for any name without panicking.
func FuzzDecodeFilter(f *testing.F) {
	f.Add(BuildFilter(nil))
	f.Add(BuildFilter([]string{"shop", "docs", "www.shop.example"}))
	f.Add([]byte("KDNF\x01\x07\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		flt, err := DecodeFilter(b)
		if err != nil {
			if !errors.Is(err, ErrFilterCorrupt) && !errors.Is(err, ErrFilterSchema) {
				t.Fatalf("error without a filter cause: %v", err)
			}
			return
		}
		_ = flt.Has("shop")
		_ = flt.Has("")
	})
}

// decodeRecordReference is DecodeRecord as it was before the canonical fast path: the full
// key scan (duplicated keys, keys in another case) on every value, then the same checks. FuzzDecodeRecordFastPath holds
// the two to the same answers.
func decodeRecordReference(b []byte) (Record, error) {
	var r Record
	if err := decodeStrict(b, &r); err != nil {
		return Record{}, err
	}
	if r.V != SchemaVersion {
		return Record{}, fieldErr("v", ErrUnknownVersion, "")
	}
	if err := r.validate(); err != nil {
		return Record{}, err
	}
	rev := r.Rev
	r.Rev = ""
	if rev != revOf(r) {
		return Record{}, fieldErr("rev", ErrRevMismatch, "")
	}
	r.Rev = rev
	return r, nil
}

// The fast path skips the key scan (duplicated keys, keys in another case) only for a value byte-for-byte equal to its
// canonical encoding; on every input it must accept, refuse and decode exactly as the
// reference does, with the same cause and field.
func FuzzDecodeRecordFastPath(f *testing.F) {
	for _, r := range []Record{dynamicRecord(), staticRecord()} {
		b, _, err := EncodeRecord(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		s := string(b)
		// The canonical bytes with a key repeated at the end, at the start, inside a nested
		// object, and the rev field written twice.
		f.Add([]byte(strings.Replace(s, `,"rev":`, `,"app":"other","rev":`, 1)))
		f.Add([]byte(strings.Replace(s, `{"v":1,`, `{"v":1,"v":1,`, 1)))
		f.Add([]byte(strings.Replace(s, `"kind":`, `"status":"active","kind":`, 1)))
		f.Add([]byte(strings.Replace(s, `"}`, `","rev":"`+r.Rev+`"}`, 1)))
		f.Add([]byte(strings.Replace(s, `{"origin":`, `{"origin":"x.example","origin":`, 1)))
		f.Add([]byte(s + " "))
		// What the lenient first decode accepts and the strict one refuses or reads
		// differently: a key in another case, an unknown key, a second value, null.
		f.Add([]byte(strings.Replace(s, `{"v":1,`, `{"V":1,`, 1)))
		f.Add([]byte(strings.Replace(s, `{"v":1,`, `{"v":1,"extra":true,`, 1)))
		f.Add([]byte(s + "{}"))
		f.Add([]byte("null"))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotErr := DecodeRecord(b)
		want, wantErr := decodeRecordReference(b)
		assertSameDecode(t, "DecodeRecord", got, gotErr, want, wantErr)
	})
}

// assertSameDecode fails t unless a decoder (named what) and its strict reference agree: both
// accept, decoding to the same value, or both refuse, for the same cause and field.
func assertSameDecode(t *testing.T, what string, got any, gotErr error, want any, wantErr error) {
	t.Helper()
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%s error %v, reference %v", what, gotErr, wantErr)
	}
	if gotErr != nil {
		var g, w *FieldError
		if !errors.As(gotErr, &g) || !errors.As(wantErr, &w) || g.Field != w.Field || !errors.Is(gotErr, w.Cause) {
			t.Fatalf("%s error %v, reference %v", what, gotErr, wantErr)
		}
		return
	}
	if string(mustMarshal(t, got)) != string(mustMarshal(t, want)) {
		t.Fatalf("decoded %s, reference %s", mustMarshal(t, got), mustMarshal(t, want))
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeSiteManifestReference is DecodeSiteManifest before its canonical fast path: the
// key scan (duplicated keys, keys in another case) on every manifest, then the version and the files.
func decodeSiteManifestReference(b []byte) (SiteManifest, error) {
	return decodeSiteReference(b, SiteManifest.validate)
}

// decodeSiteShardReference is DecodeSiteShard without its canonical fast path.
func decodeSiteShardReference(b []byte, key string, i, n int) (SiteManifest, error) {
	return decodeSiteReference(b, func(m SiteManifest) error { return m.validateShard(key, i, n) })
}

// decodeSiteReference is the strict decoding both references share, validate the rules of
// the manifest or shard it decodes.
func decodeSiteReference(b []byte, validate func(SiteManifest) error) (SiteManifest, error) {
	if len(b) > MaxSiteManifestBytes {
		return SiteManifest{}, fieldErr("", ErrMalformed, "")
	}
	var m SiteManifest
	if err := decodeStrict(b, &m); err != nil {
		return SiteManifest{}, err
	}
	if m.V != SiteManifestVersion {
		return SiteManifest{}, fieldErr("v", ErrUnknownVersion, "")
	}
	if err := validate(m); err != nil {
		return SiteManifest{}, err
	}
	return m, nil
}

// DecodeSiteManifest skips the key scan (duplicated keys, keys in another case) only for a manifest byte-for-byte equal to
// its canonical encoding; on every input it must accept, refuse and decode exactly as the
// reference does, with the same cause and field.
func FuzzDecodeSiteManifestFastPath(f *testing.F) {
	b, err := EncodeSiteManifest(testManifest())
	if err != nil {
		f.Fatal(err)
	}
	s := string(b)
	f.Add(b)
	// A path twice, the version twice, a file's field twice, a path twice with an invalid
	// file first, and the canonical bytes with a space.
	f.Add([]byte(strings.Replace(s, `{"assets/app.js":`, `{"index.html":{"object":"`+testObject+`","type":"a/b","size":1},"assets/app.js":`, 1)))
	f.Add([]byte(strings.Replace(s, `{"v":1,`, `{"v":1,"v":1,`, 1)))
	f.Add([]byte(strings.Replace(s, `"size":4`, `"size":4,"size":5`, 1)))
	f.Add([]byte(strings.Replace(s, `{"assets/app.js":`, `{"index.html":{"object":"x","type":"a/b","size":1},"assets/app.js":`, 1)))
	f.Add([]byte(s + " "))
	// What the lenient first decode accepts and the strict one refuses or reads differently.
	f.Add([]byte(strings.Replace(s, `{"v":1,`, `{"V":1,`, 1)))
	f.Add([]byte(strings.Replace(s, `"size":4`, `"size":4,"extra":1`, 1)))
	f.Add([]byte(strings.Replace(s, `"size":4`, `"Size":4`, 1)))
	f.Add([]byte(s + "[]"))
	f.Add([]byte("null"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotErr := DecodeSiteManifest(b)
		want, wantErr := decodeSiteManifestReference(b)
		assertSameDecode(t, "DecodeSiteManifest", got, gotErr, want, wantErr)
	})
}

// DecodeSiteShard takes the same fast path as DecodeSiteManifest, under a shard's rules: on
// every input it must accept, refuse and decode exactly as the strict reference does.
func FuzzDecodeSiteShardFastPath(f *testing.F) {
	const key = "sites/docs/manifests/v1.json"
	m := testManifest()
	i := SiteShard(key, "index.html", 2)
	m.Files["x"+strings.Repeat("é", 3)] = SiteFile{Object: testObject, Type: "a/b", Size: 1}
	for p := range m.Files {
		if SiteShard(key, p, 2) != i {
			delete(m.Files, p)
		}
	}
	b, err := EncodeSiteShard(m, key, i, 2)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, uint8(i))
	f.Add(b, uint8(1-i))
	for _, s := range []string{`{"v":1}`, `{"v":1,"files":{}}`, `{"v":1,"files":null}`, `{"v":1,"shards":0}`,
		`{"v":1,"shards":2}`, `{"v":1,"Shards":0}`, `{"v":1,"files":{},"files":{}}`, `{"v":1} `} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, i uint8) {
		got, gotErr := DecodeSiteShard(b, key, int(i%3), 2)
		want, wantErr := decodeSiteShardReference(b, key, int(i%3), 2)
		assertSameDecode(t, "DecodeSiteShard", got, gotErr, want, wantErr)
	})
}
