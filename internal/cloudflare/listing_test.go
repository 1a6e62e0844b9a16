package cloudflare

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go/v7/kv"
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

// namespacePages serves the KV namespace listing: page n (from 1) holds the IDs pages[n-1],
// reporting perPage; a request for a page past the last is answered by stall, when set.
func namespacePages(t *testing.T, perPage int, pages [][]string, stall func(*http.Request)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("page"))
		if err != nil || n < 1 {
			n = 1
		}
		var ids []string
		if n <= len(pages) {
			ids = pages[n-1]
		} else if stall != nil {
			stall(r)
			return
		}
		body := `{"success":true,"errors":[],"messages":[],"result":[`
		for i, id := range ids {
			if i > 0 {
				body += ","
			}
			body += `{"id":"` + id + `","title":"t` + id + `"}`
		}
		body += `],"result_info":{"page":` + itoa(n) + `,"per_page":` + itoa(perPage) + `}}`
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestKVEachNamespace_FollowsPagesWithTheCallersContext: every page is asked for with the
// caller's context (cloudflare-go's page-number auto-pager asks for the second page and later
// ones without it), the server's own page size ends the listing, and a server that ignores the
// page number is an error, not a listing that never ends.
func TestKVEachNamespace_FollowsPagesWithTheCallersContext(t *testing.T) {
	full := make([]string, 2)
	for i := range full {
		full[i] = "p1-" + itoa(i)
	}
	// Three pages of a server whose page size is 2: all five namespaces, in order.
	srv := namespacePages(t, 2, [][]string{full, {"p2-0", "p2-1"}, {"p3-0"}}, nil)
	c := newTestClient(t, srv.URL, nil)
	var got []string
	err := c.KVEachNamespace(context.Background(), "acc", func(ns kv.Namespace) (bool, error) {
		got = append(got, ns.ID)
		return true, nil
	})
	if err != nil || len(got) != 5 || got[4] != "p3-0" {
		t.Fatalf("listed %v, %v; want the five namespaces of three pages", got, err)
	}

	// A cancelled context stops the listing at the page in flight.
	ctx, cancel := context.WithCancel(context.Background())
	stalled := make(chan struct{})
	srv = namespacePages(t, 2, [][]string{full}, func(r *http.Request) {
		close(stalled)
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	c = newTestClient(t, srv.URL, nil)
	go func() { <-stalled; cancel() }()
	start := time.Now()
	err = c.KVEachNamespace(ctx, "acc", func(kv.Namespace) (bool, error) { return true, nil })
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("cancelled during the second page: %v after %v; want the context's error at once", err, time.Since(start))
	}

	// A server that answers every page with the first.
	srv = namespacePages(t, 2, [][]string{full, full, full}, nil)
	c = newTestClient(t, srv.URL, nil)
	if err := c.KVEachNamespace(context.Background(), "acc", func(kv.Namespace) (bool, error) { return true, nil }); err == nil {
		t.Error("a page repeating the one before it was taken for more namespaces")
	}
}

// A single-key call addresses the key it is given whatever its characters: KV documents every
// printable character as valid in a name, and cloudflare-go puts the name into the path as it is.
func TestKVSingleKeyCalls_EscapeTheKey(t *testing.T) {
	a := newLocalAPI(t)
	ctx := context.Background()
	ns := a.namespace(t)
	keys := []string{"a", "aA", "a?x", "a%41", "a/b", "a#f", "a b"}
	for _, k := range keys {
		if err := a.c.KVPut(ctx, a.id.AccountID, ns, k, []byte("value of "+k), `{"k":`+strconv.Quote(k)+`}`); err != nil {
			t.Fatalf("put %q: %v", k, err)
		}
	}
	for _, k := range keys {
		e, found, err := a.c.KVGet(ctx, a.id.AccountID, ns, k)
		if err != nil || !found || string(e.Value) != "value of "+k || string(e.Metadata) != `{"k":`+strconv.Quote(k)+`}` {
			t.Errorf("get %q: %q %s found=%v err=%v", k, e.Value, e.Metadata, found, err)
		}
	}
	if err := a.c.KVDelete(ctx, a.id.AccountID, ns, "a?x"); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := a.c.KVGet(ctx, a.id.AccountID, ns, "a"); !found {
		t.Error(`deleting "a?x" deleted "a"`)
	}
}
