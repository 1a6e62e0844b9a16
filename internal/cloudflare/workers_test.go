package cloudflare

import (
	"bytes"
	"context"
	"testing"
)

// TestWorkerModules_GivesBackWhatWasUploaded: the download of a script's content (how a failed
// upload is found stored) holds each module uploaded, by name, byte for byte, Wasm included;
// a script that does not exist is not found, not an error.
func TestWorkerModules_GivesBackWhatWasUploaded(t *testing.T) {
	api := newLocalAPI(t)
	id, c := api.id, api.c
	ctx := context.Background()

	if _, found, err := c.WorkerModules(ctx, id.AccountID, "absent"); err != nil || found {
		t.Fatalf("WorkerModules of a missing script = found %v, %v", found, err)
	}
	wasm := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{0xff, 0x00, '\r', '\n', '-'}, 4096)...)
	up := WorkerUpload{
		MainModule:        "worker.mjs",
		CompatibilityDate: "2025-01-01",
		Modules: []WorkerModule{
			{Name: "worker.mjs", MIMEType: "application/javascript+module", Content: []byte("import './edge.wasm'\nexport default {}")},
			{Name: "edge.wasm", MIMEType: "application/wasm", Content: wasm},
		},
	}
	if _, err := c.UploadWorker(ctx, id.AccountID, "edge", up); err != nil {
		t.Fatal(err)
	}
	got, found, err := c.WorkerModules(ctx, id.AccountID, "edge")
	if err != nil || !found {
		t.Fatalf("WorkerModules = found %v, %v", found, err)
	}
	if len(got) != len(up.Modules) {
		t.Fatalf("%d modules downloaded, %d uploaded", len(got), len(up.Modules))
	}
	downloaded := map[string][]byte{}
	for _, m := range got {
		downloaded[m.Name] = m.Content
	}
	for _, m := range up.Modules {
		if content, ok := downloaded[m.Name]; !ok || !bytes.Equal(content, m.Content) {
			t.Errorf("module %q: downloaded %d bytes (found: %v), uploaded %d", m.Name, len(content), ok, len(m.Content))
		}
	}
}
