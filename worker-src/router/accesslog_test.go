package router_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

func TestAccessLog_OneLineWithoutSecrets(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte("12345")) // the client checks what arrives
	})
	// A clock that moves 250 ms on every reading, so the logged duration is exact.
	var ticks atomic.Int64
	h := newHarness(t, b, func(c *router.Config) {
		c.Now = func() time.Time { return testNow.Add(time.Duration(ticks.Add(1)-1) * 250 * time.Millisecond) }
	})
	req := h.request(t, validContext(http.MethodGet, "req-log"), "/account?token=query-secret-value", nil)
	req.Header.Set("Cookie", "session=cookie-secret-value")
	req.Header.Set("Authorization", "Bearer auth-secret-value")
	if res, _ := do(t, req); res.StatusCode != http.StatusAccepted {
		t.Fatalf("got %d, want 202", res.StatusCode)
	}

	lines := h.logs.accessLines(t)
	if len(lines) != 1 {
		t.Fatalf("%d access lines, want 1", len(lines))
	}
	want := map[string]any{
		"level":       "INFO",
		"request_id":  "req-log",
		"host":        publicHost,
		"app":         "shop",
		"upstream":    upstream,
		"method":      "GET",
		"path":        "/account",
		"status":      202.0,
		"bytes":       5.0,
		"duration_ms": 250.0, // readings: start (the signature is checked against it), end
		"outcome":     "proxied",
	}
	for k, v := range want {
		if lines[0][k] != v {
			t.Errorf("%s = %v, want %v", k, lines[0][k], v)
		}
	}
	if _, ok := lines[0]["reason"]; ok {
		t.Error("a successful request logged a failure reason")
	}
	logs := h.logs.String()
	for _, secret := range []string{"query-secret-value", "cookie-secret-value", "auth-secret-value", "token="} {
		if strings.Contains(logs, secret) {
			t.Errorf("log contains %q", secret)
		}
	}
}

func TestAccessLog_SamplesSuccessesButAlwaysLogsFailures(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/boom" {
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	h := newHarness(t, b, func(c *router.Config) { c.SampleSuccess = router.SampleRate(0.25) })
	for range 8 {
		do(t, h.request(t, validContext(http.MethodGet, "ok"), "/", nil))
	}
	for range 2 {
		do(t, h.request(t, validContext(http.MethodGet, "boom"), "/boom", nil))
		unsigned, _ := http.NewRequest(http.MethodGet, h.front.URL, nil)
		unsigned.Host = publicHost
		do(t, unsigned)
	}
	counts := map[string]int{}
	for _, l := range h.logs.accessLines(t) {
		outcome, _ := l["outcome"].(string) // a missing field counts under "", which no want names
		path, _ := l["path"].(string)
		counts[outcome+"/"+path]++
	}
	want := map[string]int{"proxied//": 2, "proxied//boom": 2, "denied//": 2}
	if len(counts) != len(want) {
		t.Errorf("logged %v, want %v", counts, want)
	}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("logged %v, want %v", counts, want)
			break
		}
	}
}

func TestSampleRate(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		want int
	}{{1, 100}, {2, 100}, {0.1, 10}, {0.25, 25}, {0, 0}, {-1, 0}} {
		keep := router.SampleRate(tc.rate)
		got := 0
		for range 100 {
			if keep() {
				got++
			}
		}
		if got != tc.want {
			t.Errorf("SampleRate(%v) kept %d of 100, want %d", tc.rate, got, tc.want)
		}
	}
}
