package cfapi

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
)

func TestParseRateLimit(t *testing.T) {
	for in, want := range map[string]RateLimit{
		"1200/5m":  CloudflareRateLimit,
		"24000/5m": {Requests: 24000, Window: 5 * time.Minute},
		"3/10s":    {Requests: 3, Window: 10 * time.Second},
		"off":      {},
		"":         {},
	} {
		got, err := ParseRateLimit(in)
		if err != nil || got != want {
			t.Errorf("ParseRateLimit(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"1200", "0/5m", "-1/5m", "x/5m", "1200/", "1200/0s", "1200/1500ms", "1200/500ms"} {
		if got, err := ParseRateLimit(in); err == nil {
			t.Errorf("ParseRateLimit(%q) = %v, want an error", in, got)
		}
	}
	if got := CloudflareRateLimit.String(); got != "1200/5m0s" {
		t.Errorf("String() = %q", got)
	}
	if _, err := New(Config{StateDir: t.TempDir(), RateLimit: RateLimit{Requests: 10, Window: 1500 * time.Millisecond}}); err == nil {
		t.Error("New accepted a window that is not whole seconds")
	}
}

// TestRateLimit_FixedWindowThenBlock: within a window the headers count down what is left
// and when the window resets; the request over the quota and everything for one window
// after it get 429 with Retry-After (rounded up) and the error envelope; blocked requests do
// not extend the block; afterwards a new window opens with the full quota.
func TestRateLimit_FixedWindowThenBlock(t *testing.T) {
	clock := newFakeClock()
	srv, ts := startServer(t, Config{Now: clock.Now, RateLimit: RateLimit{Requests: 3, Window: 10 * time.Second}})
	id := srv.Identity()
	list := func() *http.Response {
		t.Helper()
		resp, _ := rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/storage/kv/namespaces", id.APIToken, nil)
		return resp
	}
	want := func(resp *http.Response, status int, ratelimit, retryAfter string) {
		t.Helper()
		if resp.StatusCode != status || resp.Header.Get("Ratelimit") != ratelimit || resp.Header.Get("Retry-After") != retryAfter ||
			resp.Header.Get("Ratelimit-Policy") != `"default";q=3;w=10` {
			t.Errorf("HTTP %d Ratelimit %q Retry-After %q Ratelimit-Policy %q; want HTTP %d, %q, %q, \"default\";q=3;w=10",
				resp.StatusCode, resp.Header.Get("Ratelimit"), resp.Header.Get("Retry-After"), resp.Header.Get("Ratelimit-Policy"),
				status, ratelimit, retryAfter)
		}
	}

	want(list(), 200, `"default";r=2;t=10`, "")
	clock.Advance(2500 * time.Millisecond)
	want(list(), 200, `"default";r=1;t=8`, "") // 7.5 s left, rounded up
	want(list(), 200, `"default";r=0;t=8`, "")
	clock.Advance(time.Second)
	over := list()
	want(over, 429, `"default";r=0;t=10`, "10")
	_, env := rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/storage/kv/namespaces", id.APIToken, nil)
	if env.Success || env.firstCode() != codeRateLimited {
		t.Errorf("a blocked request's envelope = %+v, want Cloudflare's failure envelope with code %d", env, codeRateLimited)
	}
	// Every operation is blocked, not only the one that went over.
	resp, _ := rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/cfd_tunnel", id.APIToken, nil)
	want(resp, 429, `"default";r=0;t=10`, "10")
	clock.Advance(9500 * time.Millisecond)
	want(list(), 429, `"default";r=0;t=1`, "1") // the block ends 10 s after it began, whatever came since
	clock.Advance(500 * time.Millisecond)
	want(list(), 200, `"default";r=2;t=10`, "")

	// A window that simply runs out resets to the full quota without any block.
	clock.Advance(10 * time.Second)
	want(list(), 200, `"default";r=2;t=10`, "")
	want(list(), 200, `"default";r=1;t=10`, "")
	clock.Advance(10 * time.Second)
	want(list(), 200, `"default";r=2;t=10`, "")

	st := srv.Calls()
	if st.REST.TooManyRequests != 4 {
		t.Errorf("429s counted = %d, want 4", st.REST.TooManyRequests)
	}
}

// TestRateLimit_OnlyAuthenticatedAPIRequests: requests without the token, and the admin
// endpoints, neither spend the budget nor carry the headers.
func TestRateLimit_OnlyAuthenticatedAPIRequests(t *testing.T) {
	clock := newFakeClock()
	srv, ts := startServer(t, Config{Now: clock.Now, RateLimit: RateLimit{Requests: 1, Window: time.Minute}})
	id := srv.Identity()
	url := ts.URL + APIPrefix + "/accounts/" + id.AccountID + "/storage/kv/namespaces"
	for range 3 {
		if resp, _ := rawRequest(t, http.MethodGet, url, "", nil); resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Ratelimit") != "" {
			t.Fatalf("unauthenticated: HTTP %d with Ratelimit %q, want 401 and no header", resp.StatusCode, resp.Header.Get("Ratelimit"))
		}
		if resp, _ := rawRequest(t, http.MethodGet, ts.URL+AdminPrefix+"/calls", id.APIToken, nil); resp.StatusCode != http.StatusOK || resp.Header.Get("Ratelimit") != "" {
			t.Fatalf("admin: HTTP %d with Ratelimit %q, want 200 and no header", resp.StatusCode, resp.Header.Get("Ratelimit"))
		}
	}
	if resp, _ := rawRequest(t, http.MethodGet, url, id.APIToken, nil); resp.StatusCode != http.StatusOK || resp.Header.Get("Ratelimit") != `"default";r=0;t=60` {
		t.Errorf("first authenticated request: HTTP %d Ratelimit %q, want 200 with the whole quota spent by it alone", resp.StatusCode, resp.Header.Get("Ratelimit"))
	}
	if resp, _ := rawRequest(t, http.MethodGet, url, id.APIToken, nil); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("second authenticated request: HTTP %d, want 429", resp.StatusCode)
	}
}

// TestRateLimit_OffByDefault: without a limit nothing is refused and no header is sent.
func TestRateLimit_OffByDefault(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	for range 50 {
		resp, _ := rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/storage/kv/namespaces", id.APIToken, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Ratelimit") != "" || resp.Header.Get("Ratelimit-Policy") != "" {
			t.Fatalf("HTTP %d, Ratelimit %q, Ratelimit-Policy %q; want 200 and no headers", resp.StatusCode, resp.Header.Get("Ratelimit"), resp.Header.Get("Ratelimit-Policy"))
		}
	}
}

// TestRateLimit_CloudflareGoSeesRetryAfter: the provider's client gets a cloudflare-go API
// error with status 429 and the Retry-After it would wait.
func TestRateLimit_CloudflareGoSeesRetryAfter(t *testing.T) {
	clock := newFakeClock()
	srv, ts := startServer(t, Config{Now: clock.Now, RateLimit: CloudflareRateLimit})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ctx := context.Background()
	for i := range CloudflareRateLimit.Requests {
		if _, err := api.KV.Namespaces.List(ctx, kv.NamespaceListParams{AccountID: cloudflare.F(id.AccountID)}); err != nil {
			t.Fatalf("request %d of the quota: %v", i+1, err)
		}
	}
	clock.Advance(90 * time.Second)
	_, err := api.KV.Namespaces.List(ctx, kv.NamespaceListParams{AccountID: cloudflare.F(id.AccountID)})
	var apiErr *cloudflare.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("request 1,201: %v, want a 429", err)
	}
	if got := apiErr.Response.Header.Get("Retry-After"); got != "300" {
		t.Errorf("Retry-After = %q, want 300 (every call is blocked for five minutes)", got)
	}
}
