package router_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strconv"
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

// A body that came whole with its head is recorded as the router hands it to the server (its
// bytes counted, the upstream connection already free); a streamed body is recorded when it
// ends, and one cut off on either side is "aborted" with the bytes that got through.
func TestAccessLog_RecordsEachBodyWhenItIsDone(t *testing.T) {
	const total = 64 << 20
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	streamed := func(cutOff bool) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(total))
			for sent := 0; sent < total; sent += len(chunk) {
				if cutOff && sent == 4*len(chunk) {
					conn, _, err := http.NewResponseController(w).Hijack()
					if err == nil {
						_ = conn.Close() // the upstream breaks off mid-body
					}
					return
				}
				if _, err := w.Write(chunk); err != nil {
					return // the router closed the connection: the client left
				}
			}
		}
	}
	for _, tc := range []struct {
		name         string
		handler      http.HandlerFunc
		clientLeaves bool
		outcome      string
		whole        bool // bytes is the whole body
	}{
		{name: "small body, with its head", handler: func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "ok from backend")
		}, outcome: "proxied", whole: true},
		{name: "streamed body, read to its end", handler: streamed(false), outcome: "proxied", whole: true},
		{name: "streamed body, the client leaves", handler: streamed(false), clientLeaves: true, outcome: "aborted"},
		{name: "streamed body, the upstream breaks off", handler: streamed(true), outcome: "aborted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newBackend(t, tc.handler), nil)
			req := h.request(t, validContext(http.MethodGet, "req-recorded"), "/", nil)
			conn := dialRouter(t, h)
			if err := req.Write(conn); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(conn)
			res, err := http.ReadResponse(br, req)
			if err != nil {
				t.Fatal(err)
			}
			var got int64
			if tc.clientLeaves {
				got, _ = io.CopyN(io.Discard, res.Body, 1<<20)
				_ = conn.Close()
			} else {
				got, _ = io.Copy(io.Discard, res.Body) // an upstream that broke off ends it early
			}
			eventually(t, "the exchange's access line", func() bool { return len(h.logs.accessLines(t)) > 0 })
			line := h.logs.accessLines(t)[0]
			if line["outcome"] != tc.outcome {
				t.Errorf("outcome %v (reason %v), want %s", line["outcome"], line["reason"], tc.outcome)
			}
			bytesLogged, _ := line["bytes"].(float64)
			switch {
			case tc.whole && int64(bytesLogged) != got:
				t.Errorf("bytes %v, want the %d the client read", line["bytes"], got)
			case !tc.whole && (bytesLogged < float64(got) || bytesLogged >= total):
				t.Errorf("bytes %v, want what got through: at least the %d the client read, less than %d", line["bytes"], got, total)
			}
		})
	}
}
