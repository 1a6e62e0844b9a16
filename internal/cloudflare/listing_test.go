package cloudflare

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// keyPages serves a KV key listing as the given pages, chosen by the request's cursor
// ("" for the first): each page's keys and the cursor it hands on ("" on the last).
func keyPages(t *testing.T, pages map[string]struct {
	keys []string
	next string
}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := pages[r.URL.Query().Get("cursor")]
		if !ok {
			http.Error(w, "unknown cursor", http.StatusBadRequest)
			return
		}
		body := `{"success":true,"errors":[],"messages":[],"result":[`
		for i, k := range p.keys {
			if i > 0 {
				body += ","
			}
			body += `{"name":"` + k + `"}`
		}
		body += `],"result_info":{"count":` + itoa(len(p.keys)) + `,"cursor":"` + p.next + `"}}`
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestKVListKeys_EmptyPageWithCursorIsNotTheEnd: KV documents that a listing page may hold
// no keys while more follow (expired and deleted keys are skipped server-side); only an
// absent cursor ends the listing.
func TestKVListKeys_EmptyPageWithCursorIsNotTheEnd(t *testing.T) {
	srv := keyPages(t, map[string]struct {
		keys []string
		next string
	}{
		"":   {keys: []string{"a"}, next: "c1"},
		"c1": {keys: nil, next: "c2"},
		"c2": {keys: []string{"b"}, next: ""},
	})
	c := newTestClient(t, srv.URL, nil)
	keys, err := c.KVListKeys(context.Background(), "acc", "ns")
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 {
		t.Fatalf("listed %v; want keys a and b (the empty middle page is not the end)", keys)
	}
}

// TestKVListKeys_RepeatedCursorFails: a cursor handed out twice would page forever.
func TestKVListKeys_RepeatedCursorFails(t *testing.T) {
	srv := keyPages(t, map[string]struct {
		keys []string
		next string
	}{
		"":   {keys: []string{"a"}, next: "c1"},
		"c1": {keys: []string{"b"}, next: "c1"},
	})
	c := newTestClient(t, srv.URL, nil)
	done := make(chan error, 1)
	go func() { _, err := c.KVListKeys(context.Background(), "acc", "ns"); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a listing whose cursor repeats succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a listing whose cursor repeats never ends")
	}
}
