package kvmigrate

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/option"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// testEdge is the local edge's real API server in the test process, with a record of every
// request it received.
type testEdge struct {
	t   *testing.T
	srv *cfapi.Server
	id  cfapi.Identity
	// root is the server's address; URL the API base URL (root + /client/v4).
	root, URL string
	// seeder is a plain cloudflare-go client for seeding and side effects, outside the
	// command's client and its counting.
	seeder *cloudflare.Client

	mu       sync.Mutex
	requests []seenRequest
	// refuseBulkGet, when set, makes the server answer 400 to a bulk get of keys it matches, as
	// Cloudflare may for values that are not text ("keys must contain text-based values").
	refuseBulkGet func(keys []string) bool
	// unsuccessful, when set, drops the keys it matches from a bulk write before the server
	// sees them and reports them in the result's unsuccessful_keys, as Cloudflare does for keys
	// that "failed to be fully updated".
	unsuccessful func(key string) bool
}

// seenRequest is one request the server received.
type seenRequest struct {
	Method, Path string
	// Pairs and BodyBytes describe a bulk write's body.
	Pairs, BodyBytes int
}

func newTestEdge(t *testing.T) *testEdge {
	t.Helper()
	srv, err := cfapi.New(cfapi.Config{
		StateDir:           t.TempDir(),
		KVPropagationDelay: -1,
		Logger:             slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &testEdge{t: t, srv: srv, id: srv.Identity()}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := seenRequest{Method: r.Method, Path: r.URL.Path}
		if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/bulk") {
			body, _ := io.ReadAll(r.Body)
			var items []json.RawMessage
			_ = json.Unmarshal(body, &items)
			seen.Pairs, seen.BodyBytes = len(items), len(body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		e.mu.Lock()
		e.requests = append(e.requests, seen)
		refuse := e.refuseBulkGet
		e.mu.Unlock()
		if refuse != nil && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/bulk/get") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var q struct {
				Keys []string `json:"keys"`
			}
			_ = json.Unmarshal(body, &q)
			if refuse(q.Keys) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"success":false,"errors":[{"code":10021,"message":"keys must contain text-based values"}],"messages":[],"result":null}`))
				return
			}
		}
		if drop := e.unsuccessfulHook(); drop != nil && r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/bulk") {
			e.bulkWriteDropping(w, r, drop)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { _ = srv.Close() })
	e.root, e.URL = hs.URL, hs.URL+cfapi.APIPrefix
	e.seeder = newSeeder(e.URL, e.id.APIToken)
	return e
}

// newSeeder is a plain cloudflare-go client for the API at apiURL.
func newSeeder(apiURL, token string) *cloudflare.Client {
	return cloudflare.NewClient(option.WithBaseURL(apiURL+"/"), option.WithAPIToken(token), option.WithMaxRetries(0))
}

func (e *testEdge) unsuccessfulHook() func(string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.unsuccessful
}

// bulkWriteDropping serves a bulk write without the keys drop matches, and reports those in
// unsuccessful_keys.
func (e *testEdge) bulkWriteDropping(w http.ResponseWriter, r *http.Request, drop func(string) bool) {
	body, _ := io.ReadAll(r.Body)
	var items []map[string]any
	if err := json.Unmarshal(body, &items); err != nil {
		e.srv.ServeHTTP(w, r)
		return
	}
	var kept []map[string]any
	dropped := []string{}
	for _, it := range items {
		if key, _ := it["key"].(string); drop(key) {
			dropped = append(dropped, key)
			continue
		}
		kept = append(kept, it)
	}
	if kept == nil {
		kept = []map[string]any{}
	}
	forward, _ := json.Marshal(kept)
	r2 := r.Clone(r.Context())
	r2.Body, r2.ContentLength = io.NopCloser(bytes.NewReader(forward)), int64(len(forward))
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, r2)
	var env map[string]any
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &env) != nil {
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		return
	}
	env["result"] = map[string]any{"successful_key_count": len(kept), "unsuccessful_keys": dropped}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(env)
}

// namespace creates a namespace and returns its id.
func (e *testEdge) namespace(title string) string {
	e.t.Helper()
	ns, err := e.seeder.KV.Namespaces.New(context.Background(), kv.NamespaceNewParams{
		AccountID: cloudflare.F(e.id.AccountID), Title: cloudflare.F(title),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return ns.ID
}

// seed writes entries with the seeder (bulk writes of at most 10,000 pairs).
func (e *testEdge) seed(namespaceID string, entries map[string]Entry) {
	e.t.Helper()
	var body []kv.NamespaceBulkUpdateParamsBody
	flush := func() {
		if len(body) == 0 {
			return
		}
		if _, err := e.seeder.KV.Namespaces.BulkUpdate(context.Background(), namespaceID, kv.NamespaceBulkUpdateParams{
			AccountID: cloudflare.F(e.id.AccountID), Body: body,
		}); err != nil {
			e.t.Fatal(err)
		}
		body = nil
	}
	for key, en := range entries {
		b := kv.NamespaceBulkUpdateParamsBody{
			Key: cloudflare.F(key), Value: cloudflare.F(base64.StdEncoding.EncodeToString(en.Value)), Base64: cloudflare.F(true),
		}
		if en.Metadata != nil {
			b.Metadata = cloudflare.F[any](en.Metadata)
		}
		if en.Expiration != 0 {
			b.Expiration = cloudflare.F(float64(en.Expiration))
		}
		body = append(body, b)
		if len(body) == MaxBulkWritePairs {
			flush()
		}
	}
	flush()
}

// deleteKey deletes one key with the seeder.
func (e *testEdge) deleteKey(namespaceID, key string) {
	e.t.Helper()
	if _, err := e.seeder.KV.Namespaces.Values.Delete(context.Background(), namespaceID, key, kv.NamespaceValueDeleteParams{
		AccountID: cloudflare.F(e.id.AccountID),
	}); err != nil {
		e.t.Fatal(err)
	}
}

// stored returns the namespace's live entries as the server holds them.
// stored returns the namespace's keys besides its name filter, which it checks: present (the
// migration rebuilds the target's), it must admit every other key.
func (e *testEdge) stored(namespaceID string) map[string]*cfapi.KVEntry {
	e.t.Helper()
	for _, ns := range e.srv.KVNamespaces() {
		if ns.ID != namespaceID {
			continue
		}
		entries := maps.Clone(ns.Entries)
		if filter, ok := entries[route.FilterKey]; ok {
			delete(entries, route.FilterKey)
			f, err := route.DecodeFilter(filter.Value)
			if err != nil {
				e.t.Fatalf("the name filter of %s: %v", namespaceID, err)
			}
			for k := range entries {
				if !f.Has(k) {
					e.t.Errorf("the name filter of %s refuses %q", namespaceID, k)
				}
			}
		}
		return entries
	}
	e.t.Fatalf("namespace %s not found", namespaceID)
	return nil
}

// resetRequests forgets the requests recorded so far.
func (e *testEdge) resetRequests() {
	e.mu.Lock()
	e.requests = nil
	e.mu.Unlock()
}

// seen returns the recorded requests that match.
func (e *testEdge) seen(match func(seenRequest) bool) []seenRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []seenRequest
	for _, r := range e.requests {
		if match(r) {
			out = append(out, r)
		}
	}
	return out
}

func isBulkWrite(r seenRequest) bool {
	return r.Method == http.MethodPut && strings.HasSuffix(r.Path, "/bulk")
}

func isBulkGet(r seenRequest) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/bulk/get")
}

func isValueGet(r seenRequest) bool {
	return r.Method == http.MethodGet && strings.Contains(r.Path, "/values/")
}

// isWrite is any request that could change KV state.
func isWrite(r seenRequest) bool {
	return r.Method != http.MethodGet && !isBulkGet(r)
}

// testClientConfig makes the client fast for tests: no real rate limit, quick retries.
func testClientConfig(cfg *kdcf.Config) {
	cfg.RequestsPerFiveMinutes = 1_000_000
	cfg.MaxRetries = 2
	cfg.RetryWaitMin = time.Millisecond
	cfg.RetryWaitMax = 5 * time.Millisecond
}

// command is the kv command pointed at the edge through the environment, as an operator runs it.
func (e *testEdge) command(wrap func(http.RoundTripper) http.RoundTripper) *Command {
	env := map[string]string{
		EnvAPIToken:   e.id.APIToken,
		EnvAccountID:  e.id.AccountID,
		EnvAPIBaseURL: e.URL,
	}
	return &Command{
		Getenv: func(k string) string { return env[k] },
		Configure: func(cfg *kdcf.Config) {
			testClientConfig(cfg)
			if wrap != nil {
				cfg.Transport = wrap(http.DefaultTransport)
			}
		},
	}
}

// runResult is one command run's exit code and output.
type runResult struct {
	code           int
	stdout, stderr string
}

func (r runResult) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// report decodes the JSON report of a run made with --format json.
func (r runResult) report(t *testing.T) Output {
	t.Helper()
	var out Output
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("the output is not a JSON report: %v\n%s", err, r)
	}
	return out
}

func run(ctx context.Context, c *Command, args ...string) runResult {
	var stdout, stderr bytes.Buffer
	code := c.Run(ctx, args, &stdout, &stderr)
	return runResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// client is a project client for calling Run directly.
func (e *testEdge) client(t *testing.T, transport http.RoundTripper) *kdcf.Client {
	t.Helper()
	cfg := kdcf.Config{APIToken: e.id.APIToken, BaseURL: e.URL, UserAgent: "kvmigrate-test", Transport: transport}
	testClientConfig(&cfg)
	c, err := kdcf.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// routeEntries returns n route-record-like entries app-00000, app-00001, …: JSON values,
// metadata {v, rev, owner}.
func routeEntries(n int) map[string]Entry {
	out := make(map[string]Entry, n)
	for i := range n {
		app := fmt.Sprintf("app-%05d", i)
		rev := fmt.Sprintf("rev-%s-1", app)
		out[app] = Entry{
			Value:    fmt.Appendf(nil, `{"v":1,"app":%q,"status":"active","kind":"dynamic","dynamic":{"origin":"origin.kamui.test","upstream":"tenant-%s/web:8080","timeout_ms":30000},"rev":%q}`, app, app, rev),
			Metadata: json.RawMessage(fmt.Sprintf(`{"owner":"tenant","rev":%q,"v":1}`, rev)),
		}
	}
	return out
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// afterBulkWrite wraps a transport to call hook once, after the nth successful bulk write's
// response has arrived.
func afterBulkWrite(n int, hook func()) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		var mu sync.Mutex
		seen := 0
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(r)
			if err == nil && resp.StatusCode == http.StatusOK && r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/bulk") {
				mu.Lock()
				seen++
				fire := seen == n
				mu.Unlock()
				if fire {
					hook()
				}
			}
			return resp, err
		})
	}
}

// beforeBulkWrite wraps a transport to call hook once, just before the nth bulk write is sent.
func beforeBulkWrite(n int, hook func()) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		var mu sync.Mutex
		seen := 0
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/bulk") {
				mu.Lock()
				seen++
				fire := seen == n
				mu.Unlock()
				if fire {
					hook()
				}
			}
			return next.RoundTrip(r)
		})
	}
}

// sameEntry compares a stored entry with what was seeded, metadata as JSON values.
func sameEntry(t *testing.T, key string, got *cfapi.KVEntry, want Entry) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: missing from the target", key)
		return
	}
	if !bytes.Equal(got.Value, want.Value) {
		t.Errorf("%s: value %q, want %q", key, got.Value, want.Value)
	}
	gm, _ := canonicalMetadata(got.Metadata)
	wm, _ := canonicalMetadata(want.Metadata)
	if string(gm) != string(wm) {
		t.Errorf("%s: metadata %s, want %s", key, gm, wm)
	}
	if got.Expiration != want.Expiration {
		t.Errorf("%s: expiration %d, want %d", key, got.Expiration, want.Expiration)
	}
}

// httptestServer serves h on loopback for the test and returns its URL.
func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}
