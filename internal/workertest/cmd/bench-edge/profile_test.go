package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A profile of four samples: two in the Go Wasm, one in worker.mjs, one idle, one of them
// after an 8 ms wait. The summary counts busy samples and the intervals under 1 ms only, per
// request, and names each part and function.
func TestSummarizeProfile_SharesAndPerRequestTime(t *testing.T) {
	file := filepath.Join(t.TempDir(), "edge.cpuprofile")
	const profile = `{"startTime": 1000, "endTime": 9400, "timeDeltas": [100, 100, 8000, 200], "nodes": [
		{"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1}, "hitCount": 0},
		{"id": 2, "callFrame": {"functionName": "$runtime.mallocgc", "url": "wasm://wasm/0012", "lineNumber": 0}, "hitCount": 2},
		{"id": 3, "callFrame": {"functionName": "serve", "url": "file:///w/worker.mjs", "lineNumber": 9}, "hitCount": 1},
		{"id": 4, "callFrame": {"functionName": "(idle)", "url": "", "lineNumber": -1}, "hitCount": 1}]}`
	if err := os.WriteFile(file, []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := summarizeProfile(&b, "edge", file, 3, 5); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"1.00 samples per request (3 over 3 requests), about 133µs busy per request",
		"samples by part: go-wasm 66.7% worker.mjs 33.3%",
		"66.7% 0.667/req $runtime.mallocgc wasm:1",
		"33.3% 0.333/req serve worker.mjs:10",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(idle)") {
		t.Errorf("idle time listed as a function:\n%s", out)
	}
}

func TestSummarizeProfile_RefusesAnEmptyProfile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "edge.cpuprofile")
	if err := os.WriteFile(file, []byte(`{"startTime": 0, "endTime": 0, "nodes": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := summarizeProfile(io.Discard, "edge", file, 1, 5); err == nil || !strings.Contains(err.Error(), "no samples") {
		t.Fatalf("err = %v, want one saying there are no samples", err)
	}
}
