package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

func TestWorkerFromScript(t *testing.T) {
	sc := &cfapi.Script{
		Name:       "edge",
		MainModule: "worker.mjs",
		Modules: []cfapi.Module{
			{Name: "wasm_exec.js", ContentType: "application/javascript+module", Content: []byte("a")},
			{Name: "edge.wasm", ContentType: "application/wasm", Content: []byte{0, 0x61, 0x73, 0x6d, 0xff}},
			{Name: "worker.mjs", ContentType: "application/javascript+module", Content: []byte("b")},
			{Name: "notes.txt", ContentType: "text/plain", Content: []byte("c")},
		},
		Bindings: []cfapi.Binding{
			{"type": "kv_namespace", "name": "ROUTES", "namespace_id": "ns1"},
			{"type": "r2_bucket", "name": "STATIC", "bucket_name": "static"},
			{"type": "plain_text", "name": "PLATFORM_DOMAIN", "text": "kamui.test"},
			{"type": "secret_text", "name": "SIGNING_SECRET", "text": "s3cret"},
			{"type": "durable_object_namespace", "name": "DO"},
		},
	}
	w, unsupported, err := workerFromScript(sc)
	if err != nil {
		t.Fatal(err)
	}
	if w.Modules[0].Path != "worker.mjs" || w.Modules[0].Type != "ESModule" {
		t.Errorf("the main module must come first: %+v", w.Modules[0])
	}
	types := map[string]string{}
	for _, m := range w.Modules {
		types[m.Path] = m.Type
	}
	if types["edge.wasm"] != "CompiledWasm" || types["wasm_exec.js"] != "ESModule" || types["notes.txt"] != "Text" {
		t.Errorf("module types = %v", types)
	}
	if w.KVNamespaces["ROUTES"] != "ns1" || w.R2Buckets["STATIC"] != "static" ||
		w.Bindings["PLATFORM_DOMAIN"] != "kamui.test" || w.Bindings["SIGNING_SECRET"] != "s3cret" {
		t.Errorf("bindings: %+v", w)
	}
	if len(unsupported) != 1 || !strings.Contains(unsupported[0], "DO") {
		t.Errorf("unsupported = %v", unsupported)
	}
	if s, ok := SigningSecret(sc); !ok || s != "s3cret" {
		t.Errorf("SigningSecret = %q, %v", s, ok)
	}
	if _, _, err := workerFromScript(&cfapi.Script{Name: internalWorker}); err == nil {
		t.Error("a reserved script name was accepted")
	}
}

func TestFindNodeModules_MissingSaysNpmCi(t *testing.T) {
	_, err := FindNodeModules("", t.TempDir())
	if !errors.Is(err, ErrNoMiniflare) || !strings.Contains(err.Error(), "run npm ci at the repo root") {
		t.Errorf("err = %v", err)
	}
	_, err = FindNodeModules(t.TempDir(), "")
	if !errors.Is(err, ErrNoMiniflare) {
		t.Errorf("explicit dir without miniflare: err = %v", err)
	}
}
