package route

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// fill sets every field of the struct v points to, nested structs behind pointers and maps
// included, to a value that is not its zero value, so that a field the canonical encoders
// leave out shows whatever its tag says (omitempty or not).
func fill(t *testing.T, v reflect.Value) {
	t.Helper()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString("set-" + v.Type().Field(i).Name)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(7 + i))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
			fill(t, f.Elem())
		case reflect.Map:
			m := reflect.MakeMap(f.Type())
			for _, k := range []string{"b/index.html", "a.css", "é<&>.txt"} {
				e := reflect.New(f.Type().Elem()).Elem()
				fill(t, e)
				m.SetMapIndex(reflect.ValueOf(k), e)
			}
			f.Set(m)
		default:
			t.Fatalf("%s.%s: no filler for %s; teach fill and the canonical encoder this field", v.Type(), v.Type().Field(i).Name, f.Kind())
		}
	}
}

func assertCanonical(t *testing.T, v canonicalEncoder) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.appendCanonical(nil); !bytes.Equal(got, want) {
		t.Fatalf("canonical encoding of %T differs from encoding/json's:\n got %s\nwant %s", v, got, want)
	}
}

// Every field of every contract type, set and unset, is written as encoding/json writes it: a
// field added to a type and not to its canonical encoder fails here.
func TestCanonicalEncodingsFollowTheTags(t *testing.T) {
	for _, v := range []canonicalEncoder{&Record{}, &DomainMapping{}, &SiteManifest{}} {
		assertCanonical(t, v)
		fill(t, reflect.ValueOf(v).Elem())
		assertCanonical(t, v)
	}
	for _, r := range []Record{dynamicRecord(), staticRecord()} {
		assertCanonical(t, &r)
	}
	m := testManifest()
	assertCanonical(t, &m)
}

// FuzzCanonicalEncodings holds the encoders to encoding/json on any string and number: the
// escapes (quotes, control characters, HTML characters, U+2028, invalid UTF-8), the order of
// a manifest's paths.
func FuzzCanonicalEncodings(f *testing.F) {
	f.Add("shop", "sites/shop/", "text/html; charset=utf-8", int64(12), true)
	f.Add("a\"b\\c", "<script>&", "\u2028\u2029", int64(-1), false)
	f.Add("\x00\x1f\x7f", "\xff\xfe", "é/ü", int64(1<<53), true)
	f.Fuzz(func(t *testing.T, a, b, c string, n int64, flag bool) {
		rec := Record{V: int(n), App: a, Status: Status(b), Kind: Kind(c), Rev: b + c,
			Dynamic: &Dynamic{Origin: b, Upstream: c, TimeoutMS: int(n)},
			Static:  &Static{Prefix: a, Index: b, NotFound: c, SPA: flag, Manifest: a + b}}
		assertCanonical(t, &rec)
		rec.Dynamic, rec.Static.Manifest = nil, ""
		assertCanonical(t, &rec)
		assertCanonical(t, &DomainMapping{V: int(n), App: c, Status: Status(a), Rev: b})
		assertCanonical(t, &SiteManifest{V: int(n), Files: map[string]SiteFile{
			a: {Object: b, Type: c, Size: n}, b: {Object: c, Type: a, Size: -n}, a + c: {},
		}})
		assertCanonical(t, &SiteManifest{V: int(n), Shards: int(n)})
	})
}

func TestSortStrings(t *testing.T) {
	for n := 0; n < 40; n++ {
		in := make([]string, n)
		for i := range in {
			in[i] = strconv.Itoa((i * 7919) % 31)
		}
		want := slices.Clone(in)
		slices.Sort(want)
		if got := sortStrings(slices.Clone(in)); !slices.Equal(got, want) {
			t.Fatalf("n=%d: sortStrings(%q) = %q, want %q", n, in, got, want)
		}
	}
}
