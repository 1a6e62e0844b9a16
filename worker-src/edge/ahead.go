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
	now := h.now()
	h.mu.Lock()
	file, found := h.sites.known(st.Manifest, rel, st.Index, st.SPA, strings.HasSuffix(u.path, "/"))
	live := h.sites.live(st.Manifest, now)
	h.mu.Unlock()
	if found {
		ex.needObject = route.SiteObjectKey(st.Prefix, file.object())
	}
	if m := manifestRead(st.Manifest); !live && ex.madeRead(m) == nil {
		// The memo let the version go (the freshness budget): the record most likely names
		// it again, and its read need not wait for the record's.
		ex.needAhead = *m
	}
}

// live reports whether the manifest under key is held and not expired, without marking it
// used. h.mu must be held.
func (m *siteMemo) live(key string, now time.Time) bool {
	e, ok := m.entries[key]
	return ok && now.Before(e.exp)
}

// known is the file the manifest under key maps rel to, as serveSite maps it (siteFiles.at),
// from its entry live or expired, without marking it used: a hint for readAhead. h.mu must be
// held.
func (m *siteMemo) known(key, rel, index string, spa, slash bool) (siteFile, bool) {
	e, ok := m.entries[key]
	if !ok {
		return siteFile{}, false
	}
	f, found, _ := e.files.at(rel, index, spa, slash)
	return f, found
}
