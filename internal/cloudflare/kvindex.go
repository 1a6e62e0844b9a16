package cloudflare

import (
	"context"
	"encoding/json"
	"net/http"
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
	c        *Client
	listings *listings[string, map[string]json.RawMessage] // by account/namespace: name → metadata
}

// NewKVIndex returns an empty index over client c.
func NewKVIndex(c *Client) *KVIndex {
	return &KVIndex{c: c, listings: newListings[string, map[string]json.RawMessage](KVIndexMaxAge)}
}

// Lookup returns the listed metadata of key. listed is false when the listing did not have
// it (it may still exist: see KVIndex). Concurrent first lookups of a namespace share one
// listing.
func (x *KVIndex) Lookup(ctx context.Context, accountID, namespaceID, key string) (metadata json.RawMessage, listed bool, err error) {
	l, err := x.listings.get(ctx, accountID+"/"+namespaceID, x.fetch(accountID, namespaceID))
	if err != nil {
		return nil, false, err
	}
	x.listings.read(l, func(keys map[string]json.RawMessage) { metadata, listed = keys[key] })
	return metadata, listed, nil
}

// Listed is Lookup without a fetch: known says whether the process holds a fresh listing of
// the namespace at all, and only then do metadata and listed mean anything.
func (x *KVIndex) Listed(accountID, namespaceID, key string) (metadata json.RawMessage, listed, known bool) {
	known = x.listings.peek(accountID+"/"+namespaceID, func(keys map[string]json.RawMessage) { metadata, listed = keys[key] })
	return metadata, listed, known
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
	x.listings.update(accountID+"/"+namespaceID, change)
}

// Names returns every key of the namespace's listing (fetched as Lookup fetches it), with this
// process's writes and deletes applied.
func (x *KVIndex) Names(ctx context.Context, accountID, namespaceID string) ([]string, error) {
	l, err := x.listings.get(ctx, accountID+"/"+namespaceID, x.fetch(accountID, namespaceID))
	if err != nil {
		return nil, err
	}
	var names []string
	x.listings.read(l, func(keys map[string]json.RawMessage) {
		names = make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
	})
	return names, nil
}

func (x *KVIndex) fetch(accountID, namespaceID string) func(context.Context) (map[string]json.RawMessage, error) {
	return func(ctx context.Context) (map[string]json.RawMessage, error) {
		keys, err := x.c.KVListKeys(ctx, accountID, namespaceID)
		if isStatus(err, http.StatusNotFound) {
			// The namespace does not exist (deleted behind Terraform's back): it holds no keys,
			// as a read of any one of them answers. An error here would fail every refresh of
			// its records, and the destroy too, so the stack could not recover by a plan.
			return map[string]json.RawMessage{}, nil
		}
		if err != nil {
			return nil, err
		}
		byName := make(map[string]json.RawMessage, len(keys))
		for _, k := range keys {
			byName[k.Name] = k.Metadata
		}
		return byName, nil
	}
}
