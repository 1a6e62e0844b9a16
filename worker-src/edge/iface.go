package edge

import "time"

// Body is a body the adapter owns (a JS stream, an R2 object, a cached Response). The core
// passes it through without reading it: even its own route-cache entries are all in headers.
type Body interface {
	// Text reads the whole body. The core never calls it on the adapter's bodies; the
	// adapter uses it for the core's own TextBody answers, and tests to read plans.
	Text() (string, error)
}

// TextBody is a body the core makes itself: fixed responses and route-cache entries.
type TextBody string

// Text returns the body.
func (b TextBody) Text() (string, error) { return string(b), nil }

// Entry is a stored response: a Cache API entry or an answer the core makes.
type Entry struct {
	Status int
	Header Header
	Body   Body
}

// KV reads one Workers KV namespace.
type KV interface {
	// Get returns the value of key, found=false when the key does not exist, or an error
	// when the read failed (which is never cached). cacheTTL is KV's edge cacheTtl.
	Get(key string, cacheTTL time.Duration) (value []byte, found bool, err error)
}

// Cache is the Cache API (caches.default) keyed by absolute URL. The core only reads it
// while deciding; what it wants stored comes back in Plan.CachePuts and Plan.Store, which
// the adapter writes after the response (ctx.waitUntil), so a put never delays a request.
type Cache interface {
	// Match returns the entry stored under key, found=false on a miss.
	Match(key string) (e Entry, found bool, err error)
}

// CachePut is an entry the adapter must store (Cache API put) once the response is on its
// way; Entry's Cache-Control max-age is its lifetime and its body is a TextBody.
//
// A route-cache entry is planned unmade: Make encodes it, which the adapter does once the
// response has left. Nothing needs the entry before then, and making it (JSON, base64) was
// done in the pass that starts the next read or the upstream fetch: a cold request's Worker
// time in workerd fell 4-9 % when it moved (docs/PERFORMANCE.md, "Route-cache entries made
// after the response").
type CachePut struct {
	Key     string
	Entry   Entry
	planned *plannedRoute // a route-cache entry not made yet
}

// Make makes the entry if it was planned unmade, and reports whether there is one to store:
// an entry whose lifetime ran out before it was made is not.
func (p *CachePut) Make() bool {
	if p.planned == nil {
		return true
	}
	ok := p.planned.make(&p.Entry)
	p.planned = nil
	return ok
}

// Object is a static object from the static origin (R2).
type Object struct {
	// Header carries what the origin knows about the object: Content-Type, ETag,
	// Content-Length, Last-Modified (whichever are known).
	Header Header
	// Body is nil when the object was read without its body (HEAD).
	Body Body
}

// Objects is the static origin (the R2 bucket bound as STATIC).
type Objects interface {
	// Get returns the object stored under key, found=false when there is none.
	Get(key string, withBody bool) (o Object, found bool, err error)
	// Text returns the whole content of the object under key as text (a site manifest),
	// found=false when there is none. An object larger than limit bytes is an error and
	// is not read.
	Text(key string, limit int64) (text string, found bool, err error)
}

// Logger receives one structured JSON line per request.
type Logger interface{ Log(line string) }
