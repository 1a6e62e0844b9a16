package cloudflare

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// NameFilterOwner is the owner the name filter's KV metadata names.
const NameFilterOwner = "kamuidash_name_filter"

// nameFilterAttempts bounds the rebuilds of one batch. Between them the process waits
// attempt × nameFilterBackoff, 1+2+…+7 = 28 s in all at the default: past that a concurrent
// writer's listing still lacks this run's keys, which KV's listing lag (up to a minute) rarely
// explains, and the resource is told (a warning: its own value is written).
const nameFilterAttempts = 8

// NameFilters rebuilds each namespace's name filter (route.FilterKey, see internal/route) when
// this process adds or removes keys in it: the changes of one batch (the resources whose bulk
// write or delete went out together) share one rebuild, built from the namespace's key listing
// plus every key the process wrote there, so that two applies racing converge, plus the keys
// any process wrote there in the last recentWindow (route.FilterRecentKey, updated by each
// rebuild before it writes the filter): a listing lags writes by up to a minute, and without
// them a rebuild by another apply in that minute would drop keys this one had already seen
// admitted.
//
// A rebuild of another apply may also land after this one checked its filter: it read the
// recent keys before this one wrote them, so its filter lacks this run's keys (KV has no
// compare-and-swap, and the recent keys this one wrote are overwritten too). So a rebuild that
// passed its check always checks once more after a pause (recheckWait), rebuilding if its keys
// are gone: recheckDelay (2 s) when the recent keys show that another process wrote to the
// namespace within raceEvidence (another apply rebuilds there too), else twice what this
// rebuild took between reading the recent keys and writing the filter, which covers another
// apply's first rebuild racing this one's with no evidence of it yet.
//
// The recent keys are one value, and KV has no compare-and-swap: a rebuild that read them
// before this one wrote them writes them back without this run's keys. Any rebuild after that
// one, of any apply, would then build a filter without them while the listing still lags.
// So each rebuild puts back every key this process stamped there within recentWindow that
// the recent keys lost (restore), and the second check also reads the recent keys back:
// a key of this process missing from them is treated as missing from the filter.
//
// A rebuild writes the filter, reads it back and checks that every key this process wrote to
// the namespace is admitted. A filter that lacks one was written since by another process whose
// listing did not show the key yet (listings lag writes by up to a minute), or is a read that
// still sees the old value: the rebuild starts over from a fresh listing, until the filter read
// back admits them all. Safe for concurrent use.
type NameFilters struct {
	c       *Client
	economy bool
	// backoff is the pause unit between rebuilds of one batch.
	backoff time.Duration
	// recheckDelay is the wait before a second check when another apply rebuilds too, and the
	// longest wait before it otherwise (recheckWait).
	recheckDelay time.Duration
	// now is the clock of the recent keys' stamps; tests move it.
	now func() time.Time

	mu      sync.Mutex
	batches map[string]*coalescer[nameChange, struct{}]
	written map[string]map[string]bool // account/namespace → keys this process wrote there
	// stamped holds, by account/namespace, when this process stamped each key it wrote there
	// into the recent keys (unix milliseconds): what those must still hold while the key is
	// younger than recentWindow (see restore).
	stamped  map[string]map[string]int64
	rebuilds atomic.Int64
}

type nameChange struct {
	key     string
	deleted bool
}

// NewNameFilters returns the filter rebuilds of client c. With economy the first listing of a
// rebuild is the process's shared one (KVIndex, which already knows this process's writes);
// without, every rebuild lists the namespace itself.
func NewNameFilters(c *Client, economy bool) *NameFilters {
	return &NameFilters{c: c, economy: economy, backoff: time.Second, recheckDelay: 2 * time.Second, now: time.Now,
		batches: map[string]*coalescer[nameChange, struct{}]{}, written: map[string]map[string]bool{},
		stamped: map[string]map[string]int64{}}
}

// Rebuilds is how many filters this process has written: the number the scale benchmark reads
// (one per namespace and batch when nothing races).
func (f *NameFilters) Rebuilds() int64 { return f.rebuilds.Load() }

// Changed records that key was written (or deleted) in the namespace and returns once the
// namespace's filter, rebuilt for the batch the change joined, admits every key the process
// wrote there.
func (f *NameFilters) Changed(ctx context.Context, accountID, namespaceID, key string, deleted bool) error {
	_, err := f.batch(accountID, namespaceID).do(ctx, nameChange{key: key, deleted: deleted})
	return err
}

func (f *NameFilters) batch(accountID, namespaceID string) *coalescer[nameChange, struct{}] {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := accountID + "/" + namespaceID
	b, ok := f.batches[id]
	if !ok {
		b = &coalescer[nameChange, struct{}]{
			// The changes of one bulk write arrive together, released by the same flush; the
			// lull that closes a KV batch closes this one too.
			linger: kvLinger,
			quiet:  kvQuiet,
			fits:   func([]nameChange, nameChange) bool { return true },
			flush: func(ctx context.Context, changes []nameChange) []outcome[struct{}] {
				return everyone[struct{}](len(changes), f.rebuild(ctx, accountID, namespaceID, changes))
			},
		}
		f.batches[id] = b
	}
	return b
}

// rebuild runs one batch's rebuild until the filter read back admits every key written here.
func (f *NameFilters) rebuild(ctx context.Context, accountID, namespaceID string, changes []nameChange) error {
	id := accountID + "/" + namespaceID
	f.mu.Lock()
	mine := f.written[id]
	if mine == nil {
		mine = map[string]bool{}
		f.written[id] = mine
	}
	for _, ch := range changes {
		if ch.deleted {
			delete(mine, ch.key)
		} else {
			mine[ch.key] = true
		}
	}
	ours := maps.Clone(mine)
	f.mu.Unlock()
	keys := slices.Collect(maps.Keys(ours))
	deleted := map[string]bool{}
	for _, ch := range changes {
		if ch.deleted {
			deleted[ch.key] = true
		}
	}

	var last error
	for attempt := 1; attempt <= nameFilterAttempts; attempt++ {
		if attempt > 1 {
			select {
			case <-time.After(time.Duration(attempt-1) * f.backoff):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		listed, err := f.names(ctx, accountID, namespaceID, attempt == 1 && f.economy)
		if err != nil {
			last = fmt.Errorf("listing the namespace: %w", err)
			continue
		}
		// The keys written here lately, by this process or another: a listing may not show
		// them yet, and a filter built without them would refuse their hosts until the next
		// rebuild. They are written back first (with this batch's), so that a rebuild racing
		// this one finds them too.
		began := time.Now()
		recent, err := f.recent(ctx, accountID, namespaceID)
		if err != nil {
			last = fmt.Errorf("reading the recent keys (%s): %w", route.FilterRecentKey, err)
			continue
		}
		now := f.now()
		racing := recent.writtenByOthers(now.Add(-raceEvidence), ours)
		recent.update(now, changes)
		stamps := f.stamp(id, now, changes)
		recent.restore(stamps)
		if err := f.c.KVPut(ctx, accountID, namespaceID, route.FilterRecentKey, recent.encode(), route.EncodeMetadata("", NameFilterOwner)); err != nil {
			last = fmt.Errorf("writing the recent keys (%s): %w", route.FilterRecentKey, err)
			continue
		}
		names := append(slices.Clone(keys), recent.names()...)
		for _, n := range listed {
			// A key this batch deleted may still be listed (the listing lags): leaving it out
			// only saves its false positive; every other listed key stays in.
			if !route.IsFilterKey(n) && !deleted[n] {
				names = append(names, n)
			}
		}
		b := route.BuildFilter(names)
		sum := hex.EncodeToString(b[24:32])
		if err := f.c.KVPut(ctx, accountID, namespaceID, route.FilterKey, b, route.EncodeMetadata(sum, NameFilterOwner)); err != nil {
			last = fmt.Errorf("writing the name filter: %w", err)
			continue
		}
		took := time.Since(began)
		total := f.rebuilds.Add(1)
		missing, err := f.check(ctx, accountID, namespaceID, keys)
		tflog.Info(ctx, "Rebuilt the name filter", map[string]any{"namespace_id": namespaceID, "names": len(names),
			"bytes": len(b), "attempt": attempt, "rebuilds": total, "missing": missing})
		lost := 0
		if err == nil && missing == 0 {
			// Another apply's rebuild may still land over this one (see NameFilters), after
			// every attempt: one that follows a lost key is as exposed as the first.
			wait := f.recheckWait(racing, took)
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return ctx.Err()
			}
			missing, err = f.check(ctx, accountID, namespaceID, keys)
			if err == nil {
				lost, err = f.recentLacks(ctx, accountID, namespaceID, stamps)
			}
			tflog.Info(ctx, "Checked the name filter again", map[string]any{"namespace_id": namespaceID, "missing": missing,
				"lost_from_recent_keys": lost, "another_apply_seen": racing, "waited_ms": wait.Milliseconds()})
		}
		switch {
		case err != nil:
			last = fmt.Errorf("reading the name filter back: %w", err)
		case missing > 0:
			last = fmt.Errorf("the name filter read back lacks %d of the %d keys this run wrote (another apply rebuilt it from a listing, or from recent keys, that did not show them yet)", missing, len(keys))
		case lost > 0:
			last = fmt.Errorf("the recent keys (%s) read back lack %d keys this run wrote (another apply wrote them back from an older read), so a later rebuild could leave them out", route.FilterRecentKey, lost)
		default:
			return nil
		}
	}
	return last
}

// recheckWait is how long a rebuild that passed its check waits before checking again. With
// evidence of another apply at work (racing) it is recheckDelay. Without, another apply may
// still have read the recent keys just before this one wrote them (both applies' first
// rebuilds racing leave no evidence), and its filter write, which would lack this run's keys,
// lands within about one rebuild's time of that read: the wait is twice what this rebuild took
// from reading the recent keys to writing its filter (the other apply makes the same calls on
// the same namespace), at least minRecheckWait and at most recheckDelay. Only an apply whose
// rebuild is more than twice as slow as this one's can still slip past; its next rebuild in the
// namespace, or this run's next batch, repairs that.
func (f *NameFilters) recheckWait(racing bool, took time.Duration) time.Duration {
	if racing {
		return f.recheckDelay
	}
	return min(max(2*took, minRecheckWait), f.recheckDelay)
}

// minRecheckWait is the least pause before the second check: on loopback a rebuild takes a few
// milliseconds, and goroutine scheduling alone can delay another process's call by more.
const minRecheckWait = 250 * time.Millisecond

// raceEvidence is how recent another process's write to the namespace must be for a rebuild to
// expect that process's rebuild may still land after its own: a rebuild writes its filter one
// call after its recent keys, so an older write has landed, and ten seconds leave room for the
// two machines' clocks to disagree. A sequential apply that starts later than that (the next
// environment, the next test step) does not wait.
const raceEvidence = 10 * time.Second

// recentWindow is how long a written key stays in the recent keys: past it, every listing a
// rebuild uses shows the key. A listing lags writes by up to a minute, and a process's shared
// listing (KVIndex) serves for KVIndexMaxAge after it was made; a minute more is the margin.
const recentWindow = time.Minute + KVIndexMaxAge + time.Minute

// recentKeys is the value under route.FilterRecentKey: each key written to the namespace in the
// last recentWindow and when (unix milliseconds).
type recentKeys struct {
	V    int              `json:"v"`
	Keys map[string]int64 `json:"keys"`
}

// recent reads the namespace's recent keys. Absent or unreadable as JSON of this version, it is
// empty: the listing and this process's own keys still make a filter, as before the companion.
func (f *NameFilters) recent(ctx context.Context, accountID, namespaceID string) (*recentKeys, error) {
	r := &recentKeys{V: 1, Keys: map[string]int64{}}
	b, found, err := f.c.KVGetValue(ctx, accountID, namespaceID, route.FilterRecentKey, maxRecentBytes)
	if err != nil || !found {
		return r, err
	}
	var read recentKeys
	if err := json.Unmarshal(b, &read); err != nil || read.V != 1 {
		return r, nil //nolint:nilerr // a value this version cannot read counts as no recent keys (see above)
	}
	for k, t := range read.Keys {
		if !route.IsFilterKey(k) {
			r.Keys[k] = t
		}
	}
	return r, nil
}

// maxRecentBytes bounds the read of the recent keys: a few minutes of writes.
const maxRecentBytes = 8 << 20

// update drops the keys older than recentWindow and those this batch deleted, and stamps the
// ones it wrote with now.
func (r *recentKeys) update(now time.Time, changes []nameChange) {
	cut := now.Add(-recentWindow).UnixMilli()
	for k, t := range r.Keys {
		if t < cut {
			delete(r.Keys, k)
		}
	}
	for _, ch := range changes {
		if ch.deleted {
			delete(r.Keys, ch.key)
		} else {
			r.Keys[ch.key] = now.UnixMilli()
		}
	}
}

func (r *recentKeys) names() []string { return slices.Collect(maps.Keys(r.Keys)) }

// writtenByOthers reports whether a key that is not one of mine was stamped at or after since:
// another process wrote to the namespace lately.
func (r *recentKeys) writtenByOthers(since time.Time, mine map[string]bool) bool {
	cut := since.UnixMilli()
	for k, t := range r.Keys {
		if t >= cut && !mine[k] {
			return true
		}
	}
	return false
}

// restore puts back each key of stamps (this process's, see NameFilters.stamp) that the recent
// keys lost or hold with an older stamp: another apply wrote them back from a read made before
// this process's write.
func (r *recentKeys) restore(stamps map[string]int64) {
	for k, t := range stamps {
		if r.Keys[k] < t {
			r.Keys[k] = t
		}
	}
}

// stamp records that this process stamps the keys its batch wrote (changes) with now, forgets
// those it deleted and those older than recentWindow, and returns a copy of its stamps in the
// namespace id: the keys the recent keys must hold for this process.
func (f *NameFilters) stamp(id string, now time.Time, changes []nameChange) map[string]int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	own := f.stamped[id]
	if own == nil {
		own = map[string]int64{}
		f.stamped[id] = own
	}
	cut := now.Add(-recentWindow).UnixMilli()
	for k, t := range own {
		if t < cut {
			delete(own, k)
		}
	}
	for _, ch := range changes {
		if ch.deleted {
			delete(own, ch.key)
		} else {
			own[ch.key] = now.UnixMilli()
		}
	}
	return maps.Clone(own)
}

// recentLacks reads the recent keys back and counts the keys of stamps they no longer hold.
func (f *NameFilters) recentLacks(ctx context.Context, accountID, namespaceID string, stamps map[string]int64) (int, error) {
	r, err := f.recent(ctx, accountID, namespaceID)
	if err != nil {
		return 0, err
	}
	lost := 0
	for k := range stamps {
		if _, ok := r.Keys[k]; !ok {
			lost++
		}
	}
	return lost, nil
}

func (r *recentKeys) encode() []byte {
	b, _ := json.Marshal(r) // a map of strings to integers always marshals
	return b
}

// names lists the namespace's keys: the process's shared listing when shared is set, else a
// listing of its own (which shows what other processes wrote since).
func (f *NameFilters) names(ctx context.Context, accountID, namespaceID string, shared bool) ([]string, error) {
	if shared {
		return f.c.KVIndex.Names(ctx, accountID, namespaceID)
	}
	keys, err := f.c.KVListKeys(ctx, accountID, namespaceID)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return names, nil
}

// check reads the filter back and counts the keys it does not admit. A filter that is absent
// or does not decode admits none of them.
func (f *NameFilters) check(ctx context.Context, accountID, namespaceID string, keys []string) (missing int, err error) {
	b, found, err := f.c.KVGetValue(ctx, accountID, namespaceID, route.FilterKey, route.MaxFilterBytes)
	if err != nil {
		return 0, err
	}
	var flt *route.Filter
	if found {
		flt, _ = route.DecodeFilter(b)
	}
	for _, k := range keys {
		if flt == nil || !flt.Has(k) {
			missing++
		}
	}
	return missing, nil
}

// KVGetValue reads key's value alone (no metadata), up to limit bytes, as raw bytes: the name
// filter is binary and larger than the records KVGet is bounded for.
func (c *Client) KVGetValue(ctx context.Context, accountID, namespaceID, key string, limit int64) ([]byte, bool, error) {
	resp, err := c.KV.Namespaces.Values.Get(ctx, namespaceID, KVKeyPath(key), kv.NamespaceValueGetParams{AccountID: cf.F(accountID)})
	if err != nil {
		if isStatus(err, http.StatusNotFound) {
			return nil, false, nil
		}
		return nil, false, err
	}
	defer func() { _ = resp.Body.Close() }()
	value, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("reading KV value %q: %w", key, err)
	}
	if int64(len(value)) > limit {
		return nil, false, errors.New("KV value " + key + " is larger than the limit")
	}
	return value, true, nil
}
