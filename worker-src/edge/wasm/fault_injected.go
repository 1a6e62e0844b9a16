//go:build js && wasm && kamuidash_fault

package main

import "strings"

// fault panics for a request whose URL holds /__kamuidash_fault/panic, in a test build only
// (scripts/build-worker.sh with KAMUIDASH_WORKER_TAGS=kamuidash_fault). An export has no
// caller to recover a panic: it ends the Go program, as a bug anywhere in the core would.
func fault(url string) {
	if strings.Contains(url, "/__kamuidash_fault/panic") {
		panic("kamuidash: fault injected")
	}
}
