package edge

import (
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// Bounds of the in-isolate manifest memo (siteMemo): a site's files stay in memory as long
// as they are used, but an isolate serving many large sites must not grow without limit.
// The files bound is the one that holds memory down (a file costs about a hundred bytes);
// the entries bound also bounds the manifest texts kept (maxKeptSiteText each), and is set
// high enough that an isolate serving a few hundred small sites does not read their
// manifests again and again (bench-edge's 167 sites: 68 manifest reads per 1,000 requests
// with 64 entries).
const (
	defaultMaxSiteManifests = 256
	defaultMaxSiteFiles     = 200_000
	// maxKeptSiteText bounds the manifests whose text the memo keeps beside their files, so
	// that reading one again after the freshness budget costs no second decode when it
	// has not changed (siteMemo.unchanged): about fifty files' worth, 2 MB over the whole
	// memo at most. A larger manifest is decoded again.
	maxKeptSiteText = 8 << 10
)

// siteFile is a route.SiteFile as the memo holds it: the hash as bytes rather than 64 hex
// characters, and the type shared by every path of the manifest that has it, so that the
// largest memo the bounds allow stays a small share of an isolate's memory.
type siteFile struct {
	_ [0]func() // not comparable (see logLine)

	sum  [32]byte
	typ  string
	size int64
}

func (f siteFile) object() string { return hex.EncodeToString(f.sum[:]) }

// siteFiles are one manifest's files by path.
type siteFiles map[string]siteFile

// siteManifest is a manifest as the memo holds it: a version's files, or a shard's, or the
// shard count of a split version (route.SplitSiteManifest), whose files are in its shards.
type siteManifest struct {
	files  siteFiles
	shards int
}

// fileAt is a lookup of one path of a site version: its file, if it has one.
type fileAt func(path string) (siteFile, bool)

// at is the file that answers rel, staticPath's reading of a request path (slash: that path
// ended in "/"): its own; for a route of a single-page app (spa, spaRoute) its index. Never
// the 404 page. A directory's path without its slash names no file but a redirect to the
// directory (redirect), as a file server answers, so that the relative links of the
// directory's index resolve under it; a single-page app would otherwise answer it with its
// root index.
func (file fileAt) at(rel, index string, spa, slash bool) (f siteFile, found, redirect bool) {
	if f, found = file(rel); found {
		return f, true, false
	}
	if _, dir := file(rel + "/" + index); dir && !slash {
		return siteFile{}, false, true
	}
	if spa && spaRoute(rel, index) {
		f, found = file(index)
	}
	return f, found, false
}

// at looks a path up in files.
func (files siteFiles) at(path string) (siteFile, bool) {
	f, ok := files[path]
	return f, ok
}

// siteShard says which manifest a read is of: a version's (the zero value), or shard i of
// the n shards of the version's manifest under root.
type siteShard struct {
	root string
	i, n int
}

// compactSite converts a decoded manifest (whose objects DecodeSiteManifest checked to be
// 64 lower-case hex digits) into the memo's form.
func compactSite(m route.SiteManifest) siteFiles {
	files := make(siteFiles, len(m.Files))
	types := map[string]string{}
	for p, f := range m.Files {
		var c siteFile
		_, _ = hex.Decode(c.sum[:], []byte(f.Object)) // it cannot fail: see above
		if t, ok := types[f.Type]; ok {
			c.typ = t
		} else {
			types[f.Type] = f.Type
			c.typ = f.Type
		}
		c.size = f.Size
		files[p] = c
	}
	return files
}

// siteMemo holds the manifests an isolate has read, by manifest key, least recently used
// first out. A manifest never changes once written (route.SiteManifest), so an entry is
// never stale; it is still served for no longer than the freshness budget, so a manifest
// removed from the bucket stops being served within the same bound as everything else.
// After that the manifest is read again; an entry that kept its text waits (expired, never
// served) for that read, which needs no decode when the text is the same. Its fields are
// guarded by Handler.mu.
type siteMemo struct {
	// maxManifests and maxFiles bound the memo (entries, and files over all entries);
	// zero: the defaults.
	maxManifests, maxFiles int

	entries map[string]*siteEntry
	files   int
	// shardsOf counts the shards each split version holds, by its manifest key
	// (maxShardsPerVersion).
	shardsOf map[string]int
	// recent is the most recently used entry; its next is the one used before it, and so
	// on round the ring to the least recently used (recent.prev), which eviction takes
	// without a scan: an isolate serving more sites than the memo holds pays nothing per
	// new site for it.
	recent  *siteEntry
	flights map[string]*siteFlight
	// decodes counts the manifests actually decoded, for tests.
	decodes int
}

type siteEntry struct {
	key string
	// root is a shard's version's manifest key; "" for a version's manifest.
	root string
	siteManifest
	exp time.Time
	// prev and next link the entries in order of use (siteMemo.recent), in a ring.
	prev, next *siteEntry
	// text is the manifest as read, when it is at most maxKeptSiteText bytes ("" otherwise):
	// strict decoding gives the same files for the same bytes.
	text string
}

// siteFlight is a manifest read in progress; concurrent misses of the same manifest wait
// for it rather than read it again, as route lookups do (see resolve). leader is the id of the
// exchange that reads it, across its passes while the named read is out: a split version's
// request may lead the reads of its manifest and a shard at once (the memo may let the
// manifest go between two passes), and must never wait for its own. An id, not the exchange:
// a flight whose request was abandoned stays until the next request for the key replaces it,
// and must not keep the request's reads in memory meanwhile.
type siteFlight struct {
	leader  string
	done    chan struct{}
	site    siteManifest
	err     string
	started time.Time
}

// get returns the live entry of key, marking it used. An expired one is never returned; it
// is dropped unless it kept its text, for unchanged.
func (m *siteMemo) get(key string, now time.Time) (siteManifest, bool) {
	e, ok := m.entries[key]
	if !ok {
		return siteManifest{}, false
	}
	if !now.Before(e.exp) {
		if e.text == "" {
			m.drop(key)
		}
		return siteManifest{}, false
	}
	m.use(e)
	return e.siteManifest, true
}

// use makes e, linked or not, the most recently used entry.
func (m *siteMemo) use(e *siteEntry) {
	if m.recent == e {
		return
	}
	if e.next != nil {
		m.unlink(e)
	}
	if m.recent == nil {
		e.prev, e.next = e, e
	} else {
		e.next, e.prev = m.recent, m.recent.prev
		e.prev.next, e.next.prev = e, e
	}
	m.recent = e
}

// unlink takes the linked entry e out of the order of use.
func (m *siteMemo) unlink(e *siteEntry) {
	if e.next == e {
		m.recent = nil
	} else {
		e.prev.next, e.next.prev = e.next, e.prev
		if m.recent == e {
			m.recent = e.next
		}
	}
	e.prev, e.next = nil, nil
}

// unchanged returns key's entry, live or expired, when it kept text as its manifest's: the
// manifest just read again is the one decoded before (and a shard's key says which shard it
// is, so the same bytes under it passed the same checks).
func (m *siteMemo) unchanged(key, text string) (siteManifest, bool) {
	e, ok := m.entries[key]
	if !ok || e.text == "" || e.text != text {
		return siteManifest{}, false
	}
	return e.siteManifest, true
}

func (m *siteMemo) drop(key string) {
	if e, ok := m.entries[key]; ok {
		m.files -= len(e.files)
		delete(m.entries, key)
		m.unlink(e)
		if e.root != "" {
			if m.shardsOf[e.root]--; m.shardsOf[e.root] == 0 {
				delete(m.shardsOf, e.root)
			}
		}
	}
}

// maxShardsPerVersion is a split version's share of the entries: an eighth of them. A crawl of
// a large site reads shard after shard (up to route.MaxSiteShards); past its share, each new
// shard takes the place of the version's own least recently used one instead of another
// site's manifest, so a site's size costs its own visitors reads, not every tenant's.
func (m *siteMemo) maxShardsPerVersion() int {
	maxManifests, _ := m.bounds()
	return max(1, maxManifests/8)
}

// bounds are the memo's bounds of entries and files, the defaults where unset.
func (m *siteMemo) bounds() (maxManifests, maxFiles int) {
	maxManifests, maxFiles = m.maxManifests, m.maxFiles
	if maxManifests <= 0 {
		maxManifests = defaultMaxSiteManifests
	}
	if maxFiles <= 0 {
		maxFiles = defaultMaxSiteFiles
	}
	return maxManifests, maxFiles
}

// put remembers site (read from text) under key until exp: a version's manifest (root "") or
// a shard of the version whose manifest key is root. It first evicts entries until the bounds
// hold: a shard past its version's share (maxShardsPerVersion) evicts the version's least
// recently used shard, then the least recently used entries go. A manifest larger than the
// whole file bound is not remembered; its text is kept only up to maxKeptSiteText.
func (m *siteMemo) put(key, root string, site siteManifest, text string, exp time.Time) {
	files := site.files
	maxManifests, maxFiles := m.bounds()
	if len(files) > maxFiles {
		return
	}
	m.drop(key)
	if root != "" && m.shardsOf[root] >= m.maxShardsPerVersion() {
		// From the least recently used entry towards the most recent, the first of root's.
		for e := m.recent.prev; ; e = e.prev {
			if e.root == root {
				m.drop(e.key)
				break
			}
		}
	}
	for m.recent != nil && (len(m.entries) >= maxManifests || m.files+len(files) > maxFiles) {
		m.drop(m.recent.prev.key) // the least recently used
	}
	if m.entries == nil {
		m.entries = map[string]*siteEntry{}
	}
	if len(text) > maxKeptSiteText {
		text = ""
	}
	e := &siteEntry{key: key, root: root, siteManifest: site, exp: exp, text: text}
	m.entries[key] = e
	m.use(e)
	m.files += len(files)
	if root != "" {
		if m.shardsOf == nil {
			m.shardsOf = map[string]int{}
		}
		m.shardsOf[root]++
	}
}

// manifestFiles returns the manifest under key (shard says which: a version's, or one of its
// shards): from the memo, from a concurrent read of it, or read from the static bucket now. A
// failure is a problem to log ("" when none) and is never remembered. In a Decide the read is
// named for the adapter (ex.pending) and the exchange leads the manifest's flight until it
// is back; a concurrent read of the same manifest is waited for in Run.
func (h *Handler) manifestFiles(ex *Exchange, key string, shard siteShard) (siteManifest, string) {
	now := h.now()
	h.mu.Lock()
	if site, ok := h.sites.get(key, now); ok {
		h.mu.Unlock()
		return site, ""
	}
	f, held := h.sites.flights[key]
	inFlight := held && f.leader != ex.id && now.Sub(f.started) < flightTimeout
	if inFlight && !ex.blocking {
		h.mu.Unlock()
		ex.wait()
		return siteManifest{}, ""
	}
	if inFlight {
		h.mu.Unlock()
		h.waitShared(f.done)
		select {
		case <-f.done:
			return f.site, f.err
		default:
			// The other request gave no answer in time: read on our own.
			site, text, problem := h.readSite(ex, key, shard)
			h.mu.Lock()
			h.rememberSite(key, shard, site, text, problem)
			h.mu.Unlock()
			return site, problem
		}
	}
	if !held || f.leader != ex.id {
		if h.sites.flights == nil {
			h.sites.flights = map[string]*siteFlight{}
		}
		f = &siteFlight{leader: ex.id, done: make(chan struct{}), started: now}
		h.sites.flights[key] = f
	}
	h.mu.Unlock()

	site, text, problem := h.readSite(ex, key, shard)
	if ex.pending {
		return siteManifest{}, "" // a named read is out; the flight stays ours until it is back
	}
	f.site, f.err = site, problem
	h.mu.Lock()
	if h.sites.flights[key] == f {
		delete(h.sites.flights, key)
	}
	h.rememberSite(key, shard, f.site, text, f.err)
	h.mu.Unlock()
	close(f.done)
	return f.site, f.err
}

// rememberSite puts a manifest (shard says which: a version's, or one of its shards) read
// without a problem into the memo for the freshness budget; h.mu must be held.
func (h *Handler) rememberSite(key string, shard siteShard, site siteManifest, text, problem string) {
	if problem != "" || h.Config.TTLs.Budget <= 0 {
		return
	}
	h.sites.put(key, shard.root, site, text, h.now().Add(h.Config.TTLs.Budget)) // a version's manifest has no root
}

// readSite reads one manifest and strictly decodes it (as a version's manifest, or as the
// shard it is), unless the memo kept the same text from an earlier read
// (siteMemo.unchanged): the same bytes decode to the same files. It returns the text read
// too, for the memo. The problem names the manifest and what is wrong with it, never its
// content beyond what the decoder's error says.
func (h *Handler) readSite(ex *Exchange, key string, shard siteShard) (siteManifest, string, string) {
	text, found, err := h.manifestText(ex, key)
	switch {
	case ex.pending:
		return siteManifest{}, "", ""
	case err != nil:
		return siteManifest{}, "", "STATIC: manifest " + key + ": " + err.Error()
	case !found:
		return siteManifest{}, "", "STATIC: manifest " + key + ": not found"
	}
	h.mu.Lock()
	site, same := h.sites.unchanged(key, text)
	if !same {
		h.sites.decodes++
	}
	h.mu.Unlock()
	if same {
		return site, text, ""
	}
	var m route.SiteManifest
	if shard.n == 0 {
		m, err = route.DecodeSiteManifest([]byte(text))
	} else {
		m, err = route.DecodeSiteShard([]byte(text), shard.root, shard.i, shard.n)
	}
	if err != nil {
		return siteManifest{}, "", "STATIC: manifest " + key + ": " + err.Error()
	}
	return siteManifest{files: compactSite(m), shards: m.Shards}, text, ""
}

// siteLookup looks paths up in one version of a site: in its manifest, or for a split
// version in the shard of each path, read as the lookup needs it (a request reads only the
// shards of the paths it looks up). A lookup that needs a read the exchange must wait for,
// or that failed, finds nothing, and so does every lookup after it: the caller checks waiting
// and problem before it trusts any answer.
type siteLookup struct {
	h    *Handler
	ex   *Exchange
	key  string
	site siteManifest
	// waiting: a shard's read is out (ex.pending); problem: a shard could not be read.
	waiting bool
	problem string
}

func (l *siteLookup) file(path string) (siteFile, bool) {
	if l.site.shards == 0 {
		return l.site.files.at(path)
	}
	if l.waiting || l.problem != "" {
		return siteFile{}, false
	}
	shard := siteShard{root: l.key, i: route.SiteShard(l.key, path, l.site.shards), n: l.site.shards}
	site, problem := l.h.manifestFiles(l.ex, route.SiteShardKey(l.key, shard.i), shard)
	if l.waiting, l.problem = l.ex.pending, problem; l.waiting || problem != "" {
		return siteFile{}, false
	}
	return site.files.at(path)
}

// serveSite answers a GET or HEAD of a content-addressed site (Static.Manifest set): the
// path resolves through the version's manifest, whose entry alone makes the headers, so
// a 304, a HEAD, a 416 and a missing path without a 404 page read no object; only a body
// the client gets is read, from the object the entry names. rel and ok are staticPath's.
func (h *Handler) serveSite(ex *Exchange, req *Request, u urlParts, res resolution, rel string, ok bool) Plan {
	st := res.rec.Static
	withBody := req.Method != "HEAD"
	if !ok && st.NotFound == "" {
		ex.line.Outcome = OutcomeStaticNotFound
		return ex.fixed(fixedStaticNotFound)
	}
	site, problem := h.manifestFiles(ex, st.Manifest, siteShard{})
	if ex.pending {
		return Plan{}
	}
	if problem != "" {
		ex.line.Outcome = OutcomeStaticError
		ex.line.Error = problem
		return ex.fixed(fixedStaticError)
	}
	lookup := &siteLookup{h: h, ex: ex, key: st.Manifest, site: site}
	status := 200
	var file siteFile
	found, redirect := false, false
	if ok {
		file, found, redirect = fileAt(lookup.file).at(rel, st.Index, st.SPA, strings.HasSuffix(u.path, "/"))
	}
	if !found && !redirect && st.NotFound != "" {
		file, found = lookup.file(st.NotFound)
		status = 404
	}
	switch {
	case lookup.waiting:
		return Plan{}
	case lookup.problem != "":
		ex.line.Outcome = OutcomeStaticError
		ex.line.Error = lookup.problem
		return ex.fixed(fixedStaticError)
	case redirect:
		return h.directoryRedirect(ex, u)
	case !found:
		ex.line.Outcome = OutcomeStaticNotFound
		return ex.fixed(fixedStaticNotFound)
	}
	ex.line.Outcome = OutcomeOK

	// No Last-Modified: a path's modification time cannot be told consistently in this
	// layout. An object is shared by every path and version with the same bytes, so its
	// upload time is not when this path got them (a path changed today to bytes uploaded
	// last month would carry last month's date); and a record may roll back to an older
	// manifest, so the date of the manifest (or of anything in it) can go backwards while
	// the content changes. Either way a client's If-Modified-Since, taken from what it was
	// served before, could then be later than the date sent now and answer 304 for content
	// it does not have. The ETag (the content's hash) is exact; without a Last-Modified an
	// If-Modified-Since alone gets the 200, never a wrong 304.
	object := file.object()
	key := route.SiteObjectKey(st.Prefix, object)
	if withBody && !ex.blocking && ex.objectBack(key) == nil && !conditional(req.Header) {
		// The answer takes the object's body whatever else it says (a 200, or the 404 page):
		// the pass that names it need not build the headers the next pass builds again.
		ex.needObject = key
		return ex.wait()
	}
	hdr := append(make(Header, 0, 8), // not a literal: see Exchange.fixed
		Field{"Content-Type", file.typ},
		Field{"ETag", route.SiteETag(object)},
		Field{"Content-Length", strconv.FormatInt(file.size, 10)},
		Field{"X-Content-Type-Options", "nosniff"})
	p := h.staticPlan(ex, u, res, status, hdr, withBody)
	if status == 200 {
		p = ex.represent(p, req.Header) // the site's 404 page is never a 304 or a 206
	}
	if !withBody || (p.Status != 200 && p.Status != 206 && p.Status != 404) {
		return p // HEAD, 304, 416: decided from the manifest alone
	}
	obj, found, read, err := h.siteObject(ex, key)
	if !read {
		return ex.wait() // the body is I/O: the adapter reads it and decides again
	}
	switch {
	case err != nil:
		ex.line.Error = "STATIC: " + err.Error()
	case !found:
		ex.line.Error = "STATIC: object " + key + " of manifest " + st.Manifest + ": not found"
	case obj.Header.Get("Content-Length") != strconv.FormatInt(file.size, 10):
		// The stream leaves with the manifest's length (worker.mjs): a different object
		// would be cut short or fail mid-body, so it is refused before any byte is sent.
		ex.line.Error = "STATIC: object " + key + " of manifest " + st.Manifest + ": size " +
			obj.Header.Get("Content-Length") + ", manifest says " + strconv.FormatInt(file.size, 10)
	default:
		p.Body = obj.Body
		return p
	}
	ex.line.Outcome = OutcomeStaticError
	return ex.fixed(fixedStaticError)
}

// directoryRedirect answers a directory's path without its slash with a permanent redirect
// to the path with it, the query kept: only a path staticPath accepted gets here (relative,
// without empty or dot segments), so the location stays on this host.
func (h *Handler) directoryRedirect(ex *Exchange, u urlParts) Plan {
	ex.line.Outcome = OutcomeOK
	location := u.path + "/"
	if u.query != "" {
		location += "?" + u.query
	}
	hdr := append(make(Header, 0, 3), // not a literal: see Exchange.fixed
		Field{"Location", location},
		Field{"Cache-Control", clientStaticCacheControl},
		Field{"X-Request-Id", ex.id})
	return Plan{Status: 308, Header: hdr}
}

// objectBack is the outcome of the read of key the adapter made for an earlier Decide, if it
// is back; nil otherwise.
func (ex *Exchange) objectBack(key string) *ObjectRead {
	if ex.askedObject != key {
		return nil
	}
	return ex.req.Object
}

// siteObject reads the object of a site's file with its body: the adapter's read when it
// made the one an earlier Decide named (Request.Object), else from the bucket when Run may
// block. A Decide without that read names the key (Exchange.ObjectKey) and read is false:
// the adapter makes the read itself, so the commonest static request never needs Run.
func (h *Handler) siteObject(ex *Exchange, key string) (obj Object, found, read bool, err error) {
	if r := ex.objectBack(key); r != nil {
		return r.Object, r.Found, true, r.Err // its read and round were counted when named
	}
	if !ex.blocking {
		ex.needObject = key
		return Object{}, false, false, nil
	}
	if ex.askedObject == key {
		// A Decide named it and the adapter left the read to Run: its round is counted, and
		// this is a second read.
		ex.line.R2Reads++
		obj, found, err = h.Static.Get(key, true)
		return obj, found, true, err
	}
	obj, found, err = h.getObject(ex, key, true)
	return obj, found, true, err
}
