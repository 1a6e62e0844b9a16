package cfapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/r2"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

// operationCalls finds one operation's count in a snapshot (the zero value when absent).
func operationCalls(st CallStats, op string) OperationCalls {
	for _, o := range st.Operations {
		if o.Operation == op {
			return o
		}
	}
	return OperationCalls{}
}

const (
	opListNamespaces = "GET /accounts/{account_id}/storage/kv/namespaces"
	opGetValue       = "GET /accounts/{account_id}/storage/kv/namespaces/{namespace_id}/values/{key_name}"
	opBulkWrite      = "PUT /accounts/{account_id}/storage/kv/namespaces/{namespace_id}/bulk"
	opPutObject      = "PUT /accounts/{account_id}/r2/buckets/{bucket_name}/objects/{object_key...}"
	opListObjects    = "GET /accounts/{account_id}/r2/buckets/{bucket_name}/objects"
	opCreateBucket   = "POST /accounts/{account_id}/r2/buckets"
)

// TestCalls_CountedByOperationAndClass: every API request is counted under the mux pattern
// it matched (unrouted ones in their own bucket) and by status class, REST and object
// storage apart; admin requests are not counted; a reset starts afresh and hands back what
// it cleared, through the accessor and the admin endpoint alike.
func TestCalls_CountedByOperationAndClass(t *testing.T) {
	clock := newFakeClock()
	srv, ts := startServer(t, Config{Now: clock.Now})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ctx := context.Background()
	acct := cloudflare.F(id.AccountID)

	start := clock.Now()
	if st := srv.Calls(); !st.Since.Equal(start) || len(st.Operations) != 0 || st.REST.Calls != 0 {
		t.Fatalf("a fresh server's accounting = %+v, want empty since %v", st, start)
	}
	for range 2 {
		_, err := api.KV.Namespaces.List(ctx, kv.NamespaceListParams{AccountID: acct})
		must(t, "list namespaces", err)
	}
	ns, err := api.KV.Namespaces.New(ctx, kv.NamespaceNewParams{AccountID: acct, Title: cloudflare.F("routes")})
	must(t, "create namespace", err)
	_, err = api.KV.Namespaces.Values.Get(ctx, ns.ID, "missing", kv.NamespaceValueGetParams{AccountID: acct})
	wantAPIError(t, "read a missing key", err, http.StatusNotFound)
	_, err = api.KV.Namespaces.BulkUpdate(ctx, ns.ID, kv.NamespaceBulkUpdateParams{AccountID: acct,
		Body: []kv.NamespaceBulkUpdateParamsBody{{Key: cloudflare.F("a"), Value: cloudflare.F("1")}}})
	must(t, "bulk write", err)
	_, err = api.R2.Buckets.New(ctx, r2.BucketNewParams{AccountID: acct, Name: cloudflare.F("static")})
	must(t, "create bucket", err)
	for _, key := range []string{"a.html", "dir/b.html"} {
		req, _ := http.NewRequest(http.MethodPut, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/r2/buckets/static/objects/"+key, strings.NewReader("<p>hi</p>"))
		req.Header.Set("Authorization", "Bearer "+id.APIToken)
		req.Header.Set("Content-Type", "text/html")
		resp, err := http.DefaultClient.Do(req)
		must(t, "put object", err)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("put object %s: HTTP %d", key, resp.StatusCode)
		}
	}
	if resp, _ := rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/r2/buckets/static/objects", id.APIToken, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("list objects: HTTP %d", resp.StatusCode)
	}
	// Unrouted (outside and inside the API prefix), unauthenticated, and an injected 429.
	rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/no/such/thing", id.APIToken, nil)
	rawRequest(t, http.MethodGet, ts.URL+"/elsewhere", "", nil)
	rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/storage/kv/namespaces", "", nil)
	must(t, "arm a 429", srv.SetFaults(FaultSpec{Status: http.StatusTooManyRequests, Count: 1}))
	_, err = api.KV.Namespaces.List(ctx, kv.NamespaceListParams{AccountID: acct})
	wantAPIError(t, "injected 429", err, http.StatusTooManyRequests)
	// Admin requests are not API calls.
	rawRequest(t, http.MethodGet, ts.URL+AdminPrefix+"/calls", id.APIToken, nil)
	rawRequest(t, http.MethodGet, ts.URL+AdminPrefix+"/faults", id.APIToken, nil)

	st := srv.Calls()
	wantOp := func(op string, calls int, byClass map[string]int, tooMany int, objectStorage bool) {
		t.Helper()
		got := operationCalls(st, op)
		if got.Calls != calls || got.TooManyRequests != tooMany || got.ObjectStorage != objectStorage || !sameCounts(got.ByClass, byClass) {
			t.Errorf("%s: %+v, want %d calls %v, %d 429s, object storage %v", op, got, calls, byClass, tooMany, objectStorage)
		}
	}
	wantOp(opListNamespaces, 4, map[string]int{"2xx": 2, "4xx": 2}, 1, false) // 2 served, 1 unauthenticated, 1 injected 429
	wantOp("POST /accounts/{account_id}/storage/kv/namespaces", 1, map[string]int{"2xx": 1}, 0, false)
	wantOp(opGetValue, 1, map[string]int{"4xx": 1}, 0, false)
	wantOp(opBulkWrite, 1, map[string]int{"2xx": 1}, 0, false)
	wantOp(opCreateBucket, 1, map[string]int{"2xx": 1}, 0, false)
	wantOp(opPutObject, 2, map[string]int{"2xx": 2}, 0, true)
	wantOp(opListObjects, 1, map[string]int{"2xx": 1}, 0, true)
	wantOp(UnroutedOperation, 2, map[string]int{"4xx": 2}, 0, false)
	// KV namespace operations are also counted by namespace; the rest are not.
	if got := operationCalls(st, opBulkWrite).ByNamespace; !sameCounts(got, map[string]int{ns.ID: 1}) {
		t.Errorf("bulk writes by namespace = %v, want one in %s", got, ns.ID)
	}
	if got := operationCalls(st, opGetValue).ByNamespace; !sameCounts(got, map[string]int{ns.ID: 1}) {
		t.Errorf("value reads by namespace = %v, want one in %s (a 404 counts too)", got, ns.ID)
	}
	if got := operationCalls(st, opListNamespaces).ByNamespace; got != nil {
		t.Errorf("the namespace listing counted by namespace: %v", got)
	}
	if len(st.Operations) != 8 {
		t.Errorf("operations counted: %+v, want exactly the 8 requested (admin requests are not API calls)", st.Operations)
	}
	if st.REST.Calls != 10 || st.REST.TooManyRequests != 1 || !sameCounts(st.REST.ByClass, map[string]int{"2xx": 5, "4xx": 5}) {
		t.Errorf("REST totals = %+v, want 10 calls (5 2xx, 5 4xx, one of them a 429)", st.REST)
	}
	if st.ObjectStorage.Calls != 3 || !sameCounts(st.ObjectStorage.ByClass, map[string]int{"2xx": 3}) {
		t.Errorf("object-storage totals = %+v, want 3 calls, all 2xx", st.ObjectStorage)
	}

	// The admin endpoint shows the same snapshot, and DELETE resets it, answering what it held.
	resp, env := rawRequest(t, http.MethodGet, ts.URL+AdminPrefix+"/calls", id.APIToken, nil)
	var viaAdmin CallStats
	if err := json.Unmarshal(env.Result, &viaAdmin); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET calls: HTTP %d, %v", resp.StatusCode, err)
	}
	if viaAdmin.REST.Calls != st.REST.Calls || viaAdmin.ObjectStorage.Calls != st.ObjectStorage.Calls || len(viaAdmin.Operations) != len(st.Operations) {
		t.Errorf("admin snapshot %+v differs from the accessor's %+v", viaAdmin, st)
	}
	if resp, _ := rawRequest(t, http.MethodDelete, ts.URL+AdminPrefix+"/calls", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("reset without the token: HTTP %d, want 401", resp.StatusCode)
	}
	if srv.Calls().REST.Calls != st.REST.Calls {
		t.Error("a refused reset changed the accounting")
	}
	clock.Advance(time.Minute)
	_, env = rawRequest(t, http.MethodDelete, ts.URL+AdminPrefix+"/calls", id.APIToken, nil)
	var cleared CallStats
	must(t, "decode reset answer", json.Unmarshal(env.Result, &cleared))
	if cleared.REST.Calls != st.REST.Calls || !cleared.Since.Equal(start) {
		t.Errorf("reset answered %+v, want the counts it cleared (REST %d since %v)", cleared, st.REST.Calls, start)
	}
	after := srv.Calls()
	if len(after.Operations) != 0 || after.REST.Calls != 0 || after.ObjectStorage.Calls != 0 || !after.Since.Equal(start.Add(time.Minute)) {
		t.Errorf("after the reset: %+v, want empty since the reset", after)
	}
	_, err = api.KV.Namespaces.List(ctx, kv.NamespaceListParams{AccountID: acct})
	must(t, "list namespaces", err)
	if got := srv.ResetCalls(); got.REST.Calls != 1 || operationCalls(got, opListNamespaces).Calls != 1 {
		t.Errorf("ResetCalls after one call = %+v", got)
	}
	if srv.Calls().REST.Calls != 0 {
		t.Error("ResetCalls did not reset")
	}
}

// TestCalls_NameFilterKeysCountedApart: a single-key call on one of the name filter's keys is
// also counted as the filter's, so that a benchmark can tell the filter's rebuilds from the
// records' writes; other keys, escaped or not, are not.
func TestCalls_NameFilterKeysCountedApart(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ns := createNamespace(t, api, id.AccountID, "routes")
	values := ts.URL + APIPrefix + "/accounts/" + id.AccountID + "/storage/kv/namespaces/" + ns + "/values/"
	for _, key := range []string{route.FilterKey, route.FilterRecentKey, "app-1", url.PathEscape("shop.example.com/x")} {
		rawRequest(t, http.MethodGet, values+key, id.APIToken, nil)
	}
	if got := operationCalls(srv.Calls(), opGetValue); got.Calls != 4 || !sameCounts(got.NameFilterByNamespace, map[string]int{ns: 2}) {
		t.Errorf("reads of the filter's two keys and two others: %+v, want 4 calls, 2 of them the filter's", got)
	}
}

// TestCalls_SnapshotIsACopy: a snapshot handed out does not change with later requests.
func TestCalls_SnapshotIsACopy(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/storage/kv/namespaces", id.APIToken, nil)
	st := srv.Calls()
	rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/storage/kv/namespaces", id.APIToken, nil)
	if got := operationCalls(st, opListNamespaces); got.Calls != 1 || got.ByClass["2xx"] != 1 {
		t.Errorf("the earlier snapshot changed: %+v", got)
	}
}

func sameCounts(got, want map[string]int) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// putJSON sends a JSON body with the token and returns the status.
func putJSON(t *testing.T, method, url, token string, body any) (*http.Response, envelopeForTest) {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return rawRequest(t, method, url, token, bytes.NewReader(data))
}

// zeros is an endless body that costs the client no memory.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestCalls_OversizedBodyStillClosesTheConnection: counting wraps the response writer, and
// a body over the limit must still be answered 413 with the connection closed (net/http
// closes it only when told through its own writer), not left to be read as the next request.
// The server reads up to the 128 MB limit once.
func TestCalls_OversizedBodyStillClosesTheConnection(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	req, err := http.NewRequest(http.MethodPost, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/storage/kv/namespaces",
		io.LimitReader(zeros{}, maxBodyBytes+1))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+id.APIToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !resp.Close {
		t.Errorf("HTTP %d, connection closed %v; want 413 and the connection closed", resp.StatusCode, resp.Close)
	}
	if got := operationCalls(srv.Calls(), "POST /accounts/{account_id}/storage/kv/namespaces"); got.ByClass["4xx"] != 1 {
		t.Errorf("the refused request was counted as %+v, want one 4xx", got)
	}
}
