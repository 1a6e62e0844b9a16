package edge

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

type resKind int

const (
	resFound       resKind = iota // an active, validated record
	resAbsent                     // confirmed absence: negative-cached
	resUnavailable                // provisioning or disabled: 503, never cached
	resBadRecord                  // malformed, unknown version, inconsistent: 502, never cached
	resKVError                    // KV failed: 503, never cached
)

type resolution struct {
	_    [0]func() // not comparable: no equality function in the Wasm (see logLine)
	kind resKind
	app  string
	rec  route.Record
	// readAt is when the data was read from KV; content entries derive their lifetime
	// from it so that the whole chain stays within the freshness budget.
	readAt time.Time
	from   string // memo | shared | route-cache | kv
	err    string
	// mapRev is the revision of the DOMAINS mapping a custom host was resolved through, for
	// the propagation probe ("" for platform hosts).
	mapRev string
	// raw is rec as KV held it (validated): the route-cache entry stores these bytes, so an
	// entry costs no second encoding of the record. Nil for a record from elsewhere.
	raw []byte
}

func (r resolution) cacheable() bool { return r.kind == resFound || r.kind == resAbsent }

// flightTimeout bounds how long a request waits for another one resolving the same host,
// and how long a flight counts as in progress. In the Worker a request cancelled mid-lookup
// (client gone) never finishes its goroutine; its flight must not hold others up for good.
const flightTimeout = 3 * time.Second

// resolve finds the route for host. Concurrent misses for the same host share one lookup
// (in-isolate single flight), so a burst on a cold host costs the KV reads of one request.
// A Decide leads a flight too, once the adapter has looked the route cache up: it names the
// KV reads for the adapter (named.go) and holds the flight across its passes until the last
// one is back; a concurrent Decide of the same host leaves the request to Run, which waits
// for it.
func (h *Handler) resolve(ex *Exchange, host, platformApp string, isPlatform bool) resolution {
	if e := ex.early; e != nil && e.host == host {
		// An earlier Decide of this request resolved it from the route cache or KV.
		ex.line.RouteCache = e.routeCache
		ex.puts = append(ex.puts, e.puts...)
		return e.res
	}
	now := h.now()
	h.mu.Lock()
	if m, ok := h.memo[host]; ok && now.Before(m.exp) {
		h.mu.Unlock()
		r := m.res
		r.from = "memo"
		return r
	}
	f, held := h.flights[host]
	if held && f != ex.flight && now.Sub(f.started) < flightTimeout {
		h.mu.Unlock()
		if !ex.blocking {
			ex.wait() // Run waits for it
			return resolution{}
		}
		h.waitShared(f.done)
		select {
		case <-f.done:
			r := f.res
			r.from = "shared"
			return r
		default:
			// The other request gave no answer in time: resolve on our own.
			return h.lookup(ex, host, platformApp, isPlatform)
		}
	}
	if !ex.blocking && ex.req.Route == nil {
		// Without I/O the route cache is looked up by the adapter first.
		h.mu.Unlock()
		ex.needRoute = route.RouteCacheKey(h.Config.PlatformDomain, host)
		ex.wait()
		return resolution{}
	}
	if !held || f != ex.flight {
		if h.flights == nil {
			h.flights = map[string]*flight{}
		} else if len(h.flights) >= maxMemoEntries {
			// A request whose client left while its read was out never ends its flight, which
			// stopped counting after flightTimeout: without this, a flood of random hosts whose
			// clients leave would grow the map for the isolate's whole life.
			for k, o := range h.flights {
				if now.Sub(o.started) >= flightTimeout {
					delete(h.flights, k)
				}
			}
		}
		// A flight of this exchange's own that went (its read out longer than flightTimeout)
		// is put back, so that it is still ended when the read comes back.
		if f = ex.flight; f == nil {
			f = &flight{done: make(chan struct{}), started: now}
			ex.flight = f
		}
		h.flights[host] = f
	}
	h.mu.Unlock()

	r := h.lookup(ex, host, platformApp, isPlatform)
	if ex.pending {
		return resolution{} // a named read is out; the flight stays ours until it is back
	}
	h.mu.Lock()
	if h.flights[host] == f {
		delete(h.flights, host)
	}
	h.remember(host, r)
	h.mu.Unlock()
	ex.flight = nil
	f.res = r
	close(f.done)
	if !ex.blocking {
		// The passes after this one (the manifest, the object) take it as it is, with the
		// route-cache entries it stores.
		ex.early = &earlyResolution{host: host, res: r, routeCache: ex.line.RouteCache,
			puts: append([]CachePut(nil), ex.puts...)}
	}
	return r
}

// remember puts a cacheable resolution into the memo; h.mu must be held. The entry lives for
// the memo's lifetime, and never past what the route cache could have held the data for plus
// that lifetime: a record reused for another host of its app (appResolution) carries its
// first read's time, and must not be given a new lease by each host it serves.
func (h *Handler) remember(host string, r resolution) {
	if !r.cacheable() || h.Config.TTLs.Memo <= 0 {
		return
	}
	now := h.now()
	exp := now.Add(h.Config.TTLs.Memo)
	if last := r.readAt.Add(h.cacheTTL(r) + h.Config.TTLs.Memo); last.Before(exp) {
		exp = last
	}
	if !now.Before(exp) {
		return
	}
	if h.memo == nil || len(h.memo) >= maxMemoEntries {
		h.memo = map[string]memoEntry{}
	}
	h.memo[host] = memoEntry{res: r, exp: exp}
}

// memoize is remember for a caller that does not hold h.mu.
func (h *Handler) memoize(host string, r resolution) {
	h.mu.Lock()
	h.remember(host, r)
	h.mu.Unlock()
}

// cacheTTL is how long the route cache may hold r, counted from its KV read.
func (h *Handler) cacheTTL(r resolution) time.Duration {
	if r.kind == resAbsent {
		return h.Config.TTLs.Negative
	}
	return h.Config.TTLs.RouteCache
}

// appResolution is app's record as this isolate or colo already resolved it, for a custom host
// whose mapping names app: the record belongs to the app, not to the host, so an app reached by
// several hosts has it read from ROUTES once. It is kept under the app's platform host (in the
// memo and the route cache), which is the app's own key (one platform host per app), holds
// exactly what resolving the app gives, and is the key the provider purges when it changes the
// record. The same strict decoding applies, and the data keeps its read time, so whatever is
// derived from it expires with it.
//
// The app's entry is looked up only when the isolate has reason to think it is there: the
// lookup named beside the mapping's read (Exchange.appEntry) or Run's early one (early; nil for
// none) when the mapping names the app they were made for, else one of its own when the entry
// is likely there (appEntryLikely), which a Decide names for the adapter.
func (h *Handler) appResolution(ex *Exchange, app string, early *appLookup) (resolution, bool) {
	host, ok := h.appHost(app)
	if !ok {
		return resolution{}, false
	}
	if r, ok := h.memoEntry(host); ok && (r.kind == resAbsent || r.kind == resFound && r.rec.App == app) {
		return r, true
	}
	var m routeMatch
	switch named := &ex.appEntry; {
	case named.app == app && named.back != nil:
		m = routeMatch{named.back.Entry, named.back.Found, named.back.Err}
	case named.app == app && !ex.blocking:
		ex.needRoute = named.key // still out: named again as it is, no second lookup
		ex.wait()
		return resolution{}, false
	case early != nil && early.app == app && early.lookup != nil:
		m, early.lookup = early.lookup.take(), nil
	case !h.appEntryLikely(host):
		return resolution{}, false
	case !ex.blocking && named.app == "":
		ex.nameAppEntry(app, host)
		ex.wait()
		return resolution{}, false
	case !ex.blocking:
		// The lookup named beside the mapping was for the app the host had before, and may
		// still be out in the only slot a route lookup has: Run looks this one up.
		ex.wait()
		return resolution{}, false
	default:
		ex.line.IORounds++ // a wait of its own, between the mapping and any ROUTES read
		m.e, m.found, m.err = h.Cache.Match(route.RouteCacheKey(h.Config.PlatformDomain, host))
	}
	r, _, ok := h.decodeRouteEntry(m, host)
	if !ok || (r.kind == resFound && r.rec.App != app) {
		return resolution{}, false
	}
	h.memoize(host, r)
	return r, true
}

// appEntryLikely reports whether the route cache most likely holds the entry of an app's host:
// the memo, live or expired, remembers a resolution of that host whose data is younger than the
// route cache keeps it, so this isolate stored or read that entry and it has not expired since.
// Only then is the entry looked up between a custom host's mapping and its ROUTES read. A
// lookup without that evidence mostly misses: an app reached only by its custom hosts has its
// entry stored together with theirs and gone with them, and an app another isolate resolved
// usually has the custom host's own entry stored too. In the bench's trace two of three such
// lookups missed, each a sequential wait on a custom host's cold path, which is where the p99
// lies; a ROUTES read that KV's edge cache answers costs no more than the lookup.
func (h *Handler) appEntryLikely(host string) bool {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	m, ok := h.memo[host]
	return ok && m.res.cacheable() && now.Before(m.res.readAt.Add(h.cacheTTL(m.res)))
}

// appLookup is the route-cache lookup of an app's entry, started by Run beside a custom host's
// mapping read because this isolate resolved the host to that app before (earlyAppLookup).
type appLookup struct {
	_ [0]func() // not comparable (see logLine)

	app    string
	lookup *pendingMatch // nil once taken
}

// hintedApp is the app this isolate last resolved host to, and that app's platform host, when
// its route-cache entry is worth looking up beside the host's mapping read: the memo still holds
// host's resolution (live or expired) and not the app's own, whose entry is likely there. The
// mapping almost always names the same app again, and then the app's entry costs no wait of its
// own.
func (h *Handler) hintedApp(host string) (app, appHost string, ok bool) {
	r, ok := h.lastFound(host)
	if !ok || r.rec.App == "" {
		return "", "", false
	}
	app = r.rec.App
	appHost, ok = h.appHost(app)
	if !ok || h.memoHas(appHost) || !h.appEntryLikely(appHost) {
		return "", "", false
	}
	return app, appHost, true
}

// earlyAppLookup starts, for Run, the lookup of the hinted app's entry (hintedApp) beside the
// host's mapping read; nil when there is no hint, or when the adapter has already made the
// mapping's read (the lookup would be a wait of its own, which appResolution makes and counts).
func (h *Handler) earlyAppLookup(ex *Exchange, host string) *appLookup {
	if ex.appEntry.app != "" || ex.madeRead(h.mappingRead(host)) != nil {
		return nil
	}
	app, appHost, ok := h.hintedApp(host)
	if !ok {
		return nil
	}
	return &appLookup{app: app, lookup: h.prefetchRoute(appHost)}
}

// appEntryRead is the route-cache lookup of an app's entry that a Decide named for the adapter
// in the route lookup's place (Exchange.RouteBack files its outcome here): beside a custom
// host's mapping read for the app the host had before (hintedApp), or after the mapping when
// the entry is likely there. One per exchange: the adapter has one route lookup out at a time.
type appEntryRead struct {
	_ [0]func() // not comparable (see logLine)

	app, key string
	asked    bool    // named to the adapter; its round counted
	back     *Lookup // its outcome, once back
}

// nameAppEntry names the lookup of app's entry (its platform host's key) for the adapter.
func (ex *Exchange) nameAppEntry(app, appHost string) {
	if ex.appEntry.app == "" {
		ex.appEntry = appEntryRead{app: app, key: route.RouteCacheKey(ex.h.Config.PlatformDomain, appHost)}
	}
	ex.needRoute = ex.appEntry.key
}

// RouteBack files the outcome of the route-cache lookup the last Decide named (Lookups): the
// host's own (Request.Route), or an app's entry named in its place (appEntryRead), which the
// adapter names only after the host's has come back.
func (ex *Exchange) RouteBack(l *Lookup) {
	if e := &ex.appEntry; e.asked && e.back == nil {
		e.back = l
		return
	}
	ex.req.Route = l
}

// drain waits for a lookup nobody took: in the Worker a lookup still pending when the request
// ends would be cancelled, and its goroutine would wait forever.
func (a *appLookup) drain() {
	if a != nil && a.lookup != nil {
		a.lookup.take()
		a.lookup = nil
	}
}

// appHost is the platform host that stands for app in the memo and the route cache; ok is false
// for an app no platform host names (then its record is not shared).
func (h *Handler) appHost(app string) (string, bool) {
	host := route.PlatformHostname(app, h.Config.PlatformDomain)
	a, isPlatform := route.PlatformApp(host, h.Config.PlatformDomain)
	return host, isPlatform && a == app
}

// rememberApp keeps a record read from ROUTES for a custom host under its app's key, as the
// platform host's own resolution would have, so the app's other hosts reuse it.
func (h *Handler) rememberApp(ex *Exchange, app string, r resolution) {
	host, ok := h.appHost(app)
	if !ok || !r.cacheable() {
		return
	}
	r.mapRev = ""
	h.memoize(host, r)
	h.routeCachePut(ex, route.RouteCacheKey(h.Config.PlatformDomain, host), host, r)
}

// earlyResolution is what a Decide that stopped later (at a manifest, the static origin) had
// already resolved, so that neither a later pass nor Run resolves twice or logs a memo hit
// for it.
type earlyResolution struct {
	host       string
	res        resolution
	routeCache string
	// puts are the route-cache entries resolving it made (from KV): every pass starts its
	// puts afresh, and these belong to the request whichever pass answers it.
	puts []CachePut
}

type routeMatch struct {
	e     Entry
	found bool
	err   error
}

// pendingMatch is a route-cache lookup started before the request needs its answer; wait
// returns the answer (once: a lookup is taken or drained, never both).
type pendingMatch struct {
	wait func() (Entry, bool, error)
}

func (p *pendingMatch) take() routeMatch {
	e, found, err := p.wait()
	return routeMatch{e, found, err}
}

// prefetchRoute starts the route-cache lookup of host without waiting for it (StartMatch).
func (h *Handler) prefetchRoute(host string) *pendingMatch {
	key := route.RouteCacheKey(h.Config.PlatformDomain, host)
	if h.StartMatch != nil {
		return &pendingMatch{wait: h.StartMatch(key)}
	}
	ch := make(chan routeMatch, 1)
	go func() {
		e, found, err := h.Cache.Match(key)
		ch <- routeMatch{e, found, err}
	}()
	return &pendingMatch{wait: func() (Entry, bool, error) {
		m := <-ch
		return m.e, m.found, m.err
	}}
}

// routeEntryDynamic reports whether a Decide can skip the content lookup because the
// route-cache entry the adapter already has (the content lookup made alongside it has not
// come back yet) resolves host to a dynamic app: as for a memoized dynamic host, the
// content lookup cannot matter, and the request need not wait for it.
//
// Whatever a valid entry resolves to is remembered, as resolve remembers a route-cache hit.
// A static host's content hits return before resolve, so without this its route would never
// reach the memo: each of them would look the route up again beside its content lookup, and
// cross into the core once more when that lookup came back first.
func (h *Handler) routeEntryDynamic(ex *Exchange, host string) bool {
	if ex.blocking || ex.req.Content != nil || ex.req.Route == nil {
		return false
	}
	if e := ex.early; e != nil {
		return e.host == host && e.res.kind == resFound && e.res.rec.Kind == route.KindDynamic
	}
	r, ok := h.routeCacheGet(ex, route.RouteCacheKey(h.Config.PlatformDomain, host), host)
	if !ok {
		return false
	}
	r.from = "route-cache"
	h.memoize(host, r)
	ex.early = &earlyResolution{host: host, res: r, routeCache: ex.line.RouteCache}
	return r.kind == resFound && r.rec.Kind == route.KindDynamic
}

// RememberRoute takes a route-cache lookup that came back after its request was answered (a
// content hit returns without waiting for the route lookup made beside it) and remembers what
// the entry resolves to, as resolve remembers a route-cache hit, so that the host's next
// requests within the memo's lifetime make the content lookup alone. key is the lookup's key,
// as Lookups named it; anything else, an invalid entry or an entry for another host is
// ignored, and so is a host the memo already holds. It makes no I/O and logs nothing.
//
// Only an entry this isolate has decoded before is taken: RememberRoute runs after the
// response, while other requests may be waiting on the isolate, and a first decode of an
// entry (base64, then JSON twice, in cold Wasm) would delay them for more than the route
// lookup it saves. A host requested again and again is the one worth remembering, and its
// entry is the one already decoded (when it was first resolved, or stored).
func (h *Handler) RememberRoute(key string, l Lookup) {
	if h.ConfigErr != nil || !l.Found || l.Err != nil {
		return
	}
	host, ok := route.RouteCacheHost(h.Config.PlatformDomain, key)
	if !ok || h.memoHas(host) {
		return
	}
	if _, known := h.decoded.knownEntry(l.Entry.Header.Get(routeEntryHeader)); !known {
		return
	}
	r, _, ok := h.decodeRouteEntry(routeMatch{l.Entry, l.Found, l.Err}, host)
	if !ok {
		return
	}
	r.from = "route-cache"
	// A copy: key is a piece of the adapter's whole message, which the memo would keep alive.
	h.memoize(strings.Clone(host), r)
}

func (h *Handler) memoEntry(host string) (resolution, bool) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	m, ok := h.memo[host]
	if !ok || !now.Before(m.exp) {
		return resolution{}, false
	}
	return m.res, true
}

func (h *Handler) memoHas(host string) bool {
	_, ok := h.memoEntry(host)
	return ok
}

// knownDynamic reports whether the memo holds a resolution of host to a dynamic app, live or
// expired. Expired entries stay in the map until it starts over; as a hint they only ever
// skip a content lookup, which cannot change an answer (see serve, step 1), so their age does not
// matter: a host that turned static is served from its origin once and memoized afresh.
func (h *Handler) knownDynamic(host string) bool {
	r, ok := h.lastFound(host)
	return ok && r.rec.Kind == route.KindDynamic
}

// lastFound is the memo's resolution of host to a record, live or expired: a hint only
// (knownDynamic, earlyAppLookup), never an answer.
func (h *Handler) lastFound(host string) (resolution, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m, ok := h.memo[host]
	return m.res, ok && m.res.kind == resFound
}

// lookup reads the route cache, then KV, and caches what may be cached.
func (h *Handler) lookup(ex *Exchange, host, platformApp string, isPlatform bool) resolution {
	key := route.RouteCacheKey(h.Config.PlatformDomain, host)
	if r, ok := h.routeCacheGet(ex, key, host); ok {
		r.from = "route-cache"
		return r
	}
	r := h.readKV(ex, host, platformApp, isPlatform)
	r.from = "kv"
	if r.cacheable() {
		h.routeCachePut(ex, key, host, r)
	}
	return r
}

// cachedRoute is the route-cache entry: the resolution plus the record exactly as KV held
// it, so that a hit goes through the same strict decoding as a KV read. It travels as
// base64url JSON in the routeEntryHeader of an empty-bodied response: a lookup then needs
// no body read (a second round trip to the cache's storage), and the header value stays
// within the bytes a header may hold whatever the record contains.
type cachedRoute struct {
	V      int             `json:"v"`
	Host   string          `json:"host"`
	Absent bool            `json:"absent,omitempty"`
	App    string          `json:"app,omitempty"`
	Record json.RawMessage `json:"record,omitempty"`
	MapRev string          `json:"map_rev,omitempty"`
	ReadAt int64           `json:"read_at"` // unix milliseconds
	Exp    int64           `json:"exp"`     // unix milliseconds
}

// appendJSON appends c as JSON without reflection: the keys, their order and omitempty are
// the struct tags', as json.Marshal writes them, and Record goes in as it is. The entry is made
// for every KV read, in the isolate that serves the next requests, and encoding/json's
// reflective encoder (which also compacts and checks Record, a value already decoded) was most
// of its cost (BenchmarkRouteEntryMake). Record is valid JSON, so the entry is; it is the
// bytes json.Marshal writes when Record is compact with no <, > or &, as a canonical record
// is (TestRouteEntryEncodingIsJSONMarshals).
func (c *cachedRoute) appendJSON(b []byte) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(c.V), 10)
	b = route.AppendJSONString(append(b, `,"host":`...), c.Host)
	if c.Absent {
		b = append(b, `,"absent":true`...)
	}
	if c.App != "" {
		b = route.AppendJSONString(append(b, `,"app":`...), c.App)
	}
	if len(c.Record) > 0 {
		b = append(append(b, `,"record":`...), c.Record...)
	}
	if c.MapRev != "" {
		b = route.AppendJSONString(append(b, `,"map_rev":`...), c.MapRev)
	}
	b = strconv.AppendInt(append(b, `,"read_at":`...), c.ReadAt, 10)
	b = strconv.AppendInt(append(b, `,"exp":`...), c.Exp, 10)
	return append(b, '}')
}

// routeEntryVersion 2 moved the entry from the body into routeEntryHeader; an entry of
// another version reads as invalid, which is a miss that overwrites it.
const (
	routeEntryVersion = 2
	routeEntryHeader  = "Kamui-Route-Entry"
)

func (h *Handler) routeCacheGet(ex *Exchange, key, host string) (resolution, bool) {
	var m routeMatch
	if l := ex.req.Route; l != nil {
		m = routeMatch{l.Entry, l.Found, l.Err}
	} else if ex.prefetch != nil {
		m = ex.prefetch.take()
		ex.prefetch = nil
	} else {
		m.e, m.found, m.err = h.Cache.Match(key)
		ex.line.IORounds++
	}
	r, status, ok := h.decodeRouteEntry(m, host)
	ex.line.RouteCache = status
	return r, ok
}

// decodeRouteEntry judges a route-cache lookup of host's key; status is what the log line says.
func (h *Handler) decodeRouteEntry(m routeMatch, host string) (r resolution, status string, ok bool) {
	e, found, err := m.e, m.found, m.err
	switch {
	case err != nil:
		return resolution{}, "error", false
	case !found:
		return resolution{}, "miss", false
	case !h.markerOK(e.Header):
		return resolution{}, "unmarked", false
	}
	d, valid := h.decoded.entry(e.Header.Get(routeEntryHeader))
	c := d.c
	if !valid || c.Host != host || h.now().UnixMilli() >= c.Exp {
		// Invalid or expired by our own clock: treated as a miss and overwritten.
		return resolution{}, "invalid", false
	}
	r = resolution{readAt: time.UnixMilli(c.ReadAt)}
	if c.Absent {
		r.kind, r.mapRev = resAbsent, c.MapRev
		return r, "negative-hit", true
	}
	r.kind, r.app, r.rec, r.mapRev, r.raw = resFound, d.rec.App, d.rec, c.MapRev, c.Record
	return r, "hit", true
}

func (h *Handler) routeCachePut(ex *Exchange, key, host string, r resolution) {
	ex.puts = append(ex.puts, CachePut{Key: key, planned: &plannedRoute{h: h, host: host, res: r}})
}

// plannedRoute is what a route-cache entry is made of (CachePut.Make).
type plannedRoute struct {
	h    *Handler
	host string
	res  resolution
}

// make encodes the route-cache entry into e, and reports false when its lifetime, which
// counts from the KV read, has run out.
func (p *plannedRoute) make(e *Entry) bool {
	h, host, r := p.h, p.host, p.res
	ttl := h.Config.TTLs.RouteCache
	// MapRev goes with an absence too: a custom host whose mapping names an app without a
	// record is absent through that mapping, and the probe asks for its revision.
	c := cachedRoute{V: routeEntryVersion, Host: host, ReadAt: r.readAt.UnixMilli(), MapRev: r.mapRev}
	if r.kind == resAbsent {
		ttl = h.Config.TTLs.Negative
		c.Absent = true
	} else {
		c.App, c.Record = r.rec.App, r.raw
		if c.Record == nil {
			b, err := json.Marshal(r.rec)
			if err != nil {
				return false
			}
			c.Record = b
		}
	}
	// The lifetime counts from the KV read, not from now: an entry made from a record another
	// host of the app resolved earlier (appResolution) expires when that record's would.
	exp := r.readAt.Add(ttl)
	secs := int64(exp.Sub(h.now()) / time.Second)
	if secs <= 0 {
		return false
	}
	c.Exp = exp.UnixMilli()
	value := base64.RawURLEncoding.EncodeToString(c.appendJSON(make([]byte, 0, 128+len(c.Record))))
	h.decoded.stored(value, decodedEntry{c: c, rec: r.rec})
	hdr := append(make(Header, 0, 3), // not a literal: see Exchange.fixed
		Field{routeEntryHeader, value},
		Field{"Cache-Control", "max-age=" + strconv.FormatInt(secs, 10)},
		Field{route.CacheMarkerHeader, h.Config.CacheMarker})
	*e = Entry{Status: 200, Header: hdr, Body: TextBody("")}
	return true
}

// readKV does the fewest reads: a platform host names its app, a custom host needs its
// DOMAINS mapping first. A Decide names each read for the adapter (ex.pending), and a custom
// host's app route-cache entry where it is looked up beside the mapping or after it
// (appResolution); Run makes them itself.
func (h *Handler) readKV(ex *Exchange, host, app string, isPlatform bool) resolution {
	// The data is as old as KV's copy was when the first read started, which for a read a
	// Decide named is when it was named.
	readAt := ex.readsFrom
	if readAt.IsZero() {
		readAt = h.now()
	}
	mapRev := ""
	if !isPlatform {
		var early *appLookup
		if ex.blocking {
			early = h.earlyAppLookup(ex, host)
			defer early.drain()
		} else if ex.filtered && ex.appEntry.back == nil {
			// The hinted app's entry is looked up beside the mapping's read (which the filter
			// lets a Decide name), and stays named until it is back.
			if ex.appEntry.app != "" {
				ex.needRoute = ex.appEntry.key
			} else if hint, hintHost, hinted := h.hintedApp(host); hinted {
				ex.nameAppEntry(hint, hintHost)
			}
		}
		v, found, err := h.kvGet(ex, BindingDomains, h.Domains, host, h.Config.TTLs.DomainsKV)
		switch {
		case ex.pending:
			return resolution{}
		case err != nil:
			return resolution{kind: resKVError, err: "DOMAINS: " + err.Error()}
		case !found:
			return resolution{kind: resAbsent, readAt: readAt}
		}
		m, err := h.decoded.mapping(v)
		if err != nil {
			return resolution{kind: resBadRecord, err: "DOMAINS: " + err.Error()}
		}
		if m.Status != route.StatusActive {
			return resolution{kind: resUnavailable, app: m.App, mapRev: m.Rev}
		}
		app, mapRev = m.App, m.Rev
		if r, ok := h.appResolution(ex, app, early); ok {
			// The mapping is fresh; the record keeps its own (older) read time.
			r.app, r.mapRev = app, mapRev
			return r
		}
		if ex.pending {
			return resolution{}
		}
		r := h.readRecord(ex, app, mapRev, readAt)
		if !ex.pending {
			h.rememberApp(ex, app, r)
		}
		return r
	}
	return h.readRecord(ex, app, "", readAt)
}

// readRecord reads app's record from ROUTES.
func (h *Handler) readRecord(ex *Exchange, app, mapRev string, readAt time.Time) resolution {
	v, found, err := h.kvGet(ex, BindingRoutes, h.Routes, app, h.Config.TTLs.RoutesKV)
	switch {
	case ex.pending:
		return resolution{}
	case err != nil:
		return resolution{kind: resKVError, app: app, err: "ROUTES: " + err.Error()}
	case !found:
		// The mapping (if any) is served, to an absence: the probe still sees its revision,
		// and answers that its app has no record.
		return resolution{kind: resAbsent, app: app, readAt: readAt, mapRev: mapRev}
	}
	rec, err := h.decoded.record(v)
	switch {
	case err != nil:
		return resolution{kind: resBadRecord, app: app, err: "ROUTES: " + err.Error()}
	case rec.App != app:
		return resolution{kind: resBadRecord, app: app, err: "ROUTES: record names another app"}
	case rec.Status != route.StatusActive:
		return resolution{kind: resUnavailable, app: app, rec: rec, mapRev: mapRev}
	}
	return resolution{kind: resFound, app: app, rec: rec, readAt: readAt, mapRev: mapRev, raw: v}
}
