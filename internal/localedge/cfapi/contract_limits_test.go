package cfapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The published limits (the OpenAPI description cloudflare-go v7 carries) that the local edge
// enforces, each shown by a request just over it: a fake more lenient than the API would let a
// provider bug pass every test. (Found by attacking the local edge; the provider's bulk writes
// were counted against 100 MiB of raw bytes, not 100 MB as sent.)

// limitsSetup starts a server and a namespace; it answers the server's base, token, account
// and namespace id.
func limitsSetup(t *testing.T) (base, token, account, ns string) {
	t.Helper()
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	ns = createNamespace(t, newClient(ts.URL, id.APIToken, 0), id.AccountID, "attack")
	return ts.URL + APIPrefix, id.APIToken, id.AccountID, ns
}

func expectRefused(t *testing.T, what string, resp *http.Response, env envelopeForTest) {
	t.Helper()
	if env.Success || resp.StatusCode < 400 {
		t.Errorf("%s: the local edge accepted it (HTTP %d, success=%v); the published contract refuses it", what, resp.StatusCode, env.Success)
	}
}

// A value is "a byte sequence to be stored, up to 25 MiB in length" (workers-kv_value).
func TestContractLimit_KVValueOver25MiB(t *testing.T) {
	base, token, acct, ns := limitsSetup(t)
	value := bytes.Repeat([]byte("a"), 25<<20+1)
	url := fmt.Sprintf("%s/accounts/%s/storage/kv/namespaces/%s/values/big", base, acct, ns)
	resp, env := rawRequest(t, http.MethodPut, url, token, bytes.NewReader(value))
	expectRefused(t, "PUT of a 25 MiB + 1 byte value", resp, env)
}

// workers-kv_bulk_write items.value: maxLength 26214400, "up to 25 MiB in length".
func TestContractLimit_KVBulkValueOver25MiB(t *testing.T) {
	base, token, acct, ns := limitsSetup(t)
	body, _ := json.Marshal([]map[string]any{{"key": "big", "value": strings.Repeat("a", 26214400+1)}})
	url := fmt.Sprintf("%s/accounts/%s/storage/kv/namespaces/%s/bulk", base, acct, ns)
	resp, env := rawRequest(t, http.MethodPut, url, token, bytes.NewReader(body))
	expectRefused(t, "bulk write of a 25 MiB + 1 byte value", resp, env)
}

// A bulk write: "the entire request size must be 100 megabytes or less" (PUT …/bulk).
func TestContractLimit_KVBulkBodyOver100MB(t *testing.T) {
	base, token, acct, ns := limitsSetup(t)
	items := make([]map[string]any, 5)
	for i := range items {
		items[i] = map[string]any{"key": fmt.Sprintf("k%d", i), "value": strings.Repeat("a", 21_500_000)} // each under 25 MiB
	}
	body, _ := json.Marshal(items)
	if len(body) <= 100<<20 {
		t.Fatalf("body is %d bytes, want over 100 MiB", len(body))
	}
	url := fmt.Sprintf("%s/accounts/%s/storage/kv/namespaces/%s/bulk", base, acct, ns)
	resp, env := rawRequest(t, http.MethodPut, url, token, bytes.NewReader(body))
	expectRefused(t, fmt.Sprintf("bulk write of %d bytes", len(body)), resp, env)
}

// workers-kv_bulk_delete items: workers-kv_key_name_bulk, maxLength 512 ("at most 512 bytes").
func TestContractLimit_KVBulkDeleteKeyOver512(t *testing.T) {
	base, token, acct, ns := limitsSetup(t)
	body, _ := json.Marshal([]string{strings.Repeat("k", 513)})
	url := fmt.Sprintf("%s/accounts/%s/storage/kv/namespaces/%s/bulk/delete", base, acct, ns)
	resp, env := rawRequest(t, http.MethodPost, url, token, bytes.NewReader(body))
	expectRefused(t, "bulk delete of a 513-byte key", resp, env)
}

// tls-certificates-and-hostnames_hostname_post: maxLength 255.
func TestContractLimit_CustomHostnameOver255(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	label := strings.Repeat("a", 63)
	host := strings.Join([]string{label, label, label, label, "example.com"}, ".") // 268 bytes
	body, _ := json.Marshal(map[string]any{"hostname": host, "ssl": map[string]any{"method": "txt", "type": "dv"}})
	url := fmt.Sprintf("%s%s/zones/%s/custom_hostnames", ts.URL, APIPrefix, id.ZoneID)
	resp, env := rawRequest(t, http.MethodPost, url, id.APIToken, bytes.NewReader(body))
	expectRefused(t, fmt.Sprintf("custom hostname of %d bytes", len(host)), resp, env)
}

// dns-records_name: "Complete DNS record name, including the zone name, in Punycode.", maxLength 255.
func TestContractLimit_DNSNameOver255(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	label := strings.Repeat("a", 63)
	name := strings.Join([]string{label, label, label, label, id.ZoneName}, ".")
	body, _ := json.Marshal(map[string]any{"type": "CNAME", "name": name, "content": "target.example.com", "ttl": 1, "proxied": true})
	url := fmt.Sprintf("%s%s/zones/%s/dns_records", ts.URL, APIPrefix, id.ZoneID)
	resp, env := rawRequest(t, http.MethodPost, url, id.APIToken, bytes.NewReader(body))
	expectRefused(t, fmt.Sprintf("DNS record name of %d bytes", len(name)), resp, env)
}

// Titles are unique within an account (a create with a taken title is refused with 10014), and
// a rename is held to that too: otherwise the local edge ends with two namespaces of one title,
// which Cloudflare never holds, and a rename that fails there passes here. workers-kv_namespace_title
// is at most 512 characters, on both.
func TestContractLimit_KVNamespaceTitles(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	createNamespace(t, api, id.AccountID, "routes")
	other := createNamespace(t, api, id.AccountID, "domains")
	base := fmt.Sprintf("%s%s/accounts/%s/storage/kv/namespaces", ts.URL, APIPrefix, id.AccountID)

	resp, env := rawRequest(t, http.MethodPut, base+"/"+other, id.APIToken, strings.NewReader(`{"title":"routes"}`))
	expectRefused(t, "rename to a title another namespace has", resp, env)
	if env.firstCode() != codeConflict {
		t.Errorf("rename to a taken title: code %d, want %d as a create answers", env.firstCode(), codeConflict)
	}
	resp, env = rawRequest(t, http.MethodPut, base+"/"+other, id.APIToken, strings.NewReader(`{"title":"domains"}`))
	if !env.Success {
		t.Errorf("rename to its own title: HTTP %d %+v; want success", resp.StatusCode, env.Errors)
	}

	long, _ := json.Marshal(map[string]string{"title": strings.Repeat("t", 513)})
	resp, env = rawRequest(t, http.MethodPost, base, id.APIToken, bytes.NewReader(long))
	expectRefused(t, "create with a 513-character title", resp, env)
	resp, env = rawRequest(t, http.MethodPut, base+"/"+other, id.APIToken, bytes.NewReader(long))
	expectRefused(t, "rename to a 513-character title", resp, env)
}
