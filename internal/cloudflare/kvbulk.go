package cloudflare

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Workers KV's documented bulk limits: a bulk write or delete takes up to 10,000 pairs and a
// request of 100 megabytes or less, read as 10^8 bytes (not 100 MiB) and counted as sent, in
// JSON; a bulk read up to 100 keys.
const (
	kvBulkWriteMaxPairs = 10_000
	kvBulkWriteMaxBytes = 100_000_000
	kvBulkGetMaxKeys    = 100
)

// kvBulkAttempts is how often a key the bulk API reports unsuccessful is sent before its
// resource is told it failed.
const kvBulkAttempts = 3

// kvLinger is the longest a KV batch stays open after its first request, and kvQuiet the pause
// after which it goes out early. Terraform does not start its -parallelism operations at once:
// its core hands them out one after another, a few tens a second (measured with make bench-api:
// 1,000 creates at -parallelism=100 take 25 s whatever the API does), so a lull shorter than
// that gap sends a batch per cohort and the cohorts never merge (20 ms gave 312 bulk writes for
// 1,000 records). A lull several gaps long means no more requests are coming: every operation
// Terraform may run is waiting here or elsewhere, and the batch is as large as it can get
// (10 bulk writes for those 1,000 records). The gaps stretch on a loaded machine (200 ms left
// too little margin there), so the lull is 300 ms. The linger bounds the wait when requests
// trickle in without a lull; a single write waits kvQuiet.
const (
	kvLinger = 5 * time.Second
	kvQuiet  = 300 * time.Millisecond
)

// kvOp is one write or delete of a key.
type kvOp struct {
	key      string
	delete   bool
	value    []byte
	metadata json.RawMessage
	// sent is size's answer, worked out once by newKVWrite (0: work it out when asked).
	sent int
}

// newKVWrite is the write of value (and metadata) under key.
func newKVWrite(key string, value []byte, metadata json.RawMessage) kvOp {
	op := kvOp{key: key, value: value, metadata: metadata}
	op.sent = op.size()
	return op
}

// size is what op adds to a bulk write's request: its key and value as JSON strings, as
// encoding/json writes them (a record's quotes each take two bytes there), its metadata, and
// the framing of an item.
func (op kvOp) size() int {
	if op.sent > 0 {
		return op.sent
	}
	return jsonStringSize(op.key) + jsonStringSize(string(op.value)) + len(op.metadata) + 64
}

// jsonStringSize is the length of s encoded as a JSON string, quotes included.
func jsonStringSize(s string) int {
	b, _ := json.Marshal(s) // a string always marshals
	return len(b)
}

// KVBatches coalesces the KV writes, deletes and reads that resources make concurrently into
// bulk calls, one coalescer per namespace. Built by NewKVBatches; safe for concurrent use.
type KVBatches struct {
	c *Client
	// backoff is the pause before re-sending the keys a bulk call reported unsuccessful,
	// multiplied by the attempt.
	backoff time.Duration

	mu      sync.Mutex
	writers map[string]*coalescer[kvOp, struct{}]
	readers map[string]*coalescer[string, KVRead]
}

// NewKVBatches returns the bulk KV access of client c.
func NewKVBatches(c *Client) *KVBatches {
	return &KVBatches{c: c, backoff: time.Second,
		writers: map[string]*coalescer[kvOp, struct{}]{}, readers: map[string]*coalescer[string, KVRead]{}}
}

// KVRead is what a bulk read found under one key.
type KVRead struct {
	Found bool
	Entry KVEntry
}

// Put writes value with metadata (a JSON object) under key, in a bulk write shared with the
// other writes to the namespace made at the same time.
func (b *KVBatches) Put(ctx context.Context, accountID, namespaceID, key string, value []byte, metadataJSON string) error {
	_, err := b.writer(accountID, namespaceID).do(ctx, newKVWrite(key, value, json.RawMessage(metadataJSON)))
	return err
}

// Delete deletes key (a key that is already gone is not an error), in a bulk delete shared
// with the namespace's other deletes.
func (b *KVBatches) Delete(ctx context.Context, accountID, namespaceID, key string) error {
	_, err := b.writer(accountID, namespaceID).do(ctx, kvOp{key: key, delete: true})
	return err
}

// Get reads key with its metadata, in a bulk read shared with the namespace's other reads.
func (b *KVBatches) Get(ctx context.Context, accountID, namespaceID, key string) (KVRead, error) {
	return b.reader(accountID, namespaceID).do(ctx, key)
}

func (b *KVBatches) writer(accountID, namespaceID string) *coalescer[kvOp, struct{}] {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := accountID + "/" + namespaceID
	w, ok := b.writers[id]
	if !ok {
		w = &coalescer[kvOp, struct{}]{
			linger: kvLinger,
			quiet:  kvQuiet,
			fits:   fitsKVWrite,
			flush: func(ctx context.Context, ops []kvOp) []outcome[struct{}] {
				return b.flushWrites(ctx, accountID, namespaceID, ops)
			},
		}
		b.writers[id] = w
	}
	return w
}

// fitsKVWrite keeps a batch within the bulk limits and every key in it once, so that two
// changes of one key are never sent in one call, where their order would be lost.
func fitsKVWrite(batch []kvOp, next kvOp) bool {
	if len(batch) >= kvBulkWriteMaxPairs {
		return false
	}
	size := next.size()
	for _, op := range batch {
		if op.key == next.key {
			return false
		}
		size += op.size()
	}
	return size <= kvBulkWriteMaxBytes
}

// flushWrites sends one batch: the deletes in one bulk delete, the writes in one bulk write.
// Keys the API reports unsuccessful are sent again (up to kvBulkAttempts in all), then failed
// on exactly their requests.
func (b *KVBatches) flushWrites(ctx context.Context, accountID, namespaceID string, ops []kvOp) []outcome[struct{}] {
	outs := make([]outcome[struct{}], len(ops))
	var writes, deletes []int
	for i, op := range ops {
		if op.delete {
			deletes = append(deletes, i)
		} else {
			writes = append(writes, i)
		}
	}
	for _, idx := range [][]int{deletes, writes} {
		for attempt := 1; len(idx) > 0; attempt++ {
			failed, err := b.sendWrites(ctx, accountID, namespaceID, ops, idx)
			if err != nil {
				for _, i := range idx {
					outs[i].err = err
				}
				break
			}
			if len(failed) > 0 && attempt >= kvBulkAttempts {
				for _, i := range failed {
					outs[i].err = fmt.Errorf("the bulk %s of key %q was reported unsuccessful %d times", verbOf(ops[i]), ops[i].key, attempt)
				}
				break
			}
			if len(failed) > 0 {
				tflog.Info(ctx, "Re-sending KV keys a bulk call reported unsuccessful", map[string]any{
					"namespace_id": namespaceID, "keys": len(failed), "attempt": attempt + 1})
				select {
				case <-time.After(time.Duration(attempt) * b.backoff):
				case <-ctx.Done():
				}
			}
			idx = failed
		}
	}
	return outs
}

func verbOf(op kvOp) string {
	if op.delete {
		return "delete"
	}
	return "write"
}

// sendWrites makes one bulk call for ops[idx] (all deletes or all writes) and returns the
// indexes the API reported unsuccessful.
func (b *KVBatches) sendWrites(ctx context.Context, accountID, namespaceID string, ops []kvOp, idx []int) ([]int, error) {
	var unsuccessful []string
	if ops[idx[0]].delete {
		keys := make([]string, len(idx))
		for j, i := range idx {
			keys[j] = ops[i].key
		}
		res, err := b.c.KV.Namespaces.BulkDelete(ctx, namespaceID, kv.NamespaceBulkDeleteParams{AccountID: cf.F(accountID), Body: keys})
		if err != nil {
			return nil, err
		}
		if res != nil {
			unsuccessful = res.UnsuccessfulKeys
		}
	} else {
		body := make([]kv.NamespaceBulkUpdateParamsBody, len(idx))
		for j, i := range idx {
			op := ops[i]
			body[j] = kv.NamespaceBulkUpdateParamsBody{Key: cf.F(op.key), Value: cf.F(string(op.value))}
			if len(op.metadata) > 0 {
				body[j].Metadata = cf.F[any](op.metadata)
			}
		}
		res, err := b.c.KV.Namespaces.BulkUpdate(ctx, namespaceID, kv.NamespaceBulkUpdateParams{AccountID: cf.F(accountID), Body: body})
		if err != nil {
			return nil, err
		}
		if res != nil {
			unsuccessful = res.UnsuccessfulKeys
		}
	}
	tflog.Debug(ctx, "Bulk KV call", map[string]any{"namespace_id": namespaceID, "keys": len(idx), "unsuccessful": len(unsuccessful)})
	if len(unsuccessful) == 0 {
		return nil, nil
	}
	bad := make(map[string]bool, len(unsuccessful))
	for _, k := range unsuccessful {
		bad[k] = true
	}
	var failed []int
	for _, i := range idx {
		if bad[ops[i].key] {
			failed = append(failed, i)
		}
	}
	return failed, nil
}

func (b *KVBatches) reader(accountID, namespaceID string) *coalescer[string, KVRead] {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := accountID + "/" + namespaceID
	r, ok := b.readers[id]
	if !ok {
		r = &coalescer[string, KVRead]{
			linger: kvLinger,
			quiet:  kvQuiet,
			fits:   func(batch []string, _ string) bool { return len(batch) < kvBulkGetMaxKeys },
			flush: func(ctx context.Context, keys []string) []outcome[KVRead] {
				return b.flushReads(ctx, accountID, namespaceID, keys)
			},
		}
		b.readers[id] = r
	}
	return r
}

// bulkGetValue is one key's answer of a bulk read with metadata (null when the key is absent).
type bulkGetValue struct {
	Value    *string         `json:"value"`
	Metadata json.RawMessage `json:"metadata"`
}

// flushReads reads up to 100 keys in one bulk read with their metadata. The same key asked
// twice in one batch is read once.
func (b *KVBatches) flushReads(ctx context.Context, accountID, namespaceID string, keys []string) []outcome[KVRead] {
	unique := make([]string, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			unique = append(unique, k)
		}
	}
	// The envelope is decoded here: cloudflare-go's union of the two answer shapes does not
	// keep the metadata of a value apart from its text.
	var raw []byte
	_, err := b.c.KV.Namespaces.BulkGet(ctx, namespaceID, kv.NamespaceBulkGetParams{
		AccountID:    cf.F(accountID),
		Keys:         cf.F(unique),
		Type:         cf.F(kv.NamespaceBulkGetParamsTypeText),
		WithMetadata: cf.F(true),
	}, option.WithResponseBodyInto(&raw))
	if isStatus(err, http.StatusNotFound) {
		// A bulk read answers a missing key with null; a 404 is the namespace itself missing,
		// so none of the keys exists (as KVGet answers a single read of one).
		return make([]outcome[KVRead], len(keys))
	}
	if err != nil {
		return everyone[KVRead](len(keys), err)
	}
	var envelope struct {
		Result struct {
			Values map[string]*bulkGetValue `json:"values"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &envelope); err != nil {
		return everyone[KVRead](len(keys), fmt.Errorf("decoding a bulk KV read: %w", err))
	}
	decoded := envelope.Result
	outs := make([]outcome[KVRead], len(keys))
	for i, k := range keys {
		v, listed := decoded.Values[k]
		switch {
		case !listed:
			outs[i].err = errors.New("the bulk KV read did not answer for key " + strings.ReplaceAll(k, "\n", " "))
		case v == nil || v.Value == nil:
			// absent
		default:
			entry := KVEntry{Value: []byte(*v.Value)}
			if len(v.Metadata) > 0 && string(v.Metadata) != "null" {
				entry.Metadata = v.Metadata
			}
			outs[i].val = KVRead{Found: true, Entry: entry}
		}
	}
	return outs
}
