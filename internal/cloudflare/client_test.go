package cloudflare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/zero_trust"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

const testToken = "tok-0123456789abcdef-secret"

// apiServer answers with the statuses in plan, one per request, then 200 with an empty KV
// namespace list. It records what it saw.
type apiServer struct {
	*httptest.Server
	plan     []int
	requests atomic.Int32
	seen     []*http.Request
}

func newAPIServer(t *testing.T, plan ...int) *apiServer {
	s := &apiServer{plan: plan}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(s.requests.Add(1)) - 1
		s.seen = append(s.seen, r.Clone(context.Background()))
		w.Header().Set("Content-Type", "application/json")
		if n < len(s.plan) && s.plan[n] != http.StatusOK {
			if s.plan[n] == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "0")
			}
			w.WriteHeader(s.plan[n])
			// Here and below, the client under test checks what arrives.
			_, _ = w.Write([]byte(`{"success":false,"errors":[{"code":10013,"message":"try later"}],"messages":[],"result":null}`))
			return
		}
		if r.Method == http.MethodPost {
			_, _ = w.Write([]byte(`{"success":true,"errors":[],"messages":[],"result":{"id":"t1","name":"edge"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"success":true,"errors":[],"messages":[],"result":[],"result_info":{"page":1,"per_page":20,"count":0,"total_count":0}}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func newTestClient(t *testing.T, url string, edit func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		APIToken:     testToken,
		BaseURL:      url + "/client/v4",
		UserAgent:    "terraform-provider-kamuidash/test",
		MaxRetries:   3,
		RetryWaitMin: time.Millisecond,
		RetryWaitMax: 5 * time.Millisecond,
	}
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func listNamespaces(ctx context.Context, c *Client) error {
	_, err := c.KV.Namespaces.List(ctx, kv.NamespaceListParams{AccountID: cf.F("acc")})
	return err
}

func TestRetries429ForEveryMethod(t *testing.T) {
	srv := newAPIServer(t, 429, 429, http.StatusOK)
	c := newTestClient(t, srv.URL, nil)
	if err := listNamespaces(context.Background(), c); err != nil {
		t.Fatalf("GET after two 429s: %v", err)
	}
	if got := srv.requests.Load(); got != 3 {
		t.Errorf("requests = %d; want 3", got)
	}

	post := newAPIServer(t, 429, http.StatusOK)
	c = newTestClient(t, post.URL, nil)
	_, err := c.Tunnels.New(context.Background(), zero_trust.TunnelCloudflaredNewParams{
		AccountID: cf.F("acc"), Name: cf.F("edge"),
	})
	if err != nil {
		t.Fatalf("POST after a 429: %v", err)
	}
	if got := post.requests.Load(); got != 2 {
		t.Errorf("POST requests = %d; want 2 (429 means nothing was done, so a retry is safe)", got)
	}
}

func TestRetries5xxOnlyForIdempotentMethods(t *testing.T) {
	get := newAPIServer(t, 503, 502, http.StatusOK)
	c := newTestClient(t, get.URL, nil)
	if err := listNamespaces(context.Background(), c); err != nil {
		t.Fatalf("GET after 503, 502: %v", err)
	}
	if got := get.requests.Load(); got != 3 {
		t.Errorf("GET requests = %d; want 3", got)
	}

	post := newAPIServer(t, 503, http.StatusOK)
	c = newTestClient(t, post.URL, nil)
	_, err := c.Tunnels.New(context.Background(), zero_trust.TunnelCloudflaredNewParams{
		AccountID: cf.F("acc"), Name: cf.F("edge"),
	})
	var apiErr *cf.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 {
		t.Fatalf("POST with 503 should fail with the API's error, got %v", err)
	}
	if got := post.requests.Load(); got != 1 {
		t.Errorf("POST requests = %d; want 1 (the server may have acted: never resend a create)", got)
	}
}

// TestRetries5xxForPostsThatOnlyReadOrDelete: a bulk read, a bulk delete and a purge are POSTs
// that change nothing when sent twice, so a 5xx retries them like a GET.
func TestRetries5xxForPostsThatOnlyReadOrDelete(t *testing.T) {
	for _, path := range []string{"/storage/kv/namespaces/ns/bulk/get", "/storage/kv/namespaces/ns/bulk/delete", "/zones/z/purge_cache"} {
		req, _ := http.NewRequest(http.MethodPost, "http://api.test/client/v4/accounts/a"+path, nil)
		if !isIdempotent(req) {
			t.Errorf("POST %s is not retried on a 5xx", path)
		}
	}
	for _, path := range []string{"/cfd_tunnel", "/storage/kv/namespaces", "/custom_hostnames"} {
		req, _ := http.NewRequest(http.MethodPost, "http://api.test/client/v4/accounts/a"+path, nil)
		if isIdempotent(req) {
			t.Errorf("POST %s (a create) would be retried on a 5xx", path)
		}
	}
}

// TestRetries5xxForTunnelEdits: a tunnel's PATCH sets its name or secret to a value the body
// gives, so a rename or a rotation whose answer was lost is sent again; other PATCHes are not.
func TestRetries5xxForTunnelEdits(t *testing.T) {
	srv := newAPIServer(t, 503, http.StatusOK)
	c := newTestClient(t, srv.URL, nil)
	if err := c.RenameTunnel(context.Background(), "acc", "c1744f8b-faa1-48a4-9e5c-02ac921467fa", "edge-2"); err != nil {
		t.Fatalf("PATCH after a 503: %v", err)
	}
	if got := srv.requests.Load(); got != 2 {
		t.Errorf("PATCH requests = %d; want 2", got)
	}
	for path, want := range map[string]bool{
		"/accounts/a/cfd_tunnel/c1744f8b-faa1-48a4-9e5c-02ac921467fa": true,
		"/zones/z/custom_hostnames/0d89c70d":                          false,
		"/zones/z/dns_records/372e6795":                               false,
	} {
		req, _ := http.NewRequest(http.MethodPatch, "http://api.test/client/v4"+path, nil)
		if isIdempotent(req) != want {
			t.Errorf("PATCH %s retried on a 5xx: %v; want %v", path, !want, want)
		}
	}
}

func TestRetriesAreBoundedAndKeepTheAPIError(t *testing.T) {
	srv := newAPIServer(t, 500, 500, 500, 500, 500, 500, 500, 500)
	c := newTestClient(t, srv.URL, nil)
	err := listNamespaces(context.Background(), c)
	var apiErr *cf.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 {
		t.Fatalf("err = %v; want the API's 500 error after the last retry", err)
	}
	if !strings.Contains(err.Error(), "10013") {
		t.Errorf("the Cloudflare error code is lost: %v", err)
	}
	if got := srv.requests.Load(); got != 4 {
		t.Errorf("requests = %d; want 1 + MaxRetries(3)", got)
	}
}

// TestRateLimitedRetriedLongerThanFailures: a 429 (refused before any work, with the server's
// wait) is retried up to rateLimitRetries times, more than MaxRetries, which still bounds the
// other failures; and retries disabled means no retry of a 429 either.
func TestRateLimitedRetriedLongerThanFailures(t *testing.T) {
	six := []int{429, 429, 429, 429, 429, 429}
	srv := newAPIServer(t, six...)
	if err := listNamespaces(context.Background(), newTestClient(t, srv.URL, nil)); err != nil {
		t.Fatalf("six 429s, then 200: %v", err)
	}
	if got := srv.requests.Load(); got != 7 {
		t.Errorf("requests = %d; want 7", got)
	}

	always := make([]int, 30)
	for i := range always {
		always[i] = 429
	}
	srv = newAPIServer(t, always...)
	var apiErr *cf.Error
	if err := listNamespaces(context.Background(), newTestClient(t, srv.URL, nil)); !errors.As(err, &apiErr) || apiErr.StatusCode != 429 {
		t.Fatalf("err = %v; want the API's 429 after the last retry", err)
	}
	if got := srv.requests.Load(); got != 1+rateLimitRetries {
		t.Errorf("requests = %d; want 1 + rateLimitRetries (%d)", got, rateLimitRetries)
	}

	// 429s between failures: each kind is held to its own count.
	srv = newAPIServer(t, 429, 500, 429, 500, 429, 500, 500, 500)
	if err := listNamespaces(context.Background(), newTestClient(t, srv.URL, nil)); err == nil {
		t.Fatal("four 500s with MaxRetries 3: want the error")
	}
	if got := srv.requests.Load(); got != 7 {
		t.Errorf("requests = %d; want 7 (three 429s retried, the fourth 500 not)", got)
	}

	srv = newAPIServer(t, 429, 429)
	if err := listNamespaces(context.Background(), newTestClient(t, srv.URL, func(c *Config) { c.MaxRetries = -1 })); err == nil {
		t.Fatal("retries disabled: want the 429")
	}
	if got := srv.requests.Load(); got != 1 {
		t.Errorf("retries disabled: requests = %d; want 1", got)
	}
}

func TestNoRetryOn4xx(t *testing.T) {
	srv := newAPIServer(t, 400, http.StatusOK)
	c := newTestClient(t, srv.URL, nil)
	if err := listNamespaces(context.Background(), c); err == nil {
		t.Fatal("want the 400 error")
	}
	if got := srv.requests.Load(); got != 1 {
		t.Errorf("requests = %d; want 1", got)
	}
}

func TestHeadersAndEnvironmentIsolation(t *testing.T) {
	// cloudflare-go's default options read these; the provider must not.
	t.Setenv("CLOUDFLARE_API_KEY", "global-key-from-env")
	t.Setenv("CLOUDFLARE_EMAIL", "someone@example.com")
	t.Setenv("CLOUDFLARE_BASE_URL", "http://127.0.0.1:1/")
	srv := newAPIServer(t)
	c := newTestClient(t, srv.URL, nil)
	if err := listNamespaces(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	r := srv.seen[0]
	if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
		t.Errorf("Authorization = %q", got)
	}
	if got := r.Header.Get("User-Agent"); got != "terraform-provider-kamuidash/test" {
		t.Errorf("User-Agent = %q", got)
	}
	for _, h := range []string{"X-Auth-Key", "X-Auth-Email"} {
		if r.Header.Get(h) != "" {
			t.Errorf("%s leaked in from the environment", h)
		}
	}
	if r.URL.Path != "/client/v4/accounts/acc/storage/kv/namespaces" {
		t.Errorf("path = %q", r.URL.Path)
	}
}

func TestRateLimitWaitsBeyondTheBudget(t *testing.T) {
	srv := newAPIServer(t)
	// 3 per five minutes: one token now, the next in 100 s.
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.RequestsPerFiveMinutes = 3 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := listNamespaces(ctx, c); err != nil {
		t.Fatalf("first request within the burst: %v", err)
	}
	// The limiter knows the wait would outlast the deadline and refuses before sending.
	if err := listNamespaces(ctx, c); err == nil {
		t.Fatal("second request should have been held back by the rate limit")
	}
	if got := srv.requests.Load(); got != 1 {
		t.Errorf("requests sent = %d; want 1", got)
	}
}

func TestLogsMaskTheToken(t *testing.T) {
	var logs bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &logs)
	srv := newAPIServer(t)
	c := newTestClient(t, srv.URL, nil)
	// A value that contains the token (here, a namespace id) must not carry it into a log.
	// The fake server answers with a list, so the decode result is irrelevant: only the log is.
	_, _ = c.KV.Namespaces.Get(ctx, testToken, kv.NamespaceGetParams{AccountID: cf.F("acc")})
	if !strings.Contains(logs.String(), "Cloudflare API response") {
		t.Fatalf("no request log line written: %s", logs.String())
	}
	if strings.Contains(logs.String(), testToken) {
		t.Fatalf("token appears in logs: %s", logs.String())
	}
}

func TestBackoff(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	maxJitter := func(n int64) int64 { return n - 1 }
	noJitter := func(int64) int64 { return 0 }
	b := backoff(maxJitter, func() time.Time { return now })
	resp := func(status int, retryAfter string) *http.Response {
		h := http.Header{}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	tests := []struct {
		name    string
		b       func(minWait, maxWait time.Duration, attempt int, r *http.Response) time.Duration
		attempt int
		resp    *http.Response
		want    time.Duration
	}{
		{"retry-after seconds", b, 0, resp(429, "7"), 7 * time.Second},
		{"retry-after capped", b, 0, resp(429, "3600"), 30 * time.Second},
		{"retry-after date", b, 0, resp(503, now.Add(12*time.Second).Format(http.TimeFormat)), 12 * time.Second},
		{"retry-after past date", b, 0, resp(429, now.Add(-time.Minute).Format(http.TimeFormat)), 0},
		{"exponential ceiling attempt 0", b, 0, resp(500, ""), time.Second},
		{"exponential ceiling attempt 3", b, 3, resp(500, ""), 8 * time.Second},
		{"exponential capped", b, 10, nil, 30 * time.Second},
		{"jitter floor", backoff(noJitter, time.Now), 3, nil, time.Second},
	}
	for _, tt := range tests {
		if got := tt.b(time.Second, 30*time.Second, tt.attempt, tt.resp); got != tt.want {
			t.Errorf("%s: backoff = %s; want %s", tt.name, got, tt.want)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	for _, cfg := range []Config{
		{UserAgent: "ua"},
		{APIToken: testToken},
		{APIToken: testToken, UserAgent: "ua", BaseURL: "ftp://x/"},
		{APIToken: testToken, UserAgent: "ua", BaseURL: "/client/v4"},
		{APIToken: testToken, UserAgent: "ua", BaseURL: "http://h/?q=1"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		} else if strings.Contains(err.Error(), cfg.APIToken) && cfg.APIToken != "" {
			t.Errorf("error echoes the token: %v", err)
		}
	}
}

// TestRetryAfterHugeValuesWaitLongest: a Retry-After too large for a time.Duration means
// "wait as long as you can", never "retry at once" (a float-to-Duration overflow turns it
// negative, and a negative wait is no wait).
func TestRetryAfterHugeValuesWaitLongest(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for _, v := range []string{"99999999999", "1e300", "Inf"} {
		d, ok := retryAfter(v, now)
		if !ok || d <= 0 {
			t.Errorf("retryAfter(%q) = %v, %v; want a long positive wait", v, d, ok)
		}
		b := backoff(func(int64) int64 { return 0 }, func() time.Time { return now })
		resp := &http.Response{StatusCode: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {v}}}
		if got := b(time.Second, 30*time.Second, 0, resp); got != 30*time.Second {
			t.Errorf("backoff with Retry-After %q = %v; want the 30s cap", v, got)
		}
		budget := newSharedBudget(func() time.Time { return now })
		budget.observe(context.Background(), resp)
		if budget.until.Before(now.Add(time.Hour)) {
			t.Errorf("Retry-After %q paused the budget until %v; want far beyond the next hour", v, budget.until)
		}
	}
}

// An error answer that repeats the request's Authorization header (a proxy's debugging error
// page, a misconfigured gateway) must not carry the token into the error, which the provider
// shows as a diagnostic and Terraform prints to the console and CI logs.
func TestErrorsNeverCarryTheToken(t *testing.T) {
	for _, tc := range []struct{ name, contentType, body string }{
		{"cloudflare envelope", "application/json", `{"success":false,"errors":[{"code":1000,"message":"bad request from %s"}],"messages":[],"result":null}`},
		{"html page", "text/html", `<html><body><h1>502 Bad Gateway</h1><pre>Authorization: %s</pre></body></html>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(http.StatusBadGateway)
				_, _ = fmt.Fprintf(w, tc.body, r.Header.Get("Authorization")) // what the client does with it is checked
			}))
			t.Cleanup(srv.Close)
			c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.MaxRetries = -1 })
			err := listNamespaces(context.Background(), c)
			if err == nil {
				t.Fatal("want an error")
			}
			if strings.Contains(err.Error(), testToken) {
				t.Errorf("the token is in the error: %v", err)
			}
			if !strings.Contains(err.Error(), "502") {
				t.Errorf("the error lost the status: %v", err)
			}
		})
	}
}
