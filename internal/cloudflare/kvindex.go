package cloudflare

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// KVIndexMaxAge is how long a namespace's listing serves before it is listed again. A refresh
// of thousands of resources finishes well inside it, so one listing serves them all; a later
// operation of the same process (an apply after its refresh) gets a fresh one.
const KVIndexMaxAge = time.Minute

// KVIndex holds one key listing per namespace (names and metadata, never values), shared by
// every resource of a provider process, so that a refresh of thousands of records costs one
// listing page per 1,000 keys instead of a read per key. Writes made through the process are
// noted in it at once; nothing this process wrote is ever served stale. Listings are
// eventually consistent (a key written elsewhere may be missing for up to a minute), so callers
// treat "not listed" as "read it to be sure", never as "absent". Safe for concurrent use.
type KVIndex struct {
	c      *Client
	maxAge time.Duration
	now    func() time.Time

	mu         sync.Mutex
	namespaces map[string]*kvListing
}

type kvListing struct {
	ready chan struct{} // closed once the listing is in (or failed)
	err   error
	at    time.Time
	keys  map[string]json.RawMessage // name → metadata (nil: none)
}

// NewKVIndex returns an empty index over client c.
func NewKVIndex(c *Client) *KVIndex {
	return &KVIndex{c: c, maxAge: KVIndexMaxAge, now: time.Now, namespaces: map[string]*kvListing{}}
}

// Lookup returns the listed metadata of key. listed is false when the listing did not have
// it (it may still exist: see KVIndex). Concurrent first lookups of a namespace share one
// listing.
func (x *KVIndex) Lookup(ctx context.Context, accountID, namespaceID, key string) (metadata json.RawMessage, listed bool, err error) {
	l, err := x.listing(ctx, accountID, namespaceID)
	if err != nil {
		return nil, false, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	metadata, listed = l.keys[key]
	return metadata, listed, nil
}

func (x *KVIndex) listing(ctx context.Context, accountID, namespaceID string) (*kvListing, error) {
	id := accountID + "/" + namespaceID
	x.mu.Lock()
	l, ok := x.namespaces[id]
	stale := ok && l.err == nil && isClosed(l.ready) && x.now().Sub(l.at) > x.maxAge
	if !ok || stale || (isClosed(l.ready) && l.err != nil) {
		l = &kvListing{ready: make(chan struct{})}
		x.namespaces[id] = l
		x.mu.Unlock()
		keys, err := x.c.KVListKeys(ctx, accountID, namespaceID)
		x.mu.Lock()
		l.err, l.at = err, x.now()
		if err == nil {
			l.keys = make(map[string]json.RawMessage, len(keys))
			for _, k := range keys {
				l.keys[k.Name] = k.Metadata
			}
		}
		close(l.ready)
		x.mu.Unlock()
		return l, err
	}
	x.mu.Unlock()
	select {
	case <-l.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return l, l.err
}

// Noted records a write this process made (metadata as written), so that the index never
// serves the key's previous state.
func (x *KVIndex) Noted(accountID, namespaceID, key string, metadata json.RawMessage) {
	x.update(accountID, namespaceID, func(keys map[string]json.RawMessage) { keys[key] = metadata })
}

// Forgot records a delete this process made.
func (x *KVIndex) Forgot(accountID, namespaceID, key string) {
	x.update(accountID, namespaceID, func(keys map[string]json.RawMessage) { delete(keys, key) })
}

func (x *KVIndex) update(accountID, namespaceID string, change func(map[string]json.RawMessage)) {
	x.mu.Lock()
	defer x.mu.Unlock()
	l, ok := x.namespaces[accountID+"/"+namespaceID]
	if !ok || !isClosed(l.ready) || l.err != nil {
		// Not listed yet, or a listing in flight that may predate the write: start over, so
		// the next lookup lists afresh.
		delete(x.namespaces, accountID+"/"+namespaceID)
		return
	}
	change(l.keys)
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
