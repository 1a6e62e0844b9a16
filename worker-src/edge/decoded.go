package edge

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// decoded remembers, per isolate, what a value decoded to, keyed by its exact bytes: a record or
// mapping read from KV again (KV serves the same bytes until the value changes), and a
// route-cache entry read again while it lives (an entry this isolate stored is remembered as it
// is stored), decode to exactly what they did the first time. In workerd a JSON decode is the
// costliest step of a cold request: about 80 µs as the first Go work after an I/O wait, against
// 2 µs in a loop, and a route-cache hit made three (the entry, the record, the record's
// canonical encoding for its rev). Only values that decoded and validated are kept; whatever
// depends on the request or the time (an entry's host and expiry, a record's app) is still
// checked on every use. Each map starts over when full, as the memo does.
type decoded struct {
	mu       sync.Mutex
	records  map[string]route.Record
	mappings map[string]route.DomainMapping
	entries  map[string]decodedEntry
	// decodes counts the values actually decoded (entries, records, mappings), for tests.
	decodes int
}

// maxDecoded bounds each of decoded's maps: their keys are whole values (a few hundred bytes),
// and everything the isolate keeps is marked by every collection. A full map (or one never
// made) starts over, and each map keeps a copy of its key (strings.Clone): the key may be a
// piece of a larger string (the adapter decodes a whole message into one), which the map would
// otherwise keep alive for as long as it keeps the key. Written out at each of the three maps
// rather than as one generic helper: every instantiation of a generic function is a copy of
// its code in the Wasm.
const maxDecoded = 1024

// decodedEntry is a route-cache entry (the Kamui-Route-Entry header) decoded: its envelope, and
// the record it carries (unless it records an absence).
type decodedEntry struct {
	c   cachedRoute
	rec route.Record
}

// record is route.DecodeRecord(b), remembered.
func (d *decoded) record(b []byte) (route.Record, error) {
	d.mu.Lock()
	r, ok := d.records[string(b)]
	d.mu.Unlock()
	if ok {
		return r, nil
	}
	r, err := route.DecodeRecord(b)
	d.mu.Lock()
	d.decodes++
	if err == nil {
		if d.records == nil || len(d.records) >= maxDecoded {
			d.records = make(map[string]route.Record) // start over (see maxDecoded)
		}
		d.records[strings.Clone(string(b))] = r
	}
	d.mu.Unlock()
	return r, err
}

// mapping is route.DecodeDomainMapping(b), remembered.
func (d *decoded) mapping(b []byte) (route.DomainMapping, error) {
	d.mu.Lock()
	m, ok := d.mappings[string(b)]
	d.mu.Unlock()
	if ok {
		return m, nil
	}
	m, err := route.DecodeDomainMapping(b)
	d.mu.Lock()
	d.decodes++
	if err == nil {
		if d.mappings == nil || len(d.mappings) >= maxDecoded {
			d.mappings = make(map[string]route.DomainMapping)
		}
		d.mappings[strings.Clone(string(b))] = m
	}
	d.mu.Unlock()
	return m, err
}

// entry decodes a route-cache entry's header value: ok is false for one that is not an entry of
// this version, or whose record does not decode, name the entry's app and is not active.
func (d *decoded) entry(header string) (decodedEntry, bool) {
	d.mu.Lock()
	e, ok := d.entries[header]
	d.mu.Unlock()
	if ok {
		return e, true
	}
	d.mu.Lock()
	d.decodes++
	d.mu.Unlock()
	b, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil || json.Unmarshal(b, &e.c) != nil || e.c.V != routeEntryVersion {
		return decodedEntry{}, false
	}
	if !e.c.Absent {
		if e.rec, err = d.record(e.c.Record); err != nil || e.rec.App != e.c.App || e.rec.Status != route.StatusActive {
			return decodedEntry{}, false
		}
	}
	d.stored(header, e)
	return e, true
}

// knownEntry is the route-cache entry header decoded to before (entry), if this isolate still
// remembers it; it never decodes.
func (d *decoded) knownEntry(header string) (decodedEntry, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.entries[header]
	return e, ok
}

// stored remembers the entry this isolate encoded as header.
func (d *decoded) stored(header string, e decodedEntry) {
	d.mu.Lock()
	if d.entries == nil || len(d.entries) >= maxDecoded {
		d.entries = make(map[string]decodedEntry)
	}
	d.entries[strings.Clone(header)] = e
	d.mu.Unlock()
}
