package edge

import (
	"encoding/json"
	"hash/fnv"
)

// logLine is the one structured line per request. It holds no path, query, cookie or
// Authorization value: only the normalised host and what the edge itself decided.
type logLine struct {
	Msg          string `json:"msg"`
	TimeMS       int64  `json:"ts_ms"`
	RequestID    string `json:"request_id"`
	Method       string `json:"method"`
	Host         string `json:"host,omitempty"`
	HostKind     string `json:"host_kind,omitempty"` // platform | custom
	App          string `json:"app,omitempty"`
	RouteSource  string `json:"route_source,omitempty"` // memo | shared | route-cache | kv
	KVReads      int    `json:"kv_reads"`
	R2Reads      int    `json:"r2_reads,omitempty"`
	ContentCache string `json:"content_cache"` // skip | hit | miss | unmarked | error
	RouteCache   string `json:"route_cache"`   // skip | hit | negative-hit | miss | unmarked | invalid | error (+put-error)
	Delivery     string `json:"delivery,omitempty"`
	Outcome      string `json:"outcome"`
	Status       int    `json:"status"`
	DurUS        int64  `json:"dur_us"`
	KVUS         int64  `json:"kv_us"`
	UpstreamUS   int64  `json:"upstream_us,omitempty"`
	Error        string `json:"error,omitempty"`
}

func (l *logLine) encode() string {
	b, err := json.Marshal(l)
	if err != nil {
		return `{"msg":"edge.request","error":"log encoding failed"}`
	}
	return string(b)
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
	f := fnv.New32a()
	f.Write([]byte(id))
	return int(f.Sum32()%1_000_000) < perMillion
}
