package workertest

import (
	"bufio"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

const (
	platform   = "kamui.test"
	testSecret = "test-signing-secret-0123456789abcdef"
	testMarker = "test-marker-fedcba9876543210"
)

var (
	edgeURL    string
	host       *Host
	workerDir  string     // the built Worker, for tests that need a host of their own
	hostConfig HostConfig // the shared host's configuration, for tests that need a variant
)

// TestMain builds the Worker once and starts one workerd for the whole package: start-up
// costs seconds, and every scenario below is independent of the others' hosts.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	root, err := RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := CheckNodeModules(root); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// go test caches results by the files the test binary opens; the Worker is built by a
	// subprocess, so read its inputs here to make a source change invalidate the cache.
	for _, dir := range []string{"worker-src/edge", "worker-src/edge/wasm", "worker-src/edge/wire", "worker-src/edge/js", "internal/route", "scripts"} {
		entries, _ := os.ReadDir(filepath.Join(root, dir))
		for _, e := range entries {
			if !e.IsDir() {
				_, _ = os.ReadFile(filepath.Join(root, dir, e.Name())) // opened to be recorded, not used
			}
		}
	}
	_, _ = os.ReadFile(filepath.Join(root, "internal", "workertest", "host.mjs"))
	out, err := os.MkdirTemp("", "edge-worker-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(out) }() // a temporary build: a leftover only takes space
	if _, err := BuildWorker(root, out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}

	// The origins below are closed once the tests are over; closing says nothing they need.
	echo := startServer(echoHandler())
	defer func() { _ = echo.Close() }()
	slow := startServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slowArrivals <- r.URL.Path:
		default:
		}
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
		_, _ = w.Write([]byte("too late")) // the timeout test expects nothing of it to arrive
	}))
	defer func() { _ = slow.Close() }()
	ws := startWSEcho()
	defer func() { _ = ws.Close() }()
	closed := closedPort()

	cfg := HostConfig{
		ModulesRoot: out,
		Modules:     EdgeModules(),
		Bindings: map[string]string{
			"PLATFORM_DOMAIN":          platform,
			"FRESHNESS_BUDGET_SECONDS": "120",
			"UPSTREAM_TIMEOUT_MS":      "30000",
			"LOG_SAMPLE_RATE":          "1",
			"SIGNING_SECRET":           testSecret,
			"CACHE_MARKER":             testMarker,
		},
		CompatibilityDate:  route.WorkerCompatibilityDate,
		CompatibilityFlags: route.WorkerCompatibilityFlags(),
		KV:                 seedKV(),
		R2:                 seedR2(),
		Cache:              seedCache(),
		CountKV:            true,
		// KV and Cache API failures, injected inside the runtime.
		FailKV:    []string{"kvfail", "www.kvfail.example"},
		FailCache: []string{"cachefail"},
		Origins: map[string]string{
			"tunnel.kamui.test":   "http://" + echo.Addr().String(),
			"slow.kamui.test":     "http://" + slow.Addr().String(),
			"ws.kamui.test":       "http://" + ws.Addr().String(),
			"down.kamui.test":     "http://" + closed,
			"unrouted.kamui.test": "http://" + closed,
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	host, err = StartHost(ctx, root, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer host.Close()
	edgeURL = host.URL
	workerDir = out
	hostConfig = cfg
	code := m.Run()
	if code != 0 {
		fmt.Fprintln(os.Stderr, "host stderr:\n"+host.Stderr())
	}
	return code
}

// startOwnHost starts a workerd of the test's own with cfg (usually a variant of hostConfig),
// closed when the test ends, for what the shared host cannot show: other bindings, other KV
// contents, a fresh isolate.
func startOwnHost(t *testing.T, cfg HostConfig, timeout time.Duration) *Host {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	h, err := StartHost(ctx, root, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// useHost points do and logOf at h until the test ends.
func useHost(t *testing.T, h *Host) {
	savedURL, savedHost := edgeURL, host
	edgeURL, host = h.URL, h
	t.Cleanup(func() { edgeURL, host = savedURL, savedHost })
}

func mustRecord(r route.Record) string {
	b, _, err := route.EncodeRecord(r)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func mustMapping(m route.DomainMapping) string {
	b, _, err := route.EncodeDomainMapping(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func dyn(app, origin string, timeoutMS int) route.Record {
	return route.Record{App: app, Status: route.StatusActive, Kind: route.KindDynamic,
		Dynamic: &route.Dynamic{Origin: origin, Upstream: "tenant-" + app + "/web:8080", TimeoutMS: timeoutMS}}
}

func seedKV() map[string]map[string]string {
	prov := dyn("prov", "tunnel.kamui.test", 5000)
	prov.Status = route.StatusProvisioning
	return map[string]map[string]string{
		"ROUTES": {
			"shop": mustRecord(dyn("shop", "tunnel.kamui.test", 5000)),
			"slow": mustRecord(dyn("slow", "slow.kamui.test", 300)),
			"down": mustRecord(dyn("down", "down.kamui.test", 5000)),
			"chat": mustRecord(dyn("chat", "ws.kamui.test", 5000)),
			"prov": mustRecord(prov),
			"docs": mustRecord(route.Record{App: "docs", Status: route.StatusActive, Kind: route.KindStatic,
				Static: &route.Static{Prefix: "sites/docs/v1/", Index: "index.html", NotFound: "404.html"}}),
			"cachefail": mustRecord(dyn("cachefail", "tunnel.kamui.test", 5000)),
			"cas":       mustRecord(casRecord(casManifest(1))),
			"casshard": mustRecord(route.Record{App: "casshard", Status: route.StatusActive, Kind: route.KindStatic,
				Static: &route.Static{Prefix: "sites/casshard/", Index: "index.html", NotFound: "404.html",
					Manifest: route.SiteManifestKey("sites/casshard/", "v1")}}),
			"casbad": mustRecord(brokenSite("casbad")),
			"casbig": mustRecord(brokenSite("casbig")),
			"casnul": mustRecord(brokenSite("casnul")),
			"spa": mustRecord(route.Record{App: "spa", Status: route.StatusActive, Kind: route.KindStatic,
				Static: &route.Static{Prefix: "sites/spa/v1/", Index: "index.html", SPA: true}}),
			"broken": `{"v":1,"app":"broken","status":"active","kind":"dynamic"`,
			// A NUL cannot cross the adapter's wire as it is (worker.mjs says so instead); no
			// JSON holds one, and the answer is a bad record either way.
			"nul":    `{"v":1,"app":"nul","status":"active","kind":"dynamic"` + "\x00}",
			"future": `{"v":2,"app":"future","status":"active","kind":"dynamic","dynamic":{"origin":"tunnel.kamui.test","upstream":"a/b:1","timeout_ms":1000},"rev":"x"}`,
		},
		"DOMAINS": {
			"www.shop.example": mustMapping(route.DomainMapping{App: "shop", Status: route.StatusActive}),
			"www.prov.example": mustMapping(route.DomainMapping{App: "shop", Status: route.StatusProvisioning}),
			"www.docs.example": mustMapping(route.DomainMapping{App: "docs", Status: route.StatusActive}),
			// A mapping to an app with no record (ROUTES has no "ghost").
			"www.ghost.example": mustMapping(route.DomainMapping{App: "ghost", Status: route.StatusActive}),
		},
	}
}

func seedR2() map[string]map[string]Object {
	objects := map[string]map[string]Object{"STATIC": {
		"sites/docs/v1/index.html":       {Text: "<h1>docs home</h1>", ContentType: "text/html"},
		"sites/docs/v1/guide/start.html": {Text: "<h1>start</h1>", ContentType: "text/html"},
		"sites/docs/v1/404.html":         {Text: "<h1>docs 404</h1>", ContentType: "text/html"},
		"sites/docs/v1/cached.html":      {Text: "<h1>cached once</h1>", ContentType: "text/html"},
		"sites/spa/v1/index.html":        {Text: "<div id=app>spa</div>", ContentType: "text/html"},
		"sites/docs/v1/data.txt":         {Text: deliveryBody, ContentType: "text/plain"},
		// Metadata no header may carry (the bucket takes it through the binding).
		"sites/docs/v1/badtype.txt": {Text: "bad type", ContentType: "text/plain\r\nSet-Cookie: a=1"},
	}}
	for v := 1; v <= 2; v++ {
		putSite(objects["STATIC"], casPrefix, "v"+strconv.Itoa(v), casFiles(v))
	}
	putSite(objects["STATIC"], "sites/casshard/", "v1", casShardFiles())
	// Manifests the Worker must refuse: a type that would split a header, one larger than
	// route.MaxSiteManifestBytes (refused by worker.mjs from R2's size), one holding a NUL.
	obj := siteObject("x")
	objects["STATIC"][route.SiteObjectKey("sites/casbad/", obj)] = Object{Text: "x"}
	objects["STATIC"][route.SiteManifestKey("sites/casbad/", "v1")] = Object{Text: `{"v":1,"files":{"index.html":{"object":"` + obj +
		`","type":"text/html\r\nSet-Cookie: a=1","size":1}}}`}
	objects["STATIC"][route.SiteManifestKey("sites/casbig/", "v1")] = Object{Text: `{"v":1,"files":{}}` + strings.Repeat(" ", route.MaxSiteManifestBytes)}
	objects["STATIC"][route.SiteManifestKey("sites/casnul/", "v1")] = Object{Text: `{"v":1,"files":{}` + "\x00}"}
	return objects
}

// cas is docs in the content-addressed layout (what kamuidash_static_site writes), with two
// versions: v2 changes data.txt and keeps every other file (the same objects). The shared
// host's record names v1.
const casPrefix = "sites/cas/"

func casFiles(version int) map[string]siteContent {
	files := map[string]siteContent{
		"index.html":       {"text/html; charset=utf-8", "<h1>cas home</h1>"},
		"guide/start.html": {"text/html; charset=utf-8", "<h1>cas start</h1>"},
		"guide/index.html": {"text/html; charset=utf-8", "<h1>cas guide</h1>"},
		"404.html":         {"text/html; charset=utf-8", "<h1>cas 404</h1>"},
		"data.txt":         {"text/plain; charset=utf-8", deliveryBody},
	}
	if version == 2 {
		files["data.txt"] = siteContent{"text/plain; charset=utf-8", casDataV2}
	}
	return files
}

const casDataV2 = "version two of data.txt"

func casManifest(version int) string {
	return route.SiteManifestKey(casPrefix, "v"+strconv.Itoa(version))
}

func casRecord(manifest string) route.Record {
	return route.Record{App: "cas", Status: route.StatusActive, Kind: route.KindStatic,
		Static: &route.Static{Prefix: casPrefix, Index: "index.html", NotFound: "404.html", Manifest: manifest}}
}

func brokenSite(app string) route.Record {
	prefix := "sites/" + app + "/"
	return route.Record{App: app, Status: route.StatusActive, Kind: route.KindStatic,
		Static: &route.Static{Prefix: prefix, Index: "index.html", Manifest: route.SiteManifestKey(prefix, "v1")}}
}

type siteContent struct{ typ, body string }

// siteObject is the object name (hash) of content.
func siteObject(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}

// putSite adds one site version to a bucket's seed: each content once under objects/ (with
// a type of its own, which the Worker must not serve: the manifest's is the path's), then
// the manifest, split into shards as the provider splits it when the site is large.
func putSite(bucket map[string]Object, prefix, version string, files map[string]siteContent) {
	m := route.SiteManifest{Files: map[string]route.SiteFile{}}
	for p, c := range files {
		obj := siteObject(c.body)
		bucket[route.SiteObjectKey(prefix, obj)] = Object{Text: c.body, ContentType: "application/octet-stream"}
		m.Files[p] = route.SiteFile{Object: obj, Type: c.typ, Size: int64(len(c.body))}
	}
	key := route.SiteManifestKey(prefix, version)
	root, shards, err := route.SplitSiteManifest(key, m)
	if err != nil {
		panic(err)
	}
	for i, s := range shards {
		b, err := route.EncodeSiteShard(s, key, i, len(shards))
		if err != nil {
			panic(err)
		}
		bucket[route.SiteShardKey(key, i)] = Object{Text: string(b), ContentType: "application/json"}
	}
	b, err := route.EncodeSiteManifest(root)
	if err != nil {
		panic(err)
	}
	bucket[key] = Object{Text: string(b), ContentType: "application/json"}
}

// casShardFiles is a site large enough to be split into shards: cas's files and pages.
func casShardFiles() map[string]siteContent {
	files := casFiles(1)
	for i := range 2 * route.SiteShardFiles {
		files["pages/"+strconv.Itoa(i)+".html"] = siteContent{"text/html; charset=utf-8", "<p>page " + strconv.Itoa(i) + "</p>"}
	}
	return files
}

func seedCache() map[string]CacheEntry {
	return map[string]CacheEntry{
		// This deployment's marker: served before routing, marker stripped.
		"http://docs.kamui.test/precached.html": {Headers: map[string]string{
			route.CacheMarkerHeader: testMarker, "Content-Type": "text/plain", "Cache-Control": "max-age=600"},
			Text: "FROM-CACHE"},
		// A forged or foreign entry: must be ignored.
		"http://docs.kamui.test/guide/start.html": {Headers: map[string]string{
			route.CacheMarkerHeader: "not-the-marker-000000", "Cache-Control": "max-age=600"},
			Text: "FORGED"},
		"http://docs.kamui.test/index.html": {Headers: map[string]string{"Cache-Control": "max-age=600"},
			Text: "UNMARKED"},
		// Route-cache entries as the Worker writes them (marked), under the route cache's own
		// URL and under a public content URL: neither may ever be answered as content.
		strings.Replace(route.RouteCacheKey(platform, "www.shop.example"), "https:", "http:", 1): routeEntry("www.shop.example"),
		"http://docs.kamui.test/guide/start.html?entry":                                          routeEntry("docs.kamui.test"),
	}
}

// routeEntry is a route-cache entry for host in the Worker's format (entry version 2: base64url
// JSON in Kamui-Route-Entry, an empty body, this deployment's marker).
func routeEntry(host string) CacheEntry {
	now := time.Now()
	entry, _ := json.Marshal(map[string]any{"v": 2, "host": host, "app": "shop",
		"record":  json.RawMessage(mustRecord(dyn("shop", "tunnel.kamui.test", 5000))),
		"read_at": now.UnixMilli(), "exp": now.Add(time.Hour).UnixMilli()})
	return CacheEntry{Headers: map[string]string{
		"Kamui-Route-Entry":     base64.RawURLEncoding.EncodeToString(entry),
		route.CacheMarkerHeader: testMarker, "Cache-Control": "max-age=3600"}}
}

// slowArrivals receives the path of each request the slow origin gets, while it has room (a
// few, so that a test's arrival is never dropped for want of a receiver at that moment): a
// request known to be waiting on its upstream.
var slowArrivals = make(chan string, 16)

func startServer(h http.Handler) net.Listener {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() { _ = http.Serve(l, h) }() // returns once the listener is closed
	return l
}

// echoHandler answers with the request it received, and with headers an origin must not
// get past the edge (a forged marker, a context header).
func echoHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := map[string]string{"method": r.Method, "host": r.Host, "path": r.URL.Path, "query": r.URL.RawQuery}
		for k, v := range r.Header {
			seen["h:"+strings.ToLower(k)] = strings.Join(v, ",")
		}
		if r.Body != nil {
			b, _ := io.ReadAll(r.Body)
			seen["body"] = string(b)
		}
		w.Header().Set(route.CacheMarkerHeader, testMarker)
		w.Header().Set("Kamui-App", "leaked")
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Set-Cookie", "b=2")
		if r.URL.Path == "/status-999" {
			w.WriteHeader(999) // a status no Response may carry
			return
		}
		if r.URL.Path == "/public" {
			w.Header().Set("Cache-Control", "public, max-age=30")
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(seen) // the tests check what arrives through the Worker
	})
}

// startWSEcho is a minimal RFC 6455 server: handshake, then echo unmasked text frames
// (short payloads only; enough to prove the upgrade passes through the edge).
func startWSEcho() net.Listener {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer func() { _ = c.Close() }()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				key := req.Header.Get("Sec-WebSocket-Key")
				h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
				if _, err := fmt.Fprintf(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
					base64.StdEncoding.EncodeToString(h[:])); err != nil {
					return
				}
				for {
					payload, err := readFrame(br)
					if err != nil {
						return
					}
					if _, err := c.Write(textFrame(append([]byte("echo:"), payload...), nil)); err != nil {
						return
					}
				}
			}(c)
		}
	}()
	return l
}

func readFrame(r *bufio.Reader) ([]byte, error) {
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := int(hdr[1] & 0x7f)
	if n >= 126 {
		return nil, fmt.Errorf("long frames not supported")
	}
	var mask [4]byte
	masked := hdr[1]&0x80 != 0
	if masked {
		if _, err := io.ReadFull(r, mask[:]); err != nil {
			return nil, err
		}
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return nil, err
	}
	if masked {
		for i := range p {
			p[i] ^= mask[i%4]
		}
	}
	return p, nil
}

func textFrame(p []byte, mask []byte) []byte {
	b := []byte{0x81, byte(len(p))}
	if mask != nil {
		b[1] |= 0x80
		b = append(b, mask...)
		q := append([]byte(nil), p...)
		for i := range q {
			q[i] ^= mask[i%4]
		}
		return append(b, q...)
	}
	return append(b, p...)
}

func closedPort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		panic(err)
	}
	return addr
}
