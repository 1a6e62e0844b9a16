//go:build js && wasm && !kamuidash_fault

package main

// fault does nothing in the Worker as built and uploaded. A test build (the kamuidash_fault
// tag: fault_injected.go) makes chosen requests panic or stop the program in a chosen call
// (export names it), to show what worker.mjs and the exports make of either.
func fault(export, url string) {}
