package localedge

import (
	"bytes"
	"container/list"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// The Cf-Cache-Status values the zone cache answers with, as Cloudflare documents them.
const (
	headerCacheStatus = "Cf-Cache-Status"

	cacheHit     = "HIT"     // served from the cache
	cacheMiss    = "MISS"    // looked up, not found, fetched from the origin
	cacheExpired = "EXPIRED" // found but stale, fetched from the origin again
	cacheBypass  = "BYPASS"  // the origin (Cache-Control, Set-Cookie) or the request (Authorization) ruled caching out
	cacheDynamic = "DYNAMIC" // not eligible: a method or extension the cache ignores, or a Cache Rule turning caching off
)

// zoneCache is the local edge's model of the zone's cache in front of proxied origins: what a
// Worker's subrequest to a hostname proxied on the zone goes through on Cloudflare (see
// tunnelHandler for which fetches get it). It follows Cloudflare's default cache behaviour:
//
//   - only GET and HEAD; only the default cacheable file extensions (see cacheableExtensions),
//     unless a Cache Rule says "cache": true (eligible whatever the extension);
//   - keyed by the URL (scheme, host, path, query) and nothing else;
//   - the origin's Cache-Control is respected: private, no-store or no-cache, a zero TTL or a
//     Set-Cookie header mean BYPASS (not stored); s-maxage, then max-age, then Expires give the
//     TTL; without them the default edge TTL of the status (defaultEdgeTTL) applies;
//   - a request with Authorization is not cached (BYPASS);
//   - Cf-Cache-Status on every answer that went through the cache, Age on a HIT;
//   - purges by URL (cfapi's purge_cache) drop the entry;
//   - the zone's Cache Rules (the entrypoint ruleset of the http_request_cache_settings phase,
//     read through the Rules hook) apply: the last enabled matching set_cache_settings rule's
//     "cache" setting wins, and "cache": false bypasses the cache (DYNAMIC). Expressions are
//     understood in the shapes the provider writes (see parseHostExpression); any other
//     expression never matches and is logged once.
//
// A subrequest that opts out (fetch with cache: "no-store") never reaches the cache and gets
// no Cf-Cache-Status; see optsOut for how that is recognised.
//
// Only what will be stored is buffered, while it streams through: an answer that is not
// storable, or that grows past MaxEntryBytes, streams with no copy kept (server-sent events
// pass as they come). The cache lives in memory, bounded in entries and bytes (least recently
// used first out), and is safe for concurrent use; a restart empties it, as an eviction would.
type zoneCache struct {
	cfg zoneCacheConfig

	mu      sync.Mutex
	lru     *list.List // of *cacheEntry, most recently used at the front
	entries map[string]*list.Element
	bytes   int64

	exprMu sync.Mutex
	exprs  map[string]hostMatcher // parsed rule expressions; nil for one that is not understood
}

// zoneCacheConfig holds the zoneCache's hooks and bounds; zero values take the defaults.
type zoneCacheConfig struct {
	// MaxEntries bounds the number of stored answers. Default 1024.
	MaxEntries int
	// MaxBytes bounds the stored bodies and headers together. Default 64 MiB.
	MaxBytes int64
	// MaxEntryBytes is the largest answer stored; a larger one passes through uncached (on
	// Cloudflare the limit is 512 MB; the local edge keeps memory small). Default 8 MiB.
	MaxEntryBytes int64
	// Now is the clock for TTLs and Age. Default time.Now.
	Now func() time.Time
	// Rules returns the zone's Cache Rules in evaluation order (cfapi's CachePhase
	// entrypoint). Default: none.
	Rules func() []cfapi.RulesetRule
	// Logger receives a line per rule expression the cache does not understand (once each)
	// and per purge. Default slog.Default().
	Logger *slog.Logger
}

type cacheEntry struct {
	key     string
	status  int
	header  http.Header
	body    []byte
	stored  time.Time
	expires time.Time
	size    int64
}

func newZoneCache(cfg zoneCacheConfig) *zoneCache {
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = 1024
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 64 << 20
	}
	if cfg.MaxEntryBytes <= 0 {
		cfg.MaxEntryBytes = 8 << 20
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rules == nil {
		cfg.Rules = func() []cfapi.RulesetRule { return nil }
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &zoneCache{cfg: cfg, lru: list.New(), entries: map[string]*list.Element{}, exprs: map[string]hostMatcher{}}
}

// cacheableExtensions are the file extensions Cloudflare caches by default (its published
// list of default cached file extensions; HTML is not among them). robots.txt is cached too.
var cacheableExtensions = map[string]bool{}

func init() {
	for _, ext := range strings.Fields(`7z csv gif midi png tif zip avi doc gz mkv ppt tiff zst avif docx ico
		mp3 pptx ttf apk dmg iso mp4 ps webm bin ejs jar ogg rar webp bmp eot jpg otf svg woff bz2 eps jpeg pdf
		svgz woff2 class exe js pict swf xls css flac mid pls tar xlsx`) {
		cacheableExtensions[ext] = true
	}
}

// hasCacheableExtension reports whether the URL path ends in a default cacheable extension.
func hasCacheableExtension(p string) bool {
	base := path.Base(p)
	if base == "robots.txt" {
		return true
	}
	dot := strings.LastIndexByte(base, '.')
	return dot >= 0 && cacheableExtensions[strings.ToLower(base[dot+1:])]
}

// defaultEdgeTTL is Cloudflare's edge TTL for an answer without Cache-Control or Expires; a
// status not listed is not cached.
func defaultEdgeTTL(status int) time.Duration {
	switch status {
	case 200, 206, 301:
		return 120 * time.Minute
	case 302, 303:
		return 20 * time.Minute
	case 404, 410:
		return 3 * time.Minute
	}
	return 0
}

// optsOut reports whether a Worker's subrequest opted out of the cache (fetch with
// cache: "no-store"). The local runtime gives one signal for it: workerd marks such a
// subrequest on the wire with both Cache-Control: no-cache and Pragma: no-cache (what the
// Fetch standard prescribes for that mode; request.cache itself is not visible to the
// outbound service), and a fetch without the option carries neither (pinned by
// internal/workertest's TestOriginFetchBypassesSharedCache). On Cloudflare the runtime itself
// skips the cache for such a fetch and no header says so, while a request's own
// Cache-Control does not make the cache step aside by default: a Worker that merely forwards a
// visitor's hard-reload headers (the same pair) would still be cached there but is not here.
// Only the pair counts, which is as close as the local runtime lets us get. (The tunnel emulation is a Go server, which completes a lone
// Pragma: no-cache with Cache-Control: no-cache, RFC 9111 §5.4; an HTTP/1.0-style request
// therefore opts out here too.)
func optsOut(h http.Header) bool {
	return hasToken(h.Values("Cache-Control"), "no-cache") && hasToken(h.Values("Pragma"), "no-cache")
}

func hasToken(values []string, token string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// cacheKey is the default cache key: scheme, host and path with the query, as fetched.
func cacheKey(u *url.URL) string {
	k := strings.ToLower(u.Scheme) + "://" + normalizeHost(u.Host) + u.EscapedPath()
	if u.RawQuery != "" {
		k += "?" + u.RawQuery
	}
	return k
}

// serve answers r, a subrequest for u (a hostname proxied on the zone), from the cache or
// through origin, storing what the cache would store.
func (c *zoneCache) serve(w http.ResponseWriter, r *http.Request, u *url.URL, origin http.Handler) {
	if optsOut(r.Header) {
		origin.ServeHTTP(w, r)
		return
	}
	pass := func(status string) {
		origin.ServeHTTP(&statusWriter{ResponseWriter: w, status: status}, r)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		pass(cacheDynamic)
		return
	}
	cache, set := c.cacheSetting(normalizeHost(u.Host))
	switch {
	case set && !cache:
		pass(cacheDynamic)
		return
	case !set && !hasCacheableExtension(u.Path):
		pass(cacheDynamic)
		return
	case r.Header.Get("Authorization") != "":
		pass(cacheBypass)
		return
	}
	key := cacheKey(u)
	now := c.cfg.Now()
	status := cacheMiss
	if e, fresh := c.lookup(key, now); e != nil {
		if fresh {
			c.writeHit(w, r, e, now)
			return
		}
		status = cacheExpired
	}
	cw := &captureWriter{ResponseWriter: w, cache: c, method: r.Method, missStatus: status, now: now}
	origin.ServeHTTP(cw, r)
	// The proxy aborts the handler when copying the body fails, so a normal return means the
	// origin's answer went through whole, unless the client went away first (then the answer
	// may have been cut short) or it does not match its own Content-Length.
	if cw.store && cw.buf != nil && r.Context().Err() == nil && cw.complete() {
		c.put(&cacheEntry{key: key, status: cw.code, header: cw.stored, body: cw.buf.Bytes(), stored: now, expires: now.Add(cw.ttl)})
	}
}

// lookup returns the entry for key and whether it is fresh; a stale entry is dropped (the
// answer that replaces it is stored anew).
func (c *zoneCache) lookup(key string, now time.Time) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	e := entryOf(el)
	if !now.Before(e.expires) {
		c.remove(el)
		return e, false
	}
	c.lru.MoveToFront(el)
	return e, true
}

func (c *zoneCache) writeHit(w http.ResponseWriter, r *http.Request, e *cacheEntry, now time.Time) {
	h := w.Header()
	for k, v := range e.header {
		h[k] = append([]string(nil), v...)
	}
	h.Set(headerCacheStatus, cacheHit)
	h.Set("Age", strconv.Itoa(int(now.Sub(e.stored)/time.Second)))
	h.Set("Content-Length", strconv.Itoa(len(e.body)))
	w.WriteHeader(e.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(e.body)
	}
}

func (c *zoneCache) put(e *cacheEntry) {
	e.size = int64(len(e.body))
	for k, vs := range e.header {
		for _, v := range vs {
			e.size += int64(len(k) + len(v))
		}
	}
	if e.size > c.cfg.MaxEntryBytes || e.size > c.cfg.MaxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[e.key]; ok {
		c.remove(el)
	}
	c.entries[e.key] = c.lru.PushFront(e)
	c.bytes += e.size
	for c.lru.Len() > c.cfg.MaxEntries || c.bytes > c.cfg.MaxBytes {
		c.remove(c.lru.Back())
	}
}

// remove drops one entry; callers hold c.mu.
func (c *zoneCache) remove(el *list.Element) {
	e := entryOf(el)
	c.lru.Remove(el)
	delete(c.entries, e.key)
	c.bytes -= e.size
}

// entryOf is the entry an element of c.lru holds.
func entryOf(el *list.Element) *cacheEntry {
	return el.Value.(*cacheEntry) //nolint:forcetypeassert // put is the only writer, and it stores *cacheEntry
}

// purge drops the entries of the purged URLs (the cache keys they name) and returns how many
// were stored.
func (c *zoneCache) purge(urls []string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			continue
		}
		if el, ok := c.entries[cacheKey(u)]; ok {
			c.remove(el)
			n++
		}
	}
	return n
}

// len is the number of stored entries (for tests and logs).
func (c *zoneCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// cacheSetting applies the zone's Cache Rules to host: set is false when no enabled
// set_cache_settings rule with a "cache" setting matches; otherwise cache is the setting of
// the last one that does (later rules override earlier ones, as on Cloudflare).
func (c *zoneCache) cacheSetting(host string) (cache, set bool) {
	for _, rule := range c.cfg.Rules() {
		if !rule.Enabled || rule.Action != cfapi.ActionSetCacheSettings {
			continue
		}
		setting, ok := ruleCacheSetting(rule)
		if !ok {
			continue
		}
		if m := c.matcher(rule.Expression); m != nil && m(host) {
			cache, set = setting, true
		}
	}
	return cache, set
}

// matcher parses a rule expression once; one the cache does not understand is logged the
// first time and never matches.
func (c *zoneCache) matcher(expr string) hostMatcher {
	c.exprMu.Lock()
	defer c.exprMu.Unlock()
	if m, ok := c.exprs[expr]; ok {
		return m
	}
	m, err := parseHostExpression(expr)
	if err != nil {
		c.cfg.Logger.Warn("zone cache: a Cache Rule expression the local edge does not understand never matches",
			"expression", expr, "reason", err.Error())
	}
	c.exprs[expr] = m
	return m
}

// storability decides, from an origin answer's status and headers, whether the cache stores
// it and for how long, and what Cf-Cache-Status says about it.
func storability(status int, h http.Header, now time.Time) (ttl time.Duration, cacheStatus string) {
	if len(h.Values("Set-Cookie")) > 0 {
		return 0, cacheBypass
	}
	cc := parseCacheControl(h.Values("Cache-Control"))
	if _, ok := cc["private"]; ok {
		return 0, cacheBypass
	}
	if _, ok := cc["no-store"]; ok {
		return 0, cacheBypass
	}
	if _, ok := cc["no-cache"]; ok {
		return 0, cacheBypass
	}
	explicit := false
	for _, directive := range []string{"s-maxage", "max-age"} {
		if v, ok := cc[directive]; ok {
			secs, err := strconv.ParseInt(v, 10, 64)
			if err != nil || secs < 0 {
				secs = 0 // an invalid value is treated as stale (RFC 9111 §4.2.1)
			}
			ttl, explicit = time.Duration(secs)*time.Second, true
			break
		}
	}
	if !explicit {
		if v := h.Get("Expires"); v != "" {
			t, err := http.ParseTime(v)
			if err == nil {
				ttl = t.Sub(now)
			}
			explicit = true
		}
	}
	if explicit && ttl <= 0 {
		return 0, cacheBypass
	}
	switch {
	case status < 200, status == http.StatusPartialContent, status == http.StatusNotModified:
		// A partial or conditional answer is not the resource itself.
		return 0, ""
	case explicit:
		return ttl, ""
	}
	return defaultEdgeTTL(status), ""
}

// parseCacheControl returns the directives (lower-cased names; values without quotes).
func parseCacheControl(values []string) map[string]string {
	out := map[string]string{}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			if _, seen := out[name]; !seen {
				out[name] = strings.Trim(strings.TrimSpace(value), `"`)
			}
		}
	}
	return out
}

// captureWriter passes an origin answer through while deciding, at WriteHeader, whether it
// will be stored, and then keeping a copy of the body (up to the entry limit) if it will.
type captureWriter struct {
	http.ResponseWriter
	cache      *zoneCache
	method     string
	missStatus string // MISS or EXPIRED, for an answer that does not say otherwise
	now        time.Time

	wroteHeader bool
	code        int
	store       bool
	ttl         time.Duration
	stored      http.Header
	buf         *bytes.Buffer
}

func (cw *captureWriter) WriteHeader(code int) {
	if cw.wroteHeader || code < 200 {
		cw.ResponseWriter.WriteHeader(code)
		return
	}
	cw.wroteHeader, cw.code = true, code
	h := cw.Header()
	h.Del(headerCacheStatus) // the origin's own, if any, says nothing about this cache
	ttl, status := storability(code, h, cw.now)
	if status == "" {
		status = cw.missStatus
	}
	h.Set(headerCacheStatus, status)
	limit := cw.cache.cfg.MaxEntryBytes
	if n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64); err == nil && n > limit {
		ttl = 0 // too large to keep: stream it with no copy
	}
	if ttl > 0 && cw.method == http.MethodGet {
		cw.store, cw.ttl = true, ttl
		cw.stored = h.Clone()
		cw.stored.Del(headerCacheStatus)
		cw.buf = &bytes.Buffer{}
	}
	cw.ResponseWriter.WriteHeader(code)
}

func (cw *captureWriter) Write(p []byte) (int, error) {
	if !cw.wroteHeader {
		cw.WriteHeader(http.StatusOK)
	}
	n, err := cw.ResponseWriter.Write(p)
	if cw.store {
		if int64(cw.buf.Len()+n) > cw.cache.cfg.MaxEntryBytes {
			cw.store, cw.buf = false, nil // past the limit: the rest streams, nothing is kept
		} else {
			cw.buf.Write(p[:n])
		}
	}
	return n, err
}

// complete reports whether the copy holds the whole body the headers announced.
func (cw *captureWriter) complete() bool {
	n, err := strconv.ParseInt(cw.stored.Get("Content-Length"), 10, 64)
	return err != nil || n == int64(cw.buf.Len())
}

// Flush keeps streaming answers streaming (the proxy flushes after every write).
func (cw *captureWriter) Flush() {
	if f, ok := cw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (cw *captureWriter) Unwrap() http.ResponseWriter { return cw.ResponseWriter }

// statusWriter sets Cf-Cache-Status on an answer that passes the cache by (the origin's own
// header must not stand in for it).
type statusWriter struct {
	http.ResponseWriter
	status      string
	wroteHeader bool
}

func (sw *statusWriter) WriteHeader(code int) {
	if !sw.wroteHeader && code >= 200 {
		sw.wroteHeader = true
		sw.Header().Set(headerCacheStatus, sw.status) // replaces the origin's own, if any
	}
	sw.ResponseWriter.WriteHeader(code)
}

func (sw *statusWriter) Write(p []byte) (int, error) {
	if !sw.wroteHeader {
		sw.WriteHeader(http.StatusOK)
	}
	return sw.ResponseWriter.Write(p)
}

func (sw *statusWriter) Flush() {
	if f, ok := sw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (sw *statusWriter) Unwrap() http.ResponseWriter { return sw.ResponseWriter }
