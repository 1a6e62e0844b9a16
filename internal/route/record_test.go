package route

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func dynamicRecord() Record {
	return Record{
		App:    "shop",
		Status: StatusActive,
		Kind:   KindDynamic,
		Dynamic: &Dynamic{
			Origin:    "origin.dev.kamui.app",
			Upstream:  "tenant-shop/web:8080",
			TimeoutMS: 30_000,
		},
	}
}

func staticRecord() Record {
	return Record{
		App:    "docs",
		Status: StatusActive,
		Kind:   KindStatic,
		Static: &Static{Prefix: "sites/docs/3f2a/", Index: "index.html", NotFound: "404.html", SPA: true},
	}
}

func TestEncodeDecodeRecordRoundTrip(t *testing.T) {
	for _, in := range []Record{dynamicRecord(), staticRecord()} {
		b, enc, err := EncodeRecord(in)
		if err != nil {
			t.Fatalf("EncodeRecord(%s): %v", in.App, err)
		}
		if enc.V != SchemaVersion || len(enc.Rev) != 24 {
			t.Errorf("EncodeRecord did not stamp v/rev: %+v", enc)
		}
		dec, err := DecodeRecord(b)
		if err != nil {
			t.Fatalf("DecodeRecord(%s): %v", b, err)
		}
		if dec.Rev != enc.Rev || dec.App != in.App || dec.Kind != in.Kind {
			t.Errorf("round trip changed the record: %+v -> %+v", enc, dec)
		}
	}
}

func TestRevIsStableAndContentAddressed(t *testing.T) {
	_, a, _ := EncodeRecord(dynamicRecord())
	_, b, _ := EncodeRecord(dynamicRecord())
	if a.Rev != b.Rev {
		t.Fatalf("same content, different rev: %s vs %s", a.Rev, b.Rev)
	}
	moved := dynamicRecord()
	moved.Dynamic.Upstream = "tenant-shop/web:9090"
	_, c, _ := EncodeRecord(moved)
	if c.Rev == a.Rev {
		t.Fatal("changed upstream kept the same rev")
	}
	// A caller-supplied rev or version is ignored: the contract stamps them.
	withJunk := dynamicRecord()
	withJunk.Rev, withJunk.V = "deadbeef", 7
	_, d, _ := EncodeRecord(withJunk)
	if d.Rev != a.Rev || d.V != SchemaVersion {
		t.Fatalf("EncodeRecord kept caller's v/rev: %+v", d)
	}
	// Pinned, so a change to the encoding (which would make every edge see every record as
	// changed) is a deliberate decision, not an accident.
	if a.Rev != "70ace02d3dc6fceaf6fb3312" {
		t.Errorf("rev of the reference record changed: %s", a.Rev)
	}
}

// valid re-encodes a record map after mutation, recomputing rev so only the mutation is wrong.
func encodeMap(t *testing.T, m map[string]any, recomputeRev bool) []byte {
	t.Helper()
	if recomputeRev {
		delete(m, "rev")
		m["rev"] = ""
		b, _ := json.Marshal(m)
		var r Record
		if err := json.Unmarshal(b, &r); err == nil {
			r.Rev = ""
			m["rev"] = revOf(r)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func recordMap(t *testing.T, r Record) map[string]any {
	t.Helper()
	b, _, err := EncodeRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDecodeRecordRejects(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(m map[string]any)
		dynamic map[string]any // fields set in the record's "dynamic" object, after mutate
		raw     string         // used instead of mutate and dynamic when set
		want    error
		field   string
	}{
		{name: "empty", raw: " ", want: ErrMalformed},
		{name: "not json", raw: "{", want: ErrMalformed},
		{name: "array", raw: "[]", want: ErrMalformed},
		{name: "trailing data", raw: `{"v":1} {}`, want: ErrMalformed},
		{name: "unknown version", mutate: func(m map[string]any) { m["v"] = 2 }, want: ErrUnknownVersion, field: "v"},
		{name: "missing version", mutate: func(m map[string]any) { delete(m, "v") }, want: ErrUnknownVersion},
		{name: "string version", mutate: func(m map[string]any) { m["v"] = "1" }, want: ErrMalformed},
		{name: "unknown kind", mutate: func(m map[string]any) { m["kind"] = "lambda" }, want: ErrUnknownKind, field: "kind"},
		{name: "bad status", mutate: func(m map[string]any) { m["status"] = "on" }, want: ErrBadStatus, field: "status"},
		{name: "missing status", mutate: func(m map[string]any) { delete(m, "status") }, want: ErrBadStatus},
		{name: "no delivery", mutate: func(m map[string]any) { delete(m, "dynamic") }, want: ErrMissingDelivery},
		{name: "both deliveries", mutate: func(m map[string]any) {
			m["static"] = map[string]any{"prefix": "a/", "index": "i.html", "not_found": "", "spa": false}
		}, want: ErrMissingDelivery},
		{name: "wrong delivery for kind", mutate: func(m map[string]any) { m["kind"] = "static" }, want: ErrMissingDelivery},
		{name: "empty origin", dynamic: map[string]any{"origin": ""}, want: ErrMissingDelivery, field: "dynamic.origin"},
		{name: "empty upstream", dynamic: map[string]any{"upstream": ""}, want: ErrMissingDelivery, field: "dynamic.upstream"},
		{name: "bad upstream", dynamic: map[string]any{"upstream": "web:80"}, want: ErrInvalidField, field: "dynamic.upstream"},
		{name: "origin with port", dynamic: map[string]any{"origin": "o.example:8080"}, want: ErrInvalidField},
		{name: "origin upper-case", dynamic: map[string]any{"origin": "O.example"}, want: ErrInvalidField},
		{name: "timeout zero", dynamic: map[string]any{"timeout_ms": 0}, want: ErrInvalidField},
		{name: "timeout huge", dynamic: map[string]any{"timeout_ms": 600000}, want: ErrInvalidField},
		{name: "bad app", mutate: func(m map[string]any) { m["app"] = "Shop" }, want: ErrInvalidField, field: "app"},
		{name: "unknown field", mutate: func(m map[string]any) { m["extra"] = true }, want: ErrMalformed},
		{name: "unknown nested field", dynamic: map[string]any{"retries": 3}, want: ErrMalformed},
		{name: "rev mismatch", mutate: func(m map[string]any) { m["rev"] = "000000000000000000000000" }, want: ErrRevMismatch},
		{name: "duplicated key", raw: `{"v":1,"app":"a","app":"b"}`, want: ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b []byte
			if tt.raw != "" {
				b = []byte(tt.raw)
			} else {
				m := recordMap(t, dynamicRecord())
				if tt.mutate != nil {
					tt.mutate(m)
				}
				if tt.dynamic != nil {
					d, ok := m["dynamic"].(map[string]any)
					if !ok {
						t.Fatalf("the record has no dynamic object: %v", m)
					}
					maps.Copy(d, tt.dynamic)
				}
				b = encodeMap(t, m, tt.want != ErrRevMismatch)
			}
			_, err := DecodeRecord(b)
			if !errors.Is(err, tt.want) {
				t.Fatalf("DecodeRecord(%s) err = %v; want %v", b, err, tt.want)
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *FieldError", err)
			}
			if tt.field != "" && fe.Field != tt.field {
				t.Errorf("field = %q; want %q", fe.Field, tt.field)
			}
		})
	}
}

func TestStaticValidation(t *testing.T) {
	bad := []Static{
		{Prefix: "", Index: "index.html"},
		{Prefix: "sites/a/", Index: ""},
		{Prefix: "sites/a", Index: "index.html"},     // no trailing slash
		{Prefix: "/sites/a/", Index: "index.html"},   // absolute
		{Prefix: "sites/../a/", Index: "index.html"}, // escape
		{Prefix: "sites/a/", Index: "../secret"},
		{Prefix: "sites/a/", Index: "a\\b"},
		{Prefix: "sites/a/", Index: "index.html", NotFound: "/404.html"},
		{Prefix: "sites//a/", Index: "index.html"},
		{Prefix: "sites/a/", Index: "index.html", Manifest: "sites/b/manifests/v.json"}, // another site's
		{Prefix: "sites/a/", Index: "index.html", Manifest: "sites/a/../b/manifests/v.json"},
		{Prefix: "sites/a/", Index: "index.html", Manifest: "/sites/a/manifests/v.json"},
	}
	for _, s := range bad {
		r := staticRecord()
		r.Static = &s
		if _, _, err := EncodeRecord(r); err == nil {
			t.Errorf("EncodeRecord accepted static %+v", s)
		}
	}
	ok := staticRecord()
	ok.Static.NotFound = ""
	if _, _, err := EncodeRecord(ok); err != nil {
		t.Errorf("empty not_found must mean a fixed 404: %v", err)
	}
}

// A record without a manifest must encode and hash exactly as it did before the field existed,
// so every record already in KV keeps its rev and a refresh sees no change.
func TestStaticManifestIsOptionalOnTheWire(t *testing.T) {
	b, legacy, err := EncodeRecord(staticRecord())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("manifest")) {
		t.Errorf("a record without a manifest carries the field: %s", b)
	}
	withManifest := staticRecord()
	withManifest.Static.Prefix = "sites/docs/"
	withManifest.Static.Manifest = "sites/docs/manifests/3f2a.json"
	b2, r2, err := EncodeRecord(withManifest)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Rev == legacy.Rev {
		t.Error("the manifest is not part of the rev")
	}
	got, err := DecodeRecord(b2)
	if err != nil || got.Static.Manifest != withManifest.Static.Manifest {
		t.Errorf("round trip = %+v, %v", got.Static, err)
	}
}

func TestDomainMapping(t *testing.T) {
	b, m, err := EncodeDomainMapping(DomainMapping{App: "shop", Status: StatusActive})
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeDomainMapping(b)
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, m)
	}
	for _, raw := range []string{
		`{"v":2,"app":"shop","status":"active","rev":"x"}`,
		`{"v":1,"app":"shop","status":"gone","rev":"x"}`,
		`{"v":1,"app":"","status":"active","rev":"x"}`,
		`{"v":1,"app":"shop","status":"active","rev":"x"}`,
		`{"v":1,"app":"shop","status":"active","rev":"x","extra":1}`,
	} {
		if _, err := DecodeDomainMapping([]byte(raw)); err == nil {
			t.Errorf("DecodeDomainMapping(%s) accepted", raw)
		}
	}
	if _, _, err := EncodeDomainMapping(DomainMapping{App: "shop", Status: "live"}); !errors.Is(err, ErrBadStatus) {
		t.Errorf("EncodeDomainMapping with bad status: %v", err)
	}
}

func TestMetadata(t *testing.T) {
	raw := EncodeMetadata("abc", "tenant_app")
	if raw != `{"v":1,"rev":"abc","owner":"tenant_app"}` {
		t.Errorf("EncodeMetadata = %s", raw)
	}
	m, ok := DecodeMetadata([]byte(raw))
	if !ok || m != (Metadata{V: 1, Rev: "abc", Owner: "tenant_app"}) {
		t.Errorf("DecodeMetadata = %+v, %v", m, ok)
	}
	if _, ok := DecodeMetadata(nil); ok {
		t.Error("DecodeMetadata(nil) ok")
	}
	if _, ok := DecodeMetadata([]byte("nope")); ok {
		t.Error("DecodeMetadata(garbage) ok")
	}
}

func TestFieldErrorMessage(t *testing.T) {
	_, _, err := EncodeRecord(Record{App: "shop", Status: StatusActive, Kind: "lambda"})
	if err == nil || !strings.Contains(err.Error(), "kind") || !strings.Contains(err.Error(), ErrUnknownKind.Error()) {
		t.Errorf("error should name the field and cause: %v", err)
	}
}

// isCanonical decides whether DecodeRecord may skip the key scan (duplicated keys, keys in another case): it must say yes
// to what the encoders write and no to anything else.
func TestIsCanonical(t *testing.T) {
	b, r, err := EncodeRecord(dynamicRecord())
	if err != nil {
		t.Fatal(err)
	}
	cleared := r
	cleared.Rev = ""
	content := revContent(cleared)
	if !isCanonical(b, content, r.Rev) {
		t.Errorf("the encoder's own bytes are not canonical:\n%s\n%s", b, content)
	}
	m, mr, err := EncodeDomainMapping(DomainMapping{App: "shop", Status: StatusActive})
	if err != nil {
		t.Fatal(err)
	}
	if !isCanonical(m, revContent(DomainMapping{V: mr.V, App: mr.App, Status: mr.Status}), mr.Rev) {
		t.Errorf("the mapping encoder's own bytes are not canonical: %s", m)
	}
	for name, other := range map[string]string{
		"another rev":        strings.Replace(string(b), r.Rev, "000000000000000000000000", 1),
		"a space":            strings.Replace(string(b), `"v":1`, `"v": 1`, 1),
		"a key twice":        strings.Replace(string(b), `{"v":1,`, `{"v":1,"v":1,`, 1),
		"a trailing newline": string(b) + "\n",
		"rev escaped":        strings.Replace(string(b), `"rev":"`+r.Rev[:1], `"rev":"\u00`+strconv.FormatInt(int64(r.Rev[0]), 16), 1),
	} {
		if isCanonical([]byte(other), content, r.Rev) {
			t.Errorf("%s: %s reads as canonical", name, other)
		}
	}
}
