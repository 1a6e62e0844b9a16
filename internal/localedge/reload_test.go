package localedge

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// A request that workerd's restart cuts off is sent again to the restarted runtime when it may
// be (a bodiless GET), and fails otherwise; a request that arrives during the restart waits
// for it.
func TestReloadTransport_CarriesRequestsAcrossARestart(t *testing.T) {
	entered := make(chan struct{}, 2)
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // net/http notices a closed connection once the body is read
		entered <- struct{}{}
		<-r.Context().Done() // the restart cuts it off
	}))
	defer old.Close()
	restarted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "restarted "+r.Method+" "+r.URL.Path) // the client checks what arrives
	}))
	defer restarted.Close()

	var mu sync.Mutex
	runtimeURL := old.URL
	gate := newReloadGate()
	client := &http.Client{Transport: &reloadTransport{base: &http.Transport{}, gate: gate, runtimeURL: func() string {
		mu.Lock()
		defer mu.Unlock()
		return runtimeURL
	}}}
	type answer struct {
		body string
		err  error
	}
	send := func(method, path string, body io.Reader) <-chan answer {
		out := make(chan answer, 1)
		go func() {
			// The URL's host is replaced by the runtime's current one.
			req, _ := http.NewRequest(method, "http://runtime.invalid"+path, body)
			res, err := client.Do(req)
			if err != nil {
				out <- answer{err: err}
				return
			}
			defer func() { _ = res.Body.Close() }()
			b, _ := io.ReadAll(res.Body)
			out <- answer{body: string(b)}
		}()
		return out
	}

	get, post := send(http.MethodGet, "/page", nil), send(http.MethodPost, "/form", strings.NewReader("x"))
	<-entered
	<-entered
	gate.begin() // a Worker upload restarts workerd: the old one dies, the new one listens elsewhere
	old.CloseClientConnections()
	during := send(http.MethodGet, "/during", nil)
	mu.Lock()
	runtimeURL = restarted.URL
	mu.Unlock()
	gate.end()

	if a := <-get; a.err != nil || a.body != "restarted GET /page" {
		t.Errorf("GET cut off by the restart: %q, %v; want it answered by the restarted runtime", a.body, a.err)
	}
	if a := <-post; a.err == nil {
		t.Errorf("POST cut off by the restart: answered %q; it must fail, not be sent twice", a.body)
	}
	if a := <-during; a.err != nil || a.body != "restarted GET /during" {
		t.Errorf("GET sent during the restart: %q, %v; want it held for the restarted runtime", a.body, a.err)
	}
}
