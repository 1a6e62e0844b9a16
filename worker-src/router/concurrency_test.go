package router_test

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
)

func TestRouter_ManyConcurrentRequests(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_, _ = fmt.Fprintf(w, "%s|%s|%s", r.Header.Get("X-Request-Id"), r.URL.Path, body)
	})
	h := newHarness(t, b, nil)

	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			id := fmt.Sprintf("req-%03d", i)
			payload := fmt.Sprintf("payload-%d", i)
			req := h.request(t, validContext(http.MethodPost, id), fmt.Sprintf("/item/%d", i), stringsReader(payload))
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer func() { _ = res.Body.Close() }()
			got, err := io.ReadAll(res.Body)
			want := fmt.Sprintf("%s|/item/%d|%s", id, i, payload)
			if err != nil || res.StatusCode != http.StatusOK || string(got) != want {
				errs <- fmt.Errorf("%s: %d %q (%v), want 200 %q", id, res.StatusCode, got, err, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := b.hits.Load(); got != n {
		t.Errorf("backend served %d requests, want %d", got, n)
	}
	if got := len(h.logs.accessLines(t)); got != n {
		t.Errorf("%d access lines, want %d", got, n)
	}
	if h.rt.InFlight() != 0 {
		t.Errorf("in-flight gauge is %d after all requests finished", h.rt.InFlight())
	}
}
