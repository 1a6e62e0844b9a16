package wire

import (
	"errors"
	"strconv"
	"strings"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge"
)

// Reader reads the fields of one message. A message that ends early, carries a malformed
// number or a count larger than what is left sets Err, and every later read returns a zero
// value: decoding never panics on any input and the caller checks Err once.
type Reader struct {
	b   string // what is left of the message
	err error
}

// NewReader reads msg, the bytes of one message. They are copied once, into one string, and
// every field is a piece of it: one allocation per message rather than one per field (a
// request has some thirty, and in the Worker's Wasm each allocation costs a microsecond or
// more), and the caller may reuse msg as soon as this returns. A field kept longer keeps its
// whole message alive: whatever outlives the request is copied (DecodeRequest's URL; the core
// copies the keys it remembers). The Reader is a value: the Worker is built without inlining,
// so a pointer returned from here would be one more allocation per message.
func NewReader(msg []byte) Reader { return Reader{b: string(msg)} }

var (
	errShort    = errors.New("wire: the message ends inside a field")
	errNumber   = errors.New("wire: a number field is not a decimal integer")
	errCount    = errors.New("wire: a count is negative or larger than the message")
	errKind     = errors.New("wire: unknown kind field")
	errTrailing = errors.New("wire: fields left after the message")
)

func (r *Reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = ""
}

// Err is the first problem met, or nil.
func (r *Reader) Err() error { return r.err }

// End is Err, or an error when fields remain: a message with more fields than its reader
// expects means the two sides no longer speak the same protocol.
func (r *Reader) End() error {
	if r.err == nil && len(r.b) > 0 {
		r.fail(errTrailing)
	}
	return r.err
}

// Str reads one field.
func (r *Reader) Str() string {
	s, rest, found := strings.Cut(r.b, "\x00")
	if !found {
		r.fail(errShort)
		return ""
	}
	r.b = rest
	return s
}

// Int reads one decimal field.
func (r *Reader) Int() int {
	s := r.Str()
	if r.err != nil {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		r.fail(errNumber)
		return 0 // Atoi's clamped value of an out-of-range number is no value
	}
	return n
}

// Count reads a count of items of at least fields fields each, refusing one that cannot fit
// in what is left: a wrong count must not size an allocation.
func (r *Reader) Count(fields int) int {
	n := r.Int()
	if r.err != nil {
		return 0
	}
	if n < 0 || n > len(r.b)/fields { // every field is at least its NUL
		r.fail(errCount)
		return 0
	}
	return n
}

// Header reads a count and that many name, value pairs.
func (r *Reader) Header() edge.Header {
	n := r.Count(2)
	if n == 0 {
		return nil
	}
	h := make(edge.Header, n)
	for i := range h {
		h[i].Name = r.Str()
		h[i].Value = r.Str()
	}
	return h
}

// Lookup reads one lookup outcome: nil when it was not made. A hit's body is CachedBody.
func (r *Reader) Lookup() *edge.Lookup {
	switch LookupKind(r.Str()) {
	case LookupNotMade:
		return nil
	case LookupMiss:
		return &edge.Lookup{}
	case LookupError:
		return &edge.Lookup{Err: errors.New(r.Str())}
	case LookupHit:
		l := &edge.Lookup{Found: true}
		l.Entry.Status = r.Int()
		l.Entry.Header = r.Header()
		l.Entry.Body = CachedBody{}
		return l
	}
	r.fail(errKind)
	return nil
}

// CachedBody is the body of a Cache API entry worker.mjs looked up: it stays there (a
// content entry is served from there; a route-cache entry is all in its headers).
type CachedBody struct{}

// Text fails: the bytes are in JS, and the core never reads an adapter's body.
func (CachedBody) Text() (string, error) { return "", errors.New("the cached body stays in JS") }

// DecodeRequest reads decide's message: id, method, url, header. The URL gets a copy of its
// own: the host in it may be kept for minutes (the memo, the known-dynamic hosts), and as a
// piece of the message it would keep the whole head alive with it, cookies and all (up to
// tens of KB, for each of thousands of hosts).
func DecodeRequest(msg []byte) (*edge.Request, error) {
	r := NewReader(msg)
	req := &edge.Request{ID: r.Str(), Method: r.Str(), URL: strings.Clone(r.Str())}
	req.Header = r.Header()
	if err := r.End(); err != nil {
		return nil, err
	}
	return req, nil
}

// Object reads one static object read's outcome: nil when it was not made. The fields are
// a LookupKind, then a miss has none, an error its message, and a hit ObjectHeader's; a
// hit's body is ReadObject.
func (r *Reader) Object() *edge.ObjectRead {
	switch LookupKind(r.Str()) {
	case LookupNotMade:
		return nil
	case LookupMiss:
		return &edge.ObjectRead{}
	case LookupError:
		return &edge.ObjectRead{Err: errors.New(r.Str())}
	case LookupHit:
		o := &edge.ObjectRead{Found: true}
		o.Object.Header = r.objectHeader()
		o.Object.Body = ReadObject{}
		return o
	}
	r.fail(errKind)
	return nil
}

// ReadObject is the body of the static object worker.mjs read for a Decide: it stays there,
// and a plan with it says BodyObject.
type ReadObject struct{}

// Text fails: the bytes are in JS, and the core never reads an adapter's body.
func (ReadObject) Text() (string, error) { return "", errors.New("the object's body stays in JS") }

// HeldByJS makes a plan with this body say BodyObject.
func (ReadObject) HeldByJS() {}

// TextRead reads one binding read's outcome: nil when it was not made. The fields are a
// LookupKind, then a miss has none, an error its message, a hit the text, and LookupNUL none
// (the text is then a NUL). A hit's text is a piece of the message, which is little more than
// the text itself.
func (r *Reader) TextRead() *edge.TextRead {
	kind := LookupKind(r.Str())
	if kind == LookupNotMade {
		return nil
	}
	t := new(edge.TextRead)
	switch kind {
	case LookupHit:
		t.Found, t.Text = true, r.Str()
	case LookupNUL:
		t.Found, t.Text = true, "\x00"
	case LookupError:
		t.Err = errors.New(r.Str())
	case LookupMiss:
	default:
		r.fail(errKind)
		return nil
	}
	return t
}

// Reads is lookups's message: what worker.mjs looked up and read for a Decide (nil: not made).
type Reads struct {
	Content, Route *edge.Lookup
	Object         *edge.ObjectRead
	Read, Ahead    *edge.TextRead
}

// DecodeLookups reads lookups's message: the content lookup, the route-cache lookup, the
// static object read, then the binding read and the read ahead.
func DecodeLookups(msg []byte) (Reads, error) {
	r := NewReader(msg)
	reads := Reads{Content: r.Lookup(), Route: r.Lookup(), Object: r.Object(), Read: r.TextRead(), Ahead: r.TextRead()}
	if err := r.End(); err != nil {
		return Reads{}, err
	}
	return reads, nil
}

// DecodeLookup reads the one lookup of io.match's answer; a miss when it says none was made.
func DecodeLookup(msg []byte) (edge.Lookup, error) {
	r := NewReader(msg)
	l := r.Lookup()
	if err := r.End(); err != nil {
		return edge.Lookup{}, err
	}
	if l == nil {
		return edge.Lookup{}, nil
	}
	return *l, nil
}

// Remember is remember's message: a route-cache lookup that came back after its request was
// answered without it, for the core to remember (edge.Handler.RememberRoute).
type Remember struct {
	Key    string
	Lookup edge.Lookup
}

// DecodeRemember reads remember's message: the route-cache key, then the lookup (a hit, a
// miss or an error; "not made" reads as a miss).
func DecodeRemember(msg []byte) (Remember, error) {
	r := NewReader(msg)
	key := r.Str()
	l := r.Lookup()
	if err := r.End(); err != nil {
		return Remember{}, err
	}
	m := Remember{Key: key}
	if l != nil {
		m.Lookup = *l
	}
	return m, nil
}

// Upstream is finish's message: how the upstream fetch went.
type Upstream struct {
	Outcome UpstreamOutcome
	Status  int
	Detail  string
	// Names are the response's header names (Value empty): what the core's edits need.
	Names edge.Header
}

// DecodeUpstream reads finish's message: outcome, status, detail, name count, names.
func DecodeUpstream(msg []byte) (Upstream, error) {
	r := NewReader(msg)
	u := Upstream{Outcome: UpstreamOutcome(r.Str()), Status: r.Int(), Detail: r.Str()}
	switch u.Outcome {
	case UpstreamOK, UpstreamTimeout, UpstreamError:
	default:
		r.fail(errKind)
	}
	if n := r.Count(1); n > 0 {
		u.Names = make(edge.Header, n)
		for i := range u.Names {
			u.Names[i].Name = r.Str()
		}
	}
	if err := r.End(); err != nil {
		return Upstream{}, err
	}
	return u, nil
}

// DecodeObjectHeader reads io.r2's metadata fields (ObjectHeader) into a header, leaving out
// the empty ones.
func DecodeObjectHeader(msg []byte) (edge.Header, error) {
	r := NewReader(msg)
	h := r.objectHeader()
	if err := r.End(); err != nil {
		return nil, err
	}
	return h, nil
}

// objectHeader reads ObjectHeader's fields into a header, leaving out the empty ones.
func (r *Reader) objectHeader() edge.Header {
	var h edge.Header
	for _, name := range ObjectHeader {
		if s := r.Str(); s != "" {
			h.Set(name, s)
		}
	}
	return h
}
