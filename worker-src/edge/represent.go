package edge

import (
	"strconv"
	"strings"
)

// ByteRange is the part of a body the client gets: Length bytes from Offset.
type ByteRange struct{ Offset, Length int64 }

// represent answers a request for a complete 200 representation whose metadata (ETag,
// Last-Modified, Content-Length) is in p.Header: 304 when the client's copy is current,
// 206 or 416 for a byte range, else p itself. R2 objects and content-cache entries both come
// through here, so the two sources answer alike (see doc.go). Anything but the full 200 is
// never stored: a cache entry must be the whole representation.
func (ex *Exchange) represent(p Plan, req Header) Plan {
	size, sized := contentLength(p.Header)
	if sized {
		p.Header.Set("Accept-Ranges", "bytes")
	}
	if notModified(req, p.Header) {
		p.Status, p.Body, p.Store = 304, nil, nil
		// RFC 9110 §15.4.5: a 304 carries the validators and Cache-Control, not the body's
		// own metadata.
		for _, name := range [...]string{"Content-Type", "Content-Length", "Content-Language", "Content-Encoding", "Accept-Ranges"} {
			p.Header.Del(name)
		}
		return p
	}
	// RFC 9110 §14.2: GET is the only method with range handling, so HEAD answers as a GET
	// without Range would (200 and the full Content-Length).
	if ex.method != "GET" || !sized || !req.Has("Range") || !rangeStillValid(req, p.Header) {
		return p
	}
	r, ok := parseRange(req.Get("Range"), size)
	if !ok {
		return p // malformed or several ranges: the whole body
	}
	total := strconv.FormatInt(size, 10)
	if r.Length == 0 {
		q := ex.fixed(fixedRange)
		q.Header.Set("Content-Range", "bytes */"+total)
		return q
	}
	last := r.Offset + r.Length - 1
	p.Status, p.Store, p.Range = 206, nil, &r
	p.Header.Set("Content-Range", "bytes "+strconv.FormatInt(r.Offset, 10)+"-"+strconv.FormatInt(last, 10)+"/"+total)
	p.Header.Set("Content-Length", strconv.FormatInt(r.Length, 10))
	return p
}

func contentLength(h Header) (int64, bool) {
	n, err := strconv.ParseUint(h.Get("Content-Length"), 10, 63)
	return int64(n), err == nil
}

// notModified evaluates If-None-Match (weak comparison, RFC 9110 §13.1.2) or, only without
// it, If-Modified-Since. The core calls it for GET and HEAD only.
func notModified(req, rep Header) bool {
	if req.Has("If-None-Match") {
		etag := rep.Get("ETag")
		return etag != "" && etagListMatches(req.Get("If-None-Match"), etag, false)
	}
	since, ok := httpDate(req.Get("If-Modified-Since"))
	modified, ok2 := httpDate(rep.Get("Last-Modified"))
	return ok && ok2 && modified <= since
}

// rangeStillValid evaluates If-Range: the range applies only when the client's validator is
// the current one by strong comparison, so a resumed download never splices two versions.
func rangeStillValid(req, rep Header) bool {
	v := strings.TrimSpace(req.Get("If-Range"))
	if v == "" {
		return true
	}
	if strings.HasPrefix(v, `"`) || strings.HasPrefix(v, "W/") {
		etag := rep.Get("ETag")
		return etag != "" && etagListMatches(v, etag, true)
	}
	modified := rep.Get("Last-Modified")
	_, ok := httpDate(v)
	return ok && v == modified
}

// etagListMatches reports whether the comma-separated entity-tags of list (or "*") contain
// etag. strong: a weak tag on either side never matches. A malformed list matches nothing.
func etagListMatches(list, etag string, strong bool) bool {
	if strings.TrimSpace(list) == "*" {
		return true
	}
	want, wantWeak := strings.CutPrefix(etag, "W/")
	if strong && wantWeak {
		return false
	}
	for s := list; ; {
		var weak bool
		s, weak = strings.CutPrefix(strings.TrimLeft(s, " \t,"), "W/")
		if s == "" {
			return false
		}
		if len(s) < 2 || s[0] != '"' {
			return false
		}
		end := strings.IndexByte(s[1:], '"') + 2
		if end < 2 {
			return false
		}
		if s[:end] == want && !(strong && weak) {
			return true
		}
		s = s[end:]
	}
}

// parseRange reads a single range-spec of a "bytes=" Range for a body of size bytes. ok is
// false when the header is to be ignored (malformed, several ranges, an empty body); a zero
// Length means unsatisfiable (416).
func parseRange(v string, size int64) (r ByteRange, ok bool) {
	unit, spec, found := strings.Cut(v, "=")
	if !found || !strings.EqualFold(strings.TrimSpace(unit), "bytes") || strings.Contains(spec, ",") || size == 0 {
		return r, false
	}
	a, b, found := strings.Cut(strings.TrimSpace(spec), "-")
	first, okA := decimal(a)
	last, okB := decimal(b)
	switch {
	case found && a == "" && okB: // the last n bytes, or all of a shorter body
		n := min(last, size)
		return ByteRange{Offset: size - n, Length: n}, true
	case found && okA && b == "":
		last = size - 1
	case !found || !okA || !okB || last < first:
		return r, false
	}
	if first >= size {
		return r, true
	}
	last = min(last, size-1)
	return ByteRange{Offset: first, Length: last - first + 1}, true
}

// decimal reads digits only (no sign, no space) into a non-negative int64.
func decimal(s string) (int64, bool) {
	n, err := strconv.ParseUint(s, 10, 63)
	return int64(n), err == nil
}

// httpDate reads an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT", the form the Worker sends
// in Last-Modified) into a number that orders like the time. The obsolete RFC 850 and
// asctime forms read as invalid, so a condition written in them is ignored (a full 200,
// never a wrong 304): time.Parse would bring its layout machinery into the Wasm for them.
func httpDate(s string) (int64, bool) {
	if len(s) != 29 || s[3:5] != ", " || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' ||
		s[19] != ':' || s[22] != ':' || s[25:] != " GMT" {
		return 0, false
	}
	month := strings.Index("JanFebMarAprMayJunJulAugSepOctNovDec", s[8:11])
	year, ok1 := decimal(s[12:16])
	day, ok2 := decimal(s[5:7])
	hour, ok3 := decimal(s[17:19])
	minute, ok4 := decimal(s[20:22])
	second, ok5 := decimal(s[23:25])
	if month < 0 || month%3 != 0 || !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return 0, false
	}
	days := (year*12+int64(month/3))*31 + day
	return ((days*24+hour)*60+minute)*60 + second, true
}

// conditional reports whether req asks for anything but the whole representation (a range, or
// a validator that may make the answer a 304): only then may a static answer need no body.
func conditional(req Header) bool {
	return req.Has("Range") || req.Has("If-None-Match") || req.Has("If-Modified-Since")
}
