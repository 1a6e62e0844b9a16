package cfapi

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// UnroutedOperation is the operation under which requests matching no emulated route are
// counted (whatever their method and path; the log names each one).
const UnroutedOperation = "(unrouted)"

// objectStorageRoute is the prefix of the R2 object routes (reads, writes, deletes and the
// listing), counted apart from the rest of the API.
const objectStorageRoute = "/accounts/{account_id}/r2/buckets/{bucket_name}/objects"

// CallStats counts the API requests the server received (everything except AdminPrefix)
// since it started or since the last ResetCalls: by operation and status class, with the
// account's REST budget, REST object-storage traffic and the S3-compatible endpoint apart.
// Object-storage calls through the REST API count against the global rate limit on
// Cloudflare (and so does RateLimit); S3 calls (S3Prefix) do not, which is why a static
// site's objects move there.
type CallStats struct {
	// Since is when counting started (the server's start or the last reset).
	Since time.Time `json:"since"`
	// REST totals every request except object storage, unrouted ones included.
	REST CallTotals `json:"rest"`
	// ObjectStorage totals R2 object GET, PUT and DELETE and the object listing through the
	// REST API.
	ObjectStorage CallTotals `json:"object_storage"`
	// S3 totals the requests to the S3-compatible endpoint, refused ones (bad signature,
	// unsupported operation) included. None of them is in REST or ObjectStorage.
	S3 CallTotals `json:"s3"`
	// Operations has one entry per operation requested, sorted by Operation.
	Operations []OperationCalls `json:"operations"`
}

// CallTotals counts requests and their answers.
type CallTotals struct {
	Calls int `json:"calls"`
	// ByClass counts answers by status class: "2xx", "3xx", "4xx", "5xx".
	ByClass map[string]int `json:"by_class"`
	// TooManyRequests counts the 429 answers (also in ByClass["4xx"]), from the rate limit or
	// an injected fault.
	TooManyRequests int `json:"too_many_requests"`
}

// OperationCalls is one operation's count.
type OperationCalls struct {
	// Operation is the method and route pattern as registered, without APIPrefix, e.g.
	// "PUT /accounts/{account_id}/storage/kv/namespaces/{namespace_id}/bulk", or
	// UnroutedOperation, or for the S3 endpoint "S3 " and the S3 action, e.g. "S3 PutObject".
	Operation string `json:"operation"`
	// ObjectStorage says the operation is counted in CallStats.ObjectStorage.
	ObjectStorage bool `json:"object_storage"`
	// S3 says the operation is counted in CallStats.S3.
	S3 bool `json:"s3,omitempty"`
	CallTotals
	// ByNamespace counts the calls of a KV namespace operation by namespace id (route data and
	// domain mappings live in two namespaces, and a bulk write serves one).
	ByNamespace map[string]int `json:"by_namespace,omitempty"`
	// NameFilterByNamespace counts, by namespace id, the calls of a single-key operation on one
	// of the name filter's keys (route.IsFilterKey; they are in ByNamespace too), so that a
	// benchmark can tell the filter's rebuilds from the records' writes.
	NameFilterByNamespace map[string]int `json:"name_filter_by_namespace,omitempty"`
}

// Calls returns a snapshot of the call accounting.
func (s *Server) Calls() CallStats { return s.calls.snapshot(false, s.now()) }

// ResetCalls starts the accounting afresh and returns what it held until then (one atomic
// step, so no request is lost between reading and resetting).
func (s *Server) ResetCalls() CallStats { return s.calls.snapshot(true, s.now()) }

type callCounter struct {
	mu    sync.Mutex
	since time.Time
	ops   map[string]*OperationCalls
}

func newCallCounter(now time.Time) *callCounter {
	return &callCounter{since: now, ops: map[string]*OperationCalls{}}
}

func (c *callCounter) record(op string, at callSite, status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.ops[op]
	if o == nil {
		o = &OperationCalls{Operation: op, ObjectStorage: isObjectStorage(op), S3: isS3Operation(op), CallTotals: CallTotals{ByClass: map[string]int{}}}
		c.ops[op] = o
	}
	o.add(status)
	if at.namespaceID != "" {
		if o.ByNamespace == nil {
			o.ByNamespace = map[string]int{}
		}
		o.ByNamespace[at.namespaceID]++
	}
	if at.key != "" && route.IsFilterKey(at.key) {
		if o.NameFilterByNamespace == nil {
			o.NameFilterByNamespace = map[string]int{}
		}
		o.NameFilterByNamespace[at.namespaceID]++
	}
}

func (t *CallTotals) add(status int) {
	t.Calls++
	t.ByClass[statusClass(status)]++
	if status == http.StatusTooManyRequests {
		t.TooManyRequests++
	}
}

func (t *CallTotals) merge(o CallTotals) {
	t.Calls += o.Calls
	t.TooManyRequests += o.TooManyRequests
	for k, v := range o.ByClass {
		t.ByClass[k] += v
	}
}

func (c *callCounter) snapshot(reset bool, now time.Time) CallStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := CallStats{
		Since:         c.since,
		REST:          CallTotals{ByClass: map[string]int{}},
		ObjectStorage: CallTotals{ByClass: map[string]int{}},
		S3:            CallTotals{ByClass: map[string]int{}},
		Operations:    []OperationCalls{},
	}
	for _, name := range slices.Sorted(maps.Keys(c.ops)) {
		o := *c.ops[name]
		o.ByClass = maps.Clone(o.ByClass)
		o.ByNamespace = maps.Clone(o.ByNamespace)
		o.NameFilterByNamespace = maps.Clone(o.NameFilterByNamespace)
		out.Operations = append(out.Operations, o)
		switch {
		case o.S3:
			out.S3.merge(o.CallTotals)
		case o.ObjectStorage:
			out.ObjectStorage.merge(o.CallTotals)
		default:
			out.REST.merge(o.CallTotals)
		}
	}
	if reset {
		c.since, c.ops = now, map[string]*OperationCalls{}
	}
	return out
}

// s3OperationPrefix starts the operation name of every S3 endpoint request.
const s3OperationPrefix = "S3 "

func isS3Operation(op string) bool { return strings.HasPrefix(op, s3OperationPrefix) }

func isObjectStorage(op string) bool {
	_, route, _ := strings.Cut(op, " ")
	return route == objectStorageRoute || strings.HasPrefix(route, objectStorageRoute+"/")
}

func statusClass(status int) string {
	if status < 100 || status > 599 {
		status = http.StatusOK // nothing written: net/http answers 200
	}
	return string(rune('0'+status/100)) + "xx"
}

// operation names the request's operation: the mux pattern it matches, without APIPrefix, and
// the KV namespace it addresses, if any.
func (s *Server) operation(r *http.Request) (op string, at callSite) {
	if !strings.HasPrefix(r.URL.Path, APIPrefix+"/") {
		return UnroutedOperation, callSite{}
	}
	_, pattern := s.mux.Handler(r)
	if pattern == "" {
		return UnroutedOperation, callSite{}
	}
	method, pat, _ := strings.Cut(pattern, " ")
	at = callSite{namespaceID: segmentOf(pat, r.URL.EscapedPath(), "{namespace_id}")}
	if key, err := url.PathUnescape(segmentOf(pat, r.URL.EscapedPath(), "{key_name}")); err == nil {
		at.key = key
	}
	return method + " " + strings.TrimPrefix(pat, APIPrefix), at
}

// callSite is what the accounting keeps of a request's path besides its operation.
type callSite struct {
	namespaceID string
	key         string // a single-key operation's key, unescaped
}

// segmentOf returns the segment of path at the position of wildcard in the mux pattern route
// ("" when route has none). The mux fills PathValue only on the request it dispatches, and a
// request refused by the rate limit or a fault never gets there.
func segmentOf(route, path, wildcard string) string {
	routeSegs, pathSegs := strings.Split(route, "/"), strings.Split(path, "/")
	for i, seg := range routeSegs {
		if seg == wildcard && i < len(pathSegs) {
			return pathSegs[i]
		}
	}
	return ""
}

// statusRecorder remembers the status a handler answered with.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// unwrapped is the writer under a statusRecorder: http.MaxBytesReader can make only
// net/http's own writer close the connection after an oversized body (instead of reading the
// rest of it as the next request).
func unwrapped(w http.ResponseWriter) http.ResponseWriter {
	if rec, ok := w.(*statusRecorder); ok {
		return rec.ResponseWriter
	}
	return w
}
