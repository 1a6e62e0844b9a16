package route

import (
	"errors"
	"strings"
	"testing"
)

// encoding/json matches an object key to a field ignoring case (and folding U+017F ſ to s
// and U+212A K to k), while every other reader of these values (JSON.parse, jq, a KV
// console) is case-sensitive. A key in another case than the declared one would be believed
// by the Worker and not seen, or seen as another field, by everyone else; two keys that fold
// together name one field twice. Both are refused.

// spliceHead replaces the head `{"v":1,"app":` of a canonical encoding with head, keeping its
// rev (computed over the content the decoder ends up believing).
func spliceHead(t *testing.T, canonical []byte, head string) []byte {
	t.Helper()
	const was = `{"v":1,"app":`
	if !strings.HasPrefix(string(canonical), was) {
		t.Fatalf("unexpected encoding %s", canonical)
	}
	return []byte(head + string(canonical[len(was):]))
}

func TestDecodeRecordRefusesKeysInAnotherCase(t *testing.T) {
	evil := dynamicRecord()
	evil.App = "evil"
	b, _, err := EncodeRecord(evil)
	if err != nil {
		t.Fatal(err)
	}
	for name, head := range map[string]string{
		"duplicate in upper case": `{"v":1,"app":"shop","APP":`,
		"duplicate with long s":   `{"v":1,"\u017ftatus":"disabled","app":`,
		"alone in another case":   `{"v":1,"App":`,
		"version in upper case":   `{"V":1,"app":`,
	} {
		t.Run(name, func(t *testing.T) {
			raw := spliceHead(t, b, head)
			r, err := DecodeRecord(raw)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("DecodeRecord(%s) = app %q, err %v; want ErrMalformed", raw, r.App, err)
			}
			if !strings.Contains(err.Error(), "case") {
				t.Errorf("err = %v; want it to say the key's case is wrong", err)
			}
		})
	}
	nested := strings.Replace(string(b), `"dynamic":{"origin":`, `"dynamic":{"Origin":`, 1)
	if _, err := DecodeRecord([]byte(nested)); !errors.Is(err, ErrMalformed) {
		t.Errorf("DecodeRecord(%s) err = %v; want ErrMalformed for a nested key in another case", nested, err)
	}
}

func TestDecodeDomainMappingRefusesKeysInAnotherCase(t *testing.T) {
	b, _, err := EncodeDomainMapping(DomainMapping{App: "evil", Status: StatusActive})
	if err != nil {
		t.Fatal(err)
	}
	raw := spliceHead(t, b, `{"v":1,"app":"shop","App":`)
	if m, err := DecodeDomainMapping(raw); !errors.Is(err, ErrMalformed) {
		t.Errorf("DecodeDomainMapping(%s) = app %q, err %v; want ErrMalformed", raw, m.App, err)
	}
}

func TestDecodeSiteManifestRefusesKeysInAnotherCase(t *testing.T) {
	obj := strings.Repeat("a", 64)
	file := func(p string) string { return `"` + p + `":{"object":"` + obj + `","type":"text/html","size":1}` }
	for name, raw := range map[string]string{
		"files twice":         `{"v":1,"files":{` + file("index.html") + `},"Files":{` + file("admin.html") + `}}`,
		"a file's key":        `{"v":1,"files":{"index.html":{"Object":"` + obj + `","type":"text/html","size":1}}}`,
		"version, with space": `{ "V": 1, "files": {` + file("index.html") + `} }`,
	} {
		t.Run(name, func(t *testing.T) {
			m, err := DecodeSiteManifest([]byte(raw))
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("DecodeSiteManifest(%s) = %d files, err %v; want ErrMalformed", raw, len(m.Files), err)
			}
		})
	}
	// Paths are map keys, not field names: two that differ only in case are two files, also
	// when the manifest is not in its canonical form (the strict path).
	raw := `{ "v": 1, "files": {` + file("README.html") + `, ` + file("readme.html") + `} }`
	m, err := DecodeSiteManifest([]byte(raw))
	if err != nil || len(m.Files) != 2 {
		t.Errorf("DecodeSiteManifest(%s) = %d files, err %v; want both paths", raw, len(m.Files), err)
	}
}
