package edge

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// BytesKV is a KV that can read a value as bytes. The name filter (route.FilterKey) is binary:
// the adapter reads it as an ArrayBuffer. A KV without this method has it read with Get, as
// text, which a binary filter does not survive intact; its checksum then refuses it, and the
// Worker runs without a filter (every host read from KV, as before filters existed).
type BytesKV interface {
	GetBytes(key string, cacheTTL time.Duration) (value []byte, found bool, err error)
}

// Which namespace's filter: ROUTES' (app names) answers platform hosts, DOMAINS' custom hosts.
const (
	filterRoutes = iota
	filterDomains
)

// heldFilter is one namespace's filter as this isolate holds it.
type heldFilter struct {
	f       *route.Filter // nil: no usable filter; every host goes on to KV
	exp     time.Time     // when it must be read again
	loading *filterLoad
}

type filterLoad struct {
	done    chan struct{}
	started time.Time
}

// filterRefuses reports whether the name filter rules the host out: then it is unknown, and no
// per-host read is made. ok is false when the filter is not held and this decision may not
// read it (Decide); Run reads it.
func (h *Handler) filterRefuses(ex *Exchange, host, app string, isPlatform bool) (refused, ok bool) {
	slot, name := filterDomains, host
	if isPlatform {
		slot, name = filterRoutes, app
	}
	f, ok := h.filter(ex, slot)
	return ok && f != nil && !f.Has(name), ok
}

// filter returns the namespace's filter, reading it when the isolate holds none or its hold is
// over. Concurrent requests that find it missing share one read (it is the largest value the
// Worker reads), waiting for it as for a shared host lookup.
func (h *Handler) filter(ex *Exchange, slot int) (*route.Filter, bool) {
	for waited := false; ; waited = true {
		now := h.now()
		h.mu.Lock()
		s := &h.filters[slot]
		if now.Before(s.exp) {
			f := s.f
			h.mu.Unlock()
			return f, true
		}
		if !ex.blocking {
			h.mu.Unlock()
			return nil, false
		}
		if l := s.loading; l != nil && !waited && now.Sub(l.started) < flightTimeout {
			h.mu.Unlock()
			h.waitShared(l.done)
			continue // its outcome, or (given up on) a read of our own
		}
		l := &filterLoad{done: make(chan struct{}), started: now}
		s.loading = l
		h.mu.Unlock()

		f, hold := h.readFilter(ex, slot)
		h.mu.Lock()
		// The hold counts from before the read: the KV copy read may already be FilterKV old,
		// and FilterKV + FilterHold is what the budget allows.
		s.f, s.exp = f, now.Add(hold)
		if s.loading == l {
			s.loading = nil
		}
		h.mu.Unlock()
		close(l.done)
		return f, true
	}
}

// readFilter reads and decodes one namespace's filter; the read is one of the request's KV
// reads. Anything but an intact filter of this schema is "no filter", logged, and held as such:
// for the filter's hold when KV answered (absent, another schema, damaged), which KV's own cache
// would repeat anyway, and only for the memo's lifetime when the read failed, so a KV hiccup
// does not switch the filter off for long.
func (h *Handler) readFilter(ex *Exchange, slot int) (*route.Filter, time.Duration) {
	kv, ns := h.Routes, BindingRoutes
	if slot == filterDomains {
		kv, ns = h.Domains, BindingDomains
	}
	ttl := h.Config.TTLs
	t := h.now()
	ex.line.KVReads++
	ex.line.IORounds++ // a wait of its own: per-host reads follow it
	var v []byte
	var found bool
	var err error
	if b, ok := kv.(BytesKV); ok {
		v, found, err = b.GetBytes(route.FilterKey, ttl.FilterKV)
	} else {
		v, found, err = kv.Get(route.FilterKey, ttl.FilterKV)
	}
	ex.line.KVUS += us(h.now().Sub(t))
	state, hold := "", ttl.FilterHold
	switch {
	case err != nil:
		state, hold = "unreadable", ttl.Memo
	case !found:
		state = "missing"
	default:
		f, derr := route.DecodeFilter(v)
		if derr == nil {
			return f, hold
		}
		state, err = "corrupt", derr
		if errors.Is(derr, route.ErrFilterSchema) {
			state = "stale-schema"
		}
	}
	h.logFilter(ex, ns, state, err)
	return nil, hold
}

// filterLine is the line logged when a namespace has no usable filter: once per isolate and
// hold, whatever the requests' sampling, since it means unknown hosts cost KV reads again.
type filterLine struct {
	_ [0]func() // not comparable: no equality function in the Wasm (see logLine)

	Msg       string `json:"msg"`
	TimeMS    int64  `json:"ts_ms"`
	RequestID string `json:"request_id"`
	Namespace string `json:"namespace"`
	State     string `json:"state"` // missing | stale-schema | corrupt | unreadable
	Error     string `json:"error,omitempty"`
}

func (h *Handler) logFilter(ex *Exchange, ns, state string, err error) {
	l := filterLine{Msg: "edge.filter", TimeMS: h.now().UnixMilli(), RequestID: ex.id, Namespace: ns, State: state}
	if err != nil {
		l.Error = err.Error()
	}
	b, merr := json.Marshal(l)
	if merr != nil || h.Log == nil {
		return
	}
	h.Log.Log(string(b))
}
