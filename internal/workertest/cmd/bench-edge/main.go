// Command bench-edge replays a generated traffic mix through workerd for the edge Worker,
// a no-cache baseline Worker and a one-KV-read JS pass-through Worker, and prints KV reads
// per 1,000 requests against the floor, warm latency against the pass-through, and the
// Wasm size; static apps are content-addressed sites (a manifest per version), and the edge's
// R2 object and manifest reads per 1,000 requests are printed beside. The last line is
// machine-readable:
//
//	bench-edge: kv_reads_vs_floor=<ratio> latency_p50_vs_js=<ratio> latency_p99_vs_js=<ratio> gzip_bytes=<n>
//
// The trace is open-loop: request i is sent at i/rate seconds, so cache lifetimes (derived
// from the freshness budget) expire during the run just as they would in production.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
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

var only, dumpLogs, logSample, compareDir string
var byKind bool

type request struct {
	at     time.Duration // scheduled send time from the start of the replay
	method string
	host   string
	path   string
	// floor bookkeeping
	reads    int  // KV reads a resolution of this host costs
	negative bool // the host resolves to a confirmed absence
	warmup   bool
	kind     string // static-get | dynamic | unknown | static-head (for -by-kind)
}

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
	n := flag.Int("n", 3000, "requests in the trace")
	rate := flag.Float64("rate", 40, "requests per second (open loop) for each Worker; all Workers replay at once")
	apps := flag.Int("apps", 500, "applications")
	budget := flag.Int("budget", int(route.DefaultFreshnessBudget/time.Second), "FRESHNESS_BUDGET_SECONDS for the edge Worker")
	conc := flag.Int("concurrency", 32, "maximum requests in flight")
	seed := flag.Int64("seed", 1, "trace seed")
	flag.StringVar(&logSample, "log-sample", "1", "LOG_SAMPLE_RATE of the edge Worker (the KV cross-check needs 1)")
	flag.StringVar(&only, "only", "", "run only these Workers, comma-separated (edge, baseline, js-passthrough, js-pass+cache, edge-compare); for debugging")
	flag.StringVar(&compareDir, "compare", "", "also replay another build of the edge Worker from this directory (scripts/build-worker.sh DIR), as edge-compare, to A/B a change under the same load")
	flag.StringVar(&dumpLogs, "dump-logs", "", "write the edge Worker's log lines to this file")
	flag.BoolVar(&byKind, "by-kind", false, "also print each Worker's latency per kind of request (diagnostic)")
	flag.Parse()
	if err := run(*n, *rate, *apps, *budget, *conc, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "bench-edge:", err)
		os.Exit(1)
	}
}

func run(n int, rate float64, apps, budget, conc int, seed int64) error {
	loadStart := loadAverage()
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
	out, err := os.MkdirTemp("", "bench-edge-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
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
	defer origin.Close()
	go http.Serve(origin, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
	}))

	fx := makeFixture(apps)
	trace := makeTrace(n, rate, apps, seed)
	floor, floorRC := floorReads(trace, ttls)
	fmt.Printf("bench-edge: trace n=%d rate=%.0f/s apps=%d (Zipf), 30%% static GET, 60%% dynamic, 5%% unknown hosts, 5%% static HEAD\n", n, rate, apps)
	fmt.Printf("bench-edge: budget=%ds memo=%v route_cache=%v negative=%v kv_cacheTtl=%v/%v\n",
		budget, ttls.Memo, ttls.RouteCache, ttls.Negative, ttls.DomainsKV, ttls.RoutesKV)

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
	workers := []benchWorker{
		{"edge", workertest.HostConfig{ModulesRoot: out, Modules: workertest.EdgeModules()}},
		{"baseline", workertest.HostConfig{ModulesRoot: testdata, Modules: []workertest.Module{
			{Type: "ESModule", Path: "baseline.mjs"}, {Type: "ESModule", Path: "deliver.mjs"}}}},
		{"js-passthrough", workertest.HostConfig{ModulesRoot: testdata, Modules: []workertest.Module{
			{Type: "ESModule", Path: "passthrough.mjs"}, {Type: "ESModule", Path: "deliver.mjs"}}}},
		{"js-pass+cache", workertest.HostConfig{ModulesRoot: testdata, Modules: []workertest.Module{
			{Type: "ESModule", Path: "passthrough-cache.mjs"}, {Type: "ESModule", Path: "passthrough.mjs"}, {Type: "ESModule", Path: "deliver.mjs"}}}},
	}
	if compareDir != "" {
		workers = append(workers, benchWorker{"edge-compare", workertest.HostConfig{ModulesRoot: compareDir, Modules: workertest.EdgeModules()}})
	}
	// All Workers replay the same trace at the same time, each on its own workerd: the
	// machine's background load then weighs on every Worker alike.
	results := map[string]*runResult{}
	errs := map[string]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	hosts := map[string]*workertest.Host{}
	for _, w := range workers {
		if only != "" && !slices.Contains(strings.Split(only, ","), w.name) {
			continue
		}
		cfg := w.cfg
		cfg.Bindings, cfg.KV, cfg.R2, cfg.Origins, cfg.CountKV = bindings, fx.kv, fx.r2, origins, true
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		h, err := workertest.StartHost(ctx, root, cfg)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
		defer h.Close()
		hosts[w.name] = h
	}
	for name, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := replay(h, name, trace, conc)
			mu.Lock()
			defer mu.Unlock()
			results[name], errs[name] = res, err
		}()
	}
	wg.Wait()
	for _, w := range workers {
		res, ok := results[w.name]
		if !ok {
			continue
		}
		if err := errs[w.name]; err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
		fmt.Printf("bench-edge: %-15s kv_reads=%d per_1000=%.1f (wrapper %d, log sum %d) p50=%.2fms p99=%.2fms statuses=%v client_errors=%d %s\n",
			w.name, res.kvReads, per1000(res.kvReads, n), res.kvReads, res.logReads, ms(res.p50), ms(res.p99), res.statuses, res.errors, res.firstErr)
		if res.kinds != "" {
			fmt.Printf("bench-edge: %-15s by kind:%s\n", w.name, res.kinds)
		}
	}
	if c, e := results["edge-compare"], results["edge"]; c != nil && e != nil {
		fmt.Printf("bench-edge: edge vs edge-compare p50=%.3f p99=%.3f kv_reads=%d/%d\n",
			float64(e.p50)/float64(c.p50), float64(e.p99)/float64(c.p99), e.kvReads, c.kvReads)
	}
	if only != "" {
		return nil
	}
	e, js, jsc := results["edge"], results["js-passthrough"], results["js-pass+cache"]
	if e.logReads != e.kvReads {
		fmt.Printf("bench-edge: WARNING: edge log kv_reads sum %d != runtime wrapper count %d\n", e.logReads, e.kvReads)
	}
	fmt.Printf("bench-edge: floor kv_reads=%d per_1000=%.1f (ideal shared cache holding each resolution memo+route_cache / memo+negative); route-cache-only floor=%d\n",
		floor, per1000(floor, n), floorRC)
	fmt.Printf("bench-edge: kv reads per 1000: edge=%.1f baseline=%.1f js-passthrough=%.1f floor=%.1f\n",
		per1000(e.kvReads, n), per1000(results["baseline"].kvReads, n), per1000(js.kvReads, n), per1000(floor, n))
	statics := 0
	for _, q := range trace {
		if !q.warmup && strings.HasPrefix(q.kind, "static") {
			statics++
		}
	}
	fmt.Printf("bench-edge: edge static reads per 1000 requests: r2=%.1f manifest=%.1f (%d static GET/HEAD of %d requests, %d sites)\n",
		per1000(e.r2Reads, n), per1000(e.manifestReads, n), statics, n, staticApps(apps))
	fmt.Printf("bench-edge: warm latency edge p50=%.2fms p99=%.2fms; js-passthrough p50=%.2fms p99=%.2fms; js-pass+cache (one Cache API lookup per GET) p50=%.2fms p99=%.2fms\n",
		ms(e.p50), ms(e.p99), ms(js.p50), ms(js.p99), ms(jsc.p50), ms(jsc.p99))
	fmt.Printf("bench-edge: edge.wasm raw_bytes=%d gzip_bytes=%d\n", len(wasm), gzipBytes)
	// The latency ratios move with the machine's other work: under load the runtimes'
	// queueing hides the Workers' differences, on a quiet machine their I/O shows.
	fmt.Printf("bench-edge: machine load (1-minute average) %s at start, %s at the end, on %d CPUs\n",
		loadStart, loadAverage(), runtime.NumCPU())
	fmt.Printf("bench-edge: kv_reads_vs_floor=%.3f latency_p50_vs_js=%.3f latency_p99_vs_js=%.3f gzip_bytes=%d\n",
		float64(e.kvReads)/float64(max(floor, 1)), float64(e.p50)/float64(js.p50), float64(e.p99)/float64(js.p99), gzipBytes)
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

func per1000(reads, n int) float64 { return float64(reads) * 1000 / float64(n) }
func ms(d time.Duration) float64   { return float64(d.Microseconds()) / 1000 }

func appName(i int) string { return "app" + strconv.Itoa(i) }

// Every third app is static, every second one has a custom domain www.<app>.example.
func isStatic(i int) bool     { return i%3 == 0 }
func staticApps(apps int) int { return (apps + 2) / 3 }
func hasCustom(i int) bool    { return i%2 == 0 }
func customHost(i int) string { return "www." + appName(i) + ".example" }

var staticPaths = []string{"/", "/app.js", "/style.css", "/img/logo.svg"}

func makeFixture(apps int) fixture {
	fx := fixture{
		kv: map[string]map[string]string{"ROUTES": {}, "DOMAINS": {}},
		r2: map[string]map[string]workertest.Object{"STATIC": {}},
	}
	for i := 0; i <= apps; i++ { // app<apps> is the warm-up app, outside the trace
		app := appName(i)
		rec := route.Record{App: app, Status: route.StatusActive}
		if isStatic(i) && i < apps {
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

func makeTrace(n int, rate float64, apps int, seed int64) []request {
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
	hostOf := func(i int) (string, int) {
		if hasCustom(i) && r.Intn(2) == 0 {
			return customHost(i), 2
		}
		return appName(i) + "." + platform, 1
	}
	var trace []request
	// Warm-up: instantiate the isolate (and the Wasm) before the measured trace.
	for k := 0; k < 50; k++ {
		trace = append(trace, request{method: "GET", host: appName(apps) + "." + platform, path: "/warm", warmup: true})
	}
	for k := 0; k < n; k++ {
		q := request{at: time.Duration(float64(k) / rate * float64(time.Second))}
		u := r.Float64()
		switch {
		case u < 0.30:
			i := statics[zs.Uint64()]
			q.method, q.path, q.kind = "GET", staticPaths[r.Intn(len(staticPaths))], "static-get"
			q.host, q.reads = hostOf(i)
		case u < 0.90:
			i := dynamics[zd.Uint64()]
			q.method, q.path, q.kind = "GET", "/api/items/"+strconv.Itoa(r.Intn(100)), "dynamic"
			if r.Intn(5) == 0 {
				q.method = "POST"
			}
			q.host, q.reads = hostOf(i)
		case u < 0.95:
			q.method, q.path, q.negative, q.reads, q.kind = "GET", "/", true, 1, "unknown"
			if r.Intn(2) == 0 {
				q.host = "nx" + strconv.Itoa(r.Intn(100000)) + ".unknown.example"
			} else {
				q.host = "ghost" + strconv.Itoa(r.Intn(1000)) + "." + platform
			}
		default:
			i := statics[zs.Uint64()]
			q.method, q.path, q.kind = "HEAD", staticPaths[r.Intn(len(staticPaths))], "static-head"
			q.host, q.reads = hostOf(i)
		}
		trace = append(trace, q)
	}
	return trace
}

// floorReads counts the reads of an ideal cache shared by every request: each resolution
// is read once and then held for the longest lifetime the budget allows (memo + route
// cache, or memo + negative). It ignores content-cache hits that would skip resolution,
// so a Worker can come in below it. The second value holds entries for the route-cache
// lifetimes alone.
func floorReads(trace []request, t route.TTLs) (int, int) {
	count := func(pos, neg time.Duration) int {
		until := map[string]time.Duration{}
		reads := 0
		for _, q := range trace {
			if q.warmup {
				continue
			}
			if u, ok := until[q.host]; ok && q.at < u {
				continue
			}
			reads += q.reads
			life := pos
			if q.negative {
				life = neg
			}
			until[q.host] = q.at + life
		}
		return reads
	}
	return count(t.Memo+t.RouteCache, t.Memo+t.Negative), count(t.RouteCache, t.Negative)
}

type runResult struct {
	kvReads, logReads, errors int
	// r2Reads and manifestReads are the edge's static object and manifest reads (log sums).
	r2Reads, manifestReads int
	firstErr               string
	p50, p99               time.Duration
	kinds                  string
	statuses               map[int]int
}

// replay sends trace to the Worker called name; the edge Workers' log lines are read too.
func replay(h *workertest.Host, name string, trace []request, conc int) (*runResult, error) {
	isEdge := strings.HasPrefix(name, "edge")
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	ids := make([]string, len(trace))
	send := func(q request) (int, time.Duration, string, error) {
		var body io.Reader
		if q.method == "POST" {
			body = strings.NewReader(`{"n":1}`)
		}
		req, _ := http.NewRequest(q.method, h.URL+q.path, body)
		req.Host = q.host
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, 0, "", err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, time.Since(start), resp.Header.Get("X-Request-Id"), nil
	}
	kvStats := func() (int, error) {
		req, _ := http.NewRequest("GET", h.URL+"/", nil)
		req.Host = "kv-stats.host.invalid"
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		var v struct{ Reads int }
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
			return 0, err
		}
		return v.Reads, nil
	}
	i := 0
	for ; i < len(trace) && trace[i].warmup; i++ {
		if _, _, _, err := send(trace[i]); err != nil {
			return nil, err
		}
	}
	before, err := kvStats()
	if err != nil {
		return nil, err
	}
	logsBefore := len(h.Logs())
	measured := trace[i:]
	lat := make([]time.Duration, len(measured))
	res := &runResult{statuses: map[int]int{}}
	var mu sync.Mutex
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	start := time.Now()
	for k, q := range measured {
		if d := time.Until(start.Add(q.at)); d > 0 {
			time.Sleep(d)
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			status, d, id, err := send(q)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.errors++
				if res.firstErr == "" {
					res.firstErr = q.method + " " + q.host + q.path + ": " + err.Error()
				}
				return
			}
			res.statuses[status]++
			lat[k] = d
			ids[k] = id
		}()
	}
	wg.Wait()
	after, err := kvStats()
	if err != nil {
		return nil, err
	}
	res.kvReads = after - before
	// Log lines arrive asynchronously; wait until every measured request has one.
	deadline := time.Now().Add(10 * time.Second)
	for len(requestLines(h.Logs()[logsBefore:])) < len(measured) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	for _, l := range requestLines(h.Logs()[logsBefore:]) {
		var v struct {
			KVReads       int    `json:"kv_reads"`
			R2Reads       int    `json:"r2_reads"`
			ManifestReads int    `json:"manifest_reads"`
			Host          string `json:"host"`
		}
		if json.Unmarshal([]byte(l), &v) == nil {
			res.logReads += v.KVReads
			res.r2Reads += v.R2Reads
			res.manifestReads += v.ManifestReads
		}
	}
	if byKind && isEdge {
		// The edge's latency per path taken, from its own log lines (joined by request id).
		path := map[string]string{}
		for _, l := range requestLines(h.Logs()[logsBefore:]) {
			var v struct{ RequestID, RouteSource, ContentCache, RouteCache, Delivery string }
			var raw map[string]any
			if json.Unmarshal([]byte(l), &raw) == nil {
				str := func(k string) string { s, _ := raw[k].(string); return s }
				v.RequestID, v.RouteSource, v.ContentCache, v.RouteCache, v.Delivery = str("request_id"), str("route_source"), str("content_cache"), str("route_cache"), str("delivery")
				path[v.RequestID] = v.Delivery + "/" + v.RouteSource + "/content-" + v.ContentCache + "/route-" + v.RouteCache
			}
		}
		byPath := map[string][]time.Duration{}
		for k := range measured {
			byPath[path[ids[k]]] = append(byPath[path[ids[k]]], lat[k])
		}
		var keys []string
		for p := range byPath {
			keys = append(keys, p)
		}
		sort.Slice(keys, func(a, b int) bool { return len(byPath[keys[a]]) > len(byPath[keys[b]]) })
		for _, p := range keys {
			d := byPath[p]
			sort.Slice(d, func(a, b int) bool { return d[a] < d[b] })
			res.kinds += fmt.Sprintf("\n    %-55s n=%4d p50=%.2fms p90=%.2fms p99=%.2fms", p, len(d), ms(d[len(d)/2]), ms(d[len(d)*9/10]), ms(d[len(d)*99/100]))
		}
	}
	if dumpLogs != "" && name == "edge" {
		os.WriteFile(dumpLogs, []byte(strings.Join(h.Logs()[logsBefore:], "\n")+"\n"+h.Stderr()), 0o644)
	}
	if byKind {
		kinds := map[string][]time.Duration{}
		for k, q := range measured {
			kinds[q.kind] = append(kinds[q.kind], lat[k])
		}
		for _, kind := range []string{"static-get", "dynamic", "unknown", "static-head"} {
			d := kinds[kind]
			sort.Slice(d, func(a, b int) bool { return d[a] < d[b] })
			if len(d) > 0 {
				res.kinds += fmt.Sprintf(" %s n=%d p50=%.2fms p90=%.2fms p99=%.2fms;", kind, len(d), ms(d[len(d)/2]), ms(d[len(d)*9/10]), ms(d[len(d)*99/100]))
			}
		}
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	res.p50 = lat[len(lat)*50/100]
	res.p99 = lat[len(lat)*99/100]
	return res, nil
}

func requestLines(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, `{"msg":"edge.request"`) {
			out = append(out, l)
		}
	}
	return out
}
