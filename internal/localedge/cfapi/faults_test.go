package cfapi

import (
	"context"
	"errors"
	"net/http"
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
