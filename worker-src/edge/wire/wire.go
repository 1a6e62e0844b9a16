// Package wire is the protocol between the edge Worker's js/wasm adapter
// (worker-src/edge/wasm) and its JS shim (worker-src/edge/js/worker.mjs): the codec, its
// message kinds, and the table that keeps a request between two calls under the token the
// messages carry. It has no build tag, so all of it is tested on the host; the adapter keeps
// only what must touch syscall/js.
//
// A message is a run of UTF-8 fields, each terminated by a NUL byte, written into (or read
// from) a buffer in the Wasm's memory: one copy each way instead of a js.Value (with its
// finalizer) per header.
// Bodies never cross; they move from one JS object to another by reference. No field may
// hold a NUL: header names and values and URLs cannot (the Fetch standard forbids it), the
// core's JSON and texts never do, and the encoder refuses one rather than shift every later
// field. Numbers are decimal. A header is a count, then name and value per field.
//
// Shim to adapter (the JS side writes, Decode* reads):
//
//	decide(n)          request: id, method, url, header
//	lookups(token, n)  content lookup, route-cache lookup (see LookupKind), static object read
//	                   (a LookupKind; a hit is followed by ObjectHeader's fields), binding read
//	                   (a LookupKind; a hit is followed by the text; LookupNUL)
//	run(token)         (no message)
//	settle(id, ok)     (no message: the value or rejection is io.value)
//	finish(token, n)   upstream outcome (see UpstreamOutcome), status, detail, name count, names...
//	remember(n)        route-cache key, its lookup: a route lookup a Decide named that came back
//	                   after the request was answered without it (no answer)
//	io.match           one lookup; io.r2: Content-Type, ETag, Last-Modified, Content-Length
//
// Adapter to shim: every answer starts with its kind (see AnswerKind), the token and the log
// lines to print (count, lines...); then by kind:
//
//	L  content key, route key, static object key (read with its body), binding read: its kind
//	   (see ReadField), binding name, key and parameter (KV's cacheTtl in seconds, or a text's
//	   size limit in bytes); for none "", "", "", "0". A key or read named again while its
//	   answer is out (or after it came) is the one already made, not a second one
//	W  (nothing)
//	F  method, url, timeout ms, websocket (WebSocketUpgrade or ""), header; waiting
//	R  status, body kind (see BodyKind), body text, range offset and length ("" "": the whole
//	   body), header, store key, store header; waiting
//	E  delete count, names..., header to set
//	P  count, then key, status, header, body text each (route-cache entries to store)
//	X  (nothing)
//
// waiting: how many route-cache entries the answer planned. The adapter holds them unmade
// (edge.CachePut.Make); once the response is on its way worker.mjs calls puts, whose answer
// (P, token 0) carries every entry waiting by then, made, and stores them.
//
// worker.mjs carries the same description at its top; the two sides must change together.
package wire

// AnswerKind is the first field of every answer: what worker.mjs does next.
type AnswerKind string

const (
	// AnswerLookups: make the cache lookups and the object read named, then call lookups.
	AnswerLookups AnswerKind = "L"
	// AnswerRun: call run; the answer is run's, or that of the settle that lets the runner finish.
	AnswerRun AnswerKind = "W"
	// AnswerForward: fetch from the upstream, then call finish.
	AnswerForward AnswerKind = "F"
	// AnswerRespond: respond with the core's own, a cached or a static response.
	AnswerRespond AnswerKind = "R"
	// AnswerEdits: the header edits for the upstream's response (finish's answer to UpstreamOK).
	AnswerEdits AnswerKind = "E"
	// AnswerPuts: the route-cache entries to store (puts' answer).
	AnswerPuts AnswerKind = "P"
	// AnswerLost: the token is unknown or the answer could not be encoded; worker.mjs
	// answers with its fixed adapter-failure response.
	AnswerLost AnswerKind = "X"
)

// LookupKind opens one Cache API lookup's outcome.
type LookupKind string

const (
	// LookupNotMade: worker.mjs did not make this lookup (no further fields).
	LookupNotMade LookupKind = ""
	// LookupMiss: nothing stored under the key (no further fields).
	LookupMiss LookupKind = "M"
	// LookupError: the lookup failed; one field, the message.
	LookupError LookupKind = "E"
	// LookupHit: status and header follow. The entry's body stays in worker.mjs: a content
	// entry is served from there, and a route-cache entry is all in its headers.
	LookupHit LookupKind = "H"
)

// LookupNUL opens a binding read whose value holds a NUL byte (no further fields): the wire
// cannot carry it, and no JSON holds one (a control character must be escaped), so the core
// gets the one-byte text NUL, which every decoder of its refuses as it would the whole value.
const LookupNUL LookupKind = "N"

// ReadField is the kind of binding read an L answer names (edge.NamedRead).
type ReadField string

const (
	// ReadFieldNone: no binding read.
	ReadFieldNone ReadField = ""
	// ReadFieldKV: a KV value as text (edge.ReadKV).
	ReadFieldKV ReadField = "K"
	// ReadFieldText: a whole object as text, refused above the limit (edge.ReadText).
	ReadFieldText ReadField = "T"
)

// BodyKind says where a respond answer's body comes from.
type BodyKind string

const (
	// BodyNone: no body.
	BodyNone BodyKind = "N"
	// BodyText: the body text field.
	BodyText BodyKind = "T"
	// BodyCached: the body of the content entry worker.mjs looked up itself.
	BodyCached BodyKind = "C"
	// BodyObject: the JS object handed back beside the answer (an R2 object, or a Cache API
	// entry the adapter matched during Run), or the static object worker.mjs read itself.
	BodyObject BodyKind = "O"
)

// UpstreamOutcome opens finish's message: how the upstream fetch went.
type UpstreamOutcome string

const (
	// UpstreamOK: the upstream answered; its status and header names follow.
	UpstreamOK UpstreamOutcome = "ok"
	// UpstreamTimeout: the fetch's timeout fired before the response headers arrived.
	UpstreamTimeout UpstreamOutcome = "timeout"
	// UpstreamError: the fetch failed otherwise; the detail says how.
	UpstreamError UpstreamOutcome = "error"
)

// WebSocketUpgrade is the forward answer's websocket field when the client asked for one.
const WebSocketUpgrade = "1"

// ObjectHeader names the R2 metadata io.r2 sends, in its order; an empty field is unknown.
var ObjectHeader = [...]string{"Content-Type", "ETag", "Last-Modified", "Content-Length"}
