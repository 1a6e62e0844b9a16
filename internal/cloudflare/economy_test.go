package cloudflare

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// callCounter counts the requests a client sends, by method and path shape.
type callCounter struct {
	next http.RoundTripper
	mu   sync.Mutex
	by   map[string]int
}

func (c *callCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if c.by == nil {
		c.by = map[string]int{}
	}
	c.by[r.Method+" "+shape(r.URL.Path)]++
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

func (c *callCounter) count(prefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, v := range c.by {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}

func (c *callCounter) total() int { return c.count("") }

// shape keeps the last fixed segment of a path: ".../bulk", ".../values", ".../keys".
func shape(path string) string {
	parts := strings.Split(path, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		switch parts[i] {
		case "bulk", "get", "delete", "keys", "values", "metadata", "custom_hostnames", "purge_cache":
			if i > 0 && parts[i-1] == "bulk" {
				return "bulk/" + parts[i]
			}
			return parts[i]
		}
	}
	return path
}

// localAPI is the local edge's API server with a client that counts its calls.
type localAPI struct {
	url   string // the local edge's root URL
	srv   *cfapi.Server
	c     *Client
	calls *callCounter
	id    cfapi.Identity
}

func newLocalAPI(t *testing.T) *localAPI {
	t.Helper()
	srv, err := cfapi.New(cfapi.Config{StateDir: t.TempDir(), KVPropagationDelay: -1, AutoValidate: time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	calls := &callCounter{next: http.DefaultTransport}
	id := srv.Identity()
	a := &localAPI{url: hs.URL, srv: srv, calls: calls, id: id}
	a.c = a.client(t, calls)
	return a
}

// client is a client of the local edge through transport (nil: the default one), unthrottled:
// the tests' own client, or another process's.
func (a *localAPI) client(t *testing.T, transport http.RoundTripper) *Client {
	t.Helper()
	return newTestClient(t, a.url, func(cfg *Config) {
		cfg.APIToken = a.id.APIToken
		cfg.Transport = transport
		cfg.RequestsPerFiveMinutes = 1 << 20
	})
}

func (a *localAPI) namespace(t *testing.T) string {
	t.Helper()
	ns, err := a.c.KV.Namespaces.New(context.Background(), kv.NamespaceNewParams{AccountID: cf.F(a.id.AccountID), Title: cf.F("t-" + t.Name())})
	if err != nil {
		t.Fatal(err)
	}
	return ns.ID
}

// parallel runs f(i) for i in [0, n) at once and returns the errors by index.
func parallel(n int, f func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = f(i) }()
	}
	wg.Wait()
	return errs
}

func TestKVBatches_ConcurrentWritesAndDeletesShareBulkCalls(t *testing.T) {
	a := newLocalAPI(t)
	ns := a.namespace(t)
	ctx := context.Background()
	const n = 250
	for i, err := range parallel(n, func(i int) error {
		return a.c.KVBulk.Put(ctx, a.id.AccountID, ns, fmt.Sprintf("app-%03d", i), []byte(fmt.Sprintf(`{"n":%d}`, i)), fmt.Sprintf(`{"v":1,"rev":"r%d","owner":"test"}`, i))
	}) {
		if err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
	}
	if got := a.calls.count("PUT bulk"); got == 0 || got > 5 {
		t.Errorf("%d concurrent puts took %d bulk writes, want a handful", n, got)
	}
	if got := a.calls.count("PUT values"); got != 0 {
		t.Errorf("%d single-key writes", got)
	}
	keys, err := a.c.KVListKeys(ctx, a.id.AccountID, ns)
	if err != nil || len(keys) != n {
		t.Fatalf("listed %d keys (%v), want %d", len(keys), err, n)
	}
	got, found, err := a.c.KVGet(ctx, a.id.AccountID, ns, "app-042")
	if err != nil || !found || string(got.Value) != `{"n":42}` || !strings.Contains(string(got.Metadata), `"rev":"r42"`) {
		t.Fatalf("app-042 = %q %s (found %v, %v)", got.Value, got.Metadata, found, err)
	}

	before := a.calls.total()
	for i, err := range parallel(n, func(i int) error { return a.c.KVBulk.Delete(ctx, a.id.AccountID, ns, fmt.Sprintf("app-%03d", i)) }) {
		if err != nil {
			t.Fatalf("delete %d: %v", i, err)
		}
	}
	if got := a.calls.total() - before; got == 0 || got > 5 {
		t.Errorf("%d concurrent deletes took %d calls, want a handful of bulk deletes", n, got)
	}
	if keys, _ := a.c.KVListKeys(ctx, a.id.AccountID, ns); len(keys) != 0 {
		t.Errorf("%d keys left after deleting all", len(keys))
	}
}

// Terraform does not start its -parallelism operations at once: its core hands them out one
// after another, tens a second. Batches must still fill up to what is in flight instead of
// going out per cohort (with a lull shorter than the gap between two starts they never merge:
// 1,000 records once took 312 bulk writes at -parallelism=100).
func TestKVBatches_StaggeredStartsFillBatchesToTheParallelism(t *testing.T) {
	a := newLocalAPI(t)
	ns := a.namespace(t)
	ctx := context.Background()
	const n, inFlight, gap = 300, 50, 10 * time.Millisecond
	slots := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		slots <- struct{}{} // like Terraform's semaphore: start only while a slot is free…
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			errs[i] = a.c.KVBulk.Put(ctx, a.id.AccountID, ns, fmt.Sprintf("app-%03d", i), []byte(`{}`), `{"v":1,"rev":"r","owner":"test"}`)
		}()
		time.Sleep(gap) // …and one after another
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
	}
	if got, goal := a.calls.count("PUT bulk"), n/inFlight+2; got > goal {
		t.Errorf("%d writes started %v apart, at most %d in flight, took %d bulk writes, want ≤ %d", n, gap, inFlight, got, goal)
	}
}

func TestKVBatches_ConcurrentReadsShareBulkReads(t *testing.T) {
	a := newLocalAPI(t)
	ns := a.namespace(t)
	ctx := context.Background()
	for i := 0; i < 150; i++ {
		if err := a.c.KVPut(ctx, a.id.AccountID, ns, fmt.Sprintf("k%03d", i), []byte(fmt.Sprintf("value %d", i)), fmt.Sprintf(`{"rev":"%d"}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	before := a.calls.total()
	reads := make([]KVRead, 160)
	for i, err := range parallel(160, func(i int) error {
		var err error
		reads[i], err = a.c.KVBulk.Get(ctx, a.id.AccountID, ns, fmt.Sprintf("k%03d", i))
		return err
	}) {
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
	}
	if got := a.calls.total() - before; got < 2 || got > 6 {
		t.Errorf("160 concurrent reads took %d calls, want a few bulk reads of up to 100 keys", got)
	}
	for i, r := range reads {
		switch {
		case i < 150 && (!r.Found || string(r.Entry.Value) != fmt.Sprintf("value %d", i) || string(r.Entry.Metadata) != fmt.Sprintf(`{"rev":"%d"}`, i)):
			t.Fatalf("k%03d = %+v", i, r)
		case i >= 150 && r.Found:
			t.Fatalf("k%03d does not exist, read %+v", i, r)
		}
	}
}

// TestKVBatches_UnsuccessfulKeysRetriedThenReported: a key the bulk API reports unsuccessful
// once is sent again and succeeds; one it always reports fails on exactly its request.
func TestKVBatches_UnsuccessfulKeysRetriedThenReported(t *testing.T) {
	var mu sync.Mutex
	attempts := map[string]int{}
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var items []struct {
			Key string `json:"key"`
		}
		if err := json.NewDecoder(r.Body).Decode(&items); err != nil {
			t.Errorf("the bulk write's body: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var failed []string
		mu.Lock()
		for _, it := range items {
			attempts[it.Key]++
			if it.Key == "always-bad" || (it.Key == "flaky" && attempts[it.Key] == 1) {
				failed = append(failed, it.Key)
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		out, _ := json.Marshal(map[string]any{"success": true, "errors": []any{}, "messages": []any{},
			"result": map[string]any{"successful_key_count": len(items) - len(failed), "unsuccessful_keys": failed}})
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL, nil)
	c.KVBulk.backoff = time.Millisecond
	keys := []string{"good-1", "flaky", "always-bad", "good-2"}
	errs := parallel(len(keys), func(i int) error {
		return c.KVBulk.Put(context.Background(), "acc", "ns", keys[i], []byte("v"), `{}`)
	})
	for i, err := range errs {
		if (keys[i] == "always-bad") != (err != nil) {
			t.Errorf("%s: err = %v", keys[i], err)
		}
	}
	if err := errs[2]; err == nil || !strings.Contains(err.Error(), `"always-bad"`) || !strings.Contains(err.Error(), "3 times") {
		t.Errorf("the failed key's error does not say what failed: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if attempts["good-1"] != 1 || attempts["flaky"] != 2 || attempts["always-bad"] != kvBulkAttempts {
		t.Errorf("attempts %v: a good key is sent once, a flaky one until it succeeds, a bad one %d times", attempts, kvBulkAttempts)
	}
}

func TestFitsKVWrite(t *testing.T) {
	batch := []kvOp{{key: "a", value: []byte("1")}, {key: "b", delete: true}}
	if fitsKVWrite(batch, kvOp{key: "a", value: []byte("2")}) || fitsKVWrite(batch, kvOp{key: "b", value: []byte("x")}) {
		t.Error("a second change of a key joined its batch: the two would race inside one call")
	}
	if !fitsKVWrite(batch, kvOp{key: "c", value: []byte("3")}) {
		t.Error("a new key did not fit a small batch")
	}
	if fitsKVWrite(batch, kvOp{key: "big", value: make([]byte, kvBulkWriteMaxBytes)}) {
		t.Error("a batch grew past the bulk call's size limit")
	}
	// The limit is the request's: values travel as JSON strings, where every quote of a
	// record's JSON doubles. 60 MB of quotes send as 120 MB.
	quotes := []byte(strings.Repeat(`"`, 30_000_000))
	if fitsKVWrite([]kvOp{newKVWrite("q1", quotes, nil)}, newKVWrite("q2", quotes, nil)) {
		t.Error("two values of 30 MB of quotes (120 MB as JSON) fit one bulk write")
	}
	// 100 MB is 10^8 bytes: 100 MiB of plain bytes does not fit.
	if fitsKVWrite(nil, newKVWrite("plain", make([]byte, kvBulkWriteMaxBytes), nil)) {
		t.Error("a value as large as the whole request fit, with its key and framing")
	}
	full := make([]kvOp, kvBulkWriteMaxPairs)
	for i := range full {
		full[i].key = fmt.Sprint(i)
	}
	if fitsKVWrite(full, kvOp{key: "one-more"}) {
		t.Error("a batch grew past the bulk call's pair limit")
	}
}

func TestKVIndex_OneListingServesEveryLookup(t *testing.T) {
	a := newLocalAPI(t)
	ns := a.namespace(t)
	ctx := context.Background()
	for i := 0; i < 30; i++ {
		if err := a.c.KVPut(ctx, a.id.AccountID, ns, fmt.Sprintf("k%d", i), []byte("v"), fmt.Sprintf(`{"rev":"%d"}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	before := a.calls.count("GET keys")
	// Listed never fetches: before any lookup the process knows nothing of the namespace.
	if _, _, known := a.c.KVIndex.Listed(a.id.AccountID, ns, "k1"); known {
		t.Error("Listed claims a listing nobody took")
	}
	for i, err := range parallel(40, func(i int) error {
		meta, listed, err := a.c.KVIndex.Lookup(ctx, a.id.AccountID, ns, fmt.Sprintf("k%d", i))
		switch {
		case err != nil:
			return err
		case i < 30 && (!listed || string(meta) != fmt.Sprintf(`{"rev":"%d"}`, i)):
			return fmt.Errorf("k%d: listed %v, metadata %s", i, listed, meta)
		case i >= 30 && listed:
			return fmt.Errorf("k%d listed but never written", i)
		}
		return nil
	}) {
		if err != nil {
			t.Fatalf("lookup %d: %v", i, err)
		}
	}
	if got := a.calls.count("GET keys") - before; got != 1 {
		t.Errorf("40 concurrent lookups took %d listings, want 1", got)
	}
	if meta, listed, known := a.c.KVIndex.Listed(a.id.AccountID, ns, "k1"); !known || !listed || string(meta) != `{"rev":"1"}` {
		t.Errorf("Listed after the listing: %s, listed %v, known %v", meta, listed, known)
	}

	// What this process writes shows at once; the listing is not taken again for it.
	a.c.KVIndex.Noted(a.id.AccountID, ns, "k99", json.RawMessage(`{"rev":"new"}`))
	a.c.KVIndex.Forgot(a.id.AccountID, ns, "k0")
	if meta, listed, _ := a.c.KVIndex.Lookup(ctx, a.id.AccountID, ns, "k99"); !listed || string(meta) != `{"rev":"new"}` {
		t.Errorf("a noted write is not served: %s %v", meta, listed)
	}
	if _, listed, _ := a.c.KVIndex.Lookup(ctx, a.id.AccountID, ns, "k0"); listed {
		t.Error("a noted delete is still listed")
	}
	if got := a.calls.count("GET keys") - before; got != 1 {
		t.Errorf("noting writes took %d more listings", got-1)
	}

	// Past its age the listing is taken again.
	now := time.Now()
	a.c.KVIndex.listings.now = func() time.Time { return now.Add(2 * KVIndexMaxAge) }
	if _, listed, _ := a.c.KVIndex.Lookup(ctx, a.id.AccountID, ns, "k0"); !listed {
		t.Error("a fresh listing does not show k0, which the API still holds")
	}
	if got := a.calls.count("GET keys") - before; got != 2 {
		t.Errorf("a stale listing was not taken again (%d listings)", got)
	}
}

func TestHostnameIndex_WaitersShareOnePoll(t *testing.T) {
	a := newLocalAPI(t)
	ctx := context.Background()
	a.c.Hostnames.pollEvery = 20 * time.Millisecond
	var ids []string
	for i := 0; i < 12; i++ {
		h, err := a.c.CreateCustomHostname(ctx, a.id.ZoneID, fmt.Sprintf("www.t%d.example", i), "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, h.ID)
	}
	if h, listed, err := a.c.Hostnames.ByName(ctx, a.id.ZoneID, "www.t3.example"); err != nil || !listed || h.ID != ids[3] {
		t.Fatalf("ByName = %+v %v %v", h, listed, err)
	}
	before := a.calls.total()
	for i, err := range parallel(len(ids), func(i int) error {
		h, found, err := a.c.Hostnames.Poll(ctx, a.id.ZoneID, ids[i])
		if err == nil && (!found || h.ID != ids[i]) {
			err = fmt.Errorf("poll of %s found %v: %+v", ids[i], found, h)
		}
		return err
	}) {
		if err != nil {
			t.Fatalf("waiter %d: %v", i, err)
		}
	}
	if got := a.calls.total() - before; got < 1 || got > 3 {
		t.Errorf("12 waiters polled with %d calls, want a shared listing or two", got)
	}
	if got := a.calls.count("GET custom_hostnames") - 0; got == 0 {
		t.Error("no listing of custom hostnames was made")
	}
	// A lone waiter is asked about with one GET.
	before = a.calls.total()
	if _, found, err := a.c.Hostnames.Poll(ctx, a.id.ZoneID, ids[0]); err != nil || !found {
		t.Fatalf("lone poll: %v %v", found, err)
	}
	if got := a.calls.total() - before; got != 1 {
		t.Errorf("a lone waiter took %d calls", got)
	}
	// A deleted hostname is reported gone.
	if err := a.c.DeleteCustomHostname(ctx, a.id.ZoneID, ids[1]); err != nil {
		t.Fatal(err)
	}
	if _, found, err := a.c.Hostnames.Poll(ctx, a.id.ZoneID, ids[1]); err != nil || found {
		t.Fatalf("poll of a deleted hostname: found %v, %v", found, err)
	}
}

func TestPurgeBatches_ShareCallsOfUpTo100URLs(t *testing.T) {
	a := newLocalAPI(t)
	ctx := context.Background()
	for i, err := range parallel(250, func(i int) error {
		return a.c.Purges.Purge(ctx, a.id.ZoneID, fmt.Sprintf("https://kamui-internal.kamui.test/route/v1/app-%d.kamui.test", i))
	}) {
		if err != nil {
			t.Fatalf("purge %d: %v", i, err)
		}
	}
	if got := a.calls.count("POST purge_cache"); got < 3 || got > 6 {
		t.Errorf("250 purges took %d purge calls, want 3 (100 URLs each) or a few more", got)
	}
}

func TestSharedBudget(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	b := newSharedBudget(func() time.Time { return now })
	resp := func(status int, h map[string]string) *http.Response {
		r := &http.Response{StatusCode: status, Header: http.Header{}}
		for k, v := range h {
			r.Header.Set(k, v)
		}
		return r
	}
	ctx := context.Background()
	b.observe(ctx, resp(200, map[string]string{"Ratelimit": `"default";r=800;t=120`}))
	if !b.until.IsZero() {
		t.Fatalf("plenty left, yet paused until %v", b.until)
	}
	b.observe(ctx, resp(200, map[string]string{"Ratelimit": `"burst";r=0;t=5, "default";r=3;t=42`}))
	if got := b.until.Sub(now); got != 42*time.Second {
		t.Errorf("nearly spent: paused %v, want until the reset in 42s", got)
	}
	b.observe(ctx, resp(429, map[string]string{"Retry-After": "300"}))
	if got := b.until.Sub(now); got != 300*time.Second {
		t.Errorf("refused: paused %v, want Retry-After's 300s", got)
	}
	b.observe(ctx, resp(429, map[string]string{"Retry-After": "1"}))
	if got := b.until.Sub(now); got != 300*time.Second {
		t.Errorf("a shorter Retry-After shortened the pause to %v", got)
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := b.wait(short); err == nil {
		t.Error("a request went out during the pause")
	}
	for v, want := range map[string][2]int{
		`"default";r=50;t=30`:   {50, 30},
		`"default"; r=0; t=299`: {0, 299},
		`"other";r=1;t=1`:       {-1, -1},
		`garbage`:               {-1, -1},
	} {
		r, d, ok := parseRatelimit(v)
		if want[0] < 0 {
			if ok {
				t.Errorf("parseRatelimit(%q) = %d %v, want not ok", v, r, d)
			}
			continue
		}
		if !ok || r != want[0] || d != time.Duration(want[1])*time.Second {
			t.Errorf("parseRatelimit(%q) = %d %v %v, want %v", v, r, d, ok, want)
		}
	}
}

// TestSharedBudgetHoldsEveryCaller: after one request is refused, the others wait for the
// pause instead of being refused in turn.
func TestSharedBudgetHoldsEveryCaller(t *testing.T) {
	var refused atomic.Int32
	var sent atomic.Int32
	var pausedUntil atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if until := pausedUntil.Load(); until == 0 || time.Now().UnixNano() < until {
			if until == 0 {
				pausedUntil.Store(time.Now().Add(time.Second).UnixNano())
			}
			refused.Add(1)
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"success":false,"errors":[{"code":10000,"message":"rate limited"}],"messages":[],"result":null}`))
			return
		}
		_, _ = w.Write([]byte(`{"success":true,"errors":[],"messages":[],"result":[],"result_info":{"page":1,"per_page":20,"count":0,"total_count":0}}`))
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.RetryWaitMax = 2 * time.Second })
	// The first request is refused and opens the pause; the others start inside it.
	if err := listNamespaces(context.Background(), c); err != nil {
		t.Fatalf("the first request did not succeed after its retry: %v", err)
	}
	for i, err := range parallel(10, func(int) error { return listNamespaces(context.Background(), c) }) {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if got := refused.Load(); got != 1 {
		t.Errorf("%d requests refused (of %d sent), want only the first: the pause holds every caller", got, sent.Load())
	}
}
