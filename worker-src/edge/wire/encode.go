package wire

import (
	"errors"
	"strconv"
	"strings"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge"
)

// Writer builds one message. A field holding a NUL sets Err instead of shifting every later
// field: the caller then answers AnswerLost, which worker.mjs serves as a fixed failure.
type Writer struct {
	b   []byte
	err error
}

var errNUL = errors.New("wire: a field holds a NUL byte")

// Bytes returns the message, or Err when a field could not be written.
func (w *Writer) Bytes() ([]byte, error) { return w.b, w.err }

// Str appends one field.
func (w *Writer) Str(s string) {
	if strings.IndexByte(s, 0) >= 0 {
		w.err = errNUL
		return
	}
	w.b = append(w.b, s...)
	w.b = append(w.b, 0)
}

// Int appends one decimal field.
func (w *Writer) Int(n int64) {
	w.b = strconv.AppendInt(w.b, n, 10)
	w.b = append(w.b, 0)
}

// Header appends a count and the name, value pairs.
func (w *Writer) Header(h edge.Header) {
	w.Int(int64(len(h)))
	for _, f := range h {
		w.Str(f.Name)
		w.Str(f.Value)
	}
}

// Begin starts an answer in dst's memory (from its start; nil for new memory): its kind, the
// token, then the log lines worker.mjs prints. Every answer function below takes dst first,
// as strconv's Append functions do: the adapter passes the memory of its previous answer,
// which worker.mjs has read by then, so that an answer costs no allocation once that memory
// has grown to a request's size.
func Begin(dst []byte, kind AnswerKind, token int, lines []string) Writer {
	if cap(dst) == 0 {
		dst = make([]byte, 0, 512)
	}
	w := Writer{b: dst[:0]}
	w.Str(string(kind))
	w.Int(int64(token))
	w.Int(int64(len(lines)))
	for _, l := range lines {
		w.Str(l)
	}
	return w
}

// Lookups is the answer naming the cache lookups and the static object read to make ("" for
// none), then the binding read and the read ahead beside it (edge.ReadNone for none: its
// fields are then "", "", "", "0").
func Lookups(dst []byte, token int, lines []string, content, route, object string,
	read, ahead edge.NamedRead) ([]byte, error) {
	w := Begin(dst, AnswerLookups, token, lines)
	w.Str(content)
	w.Str(route)
	w.Str(object)
	w.namedRead(read)
	w.namedRead(ahead)
	return w.Bytes()
}

// namedRead writes a binding read's fields: kind, binding, key, parameter.
func (w *Writer) namedRead(read edge.NamedRead) {
	kind := ReadFieldNone
	if int(read.Kind) < len(readKindFields) {
		kind = readKindFields[read.Kind]
	}
	w.Str(string(kind))
	w.Str(read.Binding)
	w.Str(read.Key)
	w.Int(read.Param)
}

// readKindFields are the ReadFields of edge's ReadKinds, by kind.
var readKindFields = [...]ReadField{
	edge.ReadNone: ReadFieldNone,
	edge.ReadKV:   ReadFieldKV,
	edge.ReadText: ReadFieldText,
}

// Run is the answer asking worker.mjs to call run.
func Run(dst []byte, token int, lines []string) ([]byte, error) {
	w := Begin(dst, AnswerRun, token, lines)
	return w.Bytes()
}

// Lost is the answer for an unknown token or an answer that could not be encoded; it cannot
// fail itself unless a log line holds a NUL, and the core's JSON lines never do.
func Lost(dst []byte, token int, lines []string) ([]byte, error) {
	w := Begin(dst, AnswerLost, token, lines)
	return w.Bytes()
}

// Edits is finish's answer to UpstreamOK: the header edits for the upstream's response.
func Edits(dst []byte, token int, lines []string, e edge.Edits) ([]byte, error) {
	w := Begin(dst, AnswerEdits, token, lines)
	w.Int(int64(len(e.Del)))
	for _, d := range e.Del {
		w.Str(d)
	}
	w.Header(e.Set)
	return w.Bytes()
}

// Held is a body worker.mjs holds as a JS object (an R2 object, a Cache API entry matched
// during Run): a plan with one says BodyObject, and the adapter hands the object back
// beside the answer.
type Held interface {
	edge.Body
	// HeldByJS marks the adapter's JS-object bodies; it is never called.
	HeldByJS()
}

// Plan encodes a decided plan as AnswerForward or AnswerRespond, with the number of
// route-cache entries it planned (which the adapter holds until worker.mjs asks for them).
func Plan(dst []byte, token int, lines []string, p edge.Plan) ([]byte, error) {
	var w Writer
	if f := p.Forward; f != nil {
		w = Begin(dst, AnswerForward, token, lines)
		w.Str(f.Method)
		w.Str(f.URL)
		w.Int(f.Timeout.Milliseconds())
		ws := ""
		if f.WebSocket {
			ws = WebSocketUpgrade
		}
		w.Str(ws)
		w.Header(f.Header)
	} else {
		w = Begin(dst, AnswerRespond, token, lines)
		w.Int(int64(p.Status))
		kind, text := bodyKind(p.Body)
		w.Str(string(kind))
		w.Str(text)
		if r := p.Range; r != nil {
			w.Int(r.Offset)
			w.Int(r.Length)
		} else {
			w.Str("")
			w.Str("")
		}
		w.Header(p.Header)
		if p.Store != nil {
			w.Str(p.Store.Key)
			w.Header(p.Store.Header)
		} else {
			w.Str("")
			w.Int(0)
		}
	}
	w.Int(int64(len(p.CachePuts))) // waiting: the adapter holds them (see Puts)
	return w.Bytes()
}

// Puts encodes AnswerPuts: the route-cache entries to store, each already made
// (edge.CachePut.Make).
func Puts(dst []byte, lines []string, puts []edge.CachePut) ([]byte, error) {
	w := Begin(dst, AnswerPuts, 0, lines)
	w.Int(int64(len(puts)))
	for _, put := range puts {
		w.Str(put.Key)
		w.Int(int64(put.Entry.Status))
		w.Header(put.Entry.Header)
		// Route-cache entries are all core-made text; any other body would be stored empty.
		text := ""
		if t, ok := put.Entry.Body.(edge.TextBody); ok {
			text = string(t)
		}
		w.Str(text)
	}
	return w.Bytes()
}

// bodyKind says where a respond answer's body is. A body of none of these kinds is
// answered without one, as it always has been: the core only makes TextBody, and the
// adapter's bodies are CachedBody or Held (ReadObject among them).
func bodyKind(b edge.Body) (BodyKind, string) {
	switch b := b.(type) {
	case edge.TextBody:
		return BodyText, string(b)
	case CachedBody:
		return BodyCached, ""
	case Held:
		return BodyObject, ""
	}
	return BodyNone, ""
}
