package runtime

import (
	"fmt"
	"strings"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// Reserved worker names inside the Miniflare instance (see host.mjs); no script may use them.
const (
	internalWorker = "__localedge"
	originWorker   = "__localedge_origin"
)

// workerSpec is one user Worker as host.mjs passes it to Miniflare.
type workerSpec struct {
	Name               string            `json:"name"`
	Modules            []moduleSpec      `json:"modules,omitempty"`
	Script             []byte            `json:"script,omitempty"` // service-worker syntax
	Bindings           map[string]any    `json:"bindings"`
	KVNamespaces       map[string]string `json:"kvNamespaces"`
	R2Buckets          map[string]string `json:"r2Buckets"`
	CompatibilityDate  string            `json:"compatibilityDate,omitempty"`
	CompatibilityFlags []string          `json:"compatibilityFlags"`
}

// moduleSpec is one module; Contents is sent base64 (encoding/json's []byte) so Wasm stays
// byte-exact.
type moduleSpec struct {
	Type     string `json:"type"`
	Path     string `json:"path"`
	Contents []byte `json:"contents"`
}

// workerFromScript translates an uploaded script and its bindings into Miniflare's terms.
// Bindings the local edge cannot emulate are reported, not silently dropped.
func workerFromScript(sc *cfapi.Script) (workerSpec, []string, error) {
	if sc.Name == internalWorker || sc.Name == originWorker {
		return workerSpec{}, nil, fmt.Errorf("script name %q is reserved by the local edge", sc.Name)
	}
	w := workerSpec{
		Name:               sc.Name,
		Bindings:           map[string]any{},
		KVNamespaces:       map[string]string{},
		R2Buckets:          map[string]string{},
		CompatibilityDate:  sc.CompatibilityDate,
		CompatibilityFlags: append([]string{}, sc.CompatibilityFlags...),
	}
	if sc.MainModule != "" {
		// Miniflare wants the entry module first.
		for _, m := range sc.Modules {
			spec := moduleSpec{Type: moduleType(m), Path: m.Name, Contents: m.Content}
			if m.Name == sc.MainModule {
				w.Modules = append([]moduleSpec{spec}, w.Modules...)
			} else {
				w.Modules = append(w.Modules, spec)
			}
		}
	} else {
		for _, m := range sc.Modules {
			if m.Name == sc.BodyPart {
				w.Script = m.Content
			}
		}
	}
	var unsupported []string
	for _, b := range sc.Bindings {
		switch b.Type() {
		case "plain_text", "secret_text":
			text, _ := b["text"].(string)
			w.Bindings[b.Name()] = text
		case "json":
			w.Bindings[b.Name()] = b["json"]
		case "kv_namespace":
			id, _ := b["namespace_id"].(string)
			w.KVNamespaces[b.Name()] = id
		case "r2_bucket":
			bucket, _ := b["bucket_name"].(string)
			w.R2Buckets[b.Name()] = bucket
		default:
			unsupported = append(unsupported, b.Name()+" ("+b.Type()+")")
		}
	}
	return w, unsupported, nil
}

// moduleType maps an upload part's content type to Miniflare's module type, the way
// Cloudflare interprets it.
func moduleType(m cfapi.Module) string {
	ct, _, _ := strings.Cut(m.ContentType, ";")
	switch strings.TrimSpace(ct) {
	case "application/javascript+module", "text/javascript+module":
		return "ESModule"
	case "application/javascript", "text/javascript":
		if strings.HasSuffix(m.Name, ".mjs") {
			return "ESModule"
		}
		return "CommonJS"
	case "application/wasm":
		return "CompiledWasm"
	case "text/plain":
		return "Text"
	}
	return "Data"
}

// SigningSecret returns a script's SIGNING_SECRET binding (the router's shared secret), if any.
func SigningSecret(sc *cfapi.Script) (string, bool) {
	for _, b := range sc.Bindings {
		if b.Name() == "SIGNING_SECRET" && (b.Type() == "secret_text" || b.Type() == "plain_text") {
			text, _ := b["text"].(string)
			return text, text != ""
		}
	}
	return "", false
}
