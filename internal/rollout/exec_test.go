package rollout

import (
	"encoding/json"
	"testing"
)

func TestParseEnvFile(t *testing.T) {
	got, err := parseEnvFile(`# written by the local edge
export CLOUDFLARE_API_TOKEN=abc123
export KAMUIDASH_EDGE_URL='http://127.0.0.1:8080'
export ODD='it'\''s "quoted"'
PLAIN="a \"b\" c"

`, "env")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"CLOUDFLARE_API_TOKEN": "abc123",
		"KAMUIDASH_EDGE_URL":   "http://127.0.0.1:8080",
		"ODD":                  `it's "quoted"`,
		"PLAIN":                `a "b" c`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, bad := range []string{"no equals sign", "export X='open", `Y="open`, "BAD NAME=1"} {
		if _, err := parseEnvFile(bad, "env"); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestVarValues(t *testing.T) {
	got, err := json.Marshal(varValues(map[string]string{
		"port": "8080", "domains": `["www.shop.example"]`, "labels": `{"a": "b"}`, "text": "[not json",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"domains":["www.shop.example"],"labels":{"a":"b"},"port":"8080","text":"[not json"}`
	if string(got) != want {
		t.Fatalf("var file = %s, want %s", got, want)
	}
}
