package kvmigrate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestEntryHash_ComparesValueMetadataAndExpiration(t *testing.T) {
	base := Entry{Value: []byte("ab"), Metadata: json.RawMessage(`{"rev":"1"}`), Expiration: 100}
	for name, other := range map[string]Entry{
		"value":              {Value: []byte("ac"), Metadata: base.Metadata, Expiration: 100},
		"metadata":           {Value: base.Value, Metadata: json.RawMessage(`{"rev":"2"}`), Expiration: 100},
		"no metadata":        {Value: base.Value, Expiration: 100},
		"expiration":         {Value: base.Value, Metadata: base.Metadata, Expiration: 101},
		"no expiration":      {Value: base.Value, Metadata: base.Metadata},
		"shifted boundaries": {Value: []byte("a"), Metadata: json.RawMessage(`b{"rev":"1"}`), Expiration: 100},
	} {
		if other.Hash() == base.Hash() {
			t.Errorf("%s: a different entry hashes alike", name)
		}
	}
	same := Entry{Value: []byte("ab"), Metadata: json.RawMessage(`{"rev":"1"}`), Expiration: 100}
	if same.Hash() != base.Hash() {
		t.Error("equal entries hash differently")
	}
	// Metadata that is empty JSON text and metadata "{}" are different things.
	if (Entry{Metadata: json.RawMessage(`{}`)}).Hash() == (Entry{}).Hash() {
		t.Error(`metadata {} hashes like no metadata`)
	}
}

func TestCanonicalMetadata(t *testing.T) {
	for in, want := range map[string]string{
		` {"v": 1, "rev": "a", "owner": {"z": [1, 2.50], "a": "<&>"}} `: `{"owner":{"a":"<&>","z":[1,2.50]},"rev":"a","v":1}`,
		`{"big":12345678901234567890}`:                                  `{"big":12345678901234567890}`,
		`null`:                                                          ``,
		``:                                                              ``,
		`"text"`:                                                        `"text"`,
	} {
		got, err := canonicalMetadata([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("canonicalMetadata(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{`{`, `{} {}`} {
		if _, err := canonicalMetadata([]byte(bad)); err == nil {
			t.Errorf("canonicalMetadata(%s): no error", bad)
		}
	}
	if metadataRev(json.RawMessage(`{"rev":"abc","v":1}`)) != "abc" || metadataRev(json.RawMessage(`["rev"]`)) != "" || metadataRev(nil) != "" {
		t.Error("metadataRev")
	}
}

func TestBatches_RespectPairAndByteLimits(t *testing.T) {
	var items []writeItem
	for i := range 95 {
		items = append(items, writeItem{Key: fmt.Sprintf("k%03d", i), Entry: Entry{Value: []byte(strings.Repeat("x", i*10))}})
	}
	const maxPairs, maxBytes = 10, 4000
	got := batches(items, maxPairs, maxBytes)
	seen := 0
	for i, b := range got {
		size := 2
		for _, it := range b {
			if it.Key != items[seen].Key {
				t.Fatalf("batch %d: key %s out of order (want %s)", i, it.Key, items[seen].Key)
			}
			seen++
			size += it.encodedSize()
		}
		if len(b) > maxPairs || (size > maxBytes && len(b) > 1) {
			t.Errorf("batch %d: %d pairs, %d bytes; limits %d, %d", i, len(b), size, maxPairs, maxBytes)
		}
	}
	if seen != len(items) {
		t.Errorf("batches hold %d items, want %d", seen, len(items))
	}
}

func TestOperation(t *testing.T) {
	const ns = "/client/v4/accounts/a/storage/kv/namespaces/n"
	for _, tc := range []struct{ method, path, want string }{
		{"GET", ns, "namespace_get"},
		{"GET", ns + "/keys", "key_list"},
		{"POST", ns + "/bulk/get", "bulk_get"},
		{"PUT", ns + "/bulk", "bulk_write"},
		{"GET", ns + "/values/a%2Fb", "value_get"},
		{"PUT", ns + "/values/x", "value_put"},
		{"GET", "/client/v4/zones", "other"},
	} {
		if got := operation(tc.method, tc.path); got != tc.want {
			t.Errorf("operation(%s %s) = %s, want %s", tc.method, tc.path, got, tc.want)
		}
	}
}
