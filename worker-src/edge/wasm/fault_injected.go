//go:build js && wasm && kamuidash_fault

package main

import (
	"strings"
	"sync"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge"
)

// fault injects a failure for a request whose URL names one, in a test build only
// (scripts/build-worker.sh with KAMUIDASH_WORKER_TAGS=kamuidash_fault); export is the call
// into Go it is called from, or "keep" and "put" for the points in settle where a request's
// exchange is kept (url: the request's, "" for puts). Panics, which every export
// and the runner recover as a lost request:
//   - /__kamuidash_fault/panic: in decide;
//   - /__kamuidash_fault/panic-in-lookups, -in-finish: in that call of the request's;
//   - /__kamuidash_fault/panic-in-puts: in the next call for the route-cache entries waiting
//     (the request's own, when it planned one);
//   - /__kamuidash_fault/panic-after-keep, -after-put: once the request's exchange is kept
//     for worker.mjs to come back for, in the decide that first keeps it, or in the lookups
//     that keeps it again;
//   - /__kamuidash_fault/panic-holding-lock: in decide, with the adapter's lock held, as a bug
//     inside a critical section would leave it.
//
// Fatal errors, which nothing recovers: they end the program, as a bug in the runtime or an
// exhausted memory would:
//   - /__kamuidash_fault/crash: in decide;
//   - /__kamuidash_fault/crash-in-run: in the runner before its next static object read, so
//     inside kamuiRun for a site laid out by prefix;
//   - /__kamuidash_fault/crash-in-settle: the same once that read is back, inside
//     kamuiSettle;
//   - /__kamuidash_fault/crash-later: in a goroutine of its own, which runs at the scheduler's
//     next event (poke) or blocking export, whichever request makes it.
//
// And a call that never finishes: /__kamuidash_fault/block waits in decide for what nothing
// will send, as a deadlock would.
func fault(export, url string) {
	const prefix = "/__kamuidash_fault/"
	_, name, named := strings.Cut(url, prefix)
	name, _, _ = strings.Cut(name, "?")
	switch {
	case export == "puts":
		if panicNextPuts {
			panicNextPuts = false
			panic("kamuidash: fault injected in puts")
		}
	case !named:
	case export == "decide" && name == "panic":
		panic("kamuidash: fault injected")
	case export == "decide" && name == "panic-holding-lock":
		mu.Lock()
		panic("kamuidash: fault injected with the lock held")
	case export == "decide" && name == "panic-in-puts":
		panicNextPuts = true
	case name == "panic-in-"+export, name == "panic-after-"+export: // lookups, finish; keep, put
		panic("kamuidash: fault injected in " + export)
	case export == "decide" && name == "crash":
		crash()
	case export == "decide" && name == "crash-in-run":
		crashNextRead(true)
	case export == "decide" && name == "crash-in-settle":
		crashNextRead(false)
	case export == "decide" && name == "crash-later":
		go crash()
	case export == "decide" && name == "block":
		select {}
	}
}

// panicNextPuts makes the next kamuiPuts panic.
var panicNextPuts bool

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
