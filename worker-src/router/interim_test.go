package router_test

import (
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"testing"
)

// A client's "Expect: 100-continue" is answered by the router's server (the client gets its
// 100 Continue and sends the body) and goes upstream as it came. The tenant's interim responses
// (its own 100 Continue, a 103 Early Hints) are not relayed: fasthttp's client reads past them
// and gives the router the final response only. This pins that; the final response is whole.
func TestRouter_ExpectContinueAndInterimResponses(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body) // sends the tenant's 100 Continue to the router
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		w.Header().Set("X-Expect-Seen", r.Header.Get("Expect"))
		_, _ = io.WriteString(w, "got "+string(body))
	})
	h := newHarness(t, b, nil)
	req := h.request(t, validContext(http.MethodPost, "req-expect"), "/upload", strings.NewReader("payload"))
	req.Header.Set("Expect", "100-continue")
	var interim []int
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		Got1xxResponse: func(code int, _ textproto.MIMEHeader) error {
			interim = append(interim, code)
			return nil
		},
	}))
	res, body := do(t, req)
	if res.StatusCode != http.StatusOK || body != "got payload" {
		t.Fatalf("got %d %q, want 200 with the body the tenant received", res.StatusCode, body)
	}
	if got := res.Header.Get("X-Expect-Seen"); got != "100-continue" {
		t.Errorf("the tenant saw Expect %q, want the client's 100-continue", got)
	}
	if len(interim) != 1 || interim[0] != http.StatusContinue {
		t.Errorf("interim responses %v, want the router's own 100 Continue only (no 103 relayed)", interim)
	}
	if res.Header.Get("Link") != "" {
		t.Errorf("the early hint's Link reached the final response: %q", res.Header.Get("Link"))
	}
}
