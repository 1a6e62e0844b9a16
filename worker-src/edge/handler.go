package edge

import (
	"crypto/subtle"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// Request is what the core needs from a received request. The body is not here: it stays
// in the adapter and goes to the upstream fetch untouched.
type Request struct {
	Method string
	// URL is the absolute URL as received (scheme://host[:port]/path?query).
	URL    string
	Header Header
	// ID is the request id when the adapter makes it; empty: Handler.NewRequestID.
	ID string
	// Content and Route are Cache API lookups the adapter already made for this request
	// (the keys Exchange.Lookups names): the core uses them instead of asking Cache.
	// Nil: not made; the core makes the lookup itself when it may block.
	Content *Lookup
	Route   *Lookup
	// Object is the static object the adapter read because a Decide named it
	// (Exchange.ObjectKey): a site's file, once everything else about the answer is known.
	// Nil: not read; the core reads it itself when it may block.
	Object *ObjectRead
	// Read is the outcome of the binding read the last Decide named (Exchange.Read): a KV
	// value or a manifest's text. Nil: not made. The next Decide keeps it with the exchange.
	Read *TextRead
	// Ahead is the outcome of the read named ahead beside it (Exchange.ReadAhead), kept the
	// same way. Nil: not back.
	Ahead *TextRead
}

// ObjectRead is the outcome of one static object read (Objects.Get with its body).
type ObjectRead struct {
	Object Object
	Found  bool
	Err    error
}

// Lookup is the outcome of one Cache.Match.
type Lookup struct {
	Entry Entry
	Found bool
	Err   error
}

// Plan is the core's decision for one request. Exactly one of two shapes:
//
//   - Forward == nil: answer with Status, Header and Body (nil: no body), only Range of
//     Body when it is set (a 206); afterwards, if Store != nil, put a copy of the same
//     response into the content cache (only ever a complete 200).
//   - Forward != nil: make that upstream request (with the received body), then call
//     Exchange.UpstreamResponse or Exchange.UpstreamFailed.
type Plan struct {
	Status  int
	Header  Header
	Body    Body
	Range   *ByteRange
	Store   *Store
	Forward *Forward
	// CachePuts are route-cache entries to store after responding (any plan shape).
	CachePuts []CachePut
}

// Store asks the adapter to put the planned response into the content cache under Key with
// Header (which carries the private marker and the entry's max-age) instead of the client's.
type Store struct {
	Key    string
	Header Header
}

// Forward is a new upstream request built from the received one.
type Forward struct {
	Method  string
	URL     string
	Header  Header
	Timeout time.Duration
	// WebSocket is set when the client asked for a WebSocket upgrade: the adapter returns
	// the upstream's 101 response (and its socket) as it is.
	WebSocket bool
}

// Edits are the changes to apply to an upstream response's headers. Edits rather than a
// whole header list so that repeated fields (Set-Cookie) stay exactly as the origin sent them.
type Edits struct {
	Del []string
	Set Header
}

// Apply returns h with the edits applied.
func (e Edits) Apply(h Header) Header {
	h = h.Clone()
	for _, n := range e.Del {
		h.Del(n)
	}
	for _, f := range e.Set {
		h.Set(f.Name, f.Value)
	}
	return h
}

// Handler is the Worker's decision engine. One Handler serves every request of an isolate;
// its methods are safe for concurrent use.
type Handler struct {
	// Config is the validated configuration; ignored when ConfigErr is set.
	Config Config
	// ConfigErr, when set, makes every request a fixed 500 and a log line naming the
	// problem: a Worker with broken bindings must never route.
	ConfigErr error

	Routes  KV      // the ROUTES namespace
	Domains KV      // the DOMAINS namespace
	Static  Objects // the STATIC bucket
	Cache   Cache   // caches.default: content cache and route cache

	// Clock tells the time; nil is time.Now. A function, not an interface: a type with a
	// method returning time.Time, once held in an interface, makes the linker keep
	// time.Time's formatting and parsing methods in the Worker (about 40 KB of gzip).
	Clock func() time.Time
	// Log defaults to discarding lines.
	Log Logger
	// NewRequestID defaults to a process-local counter; the wasm adapter uses
	// crypto.randomUUID. Its result is never client input.
	NewRequestID func() string
	// WaitShared blocks until done is closed or it gives up (then the request resolves
	// on its own); a request whose host is being resolved, or whose site's manifest is
	// being read, by a concurrent request waits with it. Defaults to receiving from done.
	// The wasm adapter polls on JS timers instead: workerd binds I/O to the request whose context
	// runs it, and a goroutine woken by another request's goroutine would run (and issue
	// its fetch) in that other request's context.
	WaitShared func(done <-chan struct{})
	// StartMatch starts a Cache API lookup the request waits for later (a route-cache lookup
	// made beside another wait) and returns what waits for its answer, called exactly once.
	// Defaults to Cache.Match in a goroutine of its own. The wasm adapter starts the JS
	// lookup at once and waits on the request's goroutine: every wait of a request then
	// happens on that one goroutine, which is what lets the adapter hand control back to
	// JS exactly when the request can go no further.
	StartMatch func(key string) (wait func() (Entry, bool, error))

	mu      sync.Mutex
	memo    map[string]memoEntry
	flights map[string]*flight
	sites   siteMemo      // content-addressed sites' manifests (site.go)
	filters [2]heldFilter // the namespaces' name filters (filter.go)
	decoded decoded       // values decoded before, by their bytes (decoded.go)
	// signing is the Signer keyed last (signHeaders), under signMu. A mutex rather than an
	// atomic.Pointer[keyedSigner]: that generic type's methods would be copies of their own in
	// the Wasm, and the lock is held only to read or replace the pointer.
	signMu  sync.Mutex
	signing *keyedSigner
	seq     atomic.Uint64
}

// Unlocked reports whether none of h's locks is held. Between two calls into the core none
// ever is (a request never holds one while it waits), so one held after a recovered panic
// means the panic left a critical section half done: the wasm adapter then stops the program
// rather than go on (its afterPanic).
func (h *Handler) Unlocked() bool { return MutexesFree(&h.mu, &h.signMu, &h.decoded.mu) }

// MutexesFree reports whether none of ms is locked, leaving each as it found it.
func MutexesFree(ms ...*sync.Mutex) bool {
	for _, m := range ms {
		if !m.TryLock() {
			return false
		}
		m.Unlock()
	}
	return true
}

// keyedSigner is a route.Signer with the secret it was keyed with.
type keyedSigner struct {
	_ [0]func() // not comparable (see logLine)

	secret string
	signer *route.Signer
}

// signHeaders writes c and its signature into out under the configured secret. The Signer
// is keyed on first use, once per isolate, and again only if the secret changes (a test may
// swap configurations; the Worker never does): keying per request was half of a signature's
// cost in Wasm (route's BenchmarkSign).
func (h *Handler) signHeaders(c route.Context, out route.HeaderSetter) {
	secret := h.Config.SigningSecret
	h.signMu.Lock()
	k := h.signing
	h.signMu.Unlock()
	if k == nil || k.secret != string(secret) {
		s, err := route.NewSigner(secret)
		if err != nil { // an empty secret: ParseConfig refuses it, so only a hand-made Config
			c.SetHeaders(out, secret)
			return
		}
		k = &keyedSigner{secret: string(secret), signer: s}
		h.signMu.Lock()
		h.signing = k
		h.signMu.Unlock()
	}
	k.signer.SetHeaders(c, out)
}

// maxMemoEntries bounds the in-isolate memo; a flood of unknown hosts must not grow it
// without limit. On overflow the memo starts over, which only costs cache lookups.
const maxMemoEntries = 4096

type memoEntry struct {
	res resolution
	exp time.Time
}

type flight struct {
	done    chan struct{}
	res     resolution
	started time.Time
}

func (h *Handler) waitShared(done <-chan struct{}) {
	if h.WaitShared != nil {
		h.WaitShared(done)
	} else {
		<-done
	}
}

func (h *Handler) now() time.Time {
	if h.Clock == nil {
		return time.Now()
	}
	return h.Clock()
}

// Exchange is one request in flight.
type Exchange struct {
	// Plan is the core's decision.
	Plan Plan

	h      *Handler
	req    *Request
	id     string
	method string
	host   string
	start  time.Time
	puts   []CachePut
	// blocking is set while Run decides (I/O allowed); pending records that a decision
	// without I/O (Decide) stopped at a point that needs some, needContent and needRoute
	// the cache lookups that would let it go further.
	blocking, pending      bool
	needContent, needRoute string
	// needObject is the static object a Decide stopped for, and askedObject the one the
	// adapter was asked to read (Request.Object is its outcome).
	needObject, askedObject string
	// objectReads counts the objects named for the adapter, each read once whether or not
	// the answer takes it (one read ahead may not be), for the log line's r2_reads.
	objectReads int
	// needRead is the binding read a Decide stopped for, askedRead the one the adapter was
	// last asked to make (named at readAsked; the first made at readsFrom), and done the reads
	// made for the exchange so far (named.go). filtered is set while a pass has the name filter's
	// word on the host.
	needRead, askedRead  NamedRead
	readAsked, readsFrom time.Time
	done                 []doneRead
	filtered             bool
	// needAhead is the read ahead a Decide named beside a binding read (ReadAhead), askedAhead
	// the one the adapter was asked to make (named at aheadAsked, until it is back); one per
	// exchange (aheadNamed), counted in the log line when named.
	needAhead, askedAhead NamedRead
	aheadAsked            time.Time
	aheadNamed            bool
	// flight is the host's resolution this exchange leads for the isolate (single flight),
	// kept across passes while a named read is out. The manifest reads it leads are in
	// siteMemo.flights, each naming its leader: a split version's request may lead several.
	flight *flight
	// appEntry is the lookup of a custom host's app's route-cache entry a Decide named in the
	// route lookup's place (appEntryRead), kept across passes.
	appEntry appEntryRead
	early    *earlyResolution
	// prefetch is the route-cache lookup started next to the content lookup.
	prefetch *pendingMatch
	// asked is the reads Decide named for the adapter so far (1 content, 2 route, 4 object,
	// 8 a binding read) and askedRounds how many times it named a new one: the adapter makes
	// each named key once, side by side with any still pending. Kept across passes; the log
	// line is rebuilt by every pass.
	asked, askedRounds int
	line               logLine
	logged             bool
}

// RequestID is the id of this request (in X-Request-Id and in every fixed body).
func (ex *Exchange) RequestID() string { return ex.id }

// Serve decides what to do with req, blocking on whatever I/O that takes.
func (h *Handler) Serve(req *Request) *Exchange {
	ex := h.Begin(req)
	ex.Run()
	return ex
}

// Begin starts an exchange for req without deciding anything yet: Decide answers from what
// the isolate already knows and what the adapter hands it, Run from whatever it takes. The
// adapter tries Decide first so that a request waits on a promise inside the Wasm only when
// it must:
//
//	ex := h.Begin(req)
//	for !ex.Decide() {
//		// make what ex.Lookups, ex.ObjectKey or ex.Read names and put the outcome in
//		// req.Content, ex.RouteBack, req.Object or req.Read; when nothing is named:
//		ex.Run() // the filter's read, the layout by prefix, another's flight, an unhinted app's entry
//		break
//	}
func (h *Handler) Begin(req *Request) *Exchange {
	ex := &Exchange{h: h, req: req, method: req.Method, start: h.now(), id: req.ID}
	if ex.id == "" && h.NewRequestID != nil {
		ex.id = h.NewRequestID()
	} else if ex.id == "" {
		ex.id = "req-" + strconv.FormatUint(h.seq.Add(1), 10)
	}
	return ex
}

// Decide tries to decide without any I/O and without blocking: from the in-isolate memo,
// the route-cache entry and the content lookup the request carries. It returns false when
// that is not enough; Lookups then names the cache lookups that may let a second Decide
// succeed, and Run finishes the request otherwise. A false Decide changes nothing that a
// later attempt would see differently (at most it memoizes what it resolved, or leads the
// single flight of a binding read it named).
func (ex *Exchange) Decide() bool {
	ex.blocking = false
	ex.takeRead()
	ex.reset()
	p := ex.h.serve(ex, ex.req)
	if ex.pending {
		named := ex.asked
		if ex.needContent != "" {
			named |= 1
		}
		if ex.needRoute != "" {
			named |= 2
		}
		// An object other than the one asked for before (the route changed between passes, or
		// the object read ahead is not the one the record and manifest name) is a read, and a
		// round, of its own; so is every binding read (each follows the last). An object or a
		// read still out is named again as it is (the adapter makes each once), without a round.
		newObject := ex.needObject != "" && ex.needObject != ex.askedObject
		if newObject {
			named |= 4
			ex.askedObject = ex.needObject
			ex.objectReads++
			ex.req.Object = nil // the outcome of another object, if one is back
		}
		// An app's entry named in the route lookup's place (appEntryRead) is a round of its own,
		// or shares one with the mapping's read it is named beside.
		newAppEntry := ex.needRoute != "" && ex.needRoute == ex.appEntry.key && !ex.appEntry.asked
		if newAppEntry {
			ex.appEntry.asked = true
		}
		readOut := ex.askedRead.Kind != ReadNone && ex.needRead.same(&ex.askedRead)
		lookupsOut := ex.needContent != "" || (ex.needRoute != "" && ex.needRoute != ex.appEntry.key)
		newRead := ex.needRead.Kind != ReadNone && !lookupsOut && !readOut
		if newRead {
			named |= 8
			ex.askedRead, ex.readAsked = ex.needRead, ex.h.now()
		} else if !readOut {
			ex.needRead = NamedRead{}
		}
		// A read ahead goes out beside a new binding read, once; one still out is named again
		// as it is, which the adapter does not make again.
		aheadOut := ex.askedAhead.Kind != ReadNone && ex.needAhead.same(&ex.askedAhead)
		if ex.needAhead.Kind != ReadNone && newRead && !ex.aheadNamed {
			ex.aheadNamed = true
			ex.askedAhead, ex.aheadAsked = ex.needAhead, ex.h.now()
		} else if !aheadOut {
			ex.needAhead = NamedRead{}
		}
		if named != ex.asked || newObject || newRead || newAppEntry {
			ex.asked = named
			ex.askedRounds++
		}
		return false
	}
	ex.settle(p)
	return true
}

// Lookups names the Cache API lookups a Decide that returned false was missing: the
// content key (Request.Content) and a route-cache key, the host's or, once the host's is
// back, its app's entry (RouteBack files the outcome); "" for none.
func (ex *Exchange) Lookups() (content, route string) { return ex.needContent, ex.needRoute }

// ObjectKey names the static object a Decide that returned false needs read, with its body
// (Request.Object); "" for none. It is named once everything else about the answer is known,
// so the read is the request's last I/O before the response, or beside the record's KV read
// when the isolate already knows which object the answer most likely takes (readAhead). A
// key named again while its read is out is the same read, not a second one.
func (ex *Exchange) ObjectKey() string { return ex.needObject }

// Run decides, making (and waiting for) every lookup and read that takes.
func (ex *Exchange) Run() {
	ex.blocking = true
	ex.takeRead()
	ex.reset()
	p := ex.h.serve(ex, ex.req)
	if ex.prefetch != nil {
		// Never leave the prefetch behind: in the Worker a lookup still pending when the
		// request ends would be cancelled, and its goroutine would wait forever.
		ex.prefetch.take()
		ex.prefetch = nil
	}
	ex.settle(p)
}

func (ex *Exchange) reset() {
	ex.pending, ex.needContent, ex.needRoute, ex.needObject, ex.puts, ex.host = false, "", "", "", nil, ""
	ex.needRead, ex.needAhead, ex.filtered = NamedRead{}, NamedRead{}, false
	ex.line = logLine{Msg: "edge.request", RequestID: ex.id, Method: methodForLog(ex.method),
		ContentCache: "skip", RouteCache: "skip"}
}

// settle completes the log line's I/O counts: io_rounds is every wait the response starts
// after, one after another (a Cache API round, each KV and R2 read, the upstream fetch);
// lookups made side by side count as one round.
func (ex *Exchange) settle(p Plan) {
	ex.Plan = p
	ex.Plan.CachePuts = ex.puts
	ex.line.IORounds += ex.askedRounds
	ex.line.R2Reads += ex.objectReads
	if ex.aheadNamed {
		ex.line.ManifestReads++ // made whether or not the answer takes it
	}
	ex.countReads()
	if p.Forward != nil {
		ex.line.IORounds++
	}
	if ex.Plan.Forward == nil {
		ex.finish(ex.Plan.Status)
	} else {
		ex.line.Delivery = "dynamic"
	}
}

// wait marks a decision without I/O as stopped.
func (ex *Exchange) wait() Plan {
	ex.pending = true
	return Plan{}
}

func (h *Handler) serve(ex *Exchange, req *Request) Plan {
	if h.ConfigErr != nil {
		ex.line.Outcome = OutcomeBadConfig
		ex.line.Error = h.ConfigErr.Error()
		return ex.fixed(fixedBadConfig)
	}
	u := splitURL(req.URL)

	// 2, first: the host, normalised; anything else is refused without echoing it. Hosts
	// that can never be served are refused before any cache lookup too, so that nothing
	// cached (the route cache lives under a reserved host) is ever answered for them.
	host, hostErr := route.NormalizeHost(u.host)
	if hostErr != nil {
		ex.line.Outcome = OutcomeBadHost
		return ex.fixed(fixedBadHost)
	}
	ex.host = host
	ex.line.Host = host
	app, isPlatform := route.PlatformApp(host, h.Config.PlatformDomain)
	if isPlatform {
		ex.line.HostKind = "platform"
		if app == "" {
			// A reserved or malformed label under the platform domain names no app:
			// refusing it here spends no cache lookup and no KV read.
			ex.line.Outcome = OutcomeUnknownHost
			return ex.fixed(fixedUnknownHost)
		}
	} else {
		ex.line.HostKind = "custom"
	}

	// The propagation probe resolves like a real request but never answers from content.
	expectRev, probing := h.isProbe(ex, req, u)
	getOrHead := (req.Method == "GET" || req.Method == "HEAD") && !probing

	// 2½. The name filter: a host it rules out is unknown, with no cache lookup and no per-host
	// KV read. A host the memo holds (live) was admitted moments ago and skips it, so the warm
	// path pays nothing. When the isolate holds no filter yet (its first request, or its hold
	// is over), a Decide goes on without it: the caches it may still answer from hold nothing
	// older than the budget allows, and Run, the only path to a per-host KV read, reads the
	// filter here first. A probe always waits for it, so that "match" never answers for a host
	// whose visitors the filter still refuses (verify_propagation would pass while they get 404).
	memoized := h.memoHas(host)
	if probing || !memoized {
		refused, ok := h.filterRefuses(ex, host, app, isPlatform)
		ex.filtered = ok && !refused
		if !ok && probing {
			return ex.wait()
		}
		if refused {
			ex.line.RouteSource = "filter"
			if probing {
				return ex.probeAnswer(resolution{}, expectRev)
			}
			ex.line.Outcome = OutcomeUnknownHost
			return ex.fixed(fixedUnknownHost)
		}
	}

	// 1. The content cache before any routing: a hit costs no KV and no route work.
	// Two refinements that change no answer and spend no KV read:
	//   - a host the in-isolate memo knows to be dynamic (even from an expired entry)
	//     skips the lookup: only static content is ever stored, so an entry there can only
	//     be a stale one from before the app turned dynamic (skipping it makes that change
	//     visible sooner), and a host that turned static since is served from its origin
	//     once, then memoized as static; so does a host whose route-cache entry, looked up
	//     first, says dynamic;
	//   - otherwise the route-cache entry is fetched alongside the content lookup, so a
	//     content miss does not pay two Cache API round trips one after the other.
	if getOrHead {
		if h.knownDynamic(host) || h.routeEntryDynamic(ex, host) {
			ex.line.ContentCache = "skip-dynamic"
		} else {
			// (routeEntryDynamic memoizes only from a route lookup already made, so memoized
			// still tells whether one is wanted.)
			wantRoute := !memoized && req.Route == nil
			if req.Content == nil && !ex.blocking {
				ex.needContent = u.key
				if wantRoute {
					ex.needRoute = route.RouteCacheKey(h.Config.PlatformDomain, host)
				}
				return ex.wait()
			}
			if wantRoute && ex.blocking {
				ex.prefetch = h.prefetchRoute(host)
				if req.Content != nil { // otherwise it runs beside contentHit's own lookup
					ex.line.IORounds++
				}
			}
			if p, ok := h.contentHit(ex, req.Content, u.key); ok {
				return p
			}
		}
	}

	// 3–5. The route: memo, route cache, then the fewest KV reads.
	res := h.resolve(ex, host, app, isPlatform)
	if ex.pending {
		h.readAhead(ex, req, u, host)
		return Plan{}
	}
	ex.line.RouteSource = res.from
	if res.rec.App != "" {
		ex.line.App = res.rec.App
	} else if res.app != "" {
		ex.line.App = res.app
	}
	if probing {
		return ex.probeAnswer(res, expectRev)
	}
	switch res.kind {
	case resAbsent:
		ex.line.Outcome = OutcomeUnknownHost
		return ex.fixed(fixedUnknownHost)
	case resUnavailable:
		ex.line.Outcome = OutcomeNotActive
		return ex.fixed(fixedNotActive)
	case resBadRecord:
		ex.line.Outcome = OutcomeBadRecord
		ex.line.Error = res.err
		return ex.fixed(fixedBadRecord)
	case resKVError:
		ex.line.Outcome = OutcomeKVError
		ex.line.Error = res.err
		return ex.fixed(fixedKVError)
	}

	if res.rec.Kind == route.KindStatic {
		ex.line.Delivery = "static"
		return h.serveStatic(ex, req, u, res)
	}
	return h.forward(ex, req, u, res)
}

// contentHit answers from the content cache when the entry carries this deployment's
// marker. Entries without it (or with another value) are someone else's, e.g. an origin
// response cached under the same public URL, and must not bypass routing. A route-cache
// entry carries the marker too, but it is never content: it would tell an outsider whether,
// and when, a host was resolved. l is the lookup the adapter made, if any.
func (h *Handler) contentHit(ex *Exchange, l *Lookup, key string) (Plan, bool) {
	if l == nil {
		l = new(Lookup)
		ex.line.IORounds++
		l.Entry, l.Found, l.Err = h.Cache.Match(key)
	}
	e, found, err := l.Entry, l.Found, l.Err
	switch {
	case err != nil:
		ex.line.ContentCache = "error"
		ex.line.Error = "content cache: " + err.Error()
		return Plan{}, false
	case !found:
		ex.line.ContentCache = "miss"
		return Plan{}, false
	case !h.markerOK(e.Header):
		ex.line.ContentCache = "unmarked"
		return Plan{}, false
	case e.Header.Has(routeEntryHeader):
		ex.line.ContentCache = "route-entry"
		return Plan{}, false
	}
	ex.line.ContentCache = "hit"
	ex.line.Delivery = "content-cache"
	ex.line.Outcome = OutcomeOK
	hdr := stripInternal(e.Header)
	hdr.Set("Cache-Control", clientStaticCacheControl)
	hdr.Set("X-Request-Id", ex.id)
	p := Plan{Status: e.Status, Header: hdr, Body: e.Body}
	if ex.method == "HEAD" {
		p.Body = nil
	}
	if p.Status == 200 {
		p = ex.represent(p, ex.req.Header)
	}
	return p, true
}

func (h *Handler) markerOK(hdr Header) bool {
	got := hdr.Get(route.CacheMarkerHeader)
	want := h.Config.CacheMarker
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// stripInternal drops every Kamui-* field: the marker and any context header an origin
// echoed must never leave the edge.
func stripInternal(h Header) Header {
	out := make(Header, 0, len(h))
	for _, f := range h {
		if !route.IsContextHeader(f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// UpstreamResponse post-processes the headers of the upstream's response: internal
// headers removed, Cache-Control: private when the origin said nothing (a dynamic answer
// must not land in a shared cache by default), and the request id.
func (ex *Exchange) UpstreamResponse(status int, hdr Header) Edits {
	var e Edits
	seen := map[string]bool{}
	for _, f := range hdr {
		k := strings.ToLower(f.Name)
		if route.IsContextHeader(f.Name) && !seen[k] {
			seen[k] = true
			e.Del = append(e.Del, f.Name)
		}
	}
	if status != 101 && !hdr.Has("Cache-Control") {
		e.Set = append(e.Set, Field{"Cache-Control", "private"})
	}
	e.Set = append(e.Set, Field{"X-Request-Id", ex.id})
	ex.line.UpstreamUS = us(ex.h.now().Sub(ex.start))
	ex.line.Outcome = OutcomeOK
	ex.finish(status)
	return e
}

// UpstreamFailed answers a failed upstream fetch: 504 when the timeout fired, 502 when the
// origin could not be reached or reset the connection.
func (ex *Exchange) UpstreamFailed(timedOut bool, detail string) Plan {
	ex.line.UpstreamUS = us(ex.h.now().Sub(ex.start))
	ex.line.Error = detail
	var p Plan
	if timedOut {
		ex.line.Outcome = OutcomeUpstreamTimeout
		p = ex.fixed(fixedTimeout)
	} else {
		ex.line.Outcome = OutcomeUpstreamUnreachable
		p = ex.fixed(fixedUnreachable)
	}
	ex.finish(p.Status)
	return p
}

func (ex *Exchange) finish(status int) {
	if ex.logged {
		return
	}
	ex.logged = true
	ex.line.Status = status
	ex.line.DurUS = us(ex.h.now().Sub(ex.start))
	ex.line.TimeMS = ex.start.UnixMilli()
	if status < 400 && !sampled(ex.id, ex.h.Config.LogSamplePerMillion) {
		return
	}
	// No Logger discards the line: tested here rather than by a discarding Logger, which
	// would be one more type with a method (and its pointer wrapper) in the Wasm.
	if ex.h.Log != nil {
		ex.h.Log.Log(ex.line.encode())
	}
}

// methodForLog keeps log lines free of arbitrary client text.
func methodForLog(m string) string {
	for _, k := range logMethods {
		if m == k {
			return m
		}
	}
	return "OTHER"
}

var logMethods = [...]string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"}

func us(d time.Duration) int64 { return d.Microseconds() }

// urlParts is a received URL split without net/url: the adapter hands us a URL the runtime
// already parsed, so only the boundaries are needed.
type urlParts struct {
	key   string // the URL without fragment: the content-cache key
	host  string // authority (host[:port]) without userinfo
	path  string // escaped path, always starting with "/"
	query string // without "?"
}

func splitURL(raw string) urlParts {
	var u urlParts
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw = raw[:i]
	}
	u.key = raw
	rest := raw
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	u.host = rest[:end]
	if i := strings.LastIndexByte(u.host, '@'); i >= 0 {
		u.host = u.host[i+1:]
	}
	rest = rest[end:]
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		u.query = rest[i+1:]
		rest = rest[:i]
	}
	if rest == "" {
		rest = "/"
	}
	u.path = rest
	return u
}
