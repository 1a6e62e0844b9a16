package router_test

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
)

// 200 requests at once, each answered in one of the response shapes, each client getting its own
// answer, every exchange logged and over.
func TestRouter_ManyConcurrentRequests(t *testing.T) {
	for _, shape := range responseShapes {
		t.Run(shape.name, func(t *testing.T) { testManyConcurrentRequests(t, shape) })
	}
}

func testManyConcurrentRequests(t *testing.T, shape responseShape) {
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		shape.serve(w, http.StatusOK, shape.body(fmt.Sprintf("%s|%s|%s|", r.Header.Get("X-Request-Id"), r.URL.Path, body)))
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
			want := shape.body(fmt.Sprintf("%s|/item/%d|%s|", id, i, payload))
			if err != nil || res.StatusCode != http.StatusOK || string(got) != want {
				errs <- fmt.Errorf("%s: %d and %d bytes of body (%v), want 200 and %d bytes", id, res.StatusCode, len(got), err, len(want))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// A streamed body's exchange ends when the router's server closes the stream, just after
	// its client has read the last of it.
	eventually(t, "every exchange ended", func() bool { return h.rt.InFlight() == 0 })
	if got := b.hits.Load(); got != n {
		t.Errorf("backend served %d requests, want %d", got, n)
	}
	if got := len(h.logs.accessLines(t)); got != n {
		t.Errorf("%d access lines, want %d", got, n)
	}
}
