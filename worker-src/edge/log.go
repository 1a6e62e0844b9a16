package edge

import (
	"strconv"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// logLine is the one structured line per request. It holds no path, query, cookie or
// Authorization value: only the normalised host and what the edge itself decided.
type logLine struct {
	// noCompare keeps the compiler from generating an equality function nobody calls:
	// the Wasm's size is one of the Worker's goals.
	_ [0]func()

	Msg           string  `json:"msg"`
	TimeMS        int64   `json:"ts_ms"`
	RequestID     string  `json:"request_id"`
	Method        string  `json:"method"`
	Host          string  `json:"host,omitempty"`
	HostKind      string  `json:"host_kind,omitempty"` // platform | custom
	App           string  `json:"app,omitempty"`
	RouteSource   string  `json:"route_source,omitempty"` // memo | shared | route-cache | kv | filter (refused by the name filter)
	KVReads       int     `json:"kv_reads"`
	R2Reads       int     `json:"r2_reads,omitempty"`       // static objects
	ManifestReads int     `json:"manifest_reads,omitempty"` // content-addressed sites' manifests
	IORounds      int     `json:"io_rounds"`                // sequential I/O waits before the response starts (Exchange.settle)
	ContentCache  string  `json:"content_cache"`            // skip | hit | miss | unmarked | error
	RouteCache    string  `json:"route_cache"`              // skip | hit | negative-hit | miss | unmarked | invalid | error (+put-error)
	Delivery      string  `json:"delivery,omitempty"`
	Outcome       Outcome `json:"outcome"`
	Status        int     `json:"status"`
	DurUS         int64   `json:"dur_us"`
	KVUS          int64   `json:"kv_us"`
	UpstreamUS    int64   `json:"upstream_us,omitempty"`
	Error         string  `json:"error,omitempty"`
}

// Outcome says how the Worker answered a request: the log line's "outcome". Dashboards and
// the bench group by it, so the set is small and fixed, and each value keeps the spelling the
// line has always carried. worker.mjs logs one more, "adapter-failure", when the Go core
// could not run at all.
type Outcome uint8

const (
	// outcomeUnset is the zero value, logged as "": every answer sets its outcome, and a line
	// without one must not pass for a success.
	outcomeUnset Outcome = iota
	// OutcomeOK: routed (forwarded, or served from the content cache or static storage).
	OutcomeOK
	// OutcomeProbe: a propagation probe, answered by the edge itself.
	OutcomeProbe
	// OutcomeBadConfig: a binding is missing or invalid (500).
	OutcomeBadConfig
	// OutcomeBadHost: the Host is not a valid DNS name (400).
	OutcomeBadHost
	// OutcomeUnknownHost: no route for the host (404).
	OutcomeUnknownHost
	// OutcomeNotActive: the record or the mapping is not active (503).
	OutcomeNotActive
	// OutcomeBadRecord: the record or the mapping fails validation (502).
	OutcomeBadRecord
	// OutcomeKVError: a KV read failed (503).
	OutcomeKVError
	// OutcomeMethodNotAllowed: a static route asked for another method than GET or HEAD (405).
	OutcomeMethodNotAllowed
	// OutcomeStaticNotFound: a static route has no object for the path (404).
	OutcomeStaticNotFound
	// OutcomeStaticError: a static object or a site's manifest could not be read or is invalid (502).
	OutcomeStaticError
	// OutcomeUpstreamTimeout: the upstream did not answer within the timeout (504).
	OutcomeUpstreamTimeout
	// OutcomeUpstreamUnreachable: the upstream fetch failed (502).
	OutcomeUpstreamUnreachable

	outcomeCount = iota
)

var outcomeNames = [outcomeCount]string{
	"", "ok", "probe", "bad-config", "bad-host", "unknown-host", "not-active", "bad-record", "kv-error",
	"method-not-allowed", "static-not-found", "static-error", "upstream-timeout", "upstream-unreachable",
}

func (o Outcome) String() string { return outcomeNames[o] }

// MarshalText makes encoding/json write an Outcome as its name, as encode does.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// logFields is logLine's JSON layout, in encoding/json's order: i indexes the strings or
// the numbers encode collects.
var logFields = [...]struct {
	key       string
	num, omit bool
	i         int8
}{
	{`{"msg":`, false, false, 0}, {`,"ts_ms":`, true, false, 0}, {`,"request_id":`, false, false, 1},
	{`,"method":`, false, false, 2}, {`,"host":`, false, true, 3}, {`,"host_kind":`, false, true, 4},
	{`,"app":`, false, true, 5}, {`,"route_source":`, false, true, 6}, {`,"kv_reads":`, true, false, 1},
	{`,"r2_reads":`, true, true, 2}, {`,"manifest_reads":`, true, true, 3}, {`,"io_rounds":`, true, false, 8},
	{`,"content_cache":`, false, false, 7},
	{`,"route_cache":`, false, false, 8}, {`,"delivery":`, false, true, 9}, {`,"outcome":`, false, false, 10},
	{`,"status":`, true, false, 4}, {`,"dur_us":`, true, false, 5}, {`,"kv_us":`, true, false, 6},
	{`,"upstream_us":`, true, true, 7}, {`,"error":`, false, true, 11},
}

// encode writes the line exactly as encoding/json would, without the reflection every
// request would pay for (strings as route.AppendJSONString writes them).
func (l *logLine) encode() string {
	strs := [...]string{l.Msg, l.RequestID, l.Method, l.Host, l.HostKind, l.App, l.RouteSource,
		l.ContentCache, l.RouteCache, l.Delivery, l.Outcome.String(), l.Error}
	nums := [...]int64{l.TimeMS, int64(l.KVReads), int64(l.R2Reads), int64(l.ManifestReads), int64(l.Status),
		l.DurUS, l.KVUS, l.UpstreamUS, int64(l.IORounds)}
	b := make([]byte, 0, 384)
	for _, f := range logFields {
		if f.num {
			if n := nums[f.i]; n != 0 || !f.omit {
				b = strconv.AppendInt(append(b, f.key...), n, 10)
			}
			continue
		}
		v := strs[f.i]
		if v == "" && f.omit {
			continue
		}
		b = route.AppendJSONString(append(b, f.key...), v)
	}
	return string(append(b, '}'))
}

// sampled decides from the request id, so the decision is deterministic for tests and
// needs no random source.
func sampled(id string, perMillion int) bool {
	if perMillion >= 1_000_000 {
		return true
	}
	if perMillion <= 0 {
		return false
	}
	// FNV-1a, 32 bits (as hash/fnv's New32a), written out: the package's hash.Hash
	// methods would all come along into the Wasm.
	h := uint32(2166136261)
	for i := 0; i < len(id); i++ {
		h = (h ^ uint32(id[i])) * 16777619
	}
	return int(h%1_000_000) < perMillion
}
