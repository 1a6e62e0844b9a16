// Command bench-edge-cpu measures the edge Worker's own CPU cost per warm request against
// js-seed (the seed design in plain JavaScript) and the JS pass-through, in one Node process
// with in-memory bindings (see driver.mjs): a warm request of a dynamic app (the edge's
// memoized, js-seed's answered by its route cache), forwarded to an upstream that answers at
// once. bench-edge measures latency through workerd, where runtime I/O dominates and
// varies with the machine's load; this isolates what the Worker's code costs, the part a
// change to the Go core or the shim moves. The last line is machine-readable:
//
//	bench-edge-cpu: edge_us=<µs/request> seed_us=<µs/request> js_us=<µs/request> cold_cpu_vs_seed=<ratio> warmup_cpu_vs_seed=<ratio> static_cpu_vs_seed=<ratio> cold_static_cpu_vs_seed=<ratio> cpu_vs_js=<ratio> cpu_vs_seed=<ratio>
//
// It also measures a cold request of each Worker (a new app every time, so every cache
// misses and the record is read from KV and validated): what a change to the Worker's cold
// path (decoding, the adapter's calls into Go) moves.
//
// And a static site's GET that misses the content cache (the route and the manifest already
// in memory, the object read from the bucket), for the edge and js-seed, the two Workers that
// serve sites; and the same GET of a site the Worker has never seen (a new site each time:
// the record from KV, the manifest and the object from the bucket), the path that makes most
// of bench-edge's slowest requests. With more sites than the manifest memos hold, it also
// pays for their eviction, as an isolate serving thousands of sites does.
//
// With -io-yield every binding read, cache lookup and upstream fetch is answered on a later
// turn of Node's event loop (setImmediate) instead of at once. That is how workerd answers
// runtime I/O, and it changes what the Go core costs: each call into it then follows a wait,
// with the engine's and the processor's state of other work in between, as in bench-edge.
// Entered cold like that, the Go Wasm's passes cost far more than the same passes run back to
// back, and more so than the JS Workers' code (docs/PERFORMANCE.md, "Entered after a wait"):
// the mode in which a change to the number or weight of those passes shows.
//
// With -compare DIR, another build of the edge (scripts/build-worker.sh DIR) runs beside this
// one in every alternation, and a line gives its times against this build's: an A/B of a
// change to the Go core or the shim in seconds, steadier than bench-edge's rounds (a build
// against itself measured 0.96-1.05: repeat a run before trusting a few per cent). A second
// Go instance in the process slows the others too, so only that line compares; the ratios
// against js-seed of such a run are not those of a run without -compare.
//
// And it times each Worker's first 500 warm requests on their own (warm-up): the engine runs
// a new isolate's code unoptimised at first and compiles hot functions again as they run,
// and the Go Wasm, with thousands of functions tiered up one by one, takes far longer to get
// there than the JS Workers. That is what a fresh isolate's first minutes cost.
package main

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
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
	compare := flag.String("compare", "", "also run another build of the edge Worker from DIR (scripts/build-worker.sh DIR) in the same alternation, and print its times against this build's")
	ioYield := flag.Bool("io-yield", false, "answer every binding read, cache lookup and upstream fetch on a later turn of the event loop, as runtime I/O is answered in workerd, rather than at once: each call into the Go core then follows a wait, as there")
	flag.Parse()
	if err := run(*n, *compare, *ioYield); err != nil {
		fmt.Fprintln(os.Stderr, "bench-edge-cpu:", err)
		os.Exit(1)
	}
}

func run(n int, compareDir string, ioYield bool) error {
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
	shim, err := nodeShim(dir)
	if err != nil {
		return err
	}
	// The other build, for -compare, in a directory of its own: its own module instance
	// and Go instance in the same process.
	if compareDir != "" {
		other := filepath.Join(dir, "compare")
		if err := os.Mkdir(other, 0o755); err != nil {
			return err
		}
		for _, name := range []string{"edge.wasm", "wasm_exec.js", "worker.mjs"} {
			b, err := os.ReadFile(filepath.Join(compareDir, name))
			if err != nil {
				return fmt.Errorf("-compare: %w (build it with scripts/build-worker.sh DIR)", err)
			}
			if err := os.WriteFile(filepath.Join(other, name), b, 0o644); err != nil {
				return err
			}
		}
		otherShim, err := nodeShim(other)
		if err != nil {
			return fmt.Errorf("-compare: %w", err)
		}
		if err := os.WriteFile(filepath.Join(other, "worker.mjs"), otherShim, 0o644); err != nil {
			return err
		}
	}
	rec, _, err := route.EncodeRecord(route.Record{App: "shop", Status: route.StatusActive, Kind: route.KindDynamic,
		Dynamic: &route.Dynamic{Origin: "tunnel.kamui.test", Upstream: "tenant-shop/web:8080", TimeoutMS: 10000}})
	if err != nil {
		return err
	}
	// The cold requests' apps: one distinct app per request and Worker (e0…, s0…, p0…), each
	// with its own valid record, so that every cold request resolves through KV.
	cold := map[string]string{}
	// With -compare, the other build has series of its own (b…, sb…): the Workers share the
	// driver's cache, and another's route-cache entries would make its requests warm.
	coldPrefixes, sitePrefixes := []string{"e", "s", "p"}, []string{"se", "ss"}
	if compareDir != "" {
		coldPrefixes, sitePrefixes = append(coldPrefixes, "b"), append(sitePrefixes, "sb")
	}
	for _, prefix := range coldPrefixes {
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
	siteJSON, err := staticSite()
	if err != nil {
		return err
	}
	// The cold site GETs' sites: one per request and Worker (se0…, ss0…), as for the cold
	// dynamic requests.
	sites := map[string]site{}
	for _, prefix := range sitePrefixes {
		for i := 0; i < n; i++ {
			app := prefix + strconv.Itoa(i)
			if sites[app], err = newSite(app); err != nil {
				return err
			}
		}
	}
	sitesJSON, err := json.Marshal(sites)
	if err != nil {
		return err
	}
	files := map[string][]byte{"worker.mjs": shim, "driver.mjs": driver, "record.json": rec, "cold.json": coldJSON, "site.json": siteJSON,
		"sites.json": sitesJSON}
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
	compareArg := ""
	if compareDir != "" {
		compareArg = filepath.Join(dir, "compare")
	}
	cmd := exec.Command("node", filepath.Join(dir, "driver.mjs"), dir, fmt.Sprint(n), compareArg)
	cmd.Stderr = os.Stderr
	if ioYield {
		cmd.Env = append(os.Environ(), "BENCH_IO_YIELD=1")
	}
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("node driver: %w", err)
	}
	lines := strings.SplitN(strings.TrimSpace(string(out)), "\n", 2)
	var edgeUS, seedUS, jsUS, coldEdgeUS, coldSeedUS, coldJSUS, warmupEdgeUS, warmupSeedUS, warmupJSUS, staticEdgeUS, staticSeedUS,
		coldSiteEdgeUS, coldSiteSeedUS float64
	if _, err := fmt.Sscan(lines[0], &edgeUS, &seedUS, &jsUS, &coldEdgeUS, &coldSeedUS, &coldJSUS, &warmupEdgeUS, &warmupSeedUS, &warmupJSUS,
		&staticEdgeUS, &staticSeedUS, &coldSiteEdgeUS, &coldSiteSeedUS); err != nil || jsUS <= 0 || seedUS <= 0 || coldSeedUS <= 0 ||
		warmupSeedUS <= 0 || staticSeedUS <= 0 || coldSiteSeedUS <= 0 {
		return fmt.Errorf("unexpected driver output %q", out)
	}
	// The other build's warm, cold, static and new-site times, on a line of their own.
	var other [4]float64
	if compareDir != "" {
		if len(lines) < 2 {
			return fmt.Errorf("unexpected driver output %q: no line for -compare", out)
		}
		if _, err := fmt.Sscan(lines[1], &other[0], &other[1], &other[2], &other[3]); err != nil {
			return fmt.Errorf("unexpected driver output %q: %w", out, err)
		}
	}
	bindings := "in-memory bindings"
	if ioYield {
		bindings += " answering on the event loop's next turn (-io-yield)"
	}
	fmt.Printf("bench-edge-cpu: warm dynamic request, %d per Worker, %s, 10 alternating blocks each; machine load (1-minute average) %s on %d CPUs\n", n, bindings, workertest.LoadAverage(), runtime.NumCPU())
	fmt.Printf("bench-edge-cpu: cold dynamic request (a new app each time: content and route-cache misses, a KV read, a route-cache put): edge_us=%.1f seed_us=%.1f js_us=%.1f cold_cpu_vs_seed=%.2f\n", coldEdgeUS, coldSeedUS, coldJSUS, coldEdgeUS/coldSeedUS)
	fmt.Printf("bench-edge-cpu: warm-up (each Worker's first 500 warm requests after its first): edge_us=%.1f seed_us=%.1f js_us=%.1f warmup_cpu_vs_seed=%.2f\n", warmupEdgeUS, warmupSeedUS, warmupJSUS, warmupEdgeUS/warmupSeedUS)
	fmt.Printf("bench-edge-cpu: static site GET (content miss, route and manifest in memory, the object read from the bucket): edge_us=%.1f seed_us=%.1f static_cpu_vs_seed=%.2f\n", staticEdgeUS, staticSeedUS, staticEdgeUS/staticSeedUS)
	fmt.Printf("bench-edge-cpu: cold static site GET (a new site each time: content and route-cache misses, the record from KV, the manifest and the object from the bucket): edge_us=%.1f seed_us=%.1f cold_static_cpu_vs_seed=%.2f\n", coldSiteEdgeUS, coldSiteSeedUS, coldSiteEdgeUS/coldSiteSeedUS)
	if compareDir != "" {
		fmt.Printf("bench-edge-cpu: -compare %s against this build (µs, and the ratio other/this): warm %.1f (%.3f) cold %.1f (%.3f) static %.1f (%.3f) cold static %.1f (%.3f)\n",
			compareDir, other[0], other[0]/edgeUS, other[1], other[1]/coldEdgeUS, other[2], other[2]/staticEdgeUS, other[3], other[3]/coldSiteEdgeUS)
	}
	fmt.Printf("bench-edge-cpu: edge_us=%.1f seed_us=%.1f js_us=%.1f cold_cpu_vs_seed=%.2f warmup_cpu_vs_seed=%.2f static_cpu_vs_seed=%.2f cold_static_cpu_vs_seed=%.2f cpu_vs_js=%.2f cpu_vs_seed=%.2f\n", edgeUS, seedUS, jsUS, coldEdgeUS/coldSeedUS, warmupEdgeUS/warmupSeedUS, staticEdgeUS/staticSeedUS, coldSiteEdgeUS/coldSiteSeedUS, edgeUS/jsUS, edgeUS/seedUS)
	return nil
}

// nodeShim is dir's worker.mjs as Node imports it: workerd imports edge.wasm as a compiled
// module, Node cannot, so the copy the driver imports reads the file instead. Nothing else
// in worker.mjs changes.
func nodeShim(dir string) ([]byte, error) {
	shim, err := os.ReadFile(filepath.Join(dir, "worker.mjs"))
	if err != nil {
		return nil, err
	}
	const wasmImport = `import compiled from "./edge.wasm";`
	if !strings.Contains(string(shim), wasmImport) {
		return nil, fmt.Errorf("worker.mjs no longer has the line %q this benchmark rewrites", wasmImport)
	}
	return []byte(strings.Replace(string(shim), wasmImport, `import { readFileSync } from "node:fs";
const compiled = new WebAssembly.Module(readFileSync(new URL("./edge.wasm", import.meta.url)));`, 1)), nil
}

// site is one content-addressed static app as the driver serves it: its record, its
// manifest's key and text, and the object its index names, by key and text.
type site struct {
	Record      string `json:"record"`
	ManifestKey string `json:"manifestKey"`
	Manifest    string `json:"manifest"`
	ObjectKey   string `json:"objectKey"`
	Body        string `json:"body"`
}

// newSite is app's site of four pages (its index among them), each its own object, the
// shape of a small site in bench-edge's trace.
func newSite(app string) (site, error) {
	pages := map[string]string{}
	for i, name := range []string{"index.html", "about.html", "app.css", "app.js"} {
		pages[name] = "<!doctype html><title>" + app + "</title><p>page " + strconv.Itoa(i) + "</p>\n"
	}
	return siteOf(app, pages)
}

// staticSite is the static app "docs" the driver serves, as site.json: a content-addressed
// site of two paths sharing one object, its valid record, its manifest and the object.
func staticSite() ([]byte, error) {
	const body = "<!doctype html><title>docs</title><p>bench page</p>\n"
	s, err := siteOf("docs", map[string]string{"index.html": body, "a.html": body})
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// siteOf is app's content-addressed site of pages (path → body, index.html among them) in
// the layout kamuidash_static_site writes: each body an object named by its hash, the
// version's manifest, and the record naming it.
func siteOf(app string, pages map[string]string) (site, error) {
	prefix := "sites/" + app + "/"
	files := map[string]route.SiteFile{}
	var s site
	for name, body := range pages {
		sum := sha256.Sum256([]byte(body))
		object := hex.EncodeToString(sum[:])
		files[name] = route.SiteFile{Object: object, Type: "text/html; charset=utf-8", Size: int64(len(body))}
		if name == "index.html" {
			s.ObjectKey, s.Body = route.SiteObjectKey(prefix, object), body
		}
	}
	manifest, err := route.EncodeSiteManifest(route.SiteManifest{Files: files})
	if err != nil {
		return site{}, err
	}
	s.Manifest, s.ManifestKey = string(manifest), route.SiteManifestKey(prefix, "v1")
	rec, _, err := route.EncodeRecord(route.Record{App: app, Status: route.StatusActive, Kind: route.KindStatic,
		Static: &route.Static{Prefix: prefix, Index: "index.html", Manifest: s.ManifestKey}})
	s.Record = string(rec)
	return s, err
}
