package cloudflare

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

func (a *localAPI) filter(t *testing.T, ns string) *route.Filter {
	t.Helper()
	b, found, err := a.c.KVGetValue(context.Background(), a.id.AccountID, ns, route.FilterKey, route.MaxFilterBytes)
	if err != nil || !found {
		t.Fatalf("reading the filter: found %v, %v", found, err)
	}
	f, err := route.DecodeFilter(b)
	if err != nil {
		t.Fatalf("the filter written does not decode: %v", err)
	}
	return f
}

// TestNameFilters_OneRebuildPerBatch: the changes of one bulk write share one rebuild, which
// holds the keys already listed and every key written, and not the filter's own key.
func TestNameFilters_OneRebuildPerBatch(t *testing.T) {
	a := newLocalAPI(t)
	ns := a.namespace(t)
	ctx := context.Background()
	if err := a.c.KVPut(ctx, a.id.AccountID, ns, "old-app", []byte("{}"), `{"v":1}`); err != nil {
		t.Fatal(err)
	}
	const n = 120
	puts := a.calls.count("PUT values")
	for i, err := range parallel(n, func(i int) error {
		key := fmt.Sprintf("app-%03d", i)
		if err := a.c.KVBulk.Put(ctx, a.id.AccountID, ns, key, []byte("{}"), `{"v":1}`); err != nil {
			return err
		}
		a.c.KVIndex.Noted(a.id.AccountID, ns, key, nil)
		return a.c.NameFilters.Changed(ctx, a.id.AccountID, ns, key, false)
	}) {
		if err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
	}
	if got := a.c.NameFilters.Rebuilds(); got != 1 {
		t.Errorf("%d changes of one batch took %d rebuilds, want 1", n, got)
	}
	if got := a.calls.count("PUT values") - puts; got != 1 {
		t.Errorf("%d filter writes, want 1", got)
	}
	f := a.filter(t, ns)
	for i := 0; i < n; i++ {
		if !f.Has(fmt.Sprintf("app-%03d", i)) {
			t.Fatalf("app-%03d not admitted", i)
		}
	}
	if !f.Has("old-app") || f.Len() != n+1 {
		t.Errorf("old-app admitted %v, %d names; want the listed key too and not the filter's own", f.Has("old-app"), f.Len())
	}

	// A delete is a change too: the deleted key is left out.
	if err := a.c.KVBulk.Delete(ctx, a.id.AccountID, ns, "app-000"); err != nil {
		t.Fatal(err)
	}
	a.c.KVIndex.Forgot(a.id.AccountID, ns, "app-000")
	if err := a.c.NameFilters.Changed(ctx, a.id.AccountID, ns, "app-000", true); err != nil {
		t.Fatal(err)
	}
	if f := a.filter(t, ns); f.Len() != n || !f.Has("app-001") {
		t.Errorf("after a delete: %d names", f.Len())
	}
}

// overwriteOnce is a transport that, at the first read of the name filter, first has "another
// process" overwrite it with a filter built from a listing that did not show this process's
// key yet: the race of two applies.
type overwriteOnce struct {
	next    http.RoundTripper
	done    atomic.Bool
	foreign func()
}

func (o *overwriteOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/values/"+route.FilterKey) && o.done.CompareAndSwap(false, true) {
		o.foreign()
	}
	return o.next.RoundTrip(r)
}

// TestNameFilters_ConvergesWhenAnotherApplyOverwrites: the filter read back lacks this run's key
// (another apply rebuilt it from its lagging listing); the rebuild starts over from a fresh
// listing, so the filter ends up holding both applies' keys.
func TestNameFilters_ConvergesWhenAnotherApplyOverwrites(t *testing.T) {
	a := newLocalAPI(t)
	ns := a.namespace(t)
	ctx := context.Background()
	other := a.c // the other process's calls: raw writes, past this process's NameFilters
	tap := &overwriteOnce{next: a.calls.next, foreign: func() {
		// The other apply wrote its key, listed before ours showed, and wrote its filter.
		if err := other.KVPut(ctx, a.id.AccountID, ns, "theirs", []byte("{}"), `{"v":1}`); err != nil {
			t.Error(err)
		}
		if err := other.KVPut(ctx, a.id.AccountID, ns, route.FilterKey, route.BuildFilter([]string{"theirs"}), `{"v":1}`); err != nil {
			t.Error(err)
		}
	}}
	a.calls.next = tap
	a.c.NameFilters.backoff = 0

	if err := a.c.KVPut(ctx, a.id.AccountID, ns, "ours", []byte("{}"), `{"v":1}`); err != nil {
		t.Fatal(err)
	}
	if err := a.c.NameFilters.Changed(ctx, a.id.AccountID, ns, "ours", false); err != nil {
		t.Fatal(err)
	}
	if !tap.done.Load() {
		t.Fatal("the race was not staged")
	}
	if got := a.c.NameFilters.Rebuilds(); got != 2 {
		t.Errorf("%d rebuilds, want 2 (the first one overwritten)", got)
	}
	if f := a.filter(t, ns); !f.Has("ours") || !f.Has("theirs") {
		t.Errorf("converged filter: ours %v, theirs %v", f.Has("ours"), f.Has("theirs"))
	}
}
