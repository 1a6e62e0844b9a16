package router_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"sync"
	"testing"
)

// A client's "Expect: 100-continue" is answered by the router's server (the client gets its
// 100 Continue and sends the body) and goes upstream as it came; the tenant's own 100 Continue
// is not relayed (the client would get two). A 103 Early Hints reaches the client before the
// final response, cleaned as a final response is (no Kamui-* header), and its Link does not
// leak into the final response.
func TestRouter_ExpectContinueAndInterimResponses(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body) // sends the tenant's 100 Continue to the router
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.Header().Set("Kamui-App", "forged")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		w.Header().Del("Kamui-App")
		w.Header().Set("X-Expect-Seen", r.Header.Get("Expect"))
		_, _ = io.WriteString(w, "got "+string(body))
	})
	h := newHarness(t, b, nil)
	req := h.request(t, validContext(http.MethodPost, "req-expect"), "/upload", strings.NewReader("payload"))
	req.Header.Set("Expect", "100-continue")
	var mu sync.Mutex
	var interim []int
	var hints []textproto.MIMEHeader
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		Got1xxResponse: func(code int, header textproto.MIMEHeader) error {
			mu.Lock()
			defer mu.Unlock()
			interim = append(interim, code)
			hints = append(hints, header)
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
	mu.Lock()
	defer mu.Unlock()
	if len(interim) != 2 || interim[0] != http.StatusContinue || interim[1] != http.StatusEarlyHints {
		t.Fatalf("interim responses %v, want the router's own 100 Continue, then the tenant's 103", interim)
	}
	if got := hints[1].Get("Link"); got != "</style.css>; rel=preload" {
		t.Errorf("the 103's Link is %q, want the tenant's", got)
	}
	if got := hints[1].Get("Kamui-App"); got != "" {
		t.Errorf("a Kamui-* header reached the client on the 103: %q", got)
	}
	if res.Header.Get("Link") != "" {
		t.Errorf("the early hint's Link reached the final response: %q", res.Header.Get("Link"))
	}
}

// Each interim response reaches the client when the tenant sends it, before the final response
// exists: the client sees the 103 while the tenant is still working.
func TestRouter_RelaysAnEarlyHintAsItArrives(t *testing.T) {
	hinted, release := make(chan struct{}), make(chan struct{})
	b := newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Link", "</app.js>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		close(hinted)
		<-release
		w.Header().Del("Link")
		_, _ = io.WriteString(w, "done")
	})
	h := newHarness(t, b, nil)
	conn := dialRouter(t, h)
	if err := h.getPage(t, "/hint").Write(conn); err != nil {
		t.Fatal(err)
	}
	<-hinted
	br := bufio.NewReader(conn)
	tp := textproto.NewReader(br)
	status, err := tp.ReadLine()
	if err != nil {
		t.Fatal(err)
	}
	if status != "HTTP/1.1 103 Early Hints" {
		t.Fatalf("first line %q, want the 103 while the tenant still works", status)
	}
	hint, err := tp.ReadMIMEHeader()
	if err != nil {
		t.Fatal(err)
	}
	if got := hint.Get("Link"); got != "</app.js>; rel=preload" {
		t.Errorf("the 103's Link is %q", got)
	}
	close(release)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	final, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || string(final) != "done" || res.Header.Get("Link") != "" {
		t.Errorf("final response %d %q, Link %q; want 200 done without the hint's Link", res.StatusCode, final, res.Header.Get("Link"))
	}
}

// A pipelining client whose second request gets an interim response still reads its answers in
// order: fasthttp's server holds a response back when the next request has already arrived,
// and the interim response of that next request must not overtake it.
func TestRouter_InterimResponseNeverOvertakesAnEarlierAnswer(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hinted" {
			w.Header().Set("Link", "</app.js>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.Header().Del("Link")
		}
		_, _ = io.WriteString(w, "page "+r.URL.Path)
	})
	h := newHarness(t, b, nil)
	conn := dialRouter(t, h)
	reqs := []*http.Request{h.getPage(t, "/plain"), h.getPage(t, "/hinted")}
	var both strings.Builder
	for _, req := range reqs {
		if err := req.Write(&both); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := io.WriteString(conn, both.String()); err != nil { // one write: both arrive at once
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	var got []string
	for range 3 {
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		body, _ := io.ReadAll(res.Body)
		got = append(got, res.Status+" "+string(body))
	}
	want := []string{"200 OK page /plain", "103 Early Hints ", "200 OK page /hinted"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the client read %q, want %q", got, want)
	}
}

// An HTTP/1.0 client gets no interim response (a server must not send it one): only the final
// answer.
func TestRouter_NoInterimResponseToAnHTTP10Client(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Link", "</app.js>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		_, _ = io.WriteString(w, "done")
	})
	h := newHarness(t, b, nil)
	head := strings.Replace(signedHead(t, h, http.MethodGet, "/"), " HTTP/1.1\r\n", " HTTP/1.0\r\n", 1)
	if res := rawExchange(t, h, head+"\r\n"); res == nil || res.StatusCode != http.StatusOK {
		t.Errorf("the HTTP/1.0 client's first response: %v, want the final 200", res)
	}
}
