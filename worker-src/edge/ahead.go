package edge

import (
	"strings"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// readAhead names, beside the KV read a Decide has just named (a platform host's record, a
// custom host's mapping), the read of the static object the answer most likely takes: the one
// the request's path named in the manifest of the record this isolate last resolved the host
// to (the memo keeps a resolution, and the manifest memo a manifest's files, past their
// lifetimes, as hints). A site's record, and a version's manifest, change only with a
// deployment, so the guess is almost always the answer, and the object's read then overlaps
// the record's instead of following it: one sequential round less on the cold path of a site's
// GET. A custom host's object overlaps its mapping's read and, with it, the lookup of its app's
// route-cache entry (appResolution), or the record's read that follows. When the manifest memo
// no longer holds that manifest live (past the freshness budget), the manifest is named too, as
// the read ahead (Exchange.ReadAhead): another round less.
//
// The guess decides nothing. The record and the manifest are read and validated as always,
// and the object is taken only if they name it: the object's key is its content's hash, so the
// same key is the same bytes. Otherwise the object they name is read as a read of its own (see
// Decide), and the guessed one is released unsent; it cost one read, which the log line
// counts. The same holds for the manifest read ahead: used only if the record names it. Only a
// GET whose content lookup missed reads ahead: a content hit needs no object, a HEAD or a
// conditional request may need none, and a host the isolate never resolved, or last resolved
// to a dynamic app, gives no guess.
//
// For a split version (route.SplitSiteManifest) the guess goes through the shard of each path
// the memo holds, and the manifest read ahead is the version's manifest when the memo let it
// go, else the shard of the request's path when it let that go.
func (h *Handler) readAhead(ex *Exchange, req *Request, u urlParts, host string) {
	missed := req.Content != nil && req.Content.Err == nil && !req.Content.Found
	hostLookup := ex.needRoute != "" && ex.needRoute != ex.appEntry.key
	if ex.blocking || ex.needRead.Kind != ReadKV || ex.needContent != "" || hostLookup ||
		ex.askedObject != "" || req.Method != "GET" || !missed || req.Header.Has("If-None-Match") {
		return
	}
	last, ok := h.lastFound(host)
	if !ok || last.rec.Kind != route.KindStatic || last.rec.Static == nil || last.rec.Static.Manifest == "" {
		return
	}
	st := last.rec.Static
	rel, ok := staticPath(u.path, st.Index)
	if !ok {
		return
	}
	h.mu.Lock()
	file, found := h.sites.known(st.Manifest, rel, st.Index, st.SPA, strings.HasSuffix(u.path, "/"))
	stale := h.sites.stale(st.Manifest, rel, h.now())
	h.mu.Unlock()
	if found {
		ex.needObject = route.SiteObjectKey(st.Prefix, file.object())
	}
	if stale == "" {
		return
	}
	if m := manifestRead(stale); ex.madeRead(m) == nil {
		// The memo let the version go (the freshness budget), or the shard of the path: the
		// record most likely names the version again, and the read need not wait for it.
		ex.needAhead = *m
	}
}

// stale is the first manifest the memo would have to read again to look rel up in the version
// under key: the version's manifest when it is not held live, else for a split version the
// shard of rel when that is not; "" when neither. h.mu must be held.
func (m *siteMemo) stale(key, rel string, now time.Time) string {
	e, ok := m.entries[key]
	switch {
	case !ok || !now.Before(e.exp):
		return key
	case e.shards == 0:
		return ""
	}
	shard := route.SiteShardKey(key, route.SiteShard(key, rel, e.shards))
	if s, ok := m.entries[shard]; ok && now.Before(s.exp) {
		return ""
	}
	return shard
}

// known is the file the version under key maps rel to, as serveSite maps it (fileAt.at),
// from its entries live or expired, without marking them used: a hint for readAhead. For a
// split version, nothing is known once a lookup needs a shard the memo does not hold (the
// path may be in it, so a later lookup's answer would be a guess). h.mu must be held.
func (m *siteMemo) known(key, rel, index string, spa, slash bool) (siteFile, bool) {
	e, ok := m.entries[key]
	if !ok {
		return siteFile{}, false
	}
	file, unheld := e.files.at, false
	if e.shards != 0 {
		file = func(path string) (siteFile, bool) {
			s, ok := m.entries[route.SiteShardKey(key, route.SiteShard(key, path, e.shards))]
			if unheld = unheld || !ok; unheld {
				return siteFile{}, false
			}
			return s.files.at(path)
		}
	}
	f, found, _ := fileAt(file).at(rel, index, spa, slash)
	return f, found && !unheld
}
