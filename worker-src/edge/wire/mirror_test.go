package wire

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge"
)

// The other side of the wire, written as worker.mjs writes and reads it: the shim's
// messages (fields joined by NUL, each terminated) and its reading of the answers. The
// workertest package runs the real shim against the real adapter in workerd.

// message is worker.mjs's write(): every field terminated by a NUL.
func message(fields ...string) []byte {
	return []byte(strings.Join(fields, "\x00") + "\x00")
}

// headerFields is worker.mjs's pushHeaders.
func headerFields(h edge.Header) []string {
	f := []string{strconv.Itoa(len(h))}
	for _, x := range h {
		f = append(f, x.Name, x.Value)
	}
	return f
}

func requestMessage(r *edge.Request) []byte {
	return message(append([]string{r.ID, r.Method, r.URL}, headerFields(r.Header)...)...)
}

// lookupFields is worker.mjs's lookup(): nil is a lookup not made.
func lookupFields(l *edge.Lookup) []string {
	switch {
	case l == nil:
		return []string{""}
	case l.Err != nil:
		return []string{"E", l.Err.Error()}
	case !l.Found:
		return []string{"M"}
	}
	return append([]string{"H", strconv.Itoa(l.Entry.Status)}, headerFields(l.Entry.Header)...)
}

// objectFields is worker.mjs's readObject(): nil is a read not made.
func objectFields(o *edge.ObjectRead) []string {
	switch {
	case o == nil:
		return []string{""}
	case o.Err != nil:
		return []string{"E", o.Err.Error()}
	case !o.Found:
		return []string{"M"}
	}
	f := []string{"H"}
	for _, name := range ObjectHeader {
		f = append(f, o.Object.Header.Get(name))
	}
	return f
}

// readFields is worker.mjs's readBinding(): nil is a read not made.
func readFields(r *edge.TextRead) []string {
	switch {
	case r == nil:
		return []string{""}
	case r.Err != nil:
		return []string{"E", r.Err.Error()}
	case !r.Found:
		return []string{"M"}
	case strings.Contains(r.Text, "\x00"):
		return []string{"N"}
	}
	return []string{"H", r.Text}
}

func lookupsMessage(r Reads) []byte {
	f := append(lookupFields(r.Content), lookupFields(r.Route)...)
	f = append(f, objectFields(r.Object)...)
	f = append(f, readFields(r.Read)...)
	return message(append(f, readFields(r.Ahead)...)...)
}

// rememberMessage is worker.mjs's rememberLater message: the key, then the lookup. A miss and
// "not made" both decode to the zero lookup, which is written as "not made".
func rememberMessage(m Remember) []byte {
	l := &m.Lookup
	if !l.Found && l.Err == nil {
		l = nil
	}
	return message(append([]string{m.Key}, lookupFields(l)...)...)
}

func upstreamMessage(u Upstream) []byte {
	f := []string{string(u.Outcome), strconv.Itoa(u.Status), u.Detail, strconv.Itoa(len(u.Names))}
	for _, n := range u.Names {
		f = append(f, n.Name)
	}
	return message(f...)
}

// answer is an answer as worker.mjs's Answer class reads it.
type answer struct {
	kind   AnswerKind
	token  int
	lines  []string
	f      []string
	i      int
	failed bool
	// waiting is an F or R answer's count of route-cache entries held for puts.
	waiting int
}

func readAnswer(t *testing.T, b []byte) *answer {
	t.Helper()
	s := string(b)
	if !strings.HasSuffix(s, "\x00") {
		t.Fatalf("answer %q does not end with a NUL", s)
	}
	a := &answer{f: strings.Split(strings.TrimSuffix(s, "\x00"), "\x00")}
	a.kind = AnswerKind(a.next())
	a.token = a.int()
	for k := a.int(); k > 0; k-- {
		a.lines = append(a.lines, a.next())
	}
	return a
}

func (a *answer) next() string {
	if a.i >= len(a.f) {
		a.failed = true
		return ""
	}
	a.i++
	return a.f[a.i-1]
}

func (a *answer) int() int {
	n, err := strconv.Atoi(a.next())
	if err != nil {
		a.failed = true
	}
	return n
}

func (a *answer) header() edge.Header {
	var h edge.Header
	for k := a.int(); k > 0; k-- {
		h = append(h, edge.Field{Name: a.next(), Value: a.next()})
	}
	return h
}

// done fails the test unless every field was read, exactly.
func (a *answer) done(t *testing.T) {
	t.Helper()
	if a.failed || a.i != len(a.f) {
		t.Errorf("answer read %d of %d fields (failed %v): %q", a.i, len(a.f), a.failed, a.f)
	}
}

// plan reads an F or R answer back into a plan, as forward() and respond() do; a BodyObject
// or BodyCached body comes back as the heldBody or CachedBody it was, and the count of
// route-cache entries waiting goes to a.waiting.
func (a *answer) plan() edge.Plan {
	var p edge.Plan
	switch a.kind {
	case AnswerForward:
		f := &edge.Forward{Method: a.next(), URL: a.next()}
		f.Timeout = time.Duration(a.int()) * time.Millisecond
		f.WebSocket = a.next() == WebSocketUpgrade
		f.Header = a.header()
		p.Forward = f
	case AnswerRespond:
		p.Status = a.int()
		kind, text := BodyKind(a.next()), a.next()
		switch kind {
		case BodyText:
			p.Body = edge.TextBody(text)
		case BodyCached:
			p.Body = CachedBody{}
		case BodyObject:
			p.Body = heldBody{}
		}
		if off, n := a.next(), a.next(); n != "" {
			o, _ := strconv.ParseInt(off, 10, 64)
			l, _ := strconv.ParseInt(n, 10, 64)
			p.Range = &edge.ByteRange{Offset: o, Length: l}
		}
		p.Header = a.header()
		if key, h := a.next(), a.header(); key != "" {
			p.Store = &edge.Store{Key: key, Header: h}
		}
	default:
		a.failed = true
	}
	a.waiting = a.int()
	return p
}

// puts reads a P answer's entries, as flushPuts does.
func (a *answer) puts() []edge.CachePut {
	if a.kind != AnswerPuts {
		a.failed = true
	}
	var puts []edge.CachePut
	for k := a.int(); k > 0; k-- {
		put := edge.CachePut{Key: a.next()}
		put.Entry.Status = a.int()
		put.Entry.Header = a.header()
		put.Entry.Body = edge.TextBody(a.next())
		puts = append(puts, put)
	}
	return puts
}

// heldBody stands for the adapter's JS-object bodies.
type heldBody struct{}

func (heldBody) Text() (string, error) { return "", errors.New("held by JS") }
func (heldBody) HeldByJS()             {}
