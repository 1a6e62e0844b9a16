//go:build js && wasm && !kamuidash_fault

package main

// fault does nothing in the Worker as built and uploaded. A test build (the kamuidash_fault
// tag: fault_injected.go) makes chosen requests panic, to show that worker.mjs replaces a Go
// instance that has stopped.
func fault(string) {}
