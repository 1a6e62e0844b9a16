package kvmigrate

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/option"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
)

// Cloudflare's documented limits for the calls the migration makes.
const (
	// MaxListPage is the most keys one listing page holds (also the default page size).
	MaxListPage = 1000
	// MaxBulkGetKeys is the most keys one bulk get reads.
	MaxBulkGetKeys = 100
	// MaxBulkWritePairs is the most pairs one bulk write takes.
	MaxBulkWritePairs = 10000
	// MaxBulkWriteBytes bounds one bulk write's request body ("100 megabytes or less"; read as
	// 10^6-byte megabytes, the smaller reading).
	MaxBulkWriteBytes = 100_000_000
	// MaxValueBytes is the largest value KV stores (25 MiB).
	MaxValueBytes = 25 << 20
	// minExpirySeconds: a write's absolute expiration must be at least this far in the future.
	minExpirySeconds = 60
)

// listedKey is one key of a listing: its name, canonical metadata and expiration, never the value.
type listedKey struct {
	Name       string
	Metadata   json.RawMessage
	Expiration int64
}

// kvAPI is the migration's view of one account's Workers KV through the project's client (its
// rate limit, retries and logging apply to every call made here).
type kvAPI struct {
	client    *kdcf.Client
	accountID string
	// parallel bounds concurrent bulk gets; the client's limiter still paces them.
	parallel int
}

// namespaceTitle checks that the namespace exists in the account and returns its title.
func (a *kvAPI) namespaceTitle(ctx context.Context, id string) (string, error) {
	ns, err := a.client.KV.Namespaces.Get(ctx, id, kv.NamespaceGetParams{AccountID: cf.F(a.accountID)})
	if err != nil {
		if isStatus(err, http.StatusNotFound) {
			return "", fmt.Errorf("KV namespace %s does not exist in account %s", id, a.accountID)
		}
		return "", fmt.Errorf("reading KV namespace %s: %w", id, err)
	}
	return ns.Title, nil
}

// list returns every key of the namespace in the listing's order (byte order), following the
// cursor page by page; seen is called with the running count after each key.
func (a *kvAPI) list(ctx context.Context, namespaceID string, seen func(n int)) ([]listedKey, error) {
	var keys []listedKey
	err := a.client.KVEachKey(ctx, a.accountID, namespaceID, MaxListPage, func(k kv.Key) error {
		meta, err := canonicalMetadata([]byte(k.JSON.Metadata.Raw()))
		if err != nil {
			return fmt.Errorf("key %q: %w", k.Name, err)
		}
		keys = append(keys, listedKey{Name: k.Name, Metadata: meta, Expiration: int64(k.Expiration)})
		if seen != nil {
			seen(len(keys))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing KV namespace %s: %w", namespaceID, err)
	}
	return keys, nil
}

// getAll reads keys (values, metadata, expirations) with bulk gets of MaxBulkGetKeys keys, a
// few at a time. A key the namespace does not hold (any more) is absent from the result. read
// is called with the running count of keys read.
func (a *kvAPI) getAll(ctx context.Context, namespaceID string, keys []string, read func(n int)) (map[string]Entry, error) {
	out := make(map[string]Entry, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	sem := make(chan struct{}, max(a.parallel, 1))
	for start := 0; start < len(keys); start += MaxBulkGetKeys {
		chunk := keys[start:min(start+MaxBulkGetKeys, len(keys))]
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			got, err := a.bulkGetSplitting(ctx, namespaceID, chunk)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				return
			}
			for k, e := range got {
				out[k] = e
			}
			done += len(chunk)
			if read != nil {
				read(done)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// bulkGetSplitting is bulkGet, made robust against a bulk read the API refuses (400) because of
// one of its keys ("keys must contain text-based values"): the keys are split in halves until
// the refused ones are found, and those are read on their own.
func (a *kvAPI) bulkGetSplitting(ctx context.Context, namespaceID string, keys []string) (map[string]Entry, error) {
	got, err := a.bulkGet(ctx, namespaceID, keys)
	if err == nil || !isStatus(err, http.StatusBadRequest) {
		return got, err
	}
	if len(keys) == 1 {
		return a.getOne(ctx, namespaceID, keys[0])
	}
	half := len(keys) / 2
	left, err := a.bulkGetSplitting(ctx, namespaceID, keys[:half])
	if err != nil {
		return nil, err
	}
	right, err := a.bulkGetSplitting(ctx, namespaceID, keys[half:])
	if err != nil {
		return nil, err
	}
	for k, e := range right {
		left[k] = e
	}
	return left, nil
}

// getOne reads one key without the bulk read: the raw value (with its expiration) and the
// metadata, two calls.
func (a *kvAPI) getOne(ctx context.Context, namespaceID, key string) (map[string]Entry, error) {
	value, expiration, found, err := a.getRaw(ctx, namespaceID, key)
	if err != nil || !found {
		return map[string]Entry{}, err
	}
	var raw []byte
	_, err = a.client.KV.Namespaces.Metadata.Get(ctx, namespaceID, kdcf.KVKeyPath(key), kv.NamespaceMetadataGetParams{AccountID: cf.F(a.accountID)},
		option.WithResponseBodyInto(&raw))
	if isStatus(err, http.StatusNotFound) {
		return map[string]Entry{}, nil // deleted between the two reads
	}
	if err != nil {
		return nil, fmt.Errorf("reading the metadata of %q in KV namespace %s: %w", key, namespaceID, err)
	}
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("reading the metadata of %q in KV namespace %s: the answer is not the documented shape: %w", key, namespaceID, err)
	}
	meta, err := canonicalMetadata(env.Result)
	if err != nil {
		return nil, fmt.Errorf("reading the metadata of %q in KV namespace %s: %w", key, namespaceID, err)
	}
	return map[string]Entry{key: {Value: value, Metadata: meta, Expiration: expiration}}, nil
}

// bulkGet reads up to MaxBulkGetKeys keys with their metadata and expiration in one call.
//
// The bulk read answers text only ("keys must contain text-based values"): bytes that are not
// UTF-8 come back as U+FFFD. A value holding U+FFFD is therefore read again on its own, as raw
// bytes, so a binary value is copied byte for byte (a text value that really holds U+FFFD costs
// one extra read and is copied the same).
func (a *kvAPI) bulkGet(ctx context.Context, namespaceID string, keys []string) (map[string]Entry, error) {
	var raw []byte
	_, err := a.client.KV.Namespaces.BulkGet(ctx, namespaceID, kv.NamespaceBulkGetParams{
		AccountID:    cf.F(a.accountID),
		Keys:         cf.F(keys),
		Type:         cf.F(kv.NamespaceBulkGetParamsTypeText),
		WithMetadata: cf.F(true),
	}, option.WithResponseBodyInto(&raw))
	if err != nil {
		return nil, fmt.Errorf("bulk read of %d keys from KV namespace %s: %w", len(keys), namespaceID, err)
	}
	var env struct {
		Result struct {
			Values map[string]*struct {
				Value      json.RawMessage `json:"value"`
				Metadata   json.RawMessage `json:"metadata"`
				Expiration float64         `json:"expiration"`
			} `json:"values"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("bulk read from KV namespace %s: the answer is not the documented shape: %w", namespaceID, err)
	}
	out := make(map[string]Entry, len(keys))
	for _, key := range keys {
		item, ok := env.Result.Values[key]
		if !ok || item == nil {
			continue // absent: deleted or expired since it was listed
		}
		var text string
		if err := json.Unmarshal(item.Value, &text); err != nil {
			return nil, fmt.Errorf("bulk read from KV namespace %s: the value of %q is not a string", namespaceID, key)
		}
		meta, err := canonicalMetadata(item.Metadata)
		if err != nil {
			return nil, fmt.Errorf("bulk read from KV namespace %s: key %q: %w", namespaceID, key, err)
		}
		e := Entry{Value: []byte(text), Metadata: meta, Expiration: int64(item.Expiration)}
		if strings.ContainsRune(text, '\uFFFD') {
			value, _, found, err := a.getRaw(ctx, namespaceID, key)
			if err != nil {
				return nil, err
			}
			if !found {
				continue
			}
			e.Value = value
		}
		out[key] = e
	}
	return out, nil
}

// getRaw reads one value as bytes, with the expiration the answer's Expiration header carries
// (0 without one). found is false when the key does not exist.
func (a *kvAPI) getRaw(ctx context.Context, namespaceID, key string) (value []byte, expiration int64, found bool, err error) {
	resp, err := a.client.KV.Namespaces.Values.Get(ctx, namespaceID, kdcf.KVKeyPath(key), kv.NamespaceValueGetParams{AccountID: cf.F(a.accountID)})
	if err != nil {
		if isStatus(err, http.StatusNotFound) {
			return nil, 0, false, nil
		}
		return nil, 0, false, fmt.Errorf("reading %q from KV namespace %s: %w", key, namespaceID, err)
	}
	defer func() { _ = resp.Body.Close() }()
	value, err = io.ReadAll(io.LimitReader(resp.Body, MaxValueBytes+1))
	if err != nil {
		return nil, 0, false, fmt.Errorf("reading %q from KV namespace %s: %w", key, namespaceID, err)
	}
	if len(value) > MaxValueBytes {
		return nil, 0, false, fmt.Errorf("the value of %q in KV namespace %s is larger than KV's %d-byte limit", key, namespaceID, MaxValueBytes)
	}
	if v := resp.Header.Get("Expiration"); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			expiration = int64(f)
		}
	}
	return value, expiration, true, nil
}

// writeItem is one pair of a bulk write.
type writeItem struct {
	Key   string
	Entry Entry
}

// encodedSize is what the item adds to a bulk write's JSON body, counted generously: the key
// escaped, the value in base64, the metadata, the expiration and the field names.
func (w writeItem) encodedSize() int {
	key, _ := json.Marshal(w.Key)
	return len(key) + base64.StdEncoding.EncodedLen(len(w.Entry.Value)) + len(w.Entry.Metadata) +
		len(`{"key":,"value":"","base64":true,"expiration":18446744073709551615,"metadata":},`)
}

// bulkWrite writes the items in one call. Values go base64-encoded so binary values survive;
// metadata as JSON; expirations as the absolute time they were read with. It returns the keys
// the API reports unsuccessful (to be retried).
func (a *kvAPI) bulkWrite(ctx context.Context, namespaceID string, items []writeItem) (unsuccessful []string, err error) {
	body := make([]kv.NamespaceBulkUpdateParamsBody, len(items))
	for i, it := range items {
		b := kv.NamespaceBulkUpdateParamsBody{
			Key:    cf.F(it.Key),
			Value:  cf.F(base64.StdEncoding.EncodeToString(it.Entry.Value)),
			Base64: cf.F(true),
		}
		if it.Entry.Expiration != 0 {
			b.Expiration = cf.F(float64(it.Entry.Expiration))
		}
		if it.Entry.Metadata != nil {
			b.Metadata = cf.F[any](it.Entry.Metadata)
		}
		body[i] = b
	}
	res, err := a.client.KV.Namespaces.BulkUpdate(ctx, namespaceID, kv.NamespaceBulkUpdateParams{AccountID: cf.F(a.accountID), Body: body})
	if err != nil {
		return nil, fmt.Errorf("bulk write of %d keys to KV namespace %s: %w", len(items), namespaceID, err)
	}
	return res.UnsuccessfulKeys, nil
}

func isStatus(err error, status int) bool {
	var apiErr *cf.Error
	return errors.As(err, &apiErr) && apiErr.StatusCode == status
}
