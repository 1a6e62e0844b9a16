package cloudflare

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/cache"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/shared"
)

// maxKVValue bounds a value read into memory; route records and mappings are a few hundred
// bytes, so anything near this is not ours.
const maxKVValue = 1 << 20

// KVEntry is one KV value with its metadata, as read.
type KVEntry struct {
	Value    []byte
	Metadata json.RawMessage // nil when the key has none
}

// KVGet reads key from namespace. found is false (and err nil) when the key does not exist.
func (c *Client) KVGet(ctx context.Context, accountID, namespaceID, key string) (entry KVEntry, found bool, err error) {
	resp, err := c.KV.Namespaces.Values.Get(ctx, namespaceID, KVKeyPath(key), kv.NamespaceValueGetParams{AccountID: cf.F(accountID)})
	if err != nil {
		if isStatus(err, http.StatusNotFound) {
			return KVEntry{}, false, nil
		}
		return KVEntry{}, false, err
	}
	defer func() { _ = resp.Body.Close() }()
	value, err := io.ReadAll(io.LimitReader(resp.Body, maxKVValue+1))
	if err != nil {
		return KVEntry{}, false, fmt.Errorf("reading KV value %q: %w", key, err)
	}
	if len(value) > maxKVValue {
		return KVEntry{}, false, fmt.Errorf("KV value %q is larger than %d bytes", key, maxKVValue)
	}
	meta, err := c.KV.Namespaces.Metadata.Get(ctx, namespaceID, KVKeyPath(key), kv.NamespaceMetadataGetParams{AccountID: cf.F(accountID)})
	switch {
	case isStatus(err, http.StatusNotFound):
		// The key was deleted between the two reads.
		return KVEntry{}, false, nil
	case err != nil:
		return KVEntry{}, false, err
	}
	entry = KVEntry{Value: value}
	if meta != nil {
		if raw, err := json.Marshal(*meta); err == nil && string(raw) != "null" {
			entry.Metadata = raw
		}
	}
	return entry, true, nil
}

// KVPut writes value with metadata (a JSON object) under key.
func (c *Client) KVPut(ctx context.Context, accountID, namespaceID, key string, value []byte, metadataJSON string) error {
	_, err := c.KV.Namespaces.Values.Update(ctx, namespaceID, KVKeyPath(key), kv.NamespaceValueUpdateParams{
		AccountID: cf.F(accountID),
		Value:     cf.F[kv.NamespaceValueUpdateParamsValueUnion](shared.UnionString(string(value))),
		// A JSON string, not a map: cloudflare-go would split a map into one form field per key.
		Metadata: cf.F[any](metadataJSON),
	})
	return err
}

// KVDelete deletes key; a key that is already gone is not an error.
func (c *Client) KVDelete(ctx context.Context, accountID, namespaceID, key string) error {
	_, err := c.KV.Namespaces.Values.Delete(ctx, namespaceID, KVKeyPath(key), kv.NamespaceValueDeleteParams{AccountID: cf.F(accountID)})
	if isStatus(err, http.StatusNotFound) {
		return nil
	}
	return err
}

// PurgeURLs purges the given URLs from the zone's cache.
func (c *Client) PurgeURLs(ctx context.Context, zoneID string, urls []string) error {
	if len(urls) == 0 {
		return nil
	}
	_, err := c.Cache.Purge(ctx, cache.CachePurgeParams{
		ZoneID: cf.F(zoneID),
		Body:   cache.CachePurgeParamsBodyCachePurgeSingleFile{Files: cf.F(urls)},
	})
	return err
}

// KVKeyPath escapes a key name for the URL path of a single-key call: cloudflare-go inserts it
// verbatim, and KV documents every printable character as valid in a name ("use
// percent-encoding to define key names as part of a URL"), so "a?b" would read "a" and "a%41"
// would read "aA". Slashes are escaped too, so the key stays one path segment.
func KVKeyPath(key string) string { return url.PathEscape(key) }

func isStatus(err error, status int) bool {
	var apiErr *cf.Error
	return errors.As(err, &apiErr) && apiErr.StatusCode == status
}

// KVKey is one key of a listing with its metadata (never the value).
type KVKey struct {
	Name     string
	Metadata json.RawMessage
}

// KVListKeys lists every key of a namespace, following the cursor across pages.
func (c *Client) KVListKeys(ctx context.Context, accountID, namespaceID string) ([]KVKey, error) {
	var keys []KVKey
	err := c.KVEachKey(ctx, accountID, namespaceID, 1000, func(k kv.Key) error {
		keys = append(keys, kvKeyOf(k))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return keys, nil
}

// KVEachKey calls each with every key of a namespace in the listing's order, limit keys a page,
// and stops at the first error each returns.
//
// It pages by hand: cloudflare-go's auto-pager stops at the first page without keys, but KV
// documents that a page may be empty while more keys follow (a page's share of expired or
// deleted keys is skipped, not replaced), so only a missing cursor ends the listing. A cursor
// handed out twice is an error rather than a listing that never ends.
func (c *Client) KVEachKey(ctx context.Context, accountID, namespaceID string, limit int, each func(kv.Key) error) error {
	seen := map[string]bool{}
	params := kv.NamespaceKeyListParams{AccountID: cf.F(accountID), Limit: cf.F(float64(limit))}
	for {
		page, err := c.KV.Namespaces.Keys.List(ctx, namespaceID, params)
		if err != nil {
			return err
		}
		for _, k := range page.Result {
			if err := each(k); err != nil {
				return err
			}
		}
		next := page.ResultInfo.Cursor
		if next == "" {
			return nil
		}
		if seen[next] {
			return fmt.Errorf("listing the keys of namespace %s: the API handed out cursor %q twice", namespaceID, next)
		}
		seen[next] = true
		params.Cursor = cf.F(next)
	}
}

// KVEachNamespace calls each with every KV namespace of the account, page by page, until it
// returns false or an error. It pages by hand: cloudflare-go's page-number auto-pager sends
// every page after the first without the caller's context, so a cancelled plan kept listing.
func (c *Client) KVEachNamespace(ctx context.Context, accountID string, each func(kv.Namespace) (more bool, err error)) error {
	params := kv.NamespaceListParams{AccountID: cf.F(accountID), PerPage: cf.F(float64(kvNamespacesPerPage))}
	previousFirst := ""
	for page := 1; ; page++ {
		params.Page = cf.F(float64(page))
		res, err := c.KV.Namespaces.List(ctx, params)
		if err != nil {
			return err
		}
		if len(res.Result) == 0 {
			return nil
		}
		if res.Result[0].ID == previousFirst {
			return fmt.Errorf("listing the KV namespaces of account %s: page %d repeats the page before it", accountID, page)
		}
		previousFirst = res.Result[0].ID
		for _, ns := range res.Result {
			if more, err := each(ns); err != nil || !more {
				return err
			}
		}
		// A page shorter than the server's page size (which it reports) is the last one.
		perPage := int(res.ResultInfo.PerPage)
		if perPage <= 0 {
			perPage = kvNamespacesPerPage
		}
		if len(res.Result) < perPage {
			return nil
		}
	}
}

// FindKVNamespace returns the ID of the account's KV namespace titled title (titles are unique
// in an account); found is false when there is none.
func (c *Client) FindKVNamespace(ctx context.Context, accountID, title string) (id string, found bool, err error) {
	err = c.KVEachNamespace(ctx, accountID, func(ns kv.Namespace) (bool, error) {
		if ns.Title == title {
			id, found = ns.ID, true
		}
		return !found, nil
	})
	if err != nil {
		return "", false, err
	}
	return id, found, nil
}

// kvNamespacesPerPage is the largest page of the namespace listing.
const kvNamespacesPerPage = 100

// kvKeyOf is a listed key with its metadata as JSON.
func kvKeyOf(k kv.Key) KVKey {
	key := KVKey{Name: k.Name}
	if k.Metadata != nil {
		if raw, err := json.Marshal(k.Metadata); err == nil {
			key.Metadata = raw
		}
	}
	return key
}
