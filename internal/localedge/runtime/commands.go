package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// Configure (re)loads workerd with exactly these scripts, every KV namespace in namespaces
// and R2 bucket in buckets bound to the internal worker (so writes reach ones no script binds
// yet). A script
// that cannot be translated (a reserved name) is left out and logged. An error means workerd
// refused the set; what it ran before may be gone.
func (h *Host) Configure(ctx context.Context, scripts []*cfapi.Script, namespaces, buckets []string) error {
	workers := make([]workerSpec, 0, len(scripts))
	for _, sc := range scripts {
		w, unsupported, err := workerFromScript(sc)
		if err != nil {
			h.cfg.Logger.Error("script left out of workerd", "error", err)
			continue
		}
		if len(unsupported) > 0 {
			h.cfg.Logger.Warn("bindings the local edge does not emulate are left unbound",
				"script", sc.Name, "bindings", strings.Join(unsupported, ", "))
		}
		workers = append(workers, w)
	}
	res, err := h.call(ctx, "configure", map[string]any{
		"workers":    workers,
		"namespaces": append([]string{}, namespaces...),
		"buckets":    append([]string{}, buckets...),
		"originURL":  h.cfg.OriginURL,
		"kvPersist":  filepath.Join(h.cfg.WorkDir, "kv"),
		"r2Persist":  filepath.Join(h.cfg.WorkDir, "r2"),
	}, true)
	if err != nil {
		return err
	}
	var out struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(res, &out); err != nil || out.URL == "" {
		return fmt.Errorf("runtime host configure: unexpected answer %q", res)
	}
	h.mu.Lock()
	h.url = strings.TrimSuffix(out.URL, "/")
	h.mu.Unlock()
	return nil
}

// PutKV writes one key into the runtime's copy of a namespace.
func (h *Host) PutKV(ctx context.Context, namespaceID, key string, e *cfapi.KVEntry) error {
	fields := map[string]any{"ns": namespaceID, "key": key, "value": e.Value}
	if len(e.Metadata) > 0 {
		fields["metadata"] = e.Metadata
	}
	if e.Expiration > 0 {
		fields["expiration"] = e.Expiration
	}
	_, err := h.call(ctx, "kvPut", fields, false)
	return err
}

// DeleteKV removes one key from the runtime's copy of a namespace.
func (h *Host) DeleteKV(ctx context.Context, namespaceID, key string) error {
	_, err := h.call(ctx, "kvDelete", map[string]any{"ns": namespaceID, "key": key}, false)
	return err
}

// PutR2 writes one object into the runtime's copy of a bucket, with its content type and
// custom metadata (sent by S3 uploads as x-amz-meta-*).
func (h *Host) PutR2(ctx context.Context, bucket, key string, o *cfapi.R2Object) error {
	_, err := h.call(ctx, "r2Put", map[string]any{"bucket": bucket, "key": key, "value": o.Content, "contentType": o.ContentType, "customMetadata": o.CustomMetadata}, false)
	return err
}

// DeleteR2 removes one object from the runtime's copy of a bucket.
func (h *Host) DeleteR2(ctx context.Context, bucket, key string) error {
	_, err := h.call(ctx, "r2Delete", map[string]any{"bucket": bucket, "key": key}, false)
	return err
}

// Purge drops these URLs from the Cache API (one cache for all the Workers, as one zone has).
func (h *Host) Purge(ctx context.Context, urls []string) (int, error) {
	res, err := h.call(ctx, "purge", map[string]any{"urls": urls}, false)
	if err != nil {
		return 0, err
	}
	var out struct {
		Deleted int `json:"deleted"`
	}
	_ = json.Unmarshal(res, &out)
	return out.Deleted, nil
}
