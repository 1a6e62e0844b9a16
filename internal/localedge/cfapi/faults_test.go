package cfapi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
)

func TestFaultInjectionThroughAdminEndpoint(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	admin := ts.URL + AdminPrefix + "/faults"
	list := func(api *cloudflare.Client) error {
		_, err := api.KV.Namespaces.List(context.Background(), kv.NamespaceListParams{AccountID: cloudflare.F(id.AccountID)})
		return err
	}

	if resp, _ := rawRequest(t, http.MethodPost, admin, "", strings.NewReader(`{"status":429,"count":1}`)); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("admin endpoint without a token: HTTP %d, want 401", resp.StatusCode)
	}
	if resp, _ := rawRequest(t, http.MethodPost, admin, id.APIToken, strings.NewReader(`{"status":302,"count":1}`)); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a fault status that is neither 429 nor 5xx: HTTP %d, want 400", resp.StatusCode)
	}

	// 429 with Retry-After, for exactly one request.
	if resp, env := rawRequest(t, http.MethodPost, admin, id.APIToken, strings.NewReader(`{"status":429,"retry_after_seconds":2,"count":1}`)); !env.Success {
		t.Fatalf("set fault: HTTP %d %+v", resp.StatusCode, env.Errors)
	}
	noRetry := newClient(ts.URL, id.APIToken, 0)
	err := list(noRetry)
	var apiErr *cloudflare.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("first request after the fault: %v, want 429", err)
	}
	if got := apiErr.Response.Header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After = %q, want 2", got)
	}
	must(t, "request after the counted fault is used up", list(noRetry))

	// cloudflare-go's retry honours the injected 429 and then succeeds.
	must(t, "set fault", srv.SetFaults(FaultSpec{Status: http.StatusTooManyRequests, RetryAfterSeconds: 1, Count: 1}))
	must(t, "retrying client through one 429", list(newClient(ts.URL, id.APIToken, 2)))
	if f := srv.Faults(); f.Count != 0 {
		t.Errorf("fault still armed after being consumed: %+v", f)
	}

	// 5xx for every request (fraction 1) until cleared.
	must(t, "set fault", srv.SetFaults(FaultSpec{Status: http.StatusServiceUnavailable, Fraction: 1}))
	for range 3 {
		if err := list(noRetry); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("with fraction 1: %v, want 503", err)
		}
	}
	if resp, env := rawRequest(t, http.MethodDelete, admin, id.APIToken, nil); !env.Success {
		t.Fatalf("clear faults: HTTP %d", resp.StatusCode)
	}
	must(t, "request after clearing faults", list(noRetry))

	// Latency only: the request is still served, and the count is consumed.
	must(t, "set fault", srv.SetFaults(FaultSpec{LatencyMillis: 1, Count: 1}))
	must(t, "request with injected latency", list(noRetry))
	if f := srv.Faults(); f != (FaultSpec{}) {
		t.Errorf("latency fault not consumed: %+v", f)
	}
}

// bulkWrite writes key=key for each key in one bulk call.
func bulkWrite(t *testing.T, api *cloudflare.Client, acct, nsID string, keys ...string) *kv.NamespaceBulkUpdateResponse {
	t.Helper()
	body := make([]kv.NamespaceBulkUpdateParamsBody, len(keys))
	for i, k := range keys {
		body[i] = kv.NamespaceBulkUpdateParamsBody{Key: cloudflare.F(k), Value: cloudflare.F("v-" + k)}
	}
	res, err := api.KV.Namespaces.BulkUpdate(context.Background(), nsID, kv.NamespaceBulkUpdateParams{AccountID: cloudflare.F(acct), Body: body})
	must(t, "bulk write", err)
	return res
}

// storedKeys lists the namespace's keys.
func storedKeys(t *testing.T, srv *Server, nsID string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, ns := range srv.KVNamespaces() {
		if ns.ID != nsID {
			continue
		}
		for k := range ns.Entries {
			out[k] = true
		}
	}
	return out
}

// TestFaultInjection_BulkKVPartialFailure: a KVBulk fault set through the admin endpoint
// makes a bulk write report exactly the keys it chooses (here by prefix) in
// unsuccessful_keys, writes only the others, and clears itself after its Calls; without
// Calls it lasts, and bulk deletes (both routes) keep the chosen keys.
func TestFaultInjection_BulkKVPartialFailure(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ctx := context.Background()
	ns, err := api.KV.Namespaces.New(ctx, kv.NamespaceNewParams{AccountID: cloudflare.F(id.AccountID), Title: cloudflare.F("routes")})
	must(t, "create namespace", err)
	admin := ts.URL + AdminPrefix + "/faults"

	if resp, env := rawRequest(t, http.MethodPost, admin, id.APIToken, strings.NewReader(`{"kv_bulk":{"key_prefix":"fail-","calls":1}}`)); !env.Success {
		t.Fatalf("set the bulk fault: HTTP %d %+v", resp.StatusCode, env.Errors)
	}
	res := bulkWrite(t, api, id.AccountID, ns.ID, "ok-1", "fail-1", "ok-2", "fail-2")
	if res.SuccessfulKeyCount != 2 || !slices.Equal(res.UnsuccessfulKeys, []string{"fail-1", "fail-2"}) {
		t.Errorf("bulk write under the fault = %v successful, unsuccessful %q; want 2 and [fail-1 fail-2]", res.SuccessfulKeyCount, res.UnsuccessfulKeys)
	}
	if got := storedKeys(t, srv, ns.ID); !maps.Equal(got, map[string]bool{"ok-1": true, "ok-2": true}) {
		t.Errorf("stored keys = %v, want only ok-1 and ok-2 (an unsuccessful key is not written)", got)
	}
	if f := srv.Faults(); f.KVBulk != nil {
		t.Errorf("the bulk fault is still armed after its one call: %+v", *f.KVBulk)
	}
	if res := bulkWrite(t, api, id.AccountID, ns.ID, "fail-1", "fail-2"); res.SuccessfulKeyCount != 2 || len(res.UnsuccessfulKeys) != 0 {
		t.Errorf("retry after the fault cleared = %v successful, unsuccessful %q", res.SuccessfulKeyCount, res.UnsuccessfulKeys)
	}

	// Without Calls the fault lasts; deletes keep the keys they report unsuccessful.
	must(t, "set a lasting bulk fault", srv.SetFaults(FaultSpec{KVBulk: &KVBulkFault{KeyPrefix: "fail-"}}))
	del, err := api.KV.Namespaces.BulkDelete(ctx, ns.ID, kv.NamespaceBulkDeleteParams{AccountID: cloudflare.F(id.AccountID), Body: []string{"ok-1", "fail-1"}})
	must(t, "bulk delete", err)
	if del.SuccessfulKeyCount != 1 || !slices.Equal(del.UnsuccessfulKeys, []string{"fail-1"}) {
		t.Errorf("bulk delete = %v successful, unsuccessful %q; want 1 and [fail-1]", del.SuccessfulKeyCount, del.UnsuccessfulKeys)
	}
	resp, env := putJSON(t, http.MethodDelete, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/storage/kv/namespaces/"+ns.ID+"/bulk", id.APIToken, []string{"ok-2", "fail-2"})
	if !env.Success || !strings.Contains(string(env.Result), `"unsuccessful_keys":["fail-2"]`) {
		t.Errorf("legacy bulk delete: HTTP %d %s, want fail-2 unsuccessful", resp.StatusCode, env.Result)
	}
	if got := storedKeys(t, srv, ns.ID); !maps.Equal(got, map[string]bool{"fail-1": true, "fail-2": true}) {
		t.Errorf("stored keys after the deletes = %v, want the two unsuccessful ones kept", got)
	}
	if f := srv.Faults(); f.KVBulk == nil {
		t.Error("a bulk fault without calls cleared itself")
	}
	if resp, env := rawRequest(t, http.MethodDelete, admin, id.APIToken, nil); !env.Success || srv.Faults().KVBulk != nil {
		t.Fatalf("clear faults: HTTP %d, faults %+v", resp.StatusCode, srv.Faults())
	}
}

// TestFaultInjection_BulkKVFractionIsStable: key_fraction fails a share of the keys chosen by
// their names, the same keys on every call, and only those stay unwritten.
func TestFaultInjection_BulkKVFractionIsStable(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ns := createNamespace(t, api, id.AccountID, "routes")
	keys := make([]string, 200)
	for i := range keys {
		keys[i] = fmt.Sprintf("app%03d", i)
	}
	must(t, "set fault", srv.SetFaults(FaultSpec{KVBulk: &KVBulkFault{KeyFraction: 0.25}}))
	first := bulkWrite(t, api, id.AccountID, ns, keys...)
	second := bulkWrite(t, api, id.AccountID, ns, keys...)
	if n := len(first.UnsuccessfulKeys); n < 20 || n > 80 {
		t.Errorf("%d of 200 keys unsuccessful with key_fraction 0.25", n)
	}
	if !slices.Equal(first.UnsuccessfulKeys, second.UnsuccessfulKeys) {
		t.Errorf("the failing keys changed between calls: %q then %q", first.UnsuccessfulKeys, second.UnsuccessfulKeys)
	}
	if int(first.SuccessfulKeyCount)+len(first.UnsuccessfulKeys) != len(keys) {
		t.Errorf("successful %v + unsuccessful %d != %d keys", first.SuccessfulKeyCount, len(first.UnsuccessfulKeys), len(keys))
	}
	stored := storedKeys(t, srv, ns)
	for _, k := range first.UnsuccessfulKeys {
		if stored[k] {
			t.Errorf("unsuccessful key %s was written", k)
		}
	}
	if len(stored) != int(first.SuccessfulKeyCount) {
		t.Errorf("%d keys stored, want the %v successful ones", len(stored), first.SuccessfulKeyCount)
	}
}

// TestFaultInjection_BulkKVValidatedAndIndependent: a bulk fault that chooses nothing or out
// of range is refused, and a request-level fault running out does not clear it.
func TestFaultInjection_BulkKVValidatedAndIndependent(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	admin := ts.URL + AdminPrefix + "/faults"
	for _, body := range []string{`{"kv_bulk":{}}`, `{"kv_bulk":{"calls":2}}`, `{"kv_bulk":{"key_fraction":1.5}}`,
		`{"kv_bulk":{"key_prefix":"a","calls":-1}}`, `{"kv_bulk":{"key_prefix":"a","keys":["a"]}}`} {
		if resp, _ := rawRequest(t, http.MethodPost, admin, id.APIToken, strings.NewReader(body)); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("fault %s: HTTP %d, want 400", body, resp.StatusCode)
		}
	}
	if _, err := New(Config{StateDir: t.TempDir(), Faults: FaultSpec{KVBulk: &KVBulkFault{}}}); err == nil {
		t.Error("New accepted a bulk fault that chooses no keys")
	}

	must(t, "set faults", srv.SetFaults(FaultSpec{Status: http.StatusServiceUnavailable, Count: 1, KVBulk: &KVBulkFault{KeyPrefix: "x"}}))
	api := newClient(ts.URL, id.APIToken, 0)
	_, err := api.KV.Namespaces.List(context.Background(), kv.NamespaceListParams{AccountID: cloudflare.F(id.AccountID)})
	wantAPIError(t, "the counted 503", err, http.StatusServiceUnavailable)
	f := srv.Faults()
	if f.Status != 0 || f.Count != 0 || f.KVBulk == nil || f.KVBulk.KeyPrefix != "x" {
		t.Errorf("after the counted fault ran out: %+v, want only the bulk fault left", f)
	}
	f.KVBulk.KeyPrefix = "changed"
	if srv.Faults().KVBulk.KeyPrefix != "x" {
		t.Error("Faults hands out the server's own KVBulk")
	}
	ns := createNamespace(t, api, id.AccountID, "routes")
	if res := bulkWrite(t, api, id.AccountID, ns, "x1", "y1"); !slices.Equal(res.UnsuccessfulKeys, []string{"x1"}) {
		t.Errorf("unsuccessful = %q, want [x1]", res.UnsuccessfulKeys)
	}
}
