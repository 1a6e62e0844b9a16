//go:build js && wasm && kamuidash_fault

package main

import (
	"strings"
	"sync"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge"
)

// fault stops the Go program for a request whose URL names a fault, in a test build only
// (scripts/build-worker.sh with KAMUIDASH_WORKER_TAGS=kamuidash_fault). Each fault ends the
// program in another of the ways into Go, as a bug anywhere in the core would:
//   - /__kamuidash_fault/panic: a panic in decide (an export has no caller to recover it);
//   - /__kamuidash_fault/crash-in-run: a fatal error in the runner (which recovers a panic)
//     before its next static object read, so inside kamuiRun for a site laid out by prefix;
//   - /__kamuidash_fault/crash-in-settle: the same once that read is back, inside
//     kamuiSettle;
//   - /__kamuidash_fault/crash-later: a fatal error in a goroutine of its own, which runs at
//     the scheduler's next event (poke) or blocking export, whichever request makes it.
//
// A fatal error, unlike a panic, is not recovered: the runner's recover turns a panic into
// a lost request, and the program goes on.
func fault(url string) {
	switch {
	case strings.Contains(url, "/__kamuidash_fault/panic"):
		panic("kamuidash: fault injected")
	case strings.Contains(url, "/__kamuidash_fault/crash-in-run"):
		crashNextRead(true)
	case strings.Contains(url, "/__kamuidash_fault/crash-in-settle"):
		crashNextRead(false)
	case strings.Contains(url, "/__kamuidash_fault/crash-later"):
		go crash()
	}
}

// crash ends the program with a fatal error, which no recover stops.
func crash() {
	var m sync.Mutex
	m.Unlock()
}

// crashNextRead makes the next static object read crash, before it is made (before) or once
// it is back.
func crashNextRead(before bool) {
	handler.Static = &crashingObjects{Objects: handler.Static, before: before}
}

type crashingObjects struct {
	edge.Objects
	before bool
}

func (c *crashingObjects) Get(key string, withBody bool) (edge.Object, bool, error) {
	if c.before {
		crash()
	}
	o, found, err := c.Objects.Get(key, withBody)
	crash()
	return o, found, err
}
