package edge

import (
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// Named reads: the binding reads a Decide leaves to the adapter.
//
// A Decide may not wait, but it need not hand the request to Run (the adapter's runner, which
// reads the bindings itself and waits inside the Wasm) only because a read is next. Like the
// cache lookups (Exchange.Lookups) and a site's object (Exchange.ObjectKey), a KV value or a
// site's manifest can be named for the adapter (Exchange.Read), which makes the read and
// decides again with its text (Request.Read). Every pass decides from the top, so an exchange
// keeps the reads made for it (done) and each is made once whichever pass, or Run, needs it
// again. Reads stay one after another, as in Run: the record's key is known only from the
// mapping, the manifest's only from the record.
//
// In the Worker this spares a request's cold path the runner's goroutine, its exports that
// block and every value crossing through syscall/js (with its finalizer): the text comes back
// in the input buffer like a lookup's fields.

// ReadKind says what a named read returns.
type ReadKind uint8

const (
	// ReadNone: no read is named.
	ReadNone ReadKind = iota
	// ReadKV: a KV value as text; Binding names the namespace, Param is its cacheTtl in
	// seconds (KV.Get's).
	ReadKV
	// ReadText: a whole static object as text (a site's manifest); Binding names the bucket,
	// Param is the size limit in bytes, which the adapter checks before reading the body
	// (Objects.Text's).
	ReadText
)

// NamedRead is one binding read, as a Decide names it for the adapter.
type NamedRead struct {
	_       [0]func() // not comparable, so no equality function in the Wasm (see logLine): same
	Kind    ReadKind
	Binding string
	Key     string
	Param   int64
}

// same reports whether n and o name the same read (a binding's reads all have one parameter).
func (n *NamedRead) same(o *NamedRead) bool {
	return n.Key == o.Key && n.Binding == o.Binding && n.Kind == o.Kind
}

// TextRead is the outcome of a named read (Request.Read): Found is false when there was no
// value under the key, Err set when the read failed.
type TextRead struct {
	_     [0]func()
	Text  string
	Found bool
	Err   error
}

// doneRead is a named read made for this exchange and its outcome; us is how long it took,
// from the Decide that named it to the one that got it.
type doneRead struct {
	read NamedRead
	out  TextRead
	us   int64
	// ahead: made as the exchange's read ahead, which the log line counts when it is named.
	ahead bool
}

// Read names the binding read a Decide that returned false needs made (Request.Read); Kind is
// ReadNone for none. It is named only when no lookup is: a read follows what they answer.
func (ex *Exchange) Read() NamedRead { return ex.needRead }

// ReadAhead names a second binding read to make beside Read (Request.Ahead): the manifest the
// record being read most likely names (readAhead). It is named with a new Read, once per
// exchange, and again as it is while it is out; Kind is ReadNone for none.
func (ex *Exchange) ReadAhead() NamedRead { return ex.needAhead }

// takeRead keeps the outcomes of the reads the last Decide named, which the adapter put into
// the request, with the exchange's other reads.
func (ex *Exchange) takeRead() {
	if a := ex.req.Ahead; a != nil && ex.askedAhead.Kind != ReadNone {
		ex.keep(doneRead{read: ex.askedAhead, out: *a, us: us(ex.h.now().Sub(ex.aheadAsked)), ahead: true}, ex.aheadAsked)
		ex.askedAhead = NamedRead{}
	}
	ex.req.Ahead = nil
	r := ex.req.Read
	ex.req.Read = nil
	if r == nil || ex.askedRead.Kind == ReadNone {
		return // nothing was named: not ours to use
	}
	ex.keep(doneRead{read: ex.askedRead, out: *r, us: us(ex.h.now().Sub(ex.readAsked))}, ex.readAsked)
	ex.askedRead = NamedRead{}
}

// keep adds a read made for the exchange, named at asked, to the others.
func (ex *Exchange) keep(d doneRead, asked time.Time) {
	if len(ex.done) == 0 {
		ex.readsFrom = asked
	}
	ex.done = append(ex.done, d)
}

// named is the outcome of n when the adapter made it for this exchange (made); otherwise a
// Decide names n and stops (ex.pending), and Run makes it (neither made nor pending). A KV read
// is named only once the name filter has admitted the host (a host it rules out costs no
// per-host read); otherwise it is Run's, after the filter's own. A manifest is read only for a
// host that resolved to a record.
func (ex *Exchange) named(n *NamedRead) (out TextRead, made bool) {
	if d := ex.madeRead(n); d != nil {
		return d.out, true
	}
	if !ex.blocking {
		if n.same(&ex.askedAhead) {
			ex.needAhead = *n // out: named again as it is, not made again
		} else if ex.filtered || n.Kind != ReadKV {
			ex.needRead = *n
		}
		ex.wait()
		return TextRead{}, false
	}
	// A read a Decide named and the adapter left to Run had its round counted then.
	if !n.same(&ex.askedRead) {
		ex.line.IORounds++
	}
	return TextRead{}, false
}

// madeRead is n as the adapter made it for this exchange, with its outcome; nil if it has not.
func (ex *Exchange) madeRead(n *NamedRead) *doneRead {
	for i := range ex.done {
		if ex.done[i].read.same(n) {
			return &ex.done[i]
		}
	}
	return nil
}

// mappingRead is the read of custom host's DOMAINS mapping, as kvGet names it.
func (h *Handler) mappingRead(host string) *NamedRead {
	return kvRead(BindingDomains, host, h.Config.TTLs.DomainsKV)
}

func kvRead(binding, key string, ttl time.Duration) *NamedRead {
	return &NamedRead{Kind: ReadKV, Binding: binding, Key: key, Param: int64(ttl / time.Second)}
}

// countReads adds the named reads made for the exchange to its log line, once, at settle: every
// pass rebuilds the line and may use them again. Their rounds were counted when they were named.
func (ex *Exchange) countReads() {
	for i := range ex.done {
		d := &ex.done[i]
		if d.ahead {
			continue // counted when named (settle)
		}
		if d.read.Kind == ReadKV {
			ex.line.KVReads++
			ex.line.KVUS += d.us
		} else {
			ex.line.ManifestReads++
		}
	}
}

// kvGet reads key from a KV namespace with KV's edge cacheTtl ttl: the adapter's read when a
// Decide named it, else now when the exchange may block. A Decide names it and stops
// (ex.pending); the caller returns.
func (h *Handler) kvGet(ex *Exchange, binding string, kv KV, key string,
	ttl time.Duration) ([]byte, bool, error) {
	r, made := ex.named(kvRead(binding, key, ttl))
	if made {
		return []byte(r.Text), r.Found, r.Err
	}
	if ex.pending {
		return nil, false, nil
	}
	t := h.now()
	ex.line.KVReads++
	v, found, err := kv.Get(key, ttl)
	ex.line.KVUS += us(h.now().Sub(t))
	return v, found, err
}

// manifestRead is the read of a site's manifest, as manifestText names it.
func manifestRead(key string) *NamedRead {
	return &NamedRead{Kind: ReadText, Binding: BindingStatic, Key: key, Param: route.MaxSiteManifestBytes}
}

// manifestText reads a site's manifest as text, at most route.MaxSiteManifestBytes, as kvGet
// reads KV.
func (h *Handler) manifestText(ex *Exchange, key string) (string, bool, error) {
	n := manifestRead(key)
	r, made := ex.named(n)
	if made || ex.pending {
		return r.Text, r.Found, r.Err
	}
	ex.line.ManifestReads++
	return h.Static.Text(key, n.Param)
}
