// Command bench-edge replays one generated traffic mix through workerd for the edge Worker,
// js-seed (the seed design of the request path, docs/ARCHITECTURE.md, in plain JavaScript:
// the yardstick), a one-KV-read JS pass-through (the limit) and a no-cache baseline, in alternating rounds, then a flood of
// distinct random platform labels. It prints, per Worker: KV reads per 1,000 requests (against
// the floor, and the known floor that leaves the unknown hosts out), Cache API lookups and
// puts and R2 reads per 1,000, p50/p99 latency (the median over the rounds, with the spread),
// and per kind of request the sequential I/O rounds before the response starts, the KV reads
// and the p50, from each Worker's own log line; and each Worker's cold start, its first
// request to a fresh isolate against the second. The last line is machine-readable:
//
//	bench-edge: kv_reads_vs_floor=<ratio> kv_reads_vs_known_floor=<ratio> flood_kv_reads=<n>
//	flood_fp_bound=<n> latency_p50_vs_seed=<ratio> latency_p99_vs_seed=<ratio>
//	latency_p50_vs_js=<ratio> gzip_bytes=<n>
//
// (one line). The trace is open-loop: within a round, request i is sent at its own offset from
// the round's start, so cache lifetimes (derived from the freshness budget) expire during the
// run as they would in production. Rounds alternate the Workers, one at a time, always in the
// same order: each sees the same machine moments, and none competes with another for the
// CPUs. A Worker idles while the others take their turns, so its caches age across those
// gaps, and the fixed order makes them the same for every Worker before every slice (one
// turn of each other Worker), so all of them meet the same slices with caches of the same
// age: the same paths taken, as far as their designs allow. Its floors are computed from the
// times its own requests were sent.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/workertest"
)

const platform = "kamui.test"

var only, dumpLogs, logSample, compareDir, profileDir string
var byKind bool

// ioDelay is the modelled network round trip of every binding call (-io-delay).
var ioDelay time.Duration

// byPosition is how many of each turn's first requests the -by-position diagnostic sets apart.
var byPosition int

// settle is the pause before each Worker's turn (-settle).
var settle time.Duration

// warmUpN is the number of requests of the mixed warm-up (-warm-up).
var warmUpN int

// mix is the trace's mix of requests: the default one, or a diagnostic one that isolates a
// path (-mix).
var mix string

var mixes = map[string]string{
	"default":     "30% static GET, 60% dynamic, 5% unknown hosts, 5% static HEAD",
	"static":      "static GETs only, of the default mix's apps and paths (diagnostic)",
	"content-hit": "GETs of one static path only: content-cache hits after the first (diagnostic)",
}

type request struct {
	at     time.Duration // scheduled send time from the start of its round (or flood)
	method string
	host   string
	path   string
	// floor bookkeeping
	reads    int  // KV reads a resolution of this host costs
	negative bool // the host resolves to a confirmed absence
	warmup   bool
	// kind is static-get | static-head | dynamic, then "/" and the host's class: platform,
	// custom-shared (a custom host of an app the trace also reaches by its platform host),
	// custom; or unknown-label (a random label under the platform domain), unknown-unmapped
	// (a registered custom hostname with no mapping), flood.
	kind string
}

func (q request) unknown() bool { return strings.HasPrefix(q.kind, "unknown") || q.kind == "flood" }

// benchWorker is one Worker the trace is replayed through.
type benchWorker struct {
	name string
	cfg  workertest.HostConfig
}

type fixture struct {
	kv map[string]map[string]string
	r2 map[string]map[string]workertest.Object
}

func main() {
	n := flag.Int("n", 3000, "requests in the trace (over all rounds)")
	rate := flag.Float64("rate", 40, "requests per second (open loop) while a Worker takes its turn")
	rounds := flag.Int("rounds", 12, "rounds: the trace is cut into this many slices, each replayed through every Worker in turn")
	flood := flag.Int("flood", 1000, "distinct random platform labels in the flood scenario (0: none)")
	floodRate := flag.Float64("flood-rate", 200, "requests per second of the flood")
	apps := flag.Int("apps", 500, "applications")
	budget := flag.Int("budget", int(route.DefaultFreshnessBudget/time.Second), "FRESHNESS_BUDGET_SECONDS of the Workers")
	conc := flag.Int("concurrency", 32, "maximum requests in flight")
	seed := flag.Int64("seed", 1, "trace seed")
	flag.StringVar(&logSample, "log-sample", "1", "LOG_SAMPLE_RATE of the Workers (the per-kind counts need 1)")
	flag.StringVar(&only, "only", "", "run only these Workers, comma-separated (edge, js-seed, js-passthrough, baseline, js-pass+cache, edge-compare); for debugging, or with edge and js-seed to read the latency goal alone over a longer trace (-n)")
	flag.StringVar(&compareDir, "compare", "", "also replay other builds of the edge Worker from these directories, comma-separated (scripts/build-worker.sh DIR), as edge-compare, edge-compare-2, …, to A/B changes under the same load")
	flag.StringVar(&dumpLogs, "dump-logs", "", "write the edge Worker's log lines to this file")
	flag.StringVar(&profileDir, "profile", "", "write a CPU profile of each Worker's isolate (V8's sampling profiler, 100 µs) to DIR/<worker>.cpuprofile; diagnostic, it slows every Worker alike")
	flag.StringVar(&mix, "mix", "default", "the trace's requests: default, static (static GETs only) or content-hit (one static path only); the last two isolate a path for A/B runs (diagnostic)")
	flag.DurationVar(&settle, "settle", time.Second, "pause before each Worker's turn: without it, of two identical builds the one whose turn follows the other's measured slower (docs/PERFORMANCE.md); a turn's first requests are slower either way, from the Worker's own idle gap (-by-position)")
	flag.DurationVar(&ioDelay, "io-delay", 0, "make every KV read, R2 read and Cache API lookup of every Worker wait this long before it is made, as a network round trip would (calls side by side wait side by side); in the local runtime they are calls on the same machine (diagnostic: the goals are read without it)")
	flag.IntVar(&warmUpN, "warm-up", 0, "also warm every Worker up with this many requests of the trace's mix over other apps, at its rate, before the measured rounds, so that its code for every path has been compiled and its hot code optimized (diagnostic: the goal's run warms up with the 50 requests of one path that instantiate the isolate, as every run before session 45 did)")
	flag.IntVar(&byPosition, "by-position", 0, "also print each Worker's latency over the first N requests of each turn against the rest of the turn, to see whether the Worker before it is still at work when a turn starts (diagnostic; 0: off)")
	flag.BoolVar(&byKind, "by-kind", false, "also print the edge's and js-seed's latency per path taken through them (diagnostic)")
	flag.Parse()
	if _, ok := mixes[mix]; !ok {
		fmt.Fprintf(os.Stderr, "bench-edge: -mix %q: want default, static or content-hit\n", mix)
		os.Exit(2)
	}
	if profileDir != "" {
		if err := os.MkdirAll(profileDir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "bench-edge: -profile:", err)
			os.Exit(1)
		}
	}
	if err := run(*n, *rate, *rounds, *flood, *floodRate, *apps, *budget, *conc, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "bench-edge:", err)
		os.Exit(1)
	}
}

// workerNames are the Workers of a default run, in the order they are reported.
var workerNames = []string{"edge", "js-seed", "js-passthrough", "baseline"}

func run(n int, rate float64, rounds, flood int, floodRate float64, apps, budget, conc int, seed int64) error {
	loadStart := workertest.LoadAverage()
	root, err := workertest.RepoRoot()
	if err != nil {
		return err
	}
	if err := workertest.CheckNodeModules(root); err != nil {
		return err
	}
	ttls, err := route.DeriveTTLs(time.Duration(budget) * time.Second)
	if err != nil {
		return err
	}
	if rounds < 1 || n < rounds {
		return fmt.Errorf("-rounds %d: want 1..n", rounds)
	}
	out, err := os.MkdirTemp("", "bench-edge-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(out) }() // a temporary build: a leftover only takes space
	buildOut, err := workertest.BuildWorker(root, out)
	if err != nil {
		return err
	}
	// The size line of scripts/build-worker.sh (gzip -9 -n), so make worker and the bench agree.
	gzipBytes := 0
	if i := strings.Index(buildOut, "gzip_bytes="); i >= 0 {
		gzipBytes, _ = strconv.Atoi(strings.TrimSpace(strings.SplitN(buildOut[i+len("gzip_bytes="):], "\n", 2)[0]))
	}
	wasm, err := os.ReadFile(filepath.Join(out, "edge.wasm"))
	if err != nil {
		return err
	}

	origin, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer func() { _ = origin.Close() }() // ends the Serve below, which says only that
	go func() {
		_ = http.Serve(origin, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The Workers' replies are what the bench counts; a failed exchange shows there.
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"ok":true}`))
		}))
	}()

	fx := makeFixture(apps, warmUpN > 0)
	trace := makeTrace(n, rate, apps, seed, 0)
	// The mixed warm-up: the same mix over other apps (the measured trace's caches stay cold),
	// without the first warm-up's 50 requests, which the trace leads with already.
	mixedWarmUp := makeTrace(warmUpN, rate, apps, seed+2, warmUpApps(apps))[50:]
	for k := range mixedWarmUp {
		mixedWarmUp[k].warmup = true
	}
	floodTrace := makeFlood(flood, floodRate, seed)
	fmt.Printf("bench-edge: trace n=%d rate=%.0f/s in %d rounds apps=%d (Zipf), %s (unknown hosts: %d%% random platform labels, the rest %d registered but unmapped custom hostnames); flood of %d distinct labels at %.0f/s\n",
		n, rate, rounds, apps, mixes[mix], 100-unmappedPercent, unmappedHosts, flood, floodRate)
	fmt.Printf("bench-edge: budget=%ds memo=%v route_cache=%v negative=%v kv_cacheTtl=%v/%v\n",
		budget, ttls.Memo, ttls.RouteCache, ttls.Negative, ttls.DomainsKV, ttls.RoutesKV)
	if ioDelay > 0 {
		fmt.Printf("bench-edge: modelled I/O (diagnostic): every KV read, R2 read and Cache API lookup waits %v before it is made; the goals below are not read in such a run\n", ioDelay)
	}

	bindings := map[string]string{
		"PLATFORM_DOMAIN":          platform,
		"FRESHNESS_BUDGET_SECONDS": strconv.Itoa(budget),
		"UPSTREAM_TIMEOUT_MS":      "30000",
		"LOG_SAMPLE_RATE":          logSample,
		"SIGNING_SECRET":           "bench-signing-secret-0123456789abcdef",
		"CACHE_MARKER":             "bench-marker-0123456789abcdef",
	}
	origins := map[string]string{"tunnel.kamui.test": "http://" + origin.Addr().String()}
	testdata := filepath.Join(root, "internal", "workertest", "testdata")
	jsWorker := func(paths ...string) workertest.HostConfig {
		c := workertest.HostConfig{ModulesRoot: testdata}
		for _, p := range paths {
			c.Modules = append(c.Modules, workertest.Module{Type: "ESModule", Path: p})
		}
		return c
	}
	workers := []benchWorker{
		{"edge", workertest.HostConfig{ModulesRoot: out, Modules: workertest.EdgeModules()}},
		{"js-seed", jsWorker("js-seed.mjs")},
		{"js-passthrough", jsWorker("passthrough.mjs", "deliver.mjs")},
		{"baseline", jsWorker("baseline.mjs", "deliver.mjs")},
		{"js-pass+cache", jsWorker("passthrough-cache.mjs", "passthrough.mjs", "deliver.mjs")},
	}
	var compared []string
	if compareDir != "" {
		for i, dir := range strings.Split(compareDir, ",") {
			name := "edge-compare"
			if i > 0 {
				name += "-" + strconv.Itoa(i+1)
			}
			compared = append(compared, name)
			workers = append(workers, benchWorker{name, workertest.HostConfig{ModulesRoot: dir, Modules: workertest.EdgeModules()}})
		}
	}
	var picked []benchWorker
	for _, w := range workers {
		wanted := slices.Contains(workerNames, w.name) || slices.Contains(compared, w.name)
		if only != "" {
			wanted = slices.Contains(strings.Split(only, ","), w.name)
		}
		if wanted {
			picked = append(picked, w)
		}
	}
	// Each namespace's name filter, as the provider publishes it (route.FilterKey): the edge
	// refuses a host it rules out without a per-host read. The JS Workers never read it.
	filters := map[string]map[string][]byte{}
	for ns, keys := range fx.kv {
		filters[ns] = map[string][]byte{route.FilterKey: route.BuildFilter(slices.Collect(maps.Keys(keys)))}
	}
	routesFilter, err := route.DecodeFilter(filters["ROUTES"][route.FilterKey])
	if err != nil {
		return fmt.Errorf("the ROUTES name filter: %w", err)
	}
	hosts := map[string]*workertest.Host{}
	started := map[string]time.Duration{}
	for _, w := range picked {
		cfg := w.cfg
		cfg.Bindings, cfg.KV, cfg.R2, cfg.Origins, cfg.CountKV = bindings, fx.kv, fx.r2, origins, true
		cfg.KVBytes = filters
		cfg.IODelayMS = int(ioDelay / time.Millisecond)
		// Every Worker runs under the edge's date and flags, so that none has a runtime of its own.
		cfg.CompatibilityDate, cfg.CompatibilityFlags = route.WorkerCompatibilityDate, route.WorkerCompatibilityFlags()
		if profileDir != "" {
			cfg.Profile = filepath.Join(profileDir, w.name+".cpuprofile")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		t0 := time.Now()
		h, err := workertest.StartHost(ctx, root, cfg)
		started[w.name] = time.Since(t0)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
		defer h.Close()
		hosts[w.name] = h
	}
	// Cold start: the first request to each fresh isolate (the edge instantiates its Wasm and
	// starts the Go runtime in it) against the second, to a dynamic app's host. The host's
	// start (Node, workerd, the modules compiled) is printed beside it.
	coldReq := request{host: appName(1) + "." + platform, path: "/", method: "GET", kind: "cold-start"}
	for _, w := range picked {
		var first, second time.Duration
		for i, d := range []*time.Duration{&first, &second} {
			s, err := replay(hosts[w.name], []request{coldReq}, 1, 0)
			if err != nil || s.errors > 0 {
				return fmt.Errorf("%s cold start, request %d: %v %s", w.name, i+1, err, firstErrOf(s))
			}
			*d = s.lat[0]
		}
		fmt.Printf("bench-edge: %-14s cold start: first request %.2fms, second %.2fms (host started in %.0fms)\n", w.name, ms(first), ms(second), ms(started[w.name]))
	}

	results := map[string]*workerResult{}
	var warm []request
	for _, q := range trace {
		if q.warmup {
			warm = append(warm, q)
		}
	}
	warmed := len(warm) + len(mixedWarmUp)
	for _, w := range picked {
		results[w.name] = &workerResult{}
		if _, err := replay(hosts[w.name], warm, conc, 0); err != nil {
			return fmt.Errorf("%s warm-up: %w", w.name, err)
		}
	}
	// With -warm-up, every Worker then meets the whole mix before it is measured, each in its
	// turn: V8 compiles a function on its first call and optimizes the hot ones on background
	// threads meanwhile, so a warm-up of one path leaves the other paths' code to be compiled
	// in the first measured rounds, and the edge's Wasm has far more code than js-seed's
	// script (session 45: the edge's V8 background threads ran 0.54 ms a request in round 1,
	// 0.08 in round 6, js-seed's 0.13 and 0.06). Session 45's run with it (600 requests)
	// put the p99 no nearer the goal, so the goal's run stays as it was, comparable with
	// every run before; the cold start is measured on its own, above.
	if len(mixedWarmUp) > 0 {
		for _, w := range picked {
			if _, err := replay(hosts[w.name], mixedWarmUp, conc, 0); err != nil {
				return fmt.Errorf("%s mixed warm-up: %w", w.name, err)
			}
		}
	}
	measured := trace[slices.IndexFunc(trace, func(q request) bool { return !q.warmup }):]
	runStart := time.Now()
	for k := 0; k < rounds; k++ {
		slice := measured[k*len(measured)/rounds : (k+1)*len(measured)/rounds]
		// The same order every round. An order that rotated (as it once did) gave each Worker
		// the same idle gaps over a run but after different slices: of two identical builds,
		// the one reported first met 9 % more cold static GETs than the one reported third
		// (three Workers), and read 8 % more KV, in every run, since the trace is the same.
		// The pause before a turn: without it, two identical builds measured the one whose
		// turn follows the other's slower in two A/A runs of two; with it, in neither
		// (docs/PERFORMANCE.md, "The bench's own biases"; -by-position shows it is not the
		// turn's first requests).
		for _, w := range picked {
			time.Sleep(settle)
			s, err := replay(hosts[w.name], slice, conc, time.Since(runStart))
			if err != nil {
				return fmt.Errorf("%s round %d: %w", w.name, k+1, err)
			}
			results[w.name].add(s)
		}
	}
	if len(floodTrace) > 0 {
		for _, w := range picked {
			time.Sleep(settle)
			s, err := replay(hosts[w.name], floodTrace, conc, time.Since(runStart))
			if err != nil {
				return fmt.Errorf("%s flood: %w", w.name, err)
			}
			results[w.name].flood = s
		}
	}
	if dumpLogs != "" {
		if h := hosts["edge"]; h != nil {
			if err := os.WriteFile(dumpLogs, []byte(strings.Join(h.Logs(), "\n")+"\n"+h.Stderr()), 0o644); err != nil {
				fmt.Fprintf(os.Stderr, "bench-edge: -dump-logs: %v\n", err)
			}
		}
	}

	// Per Worker.
	for _, w := range picked {
		r := results[w.name]
		floor := floorReads(r.reqs, r.sentAt, ttls, false)
		known := floorReads(r.reqs, r.sentAt, ttls, true)
		r.floor, r.knownFloor = floor, known
		p50, p50lo, p50hi := r.roundStat(50)
		p99, p99lo, p99hi := r.roundStat(99)
		fmt.Printf("bench-edge: %-14s per 1000: kv_reads=%.1f (log sum %d of %d) cache_lookups=%.1f cache_puts=%.1f r2_reads=%.1f | kv/floor=%.3f kv/known_floor=%.3f | p50=%.2fms [%.2f..%.2f] p99=%.2fms [%.2f..%.2f] (median [spread] over %d rounds) statuses=%v client_errors=%d %s\n",
			w.name, per1000(r.stats.Reads, len(r.reqs)), r.logKV, r.stats.Reads, per1000(r.stats.CacheMatches, len(r.reqs)), per1000(r.stats.CachePuts, len(r.reqs)),
			per1000(r.stats.R2Reads, len(r.reqs)), ratio(r.stats.Reads, floor), ratio(r.stats.Reads, known),
			ms(p50), ms(p50lo), ms(p50hi), ms(p99), ms(p99lo), ms(p99hi), len(r.rounds), r.statuses, r.errors, r.firstErr)
		if r.logKV != r.stats.Reads && r.logLines > 0 {
			fmt.Printf("bench-edge: WARNING: %s log kv_reads sum %d != runtime wrapper count %d\n", w.name, r.logKV, r.stats.Reads)
		}
		if r.flood != nil {
			f := r.flood
			fmt.Printf("bench-edge: %-14s flood of %d distinct labels: kv_reads=%d cache_lookups=%d p50=%.2fms p99=%.2fms statuses=%v\n",
				w.name, len(floodTrace), f.stats.Reads, f.stats.CacheMatches, ms(pct(f.lat, 50)), ms(pct(f.lat, 99)), f.statuses)
		}
	}
	printCPU(picked, results)
	printKinds(picked, results)
	if byPosition > 0 {
		printPositions(picked, results, byPosition)
	}
	if byKind {
		for _, name := range append([]string{"edge", "js-seed"}, compared...) {
			if r := results[name]; r != nil {
				fmt.Print(r.paths(name))
			}
		}
	}
	for _, name := range compared {
		if c, e := results[name], results["edge"]; c != nil && e != nil {
			p50, lo, hi := roundRatio(e, c, 50)
			p99, _, _ := roundRatio(e, c, 99)
			fmt.Printf("bench-edge: edge vs %s p50=%.3f [%.3f..%.3f] p99=%.3f kv_reads=%d/%d\n", name, p50, lo, hi, p99, e.stats.Reads, c.stats.Reads)
			// An A/B difference smaller than these intervals is not one this run can tell.
			fmt.Printf("bench-edge: edge vs %s, %s\n", name, intervalLine(e, c, 1.0))
		}
	}
	if profileDir != "" {
		// The profiles are written as the hosts close; the deferred Close calls then find
		// them closed already.
		for _, w := range picked {
			hosts[w.name].Close()
			requests := 2 + warmed + len(results[w.name].reqs) // cold start, warm-up, rounds
			if results[w.name].flood != nil {
				requests += len(floodTrace)
			}
			if err := summarizeProfile(os.Stdout, w.name, filepath.Join(profileDir, w.name+".cpuprofile"), requests, 25); err != nil {
				fmt.Fprintf(os.Stderr, "bench-edge: -profile: %v\n", err)
			}
		}
	}
	e, sd, js := results["edge"], results["js-seed"], results["js-passthrough"]
	if e == nil || sd == nil {
		return nil // a partial run (-only) without the two has no goals to print
	}
	s50, s50lo, s50hi := roundRatio(e, sd, 50)
	s99, s99lo, s99hi := roundRatio(e, sd, 99)
	goal := "goal"
	if ioDelay > 0 {
		goal = "with modelled I/O of " + ioDelay.String() + ", not the goal's run,"
	}
	fmt.Printf("bench-edge: "+goal+" edge/js-seed latency ≤ 1.0: p50 %.3f [%.3f..%.3f] p99 %.3f [%.3f..%.3f] (median [spread] of the per-round ratios)\n",
		s50, s50lo, s50hi, s99, s99lo, s99hi)
	fmt.Printf("bench-edge: how far those medians hold (diagnostic): %s\n", intervalLine(e, sd, 1.0))
	// In the order of the rounds: a trend (the first rounds above the rest, say) is a Worker
	// still warming up, not its steady latency.
	fmt.Printf("bench-edge: the per-round p99 ratios in round order (diagnostic): %s\n", formatRatios(roundRatios(e, sd, 99)))
	// A round's p99 is its few slowest requests, so one stall moves it; the whole run's
	// percentiles, beside the goal's per-round median, show how much a run's rounds disagree.
	e99, sd99 := pct(e.lat, 99), pct(sd.lat, 99)
	fmt.Printf("bench-edge: the same over the whole run's %d requests at once (diagnostic): p50 %.3f p99 %.3f (edge %.2fms, js-seed %.2fms)\n",
		len(e.lat), ratioOf(pct(e.lat, 50), pct(sd.lat, 50)), ratioOf(e99, sd99), ms(e99), ms(sd99))
	if js == nil {
		// Only edge and js-seed (-only edge,js-seed): the latency goal, without the floors and
		// the limit. With a longer trace (-n 12000: a round's p99 is then its tenth slowest
		// request, not its third) it is the way to read the p99 goal with narrower intervals.
		printLoad(loadStart)
		return nil
	}
	fmt.Printf("bench-edge: floor kv_reads=%d per_1000=%.1f, known floor (without the unknown hosts' reads) kv_reads=%d per_1000=%.1f (ideal shared cache holding each resolution memo+route_cache / memo+negative, on the edge's send times)\n",
		e.floor, per1000(e.floor, len(e.reqs)), e.knownFloor, per1000(e.knownFloor, len(e.reqs)))
	fmt.Printf("bench-edge: edge.wasm raw_bytes=%d gzip_bytes=%d\n", len(wasm), gzipBytes)
	j50, j50lo, j50hi := roundRatio(e, js, 50)
	floodReads := 0
	if e.flood != nil {
		floodReads = e.flood.stats.Reads
	}
	// In a flood of N distinct labels the filter lets its false-positive rate × N per-host
	// reads through: the bound is the seeded ROUTES filter's own rate.
	fpRate := routesFilter.FalsePositiveRate()
	fpBound := strconv.FormatFloat(fpRate*float64(len(floodTrace)), 'f', 1, 64)
	fmt.Printf("bench-edge: goal edge KV reads ≤ js-seed's: %d vs %d; ≤ 1.05 × known floor: %.3f; flood per-host reads %d ≤ %s (the filter's false-positive rate %.3f%% × %d)\n",
		e.stats.Reads, sd.stats.Reads, ratio(e.stats.Reads, e.knownFloor), floodReads, fpBound, fpRate*100, len(floodTrace))
	fmt.Printf("bench-edge: distance to the limit, edge/js-passthrough p50 %.3f [%.3f..%.3f] (moonshot ≤ 1.25)\n", j50, j50lo, j50hi)
	printLoad(loadStart)
	lastLine := "bench-edge: "
	if ioDelay > 0 {
		// Not the goals' run: a different prefix, so that nothing reads it as one.
		lastLine = "bench-edge (io-delay " + ioDelay.String() + "): "
	}
	fmt.Printf(lastLine+"kv_reads_vs_floor=%.3f kv_reads_vs_known_floor=%.3f flood_kv_reads=%d flood_fp_bound=%s latency_p50_vs_seed=%.3f latency_p99_vs_seed=%.3f latency_p50_vs_js=%.3f gzip_bytes=%d\n",
		ratio(e.stats.Reads, e.floor), ratio(e.stats.Reads, e.knownFloor), floodReads, fpBound, s50, s99, j50, gzipBytes)
	return nil
}

// printLoad prints the machine's load at the run's start and now. The latency ratios move with
// the machine's other work: under load the runtimes' queueing hides the Workers' differences,
// on a quiet machine their I/O shows.
func printLoad(atStart string) {
	fmt.Printf("bench-edge: machine load (1-minute average) %s at start, %s at the end, on %d CPUs\n",
		atStart, workertest.LoadAverage(), runtime.NumCPU())
}

func firstErrOf(s *sliceResult) string {
	if s == nil {
		return ""
	}
	return s.firstErr
}

func per1000(reads, n int) float64 { return float64(reads) * 1000 / float64(max(n, 1)) }
func ms(d time.Duration) float64   { return float64(d.Microseconds()) / 1000 }
func ratio(a, b int) float64       { return float64(a) / float64(max(b, 1)) }

func appName(i int) string { return "app" + strconv.Itoa(i) }

// Every third app is static, every second one has a custom domain www.<app>.example.
func isStatic(i int) bool     { return i%3 == 0 }
func hasCustom(i int) bool    { return i%2 == 0 }
func customHost(i int) string { return "www." + appName(i) + ".example" }

var staticPaths = []string{"/", "/app.js", "/style.css", "/img/logo.svg"}

// Unknown hosts are what reaches a Cloudflare for SaaS zone: random labels under the
// platform's wildcard, and (unmappedPercent of them) registered custom hostnames whose
// mapping is gone, a few names that recur.
const (
	unmappedPercent = 20
	unmappedHosts   = 8
)

func randomLabel(r *rand.Rand) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 12)
	for i := range b {
		b[i] = alphabet[r.Intn(len(alphabet))]
	}
	return string(b)
}

// makeFixture seeds apps applications and the warm-up app; with mixedWarmUp, the mixed
// warm-up's apps too (only then: every name seeded goes into the name filters, whose
// false-positive rate the flood's bound is).
func makeFixture(apps int, mixedWarmUp bool) fixture {
	fx := fixture{
		kv: map[string]map[string]string{"ROUTES": {}, "DOMAINS": {}},
		r2: map[string]map[string]workertest.Object{"STATIC": {}},
	}
	// app<apps> is the first warm-up's app, and the apps from warmUpApps(apps) on the mixed
	// warm-up's: all outside the measured trace.
	indices := make([]int, 0, 2*apps+1)
	for i := 0; i <= apps; i++ {
		indices = append(indices, i)
	}
	if mixedWarmUp {
		for i := range apps {
			indices = append(indices, warmUpApps(apps)+i)
		}
	}
	for _, i := range indices {
		app := appName(i)
		rec := route.Record{App: app, Status: route.StatusActive}
		if isStatic(i) && i != apps {
			// The content-addressed layout kamuidash_static_site writes: objects by hash, and
			// one manifest for the version the record names.
			prefix := "sites/" + app + "/"
			m := route.SiteManifest{Files: map[string]route.SiteFile{}}
			for _, p := range []string{"index.html", "app.js", "style.css", "img/logo.svg"} {
				body := strings.Repeat(app+" "+p+"\n", 20)
				sum := sha256.Sum256([]byte(body))
				obj := hex.EncodeToString(sum[:])
				fx.r2["STATIC"][route.SiteObjectKey(prefix, obj)] = workertest.Object{Text: body}
				m.Files[p] = route.SiteFile{Object: obj, Type: "text/plain", Size: int64(len(body))}
			}
			b, err := route.EncodeSiteManifest(m)
			if err != nil {
				panic(err)
			}
			manifest := route.SiteManifestKey(prefix, "v1")
			fx.r2["STATIC"][manifest] = workertest.Object{Text: string(b), ContentType: "application/json"}
			rec.Kind, rec.Static = route.KindStatic, &route.Static{Prefix: prefix, Index: "index.html", Manifest: manifest}
		} else {
			rec.Kind, rec.Dynamic = route.KindDynamic, &route.Dynamic{Origin: "tunnel.kamui.test", Upstream: "tenant-" + app + "/web:8080", TimeoutMS: 10000}
		}
		b, _, err := route.EncodeRecord(rec)
		if err != nil {
			panic(err)
		}
		fx.kv["ROUTES"][app] = string(b)
		if hasCustom(i) {
			m, _, err := route.EncodeDomainMapping(route.DomainMapping{App: app, Status: route.StatusActive})
			if err != nil {
				panic(err)
			}
			fx.kv["DOMAINS"][customHost(i)] = string(m)
		}
	}
	return fx
}

// warmUpApps is the index of the first of the mixed warm-up's apps: past the trace's apps and
// the first warm-up's, and a multiple of 6, so that app first+i is static and has a custom
// domain exactly when app i does (isStatic, hasCustom).
func warmUpApps(apps int) int { return (apps + 1 + 5) / 6 * 6 }

// makeTrace is n requests at rate over apps applications, after 50 requests to the warm-up
// app. With a non-zero first, the applications are first…first+apps-1 instead (the mixed
// warm-up's: the same mix over other apps), and its unmapped custom hostnames other names.
func makeTrace(n int, rate float64, apps int, seed int64, first int) []request {
	r := rand.New(rand.NewSource(seed))
	var statics, dynamics []int
	for i := 0; i < apps; i++ {
		if isStatic(i) {
			statics = append(statics, i)
		} else {
			dynamics = append(dynamics, i)
		}
	}
	zs := rand.NewZipf(r, 1.1, 1, uint64(len(statics)-1))
	zd := rand.NewZipf(r, 1.1, 1, uint64(len(dynamics)-1))
	appOf := make([]int, n) // -1: not an app's request
	custom := make([]bool, n)
	viaPlatform := map[int]bool{}
	hostOf := func(k, i int) (string, int) {
		appOf[k] = i
		if hasCustom(i) && r.Intn(2) == 0 {
			custom[k] = true
			return customHost(first + i), 2
		}
		viaPlatform[i] = true
		return appName(first+i) + "." + platform, 1
	}
	var trace []request
	// Warm-up: instantiate the isolate (and the Wasm) before the measured trace.
	for k := 0; k < 50; k++ {
		trace = append(trace, request{method: "GET", host: appName(apps) + "." + platform, path: "/warm", warmup: true})
	}
	for k := 0; k < n; k++ {
		q := request{at: time.Duration(float64(k) / rate * float64(time.Second))}
		appOf[k] = -1
		u := r.Float64()
		if mix != "default" {
			u *= 0.30 // static GETs only
		}
		switch {
		case u < 0.30:
			i := statics[zs.Uint64()]
			q.method, q.path, q.kind = "GET", staticPaths[r.Intn(len(staticPaths))], "static-get"
			q.host, q.reads = hostOf(k, i)
			if mix == "content-hit" {
				q.path, q.host = "/", appName(first+statics[0])+"."+platform
				custom[k] = false
			}
		case u < 0.90:
			i := dynamics[zd.Uint64()]
			q.method, q.path, q.kind = "GET", "/api/items/"+strconv.Itoa(r.Intn(100)), "dynamic"
			if r.Intn(5) == 0 {
				q.method = "POST"
			}
			q.host, q.reads = hostOf(k, i)
		case u < 0.95:
			q.method, q.path, q.negative, q.reads = "GET", "/", true, 1
			if r.Intn(100) < unmappedPercent {
				q.host, q.kind = "www.gone"+strconv.Itoa(first+r.Intn(unmappedHosts))+".example", "unknown-unmapped"
			} else {
				q.host, q.kind = randomLabel(r)+"."+platform, "unknown-label"
			}
		default:
			i := statics[zs.Uint64()]
			q.method, q.path, q.kind = "HEAD", staticPaths[r.Intn(len(staticPaths))], "static-head"
			q.host, q.reads = hostOf(k, i)
		}
		trace = append(trace, q)
	}
	for k := range n {
		q := &trace[50+k]
		switch {
		case appOf[k] < 0:
		case !custom[k]:
			q.kind += "/platform"
		case viaPlatform[appOf[k]]:
			q.kind += "/custom-shared"
		default:
			q.kind += "/custom"
		}
	}
	return trace
}

// makeFlood is a burst of n distinct random labels under the platform domain, the
// random-subdomain flood a SaaS zone lets through to the Worker.
func makeFlood(n int, rate float64, seed int64) []request {
	r := rand.New(rand.NewSource(seed + 1))
	seen := map[string]bool{}
	var flood []request
	for len(flood) < n {
		h := "f" + randomLabel(r) + "." + platform
		if seen[h] {
			continue
		}
		seen[h] = true
		flood = append(flood, request{at: time.Duration(float64(len(flood)) / rate * float64(time.Second)),
			method: "GET", host: h, path: "/", reads: 1, negative: true, kind: "flood"})
	}
	return flood
}

// floorReads counts the reads of an ideal cache shared by every request: each resolution
// is read once and then held for the longest lifetime the budget allows (memo + route
// cache, or memo + negative), on the times the requests were actually sent. It ignores
// content-cache hits that would skip resolution, so a Worker can come in below it. The
// known floor (withoutUnknown) leaves the unknown hosts' reads out: what a Worker that
// refuses them for free would need.
func floorReads(reqs []request, sentAt []time.Duration, t route.TTLs, withoutUnknown bool) int {
	pos, neg := t.Memo+t.RouteCache, t.Memo+t.Negative
	until := map[string]time.Duration{}
	reads := 0
	for k, q := range reqs {
		if q.warmup || (withoutUnknown && q.unknown()) {
			continue
		}
		at := sentAt[k]
		if u, ok := until[q.host]; ok && at < u {
			continue
		}
		reads += q.reads
		life := pos
		if q.negative {
			life = neg
		}
		until[q.host] = at + life
	}
	return reads
}

// logEntry is what bench-edge reads from a Worker's per-request log line.
type logEntry struct {
	RequestID     string `json:"request_id"`
	KVReads       int    `json:"kv_reads"`
	R2Reads       int    `json:"r2_reads"`
	ManifestReads int    `json:"manifest_reads"`
	IORounds      int    `json:"io_rounds"`
	RouteSource   string `json:"route_source"`
	ContentCache  string `json:"content_cache"`
	RouteCache    string `json:"route_cache"`
	Delivery      string `json:"delivery"`
	DurUS         int64  `json:"dur_us"`
}

// path is the way a request took through a Worker, from its log line: delivery, route source,
// content cache and route cache outcomes.
func (l logEntry) path() string {
	return l.Delivery + "/" + l.RouteSource + "/content-" + l.ContentCache + "/route-" + l.RouteCache
}

// sliceResult is one replay of a slice of the trace through one Worker.
type sliceResult struct {
	reqs     []request
	lat      []time.Duration
	sentAt   []time.Duration // from the start of the measured run
	ids      []string
	logs     map[string]logEntry
	stats    workertest.Counts
	statuses map[int]int
	errors   int
	firstErr string
	// cpu is what the Worker's processes ran over the replay (processCPU); cpuOK is false
	// where it could not be read.
	cpu   processCPU
	cpuOK bool
}

// workerResult is every round of one Worker.
type workerResult struct {
	sliceResult
	rounds            [][]time.Duration
	logKV, logLines   int
	flood             *sliceResult
	floor, knownFloor int
	// cpuRounds is each round's processCPU, when every round's could be read.
	cpuRounds []processCPU
	cpuLost   bool
}

func (w *workerResult) add(s *sliceResult) {
	w.reqs = append(w.reqs, s.reqs...)
	w.lat = append(w.lat, s.lat...)
	w.sentAt = append(w.sentAt, s.sentAt...)
	w.ids = append(w.ids, s.ids...)
	if w.logs == nil {
		w.logs, w.statuses = map[string]logEntry{}, map[int]int{}
	}
	for id, l := range s.logs {
		w.logs[id] = l
		w.logKV += l.KVReads
		w.logLines++
	}
	w.stats = w.stats.Plus(s.stats)
	for k, v := range s.statuses {
		w.statuses[k] += v
	}
	w.errors += s.errors
	if w.firstErr == "" {
		w.firstErr = s.firstErr
	}
	w.rounds = append(w.rounds, s.lat)
	w.cpuLost = w.cpuLost || !s.cpuOK
	w.cpuRounds = append(w.cpuRounds, s.cpu)
}

// pct is the p-th percentile of d (d is not modified).
func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)*p/100, len(s)-1)]
}

// ratioOf is a/b, with b at least a nanosecond.
func ratioOf(a, b time.Duration) float64 { return float64(a) / float64(max(b, 1)) }

func medianSpread(v []float64) (median, lo, hi float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return m, s[0], s[len(s)-1]
}

// roundStat is the median and spread over the rounds of each round's p-th percentile.
func (w *workerResult) roundStat(p int) (median, lo, hi time.Duration) {
	var v []float64
	for _, r := range w.rounds {
		v = append(v, float64(pct(r, p)))
	}
	m, l, h := medianSpread(v)
	return time.Duration(m), time.Duration(l), time.Duration(h)
}

// roundRatio is the median and spread of a's p-th percentile over b's, round by round.
func roundRatio(a, b *workerResult, p int) (median, lo, hi float64) {
	return medianSpread(roundRatios(a, b, p))
}

// formatRatios writes v to three decimals, separated by spaces.
func formatRatios(v []float64) string {
	parts := make([]string, len(v))
	for i, r := range v {
		parts[i] = strconv.FormatFloat(r, 'f', 3, 64)
	}
	return strings.Join(parts, " ")
}

// roundRatios is a's p-th percentile over b's in each round.
func roundRatios(a, b *workerResult, p int) []float64 {
	var v []float64
	for k := range min(len(a.rounds), len(b.rounds)) {
		v = append(v, ratioOf(pct(a.rounds[k], p), pct(b.rounds[k], p)))
	}
	return v
}

// intervalLine says how far the medians of the per-round ratios of a over b can be trusted
// (interval.go): each one's 90 % bootstrap interval over the rounds, and how often a
// resampled run's median would be at most goal.
func intervalLine(a, b *workerResult, goal float64) string {
	var s strings.Builder
	for i, p := range []int{50, 99} {
		v := roundRatios(a, b, p)
		if i == 0 {
			fmt.Fprintf(&s, "resampling the %d rounds (90%% intervals):", len(v))
		} else {
			s.WriteString(";")
		}
		lo, hi, share := medianInterval(v, goal)
		fmt.Fprintf(&s, " p%d [%.3f..%.3f], ≤ %.2f in %.0f%% of resamples", p, lo, hi, goal, share*100)
	}
	return s.String()
}

// kindOrder is the order of the per-kind breakdown.
var kindOrder = []string{
	"dynamic/platform", "dynamic/custom-shared", "dynamic/custom",
	"static-get/platform", "static-get/custom-shared", "static-get/custom",
	"static-head/platform", "static-head/custom-shared", "static-head/custom",
	"unknown-label", "unknown-unmapped", "flood",
}

// printKinds prints, per kind of request and Worker, the mean sequential I/O rounds before
// the response started and the KV reads (both from the Worker's log lines) and the p50.
func printKinds(picked []benchWorker, results map[string]*workerResult) {
	fmt.Println("bench-edge: per kind: io_rounds (mean sequential I/O waits before the response starts) kv (KV reads per request) p50, from each Worker's log lines")
	for _, kind := range kindOrder {
		line, count := "", 0
		for _, w := range picked {
			r := results[w.name]
			var lat []time.Duration
			rounds, kv, logged := 0, 0, 0
			add := func(s *sliceResult, logs map[string]logEntry) {
				for k, q := range s.reqs {
					if q.kind != kind {
						continue
					}
					lat = append(lat, s.lat[k])
					if l, ok := logs[s.ids[k]]; ok {
						rounds, kv, logged = rounds+l.IORounds, kv+l.KVReads, logged+1
					}
				}
			}
			if kind == "flood" {
				if r.flood == nil {
					continue
				}
				add(r.flood, r.flood.logs)
			} else {
				add(&r.sliceResult, r.logs)
			}
			if len(lat) == 0 {
				continue
			}
			count = len(lat)
			line += fmt.Sprintf(" | %s io_rounds=%.2f kv=%.2f p50=%.2fms", w.name, float64(rounds)/float64(max(logged, 1)), float64(kv)/float64(max(logged, 1)), ms(pct(lat, 50)))
		}
		if count > 0 {
			fmt.Printf("bench-edge:   %-25s n=%-5d%s\n", kind, count, line)
		}
	}
}

// paths is a Worker's latency per path taken through it, from its own log lines (js-seed logs
// the same fields as the edge).
func (w *workerResult) paths(name string) string {
	type path struct {
		lat                           []time.Duration
		rounds, kv, r2, manifests, us int64
	}
	byPath := map[string]*path{}
	for k, id := range w.ids {
		l := w.logs[id]
		key := l.path()
		p := byPath[key]
		if p == nil {
			p = &path{}
			byPath[key] = p
		}
		p.lat = append(p.lat, w.lat[k])
		p.rounds += int64(l.IORounds)
		p.kv += int64(l.KVReads)
		p.r2 += int64(l.R2Reads)
		p.manifests += int64(l.ManifestReads)
		p.us += l.DurUS
	}
	keys := slices.Collect(maps.Keys(byPath))
	sort.Slice(keys, func(a, b int) bool { return len(byPath[keys[a]].lat) > len(byPath[keys[b]].lat) })
	out := "bench-edge: " + name + " by path taken (means per request: io_rounds, KV, R2 and manifest reads, the Worker's own dur_us):\n"
	for _, key := range keys {
		p := byPath[key]
		n := float64(len(p.lat))
		out += fmt.Sprintf("    %-55s n=%4d p50=%.2fms p90=%.2fms p99=%.2fms io=%.2f kv=%.2f r2=%.2f manifest=%.2f dur=%.2fms\n", key, len(p.lat),
			ms(pct(p.lat, 50)), ms(pct(p.lat, 90)), ms(pct(p.lat, 99)),
			float64(p.rounds)/n, float64(p.kv)/n, float64(p.r2)/n, float64(p.manifests)/n, float64(p.us)/n/1000)
	}
	return out + w.tail(name, 98)
}

// tail is what a Worker's slowest requests (at or above its p-th percentile over every round)
// were, by path: how many, and how much of their latency the Worker's own dur_us accounts for.
// The p99 the goal judges is made of these.
func (w *workerResult) tail(name string, p int) string {
	cut := pct(w.lat, p)
	type path struct {
		n       int
		lat, us int64
	}
	byPath := map[string]*path{}
	total := 0
	for k, id := range w.ids {
		if w.lat[k] < cut {
			continue
		}
		l := w.logs[id]
		key := w.reqs[k].kind + " " + l.path()
		q := byPath[key]
		if q == nil {
			q = &path{}
			byPath[key] = q
		}
		q.n++
		q.lat += w.lat[k].Microseconds()
		q.us += l.DurUS
		total++
	}
	keys := slices.Collect(maps.Keys(byPath))
	sort.Slice(keys, func(a, b int) bool {
		na, nb := byPath[keys[a]].n, byPath[keys[b]].n
		return na > nb || (na == nb && keys[a] < keys[b])
	})
	out := fmt.Sprintf("bench-edge: %s tail: the %d requests at or above its p%d (%.2fms), by kind and path (mean latency, mean dur_us):\n", name, total, p, ms(cut))
	for _, key := range keys {
		q := byPath[key]
		out += fmt.Sprintf("    %-70s n=%4d lat=%.2fms dur=%.2fms\n", key, q.n, float64(q.lat)/float64(q.n)/1000, float64(q.us)/float64(q.n)/1000)
	}
	return out
}

// replay sends reqs to the Worker on h, open loop from their first scheduled time; offset is
// when this replay starts within the measured run (for the floors). The Worker's log lines
// and the runtime's counts for these requests come back with the latencies.
func replay(h *workertest.Host, reqs []request, conc int, offset time.Duration) (*sliceResult, error) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer client.CloseIdleConnections()
	before, err := h.Counts(client)
	if err != nil {
		return nil, err
	}
	logsBefore := len(h.Logs())
	res := &sliceResult{reqs: reqs, lat: make([]time.Duration, len(reqs)), sentAt: make([]time.Duration, len(reqs)),
		ids: make([]string, len(reqs)), logs: map[string]logEntry{}, statuses: map[int]int{}}
	var mu sync.Mutex
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	cpuBefore, cpuOK := readProcessCPU(h.PID())
	start := time.Now()
	for k, q := range reqs {
		if d := time.Until(start.Add(q.at - reqs[0].at)); d > 0 {
			time.Sleep(d)
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			var body io.Reader
			if q.method == "POST" {
				body = strings.NewReader(`{"n":1}`)
			}
			req, _ := http.NewRequest(q.method, h.URL+q.path, body)
			req.Host = q.host
			sent := time.Now()
			resp, err := client.Do(req)
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body) // a body cut short counts as a failed request
				_ = resp.Body.Close()
			}
			d := time.Since(sent)
			mu.Lock()
			defer mu.Unlock()
			res.sentAt[k] = offset + sent.Sub(start)
			if err != nil {
				res.errors++
				if res.firstErr == "" {
					res.firstErr = q.method + " " + q.host + q.path + ": " + err.Error()
				}
				return
			}
			res.statuses[resp.StatusCode]++
			res.lat[k] = d
			res.ids[k] = resp.Header.Get("X-Request-Id")
		}()
	}
	wg.Wait()
	if cpuAfter, ok := readProcessCPU(h.PID()); ok && cpuOK {
		res.cpu, res.cpuOK = cpuAfter.minus(cpuBefore), true
	}
	after, err := h.Counts(client)
	if err != nil {
		return nil, err
	}
	res.stats = after.Minus(before)
	// Log lines arrive asynchronously: wait until every request has one, or none came for a
	// second (a Worker that does not log every request).
	want := map[string]bool{}
	for _, id := range res.ids {
		if id != "" {
			want[id] = true
		}
	}
	last, seen := time.Now(), 0
	for {
		lines := h.Logs()[logsBefore:]
		for _, l := range lines[seen:] {
			if !strings.HasPrefix(l, `{"msg":"`) || !strings.Contains(l[:min(len(l), 40)], `.request"`) {
				continue
			}
			var e logEntry
			if json.Unmarshal([]byte(l), &e) == nil && want[e.RequestID] {
				res.logs[e.RequestID] = e
			}
		}
		if len(lines) > seen {
			last = time.Now()
		}
		seen = len(lines)
		if len(res.logs) >= len(want) || time.Since(last) > time.Second {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return res, nil
}
