//go:build js && wasm

// Command wasm is the thin js/wasm adapter of the edge Worker: it turns JS objects
// (Request, env bindings, Cache API, R2) into the edge package's small interfaces and
// hands the core's plan back to worker.mjs, which carries it out. All decisions live in
// package edge.
//
// One Go instance serves every request of an isolate. Most requests never wait inside the
// Wasm: worker.mjs asks for a decision synchronously (decide), makes the cache lookups the
// core names itself and asks again (lookups), and only when that is not enough (KV, R2, a
// concurrent lookup of the same host) starts a goroutine (run) that awaits JS promises
// through channels and reports back through globalThis.__kamuiEdgeDone. worker.mjs does
// every upstream fetch and then asks for the response edits (finish).
//
// The synchronous calls (decide, lookups, finish) are Wasm exports (go:wasmexport), not
// syscall/js callbacks: a callback is an event of the Go scheduler, with a js.Value and its
// finalizer for the event, its receiver and each argument; in workerd an empty one added
// 0.1–0.2 ms to a request, an empty export nothing measurable.
// Requests and answers cross as NUL-separated UTF-8 fields written straight into Go's
// memory: worker.mjs encodes a request into the input buffer (in), and reads an answer from
// the output buffer (out), each at the address an export hands it. Bodies never cross: they
// move from one JS object to another by reference. The codec, its message kinds and the
// token table are package wire, tested on the host; this file keeps only what touches
// syscall/js and the exports.
//
// An export runs Go on the host's call, but goroutines it makes ready (the garbage
// collector's workers, the finalizers of js.Values) only run at the scheduler's next event;
// the synchronous paths never wake a request's goroutine, so worker.mjs calls poke, an
// event that does nothing, once in a while (POKE_EVERY synchronous calls without an event).
package main

import (
	"errors"
	"sync"
	"time"
	"unsafe"

	"syscall/js"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge"
	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge/wire"
)

var (
	initOnce sync.Once
	handler  *edge.Handler

	// io holds worker.mjs's helpers for the bindings (kv, match, r2, text).
	io js.Value

	// in is where worker.mjs writes a message (kamuiIn hands it out, large enough), and out
	// the last answer, which worker.mjs reads before it calls into Go again.
	in  []byte
	out []byte

	// pending keeps exchanges between two calls from worker.mjs, by token.
	pending wire.Pending

	// mu guards the log lines not yet handed to JS. In js/wasm only one goroutine runs at
	// a time, but nothing here may rely on where they switch.
	mu    sync.Mutex
	lines []string
)

func main() {
	api := js.Global().Get("Object").New()
	export := func(name string, f func(a []js.Value) any) {
		api.Set(name, js.FuncOf(func(_ js.Value, a []js.Value) any { return f(a) }))
	}
	// init(env, io): the configuration, once per isolate, and the binding helpers.
	export("init", func(a []js.Value) any {
		io = a[1]
		initOnce.Do(func() { handler = newHandler(a[0]) })
		return nil
	})
	// run(token): decides with I/O in a goroutine; the answer arrives via
	// __kamuiEdgeDone(token, length, address, bodyObject).
	export("run", func(a []js.Value) any { run(a[0].Int()); return nil })
	// poke(): nothing; the event lets the goroutines the exports made ready run.
	export("poke", func([]js.Value) any { return nil })
	js.Global().Set("__kamuiEdgeSettle", js.FuncOf(func(_ js.Value, a []js.Value) any { settleWait(a); return nil }))
	js.Global().Set("__kamuiEdge", api)
	select {}
}

// The synchronous calls, as Wasm exports. Each returns the length of its answer in out.

// kamuiIn returns the address of the input buffer, grown to hold n bytes first. Its bytes
// are read by the call that follows; the codec copies every field out of them.
//
//go:wasmexport kamuiIn
func kamuiIn(n int32) int32 {
	if int(n) > cap(in) {
		in = make([]byte, max(int(n), 2*cap(in)))
	}
	in = in[:cap(in)]
	return address(in)
}

// kamuiOut returns the address of the last answer (its length was the call's result).
//
//go:wasmexport kamuiOut
func kamuiOut() int32 { return address(out) }

// kamuiDecide decides the request of n bytes in the input buffer without waiting.
//
//go:wasmexport kamuiDecide
func kamuiDecide(n int32) int32 { return decide(message(n)) }

// kamuiLookups hands token's exchange the cache lookups it asked for and decides again.
//
//go:wasmexport kamuiLookups
func kamuiLookups(token, n int32) int32 { return lookups(int(token), message(n)) }

// kamuiFinish hands token's exchange the upstream's outcome: edits, or a plan to respond with.
//
//go:wasmexport kamuiFinish
func kamuiFinish(token, n int32) int32 { return finish(int(token), message(n)) }

// message is the first n bytes of the input buffer, or nil when n does not fit in it (the
// decoders refuse that, and the call answers wire.AnswerLost).
func message(n int32) []byte {
	if n < 0 || int(n) > len(in) {
		return nil
	}
	return in[:n]
}

// address is where b's bytes start in the Wasm memory (0 for none). Both buffers are
// package variables, so the collector keeps them, and Go's heap never moves.
func address(b []byte) int32 {
	if cap(b) == 0 {
		return 0
	}
	return int32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

// drain takes the log lines not yet handed to JS, for the next answer.
func drain() []string {
	mu.Lock()
	l := lines
	lines = nil
	mu.Unlock()
	return l
}

// send makes b the answer worker.mjs reads next (out) and returns its length. An answer that
// could not be encoded becomes wire.AnswerLost, which worker.mjs serves as a fixed failure;
// its log lines go with it.
func send(token int, lines []string, b []byte, err error) int32 {
	if err != nil {
		b, _ = wire.Lost(token, lines)
	}
	out = b
	return int32(len(b))
}

// sendPlan sends a decided plan.
func sendPlan(token int, p edge.Plan) int32 {
	l := drain()
	b, err := wire.Plan(token, l, p)
	return send(token, l, b, err)
}

// lost answers a token that is not (or no longer) pending.
func lost(token int) int32 {
	l := drain()
	b, err := wire.Lost(token, l)
	return send(token, l, b, err)
}

func decide(msg []byte) int32 {
	if handler == nil {
		return lost(0) // called before init: worker.mjs always inits first
	}
	req, err := wire.DecodeRequest(msg)
	if err != nil {
		return lost(0)
	}
	ex := handler.Begin(req)
	return settle(&wire.Exchange{Ex: ex, Req: req}, 0, ex.Decide())
}

func lookups(token int, msg []byte) int32 {
	x := pending.Take(token)
	if x == nil {
		return lost(token)
	}
	content, route, err := wire.DecodeLookups(msg)
	if err != nil {
		return lost(token)
	}
	if content != nil {
		x.Req.Content = content
	}
	if route != nil {
		x.Req.Route = route
	}
	return settle(x, token, x.Ex.Decide())
}

// settle answers a Decide: the plan when it decided, else the lookups it needs
// (wire.AnswerLookups) or a request to run it with I/O (wire.AnswerRun); the exchange is
// kept until worker.mjs comes back.
func settle(x *wire.Exchange, token int, decided bool) int32 {
	if decided && x.Ex.Plan.Forward == nil {
		return sendPlan(token, x.Ex.Plan)
	}
	if token == 0 {
		token = pending.Keep(x)
	} else {
		pending.Put(x)
	}
	if decided {
		return sendPlan(token, x.Ex.Plan)
	}
	l := drain()
	content, route := x.Ex.Lookups()
	if content == "" && route == "" {
		b, err := wire.Run(token, l)
		return send(token, l, b, err)
	}
	b, err := wire.Lookups(token, l, content, route)
	return send(token, l, b, err)
}

func run(token int) {
	x := pending.Take(token)
	if x == nil {
		js.Global().Call("__kamuiEdgeDone", token, -1, 0, js.Null())
		return
	}
	// An idle runner takes the request if there is one: its stack has already grown to
	// what Run needs, which a new goroutine would grow again, copy by copy.
	select {
	case runs <- x:
	default:
		go runner(x)
	}
}

// runs hands requests to idle runners; there are never more runners than requests that
// once waited on I/O at the same time.
var runs = make(chan *wire.Exchange)

func runner(x *wire.Exchange) {
	for {
		runOne(x)
		x = <-runs
	}
}

func runOne(x *wire.Exchange) {
	done := js.Global().Get("__kamuiEdgeDone")
	defer func() {
		if r := recover(); r != nil {
			done.Invoke(x.Token, -1, 0, js.Null())
		}
	}()
	x.Ex.Run()
	if x.Ex.Plan.Forward != nil {
		pending.Put(x)
	}
	// The body worker.mjs passes along beside the answer, when the plan names one.
	obj := js.Null()
	if b, ok := x.Ex.Plan.Body.(body); ok && x.Ex.Plan.Forward == nil {
		obj = b.v
	}
	// The answer's address goes along: worker.mjs reads it there during this call, without
	// calling an export from inside Go's own call out to JS.
	n := sendPlan(x.Token, x.Ex.Plan)
	done.Invoke(x.Token, n, address(out), obj)
}

func finish(token int, msg []byte) int32 {
	x := pending.Take(token)
	if x == nil {
		return lost(token)
	}
	u, err := wire.DecodeUpstream(msg)
	if err != nil {
		return lost(token)
	}
	switch u.Outcome {
	case wire.UpstreamOK:
		e := x.Ex.UpstreamResponse(u.Status, u.Names)
		l := drain()
		b, err := wire.Edits(token, l, e)
		return send(token, l, b, err)
	case wire.UpstreamTimeout:
		return sendPlan(token, x.Ex.UpstreamFailed(true, ""))
	}
	return sendPlan(token, x.Ex.UpstreamFailed(false, u.Detail))
}

func newHandler(env js.Value) *edge.Handler {
	h := &edge.Handler{
		Log:        jsLogger{},
		WaitShared: waitShared,
	}
	cfg, err := edge.ParseConfig(func(name string) (string, bool) {
		v := env.Get(name)
		if v.Type() != js.TypeString {
			return "", false
		}
		return v.String(), true
	})
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	// The object bindings of the contract, each by a method only its kind has (R2's head).
	for _, b := range route.WorkerBindings {
		method := ""
		switch b.Kind {
		case route.KVNamespaceBinding:
			method = "get"
		case route.R2BucketBinding:
			method = "head"
		default:
			continue
		}
		if v := env.Get(b.Name); v.Type() != js.TypeObject || v.Get(method).Type() != js.TypeFunction {
			errs = append(errs, &edge.ConfigError{Binding: b.Name, Problem: "missing or not the right binding type"})
		}
	}
	if len(errs) > 0 {
		h.ConfigErr = errors.Join(errs...)
		return h
	}
	h.Config = cfg
	h.Routes = kv{env.Get(edge.BindingRoutes)}
	h.Domains = kv{env.Get(edge.BindingDomains)}
	h.Static = bucket{env.Get(edge.BindingStatic)}
	h.Cache = cache{}
	return h
}

// waitShared polls done on JS timers created in the waiting request's own context, so the
// waiting goroutine is always resumed by its own request's event (see edge.Handler.WaitShared).
// The timers also keep workerd from declaring the request hung while it waits.
func waitShared(done <-chan struct{}) {
	// About three seconds of 1 ms timers, then the request resolves on its own.
	for i := 0; i < 3000; i++ {
		select {
		case <-done:
			return
		default:
		}
		if _, err := call("sleep", 1); err != nil {
			return
		}
	}
}

// jsLogger queues lines for the next answer; worker.mjs prints them with console.log.
type jsLogger struct{}

func (jsLogger) Log(line string) {
	mu.Lock()
	lines = append(lines, line)
	mu.Unlock()
}

// The bindings are read through the JS helpers of worker.mjs (io), which also keep the
// bodies on the JS side and turn answers into the same fields the buffer carries.

type kv struct{ ns js.Value }

func (k kv) Get(key string, ttl time.Duration) ([]byte, bool, error) {
	// Always pass cacheTtl: left out, KV applies its default (60 s), which would break the
	// budget arithmetic; route.DeriveTTLs never goes below KV's minimum (route.MinKVCacheTTL).
	v, err := call("kv", k.ns, key, int(ttl/time.Second))
	if err != nil || v.Type() != js.TypeString {
		return nil, false, err
	}
	return []byte(v.String()), true, nil
}

// GetBytes reads a binary value (the name filter) as an ArrayBuffer, copied into Go whole.
func (k kv) GetBytes(key string, ttl time.Duration) ([]byte, bool, error) {
	v, err := call("kvBytes", k.ns, key, int(ttl/time.Second))
	if err != nil || v.Type() != js.TypeObject {
		return nil, false, err
	}
	b := make([]byte, v.Get("length").Int())
	js.CopyBytesToGo(b, v)
	return b, true, nil
}

type cache struct{}

// Match is for the lookups worker.mjs did not make before Run: it resolves to the lookup's
// fields and the entry itself, whose body stays in JS.
func (cache) Match(key string) (edge.Entry, bool, error) {
	v, err := call("match", key)
	if err != nil {
		return edge.Entry{}, false, err
	}
	l, err := wire.DecodeLookup([]byte(v.Get("f").String()))
	if err != nil {
		return edge.Entry{}, false, err
	}
	if l.Found {
		l.Entry.Body = body{v: v.Get("r")}
	}
	return l.Entry, l.Found, l.Err
}

type bucket struct{ b js.Value }

func (b bucket) Get(key string, withBody bool) (edge.Object, bool, error) {
	v, err := call("r2", b.b, key, withBody)
	if err != nil || v.Type() != js.TypeObject {
		return edge.Object{}, false, err
	}
	var o edge.Object
	if o.Header, err = wire.DecodeObjectHeader([]byte(v.Get("h").String())); err != nil {
		return edge.Object{}, false, err
	}
	if withBody {
		o.Body = body{v: v.Get("o")}
	}
	return o, true, nil
}

// Text reads a whole object as text through worker.mjs, which refuses one larger than
// limit before reading its body.
func (b bucket) Text(key string, limit int64) (string, bool, error) {
	v, err := call("text", b.b, key, float64(limit))
	if err != nil || v.Type() != js.TypeString {
		return "", false, err
	}
	return v.String(), true, nil
}

// body is a JS object with a .body stream (Response, R2ObjectBody); the stream stays in JS.
type body struct{ v js.Value }

func (body) Text() (string, error) { return "", errors.New("the body stays in JS") }

// HeldByJS makes a plan with this body say wire.BodyObject.
func (body) HeldByJS() {}

type settled struct {
	v   js.Value
	err error
}

// Waits in flight: each call through io names one by its id, and worker.mjs settles it
// through the one long-lived callback __kamuiEdgeSettle(id, ok, value) when the promise does.
// A js.FuncOf pair per wait, with a "then" looked up and called from Go and the promise
// held as a js.Value (each with its finalizer), cost more than the read it waited for.
var (
	waitMu   sync.Mutex
	waits    = map[int]chan settled{}
	lastWait int
)

// call calls io's method with args and the id of a new wait, and waits for it.
func call(method string, args ...any) (js.Value, error) {
	ch := make(chan settled, 1)
	waitMu.Lock()
	lastWait++
	id := lastWait
	waits[id] = ch
	waitMu.Unlock()
	io.Call(method, append(args, id)...)
	r := <-ch
	return r.v, r.err
}

// settleWait is __kamuiEdgeSettle: ok false carries the rejection's message.
func settleWait(a []js.Value) {
	waitMu.Lock()
	ch := waits[a[0].Int()]
	delete(waits, a[0].Int())
	waitMu.Unlock()
	if ch == nil {
		return
	}
	if a[1].Bool() {
		ch <- settled{v: a[2]}
		return
	}
	msg := "rejected"
	if a[2].Type() == js.TypeString {
		msg = a[2].String()
	}
	ch <- settled{err: errors.New(msg)}
}
