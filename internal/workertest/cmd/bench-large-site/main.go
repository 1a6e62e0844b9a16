// Command bench-large-site measures what a large static site's first GET costs an isolate of
// the edge Worker in workerd, with its manifest whole (as releases before shards wrote it, and
// as the Worker still reads it) and split into shards (route.SplitSiteManifest, what the
// provider writes now): the first GET's own latency, and the stall it imposes on every other
// tenant of the isolate, the longest latency of a small site's requests sent every few
// milliseconds while it is served. The isolate runs one thread: decoding a manifest holds every
// request in it until it is done.
//
// Each round serves a site never seen before of each layout (the same files, -files of them),
// in alternating order, one after the other in one workerd. The last line is
// machine-readable:
//
//	bench-large-site: files=… first_get_ms_whole=… first_get_ms_split=… stall_ms_whole=… stall_ms_split=… first_get_split_vs_whole=… stall_split_vs_whole=…
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/workertest"
)

const platform = "kamui.test"

func main() {
	files := flag.Int("files", 20000, "files of each large site (the provider's limit is 20,000)")
	rounds := flag.Int("rounds", 6, "large sites of each layout, one first GET each")
	flag.Parse()
	if err := run(*files, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "bench-large-site:", err)
		os.Exit(1)
	}
}

func run(files, rounds int) error {
	if files <= route.SiteShardFiles {
		return fmt.Errorf("-files must be more than %d, or the site is not split", route.SiteShardFiles)
	}
	root, err := workertest.RepoRoot()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "bench-large-site-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary build: a leftover only takes space
	if _, err := workertest.BuildWorker(root, dir); err != nil {
		return err
	}

	bucket := map[string]workertest.Object{}
	records := map[string]string{}
	if err := addSite(bucket, records, "small", smallSite(), false); err != nil {
		return err
	}
	large := largeSite(files)
	for r := range rounds {
		for _, split := range []bool{false, true} {
			if err := addSite(bucket, records, siteName(split, r), large, split); err != nil {
				return err
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	fmt.Fprintf(os.Stderr, "bench-large-site: starting workerd with %d sites of %d files in each layout\n", rounds, files)
	host, err := workertest.StartHost(ctx, root, workertest.HostConfig{
		ModulesRoot: dir,
		Modules:     workertest.EdgeModules(),
		Bindings: map[string]string{
			"PLATFORM_DOMAIN":          platform,
			"FRESHNESS_BUDGET_SECONDS": "120",
			"UPSTREAM_TIMEOUT_MS":      "30000",
			"LOG_SAMPLE_RATE":          "0",
			"SIGNING_SECRET":           "bench-signing-secret-0123456789abcdef",
			"CACHE_MARKER":             "bench-marker-0123456789abcdef",
		},
		CompatibilityDate:  route.WorkerCompatibilityDate,
		CompatibilityFlags: route.WorkerCompatibilityFlags(),
		KV:                 map[string]map[string]string{"ROUTES": records, "DOMAINS": {}},
		R2:                 map[string]map[string]workertest.Object{"STATIC": bucket},
	})
	if err != nil {
		return err
	}
	defer host.Close()

	client := &http.Client{Timeout: time.Minute}
	// Warm the isolate and the small site: the other tenant's requests are warm ones.
	for i := range 300 {
		if _, err := get(client, host.URL, "small", "/index.html?warm="+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	var first, stall [2][]float64
	for r := range rounds {
		order := []bool{false, true}
		if r%2 == 1 {
			order = []bool{true, false}
		}
		for _, split := range order {
			// What the GET before left behind (a whole manifest's garbage) is collected
			// during the small site's requests, not during the one measured.
			for i := range 100 {
				if _, err := get(client, host.URL, "small", "/app.js?settle="+strconv.Itoa(r)+"-"+strconv.Itoa(i)); err != nil {
					return err
				}
			}
			f, s, err := firstGET(client, host.URL, siteName(split, r), r)
			if err != nil {
				return err
			}
			k := btoi(split)
			first[k], stall[k] = append(first[k], f), append(stall[k], s)
		}
	}
	fw, fs, sw, ss := median(first[0]), median(first[1]), median(stall[0]), median(stall[1])
	fmt.Printf("bench-large-site: %d rounds, a site of %d files each, machine load (1-minute average) %s on %d CPUs\n", rounds, files, workertest.LoadAverage(), runtime.NumCPU())
	fmt.Printf("bench-large-site: first GET ms, whole manifest %v\n", rounded(first[0]))
	fmt.Printf("bench-large-site: first GET ms, split manifest %v\n", rounded(first[1]))
	fmt.Printf("bench-large-site: other tenant's longest request ms meanwhile, whole %v\n", rounded(stall[0]))
	fmt.Printf("bench-large-site: other tenant's longest request ms meanwhile, split %v\n", rounded(stall[1]))
	fmt.Printf("bench-large-site: files=%d first_get_ms_whole=%.1f first_get_ms_split=%.1f stall_ms_whole=%.1f stall_ms_split=%.1f first_get_split_vs_whole=%.3f stall_split_vs_whole=%.3f\n",
		files, fw, fs, sw, ss, fs/fw, ss/sw)
	return nil
}

// firstGET sends the first GET of the large site app, and while it is served a small site's
// GET every 2 ms; it returns the first GET's latency and the longest of the others', in ms.
func firstGET(client *http.Client, base, app string, round int) (float64, float64, error) {
	done := make(chan struct{})
	var (
		mu      sync.Mutex
		longest time.Duration
		wg      sync.WaitGroup
		errs    []error
	)
	probe := func(i int) {
		defer wg.Done()
		t0 := time.Now()
		_, err := get(client, base, "small", "/index.html?r="+strconv.Itoa(round)+"-"+app+"-"+strconv.Itoa(i))
		d := time.Since(t0)
		mu.Lock()
		defer mu.Unlock()
		longest = max(longest, d)
		if err != nil {
			errs = append(errs, err)
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-tick.C:
				wg.Add(1)
				go probe(i)
			}
		}
	}()
	t0 := time.Now()
	body, err := get(client, base, app, "/docs/section-007/page-00742.html")
	took := time.Since(t0)
	close(done)
	wg.Wait()
	if err == nil && body != pageBody(742) {
		err = fmt.Errorf("%s: got %q", app, body)
	}
	if err = errors.Join(append(errs, err)...); err != nil {
		return 0, 0, err
	}
	return ms(took), ms(longest), nil
}

func get(client *http.Client, base, app, path string) (string, error) {
	req, err := http.NewRequest("GET", base+path, nil)
	if err != nil {
		return "", err
	}
	req.Host = app + "." + platform
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != 200 {
		err = fmt.Errorf("GET %s%s: %d %s", req.Host, path, resp.StatusCode, b)
	}
	return string(b), err
}

func siteName(split bool, round int) string {
	if split {
		return "split" + strconv.Itoa(round)
	}
	return "whole" + strconv.Itoa(round)
}

// largeSite is a documentation site of n pages in sections of 100; the pages share ten
// contents, as the bench cares for the manifest, not the objects.
func largeSite(n int) map[string]string {
	pages := map[string]string{"index.html": pageBody(0)}
	for i := range n - 1 {
		pages[fmt.Sprintf("docs/section-%03d/page-%05d.html", i/100, i)] = pageBody(i)
	}
	return pages
}

func pageBody(i int) string { return "<!doctype html><p>page " + strconv.Itoa(i%10) + "</p>\n" }

func smallSite() map[string]string {
	return map[string]string{"index.html": "<!doctype html><p>small</p>\n", "app.js": "app()\n"}
}

// addSite adds app's site of pages to the bucket and its record to records, in the layout the
// provider writes: each content once, the shards (split), then the version's manifest.
func addSite(bucket map[string]workertest.Object, records map[string]string, app string, pages map[string]string, split bool) error {
	prefix := "sites/" + app + "/"
	m := route.SiteManifest{Files: map[string]route.SiteFile{}}
	for p, body := range pages {
		sum := sha256.Sum256([]byte(body))
		object := hex.EncodeToString(sum[:])
		bucket[route.SiteObjectKey(prefix, object)] = workertest.Object{Text: body}
		m.Files[p] = route.SiteFile{Object: object, Type: "text/html; charset=utf-8", Size: int64(len(body))}
	}
	key := route.SiteManifestKey(prefix, "v1")
	whole := m
	if split {
		var shards []route.SiteManifest
		var err error
		if whole, shards, err = route.SplitSiteManifest(key, m); err != nil {
			return err
		}
		for i, s := range shards {
			b, err := route.EncodeSiteShard(s, key, i, len(shards))
			if err != nil {
				return err
			}
			bucket[route.SiteShardKey(key, i)] = workertest.Object{Text: string(b)}
		}
	}
	b, err := route.EncodeSiteManifest(whole)
	if err != nil {
		return err
	}
	bucket[key] = workertest.Object{Text: string(b)}
	rec, _, err := route.EncodeRecord(route.Record{App: app, Status: route.StatusActive, Kind: route.KindStatic,
		Static: &route.Static{Prefix: prefix, Index: "index.html", Manifest: key}})
	records[app] = string(rec)
	return err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func rounded(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', 1, 64)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
