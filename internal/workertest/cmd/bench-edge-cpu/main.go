// Command bench-edge-cpu measures the edge Worker's own CPU cost per warm request against
// js-seed (the seed design in plain JavaScript) and the JS pass-through, in one Node process
// with in-memory bindings (see driver.mjs): a warm request of a dynamic app (the edge's
// memoized, js-seed's answered by its route cache), forwarded to an upstream that answers at
// once. bench-edge measures latency through workerd, where runtime I/O dominates and
// varies with the machine's load; this isolates what the Worker's code costs, the part a
// change to the Go core or the shim moves. The last line is machine-readable:
//
//	bench-edge-cpu: edge_us=<µs/request> seed_us=<µs/request> js_us=<µs/request> cold_cpu_vs_seed=<ratio> cpu_vs_js=<ratio> cpu_vs_seed=<ratio>
//
// It also measures a cold request of each Worker (a new app every time, so every cache
// misses and the record is read from KV and validated): what a change to the Worker's cold
// path (decoding, the adapter's calls into Go) moves.
package main

import (
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/workertest"
)

//go:embed driver.mjs
var driver []byte

func main() {
	n := flag.Int("n", 5000, "requests per Worker")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "bench-edge-cpu:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	root, err := workertest.RepoRoot()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "bench-edge-cpu-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary build: a leftover only takes space
	if _, err := workertest.BuildWorker(root, dir); err != nil {
		return err
	}
	// workerd imports edge.wasm as a compiled module; Node cannot, so the copy this driver
	// imports reads the file instead. Nothing else in worker.mjs changes.
	shim, err := os.ReadFile(filepath.Join(dir, "worker.mjs"))
	if err != nil {
		return err
	}
	const wasmImport = `import compiled from "./edge.wasm";`
	if !strings.Contains(string(shim), wasmImport) {
		return fmt.Errorf("worker.mjs no longer has the line %q this benchmark rewrites", wasmImport)
	}
	shim = []byte(strings.Replace(string(shim), wasmImport, `import { readFileSync } from "node:fs";
const compiled = new WebAssembly.Module(readFileSync(new URL("./edge.wasm", import.meta.url)));`, 1))
	rec, _, err := route.EncodeRecord(route.Record{App: "shop", Status: route.StatusActive, Kind: route.KindDynamic,
		Dynamic: &route.Dynamic{Origin: "tunnel.kamui.test", Upstream: "tenant-shop/web:8080", TimeoutMS: 10000}})
	if err != nil {
		return err
	}
	// The cold requests' apps: one distinct app per request and Worker (e0…, s0…, p0…), each
	// with its own valid record, so that every cold request resolves through KV.
	cold := map[string]string{}
	for _, prefix := range []string{"e", "s", "p"} {
		for i := 0; i < n; i++ {
			app := prefix + strconv.Itoa(i)
			b, _, err := route.EncodeRecord(route.Record{App: app, Status: route.StatusActive, Kind: route.KindDynamic,
				Dynamic: &route.Dynamic{Origin: "tunnel.kamui.test", Upstream: "tenant-" + app + "/web:8080", TimeoutMS: 10000}})
			if err != nil {
				return err
			}
			cold[app] = string(b)
		}
	}
	coldJSON, err := json.Marshal(cold)
	if err != nil {
		return err
	}
	files := map[string][]byte{"worker.mjs": shim, "driver.mjs": driver, "record.json": rec, "cold.json": coldJSON}
	for _, name := range []string{"js-seed.mjs", "passthrough.mjs", "deliver.mjs"} {
		b, err := os.ReadFile(filepath.Join(root, "internal", "workertest", "testdata", name))
		if err != nil {
			return err
		}
		files[name] = b
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	cmd := exec.Command("node", filepath.Join(dir, "driver.mjs"), dir, fmt.Sprint(n))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("node driver: %w", err)
	}
	var edgeUS, seedUS, jsUS, coldEdgeUS, coldSeedUS, coldJSUS float64
	if _, err := fmt.Sscan(string(out), &edgeUS, &seedUS, &jsUS, &coldEdgeUS, &coldSeedUS, &coldJSUS); err != nil || jsUS <= 0 || seedUS <= 0 || coldSeedUS <= 0 {
		return fmt.Errorf("unexpected driver output %q", out)
	}
	fmt.Printf("bench-edge-cpu: warm dynamic request, %d per Worker, in-memory bindings, 10 alternating blocks each; machine load (1-minute average) %s on %d CPUs\n", n, loadAverage(), runtime.NumCPU())
	fmt.Printf("bench-edge-cpu: cold dynamic request (a new app each time: content and route-cache misses, a KV read, a route-cache put): edge_us=%.1f seed_us=%.1f js_us=%.1f cold_cpu_vs_seed=%.2f\n", coldEdgeUS, coldSeedUS, coldJSUS, coldEdgeUS/coldSeedUS)
	fmt.Printf("bench-edge-cpu: edge_us=%.1f seed_us=%.1f js_us=%.1f cold_cpu_vs_seed=%.2f cpu_vs_js=%.2f cpu_vs_seed=%.2f\n", edgeUS, seedUS, jsUS, coldEdgeUS/coldSeedUS, edgeUS/jsUS, edgeUS/seedUS)
	return nil
}

// loadAverage is the 1-minute load average from /proc/loadavg, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}
