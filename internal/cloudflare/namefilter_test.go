package cloudflare

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// putNoted writes key to the namespace through c, as a resource does, and has c's name filters
// rebuilt for it.
func (a *localAPI) putNoted(t *testing.T, c *Client, ns, key string) {
	t.Helper()
	ctx := context.Background()
	if err := c.KVPut(ctx, a.id.AccountID, ns, key, []byte("{}"), `{"v":1}`); err != nil {
		t.Fatal(err)
	}
	if err := c.NameFilters.Changed(ctx, a.id.AccountID, ns, key, false); err != nil {
		t.Fatal(err)
	}
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
	if got := a.calls.count("PUT values") - puts; got != 2 {
		t.Errorf("%d writes of the filter and its recent keys, want 2", got)
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

	a.putNoted(t, a.c, ns, "ours")
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

// laggingListing is a transport whose key listings leave out the keys in hide: the listing of a
// process that does not show another process's recent writes yet.
type laggingListing struct {
	next http.RoundTripper
	mu   sync.Mutex
	hide map[string]bool
}

func (l *laggingListing) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(r)
	if err != nil || r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/keys") {
		return resp, err
	}
	defer func() { _ = resp.Body.Close() }()
	var page map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		return nil, err
	}
	var keys []map[string]any
	if err := json.Unmarshal(page["result"], &keys); err != nil {
		return nil, err
	}
	l.mu.Lock()
	keys = slices.DeleteFunc(keys, func(k map[string]any) bool { name, _ := k["name"].(string); return l.hide[name] })
	l.mu.Unlock()
	page["result"], _ = json.Marshal(keys)
	b, _ := json.Marshal(page)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// TestNameFilters_KeepsKeysAnotherApplyWroteWhileListingsLag: an apply writes its key and sees it
// admitted; within the minute a listing lags, another apply (another process) rebuilds the
// filter from a listing that does not show that key yet. The recent keys carry it over, so the
// first apply's host is never refused; once every listing shows a key, it leaves them.
func TestNameFilters_KeepsKeysAnotherApplyWroteWhileListingsLag(t *testing.T) {
	a := newLocalAPI(t)
	ns := a.namespace(t)
	ctx := context.Background()
	a.putNoted(t, a.c, ns, "first")

	lag := &laggingListing{next: http.DefaultTransport, hide: map[string]bool{"first": true}}
	other := a.client(t, lag)
	if names, err := other.NameFilters.names(ctx, a.id.AccountID, ns, false); err != nil || slices.Contains(names, "first") {
		t.Fatalf("the lagging listing shows %v (%v): the race is not staged", names, err)
	}
	a.putNoted(t, other, ns, "second")
	if f := a.filter(t, ns); !f.Has("first") || !f.Has("second") {
		t.Fatalf("after the second apply's rebuild: first %v, second %v; want both admitted", f.Has("first"), f.Has("second"))
	}
	if f := a.filter(t, ns); f.Has(route.FilterRecentKey) || f.Has(route.FilterKey) {
		t.Errorf("the filter admits its own keys")
	}

	// Past the window every listing shows the keys (here: a third process's fresh one), and a
	// rebuild keeps only its own batch's in the recent keys.
	third := a.client(t, nil)
	third.NameFilters.now = func() time.Time { return time.Now().Add(recentWindow + time.Minute) }
	a.putNoted(t, third, ns, "third")
	b, found, err := a.c.KVGetValue(ctx, a.id.AccountID, ns, route.FilterRecentKey, maxRecentBytes)
	if err != nil || !found {
		t.Fatalf("reading the recent keys: found %v, %v", found, err)
	}
	var r recentKeys
	if err := json.Unmarshal(b, &r); err != nil || len(r.Keys) != 1 || r.Keys["third"] == 0 {
		t.Errorf("recent keys past the window: %s (%v), want only third", b, err)
	}
	if f := a.filter(t, ns); !f.Has("first") || !f.Has("second") || !f.Has("third") || f.Len() != 3 {
		t.Errorf("after the window: %d names, first %v second %v third %v", f.Len(), f.Has("first"), f.Has("second"), f.Has("third"))
	}
}

// heldFilterWrite is a transport whose first write of the name filter (or of key, when set)
// waits for release, after telling held: the other apply's rebuild, stalled between writing the
// recent keys and writing its filter (or between reading the recent keys and writing them).
type heldFilterWrite struct {
	next    http.RoundTripper
	key     string // route.FilterKey when empty
	once    sync.Once
	held    chan struct{}
	release chan struct{}
}

func (h *heldFilterWrite) RoundTrip(r *http.Request) (*http.Response, error) {
	key := h.key
	if key == "" {
		key = route.FilterKey
	}
	if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/values/"+key) {
		h.once.Do(func() {
			close(h.held)
			<-h.release
		})
	}
	return h.next.RoundTrip(r)
}

// afterFilterCheck is a transport that calls then once, after the first read of the name
// filter (this process's check) has been answered.
type afterFilterCheck struct {
	next http.RoundTripper
	once sync.Once
	then func()
}

func (a *afterFilterCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(r)
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/values/"+route.FilterKey) {
		a.once.Do(a.then)
	}
	return resp, err
}

// TestNameFilters_RecheckOutlastsAnotherApplysStaleRebuild: another apply has written its
// recent keys (it read them before this run wrote any) and its filter write lands only after
// this run's rebuild passed its check, without this run's key. The recent keys showed the other
// apply at work, so this run checks again after a pause, finds its key gone and rebuilds: the
// filter ends up admitting both.
func TestNameFilters_RecheckOutlastsAnotherApplysStaleRebuild(t *testing.T) {
	a := newLocalAPI(t)
	ns := a.namespace(t)
	hold := &heldFilterWrite{next: &laggingListing{next: http.DefaultTransport, hide: map[string]bool{"ours": true}},
		held: make(chan struct{}), release: make(chan struct{})}
	other := a.client(t, hold)
	theirs := make(chan struct{})
	go func() {
		defer close(theirs)
		a.putNoted(t, other, ns, "theirs")
	}()
	<-hold.held

	a.calls.next = &afterFilterCheck{next: a.calls.next, then: func() { close(hold.release); <-theirs }}
	a.c.NameFilters.recheckDelay = 200 * time.Millisecond
	a.c.NameFilters.backoff = 0
	a.putNoted(t, a.c, ns, "ours")
	if f := a.filter(t, ns); !f.Has("ours") || !f.Has("theirs") {
		t.Errorf("after both applies: ours %v, theirs %v; want both admitted", f.Has("ours"), f.Has("theirs"))
	}
	if got := a.c.NameFilters.Rebuilds(); got != 2 {
		t.Errorf("this run rebuilt %d times, want 2 (the second after its check found the key gone)", got)
	}
}

// TestNameFilters_FirstRaceRepairedWithoutEvidence: two applies' first rebuilds in a namespace
// race with no evidence of each other. The other apply read the recent keys before this run
// wrote any; only after this run's check passed does it write its own recent keys (over this
// run's) and its filter, built from a listing that does not show this run's key yet. Every
// rebuild checks a second time after a pause, so this run finds its key gone and rebuilds.
func TestNameFilters_FirstRaceRepairedWithoutEvidence(t *testing.T) {
	a := newLocalAPI(t)
	ns := a.namespace(t)
	hold := &heldFilterWrite{key: route.FilterRecentKey, next: &laggingListing{next: http.DefaultTransport, hide: map[string]bool{"ours": true}},
		held: make(chan struct{}), release: make(chan struct{})}
	other := a.client(t, hold)
	theirs := make(chan struct{})
	go func() {
		defer close(theirs)
		a.putNoted(t, other, ns, "theirs")
	}()
	<-hold.held // the other apply has read the recent keys: none yet

	a.calls.next = &afterFilterCheck{next: a.calls.next, then: func() { close(hold.release); <-theirs }}
	a.c.NameFilters.backoff = 0
	a.putNoted(t, a.c, ns, "ours")
	if f := a.filter(t, ns); !f.Has("ours") || !f.Has("theirs") {
		t.Errorf("after both applies: ours %v, theirs %v; want both admitted", f.Has("ours"), f.Has("theirs"))
	}
	if got := a.c.NameFilters.Rebuilds(); got != 2 {
		t.Errorf("this run rebuilt %d times, want 2 (the second after its second check found the key gone)", got)
	}
}

// TestNameFilters_RecheckWait: the pause before the second check.
func TestNameFilters_RecheckWait(t *testing.T) {
	f := &NameFilters{recheckDelay: 2 * time.Second}
	for _, c := range []struct {
		racing bool
		took   time.Duration
		want   time.Duration
	}{
		{true, 10 * time.Millisecond, 2 * time.Second},          // another apply seen: the full delay
		{false, 10 * time.Millisecond, minRecheckWait},          // loopback: the floor
		{false, 400 * time.Millisecond, 800 * time.Millisecond}, // twice this rebuild's own time
		{false, 5 * time.Second, 2 * time.Second},               // never past the full delay
	} {
		if got := f.recheckWait(c.racing, c.took); got != c.want {
			t.Errorf("recheckWait(%v, %v) = %v, want %v", c.racing, c.took, got, c.want)
		}
	}
}

// aroundFirstPut calls before ahead of the first PUT of key and after once it is answered.
type aroundFirstPut struct {
	next          http.RoundTripper
	key           string
	before, after func()
	once          sync.Once
}

func (h *aroundFirstPut) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPut || !strings.HasSuffix(r.URL.Path, "/values/"+h.key) {
		return h.next.RoundTrip(r)
	}
	first := false
	h.once.Do(func() { first = true })
	if first && h.before != nil {
		h.before()
	}
	resp, err := h.next.RoundTrip(r)
	if first && h.after != nil {
		h.after()
	}
	return resp, err
}

// TestNameFilters_OurKeyOutlivesAnotherApplysStaleRecentKeys: two applies' first rebuilds race
// with no evidence of each other, in this order (every step at the API's normal speed):
//
//  1. the other apply reads the recent keys (none yet);
//  2. this run reads them (none), writes its own ({ours});
//  3. the other writes its recent keys ({theirs}, over this run's) and its filter ({theirs});
//  4. this run writes its filter ({ours}): its check passes;
//  5. the other's check finds "theirs" gone and, after its backoff, rebuilds from a listing
//     that does not show "ours" yet and from recent keys that lost "ours" in step 3.
//
// Before the recheck read the recent keys back, step 5's filter landed after this run's
// recheck: both applies succeeded and the filter no longer admitted "ours", until some later
// rebuild in the namespace. Now this run's recheck finds "ours" lost from the recent keys and
// rebuilds, putting it back, so step 5 (or whichever rebuild comes last) keeps it.
func TestNameFilters_OurKeyOutlivesAnotherApplysStaleRecentKeys(t *testing.T) {
	a := newLocalAPI(t)
	ns := a.namespace(t)

	otherFilterWritten := make(chan struct{})
	hold := &heldFilterWrite{key: route.FilterRecentKey,
		next: &aroundFirstPut{key: route.FilterKey, after: func() { close(otherFilterWritten) },
			next: &laggingListing{next: http.DefaultTransport, hide: map[string]bool{"ours": true}}},
		held: make(chan struct{}), release: make(chan struct{})}
	other := a.client(t, hold) // default backoff (1 s) and recheck delay: nothing slowed down
	theirs := make(chan struct{})
	go func() {
		defer close(theirs)
		a.putNoted(t, other, ns, "theirs")
	}()
	<-hold.held // step 1 done: the other apply read the recent keys, none yet

	// This run's listings do not show "theirs" yet either.
	lag := &laggingListing{next: a.calls.next, hide: map[string]bool{"theirs": true}}
	a.calls.next = &aroundFirstPut{next: lag, key: route.FilterKey, before: func() {
		close(hold.release)  // step 3: the other writes its recent keys and its filter
		<-otherFilterWritten // step 4 follows it
	}}
	a.putNoted(t, a.c, ns, "ours") // returns: this run's check and recheck passed
	<-theirs                       // the other apply finished too

	f := a.filter(t, ns)
	if !f.Has("theirs") {
		t.Errorf("theirs not admitted")
	}
	if !f.Has("ours") {
		t.Errorf("both applies succeeded, but the filter no longer admits %q (this run rebuilt %d times; "+
			"it stays out until another rebuild in the namespace)", "ours", a.c.NameFilters.Rebuilds())
	}
	r, err := a.c.NameFilters.recent(context.Background(), a.id.AccountID, ns)
	if err != nil || r.Keys["ours"] == 0 || r.Keys["theirs"] == 0 {
		t.Errorf("the recent keys hold %v (%v); want ours and theirs, for the rebuilds of the next minutes", r.Keys, err)
	}
}
