//go:build js && wasm

// Command wasm is the thin js/wasm adapter of the edge Worker: it turns JS objects
// (Request, env bindings, Cache API, R2) into the edge package's small interfaces and
// hands the core's plan back to worker.mjs, which carries it out. All decisions live in
// package edge.
//
// One Go instance serves every request of an isolate. Most requests never wait inside the
// Wasm: worker.mjs asks for a decision synchronously (decide), makes the cache lookups, the
// site object read and the binding reads (a KV value, a manifest) the core names itself and
// asks again (lookups), and only when that is not enough (the name filter's read, a
// layout-by-prefix object, a concurrent lookup of the same host or manifest, a custom host's
// app entry) hands the request to a runner goroutine (run) that reads the bindings through
// io and waits for their promises. worker.mjs does every
// upstream fetch and then asks for the response edits (finish).
//
// Every call into Go is a Wasm export (go:wasmexport), none a syscall/js callback: a
// callback is an event of the Go scheduler, with a js.Value and its finalizer for the event,
// its receiver and each argument, and it runs the scheduler until every goroutine is idle;
// in workerd an empty one cost 17 µs in a loop and 90 µs as a request's first, an export
// nothing measurable. run and settle are exports that block: they wake the request's
// runner and wait until it waits again (its next binding read) or is done, and the
// scheduler runs the runner meanwhile, inside the export. That is safe because a request
// waits only on its own runner goroutine and only in await (every lookup started ahead goes
// through Handler.StartMatch), so the runner always hands control back: the scheduler never
// finds nothing to run inside an export, which the js/wasm runtime cannot survive (it unwinds
// the call back to JS unfinished: see finished, which worker.mjs checks after every call).
//
// Requests and answers cross as NUL-separated UTF-8 fields written straight into Go's
// memory: worker.mjs encodes a request into the input buffer (in), and reads an answer from
// the output buffer (out), each at the address an export hands it. Bodies never cross: they
// move from one JS object to another by reference. The codec, its message kinds and the
// token table are package wire, tested on the host; this file keeps only what touches
// syscall/js and the exports.
//
// An export runs Go on the host's call, and goroutines it makes ready besides the runner
// (the garbage collector's workers, the finalizers of js.Values) wait for the scheduler's
// next event, so worker.mjs calls poke, an event that does nothing, once in a while
// (POKE_EVERY calls without an event).
package main

import (
	"errors"
	"strconv"
	"sync"
	"syscall"
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

	// io holds worker.mjs's helpers for the bindings (kv, match, r2, text), and the static
	// bucket for the object reads worker.mjs makes itself (static).
	io js.Value

	// in is where worker.mjs writes a message (kamuiIn hands it out, large enough), and out
	// the last answer, which worker.mjs reads before it calls into Go again: the next answer
	// is written over it (wire's encoders take it as their dst).
	in  []byte
	out []byte

	// pending keeps exchanges between two calls from worker.mjs, by token.
	pending wire.Pending

	// mu guards the log lines not yet handed to JS. In js/wasm only one goroutine runs at
	// a time, but nothing here may rely on where they switch.
	mu    sync.Mutex
	lines []string

	// held are the route-cache entries answers planned, unmade, until worker.mjs asks for
	// them (kamuiPuts) once the response is on its way: making one (JSON and base64) is work
	// the request's own passes need not wait for. Guarded by mu.
	held []edge.CachePut
)

// maxHeld bounds the entries held: worker.mjs asks after every answer that planned some, so
// more would mean it stopped asking (a request that failed in JS). The oldest go first; a
// route-cache entry not stored costs a lookup and a KV read later, nothing else.
const maxHeld = 256

func main() {
	api := js.Global().Get("Object").New()
	export := func(name string, f func(a []js.Value) any) {
		api.Set(name, js.FuncOf(func(_ js.Value, a []js.Value) any {
			clock.read()
			return f(a)
		}))
	}
	// init(env, io): the configuration, once per isolate, and the binding helpers.
	export("init", func(a []js.Value) any {
		io = a[1]
		initOnce.Do(func() { handler = newHandler(a[0]) })
		// The bucket worker.mjs reads a site's objects from when the core names one
		// (Exchange.ObjectKey), by the binding contract's name, as the core's own reads.
		io.Set("static", a[0].Get(edge.BindingStatic))
		return nil
	})
	// poke(): nothing; the event lets the goroutines the exports made ready run.
	export("poke", func([]js.Value) any { return nil })
	js.Global().Set("__kamuiEdge", api)
	select {}
}

// The synchronous calls, as Wasm exports. Each returns the length of its answer in out.

// clock is the Handler's Clock: the time as read when Go was last entered (an export or an
// event), not at every question. On Cloudflare a Worker's clock stands still while it runs
// (it moves only between I/O events), so a second reading within one call would give the
// same instant; the local workerd's clock does move, in whole milliseconds, and one call
// usually lasts less than one (every lifetime the core checks is seconds long). Each reading
// crosses into JS twice (wall and monotonic time), and a request asked about ten times.
// Every way into Go reads it first: the exports below, and the events.
var clock enteredClock

type enteredClock struct{ t time.Time }

func (c *enteredClock) read()          { c.t = time.Now() }
func (c *enteredClock) now() time.Time { return c.t }

// kamuiIn returns the address of the input buffer, grown to hold n bytes first. Its bytes
// are read by the call that follows; the codec copies every field out of them.
//
//go:wasmexport kamuiIn
func kamuiIn(n int32) int32 {
	if int(n) > cap(in) {
		in = make([]byte, max(int(n), 2*cap(in)))
	}
	in = in[:cap(in)]
	finished = 1
	return address(in)
}

// kamuiOut returns the address of the last answer (its length was the call's result).
//
//go:wasmexport kamuiOut
func kamuiOut() int32 {
	finished = 1
	return address(out)
}

// kamuiDecide decides the request of n bytes in the input buffer without waiting.
//
//go:wasmexport kamuiDecide
func kamuiDecide(n int32) (answer int32) {
	defer endCall(&answer, 0, "decide")
	clock.read()
	return decide(message(n))
}

// kamuiLookups hands token's exchange the cache lookups it asked for and decides again.
//
//go:wasmexport kamuiLookups
func kamuiLookups(token, n int32) (answer int32) {
	defer endCall(&answer, int(token), "lookups")
	clock.read()
	return lookups(int(token), message(n))
}

// kamuiFinish hands token's exchange the upstream's outcome: edits, or a plan to respond with.
//
//go:wasmexport kamuiFinish
func kamuiFinish(token, n int32) (answer int32) {
	defer endCall(&answer, int(token), "finish")
	clock.read()
	return finish(int(token), message(n))
}

// kamuiRemember hands the core a route-cache lookup that came back after its request was
// answered without it (a content hit): edge.Handler.RememberRoute. It has no answer.
//
//go:wasmexport kamuiRemember
func kamuiRemember(n int32) {
	defer endCall(nil, 0, "remember") // it has no answer: a panic in it is only logged
	clock.read()
	if handler == nil {
		return
	}
	if m, err := wire.DecodeRemember(message(n)); err == nil {
		handler.RememberRoute(m.Key, m.Lookup)
	}
}

// endCall, deferred by every export that decides, turns a panic in it into wire.AnswerLost
// for token's request (0: none yet), as runOne does for the runner: a bug one request meets
// fails that request alone. Let through, the panic would end the program, and with it every
// request in flight on the instance; and a request that met it again and again would cost
// the isolate a new instance each time. The log line names the export, nothing of the
// request, and goes out with the lost answer. answer nil: the export answers nothing
// (remember), and the line waits for the next answer. Last, it says the call finished.
func endCall(answer *int32, token int, export string) {
	if p := recover(); p != nil {
		if token == 0 {
			token = kept // decide: the token settle kept its exchange under, if it got so far
		}
		afterPanic(export, token)
		if answer != nil {
			*answer = lost(token)
		}
	}
	kept = 0
	finished = 1
}

// kept is the token settle kept a new request's exchange under in the decide call in
// progress (0: none yet), which that call's endCall knows no other way: a panic after it must
// not leave the exchange in the table, where nothing would come back for it. Reset by every
// endCall, so that it never outlives the call that set it.
var kept int

// finished is 1 once the export worker.mjs called last has returned: worker.mjs sets it to 0
// before each call (at the address kamuiFinished hands it) and checks it after. An export
// that waits with nothing else to run (a goroutine holding what it waits for that never will
// release it: a bug) does not return: the js/wasm runtime unwinds to JS from the middle of
// it, with the program neither running nor stopped, and the call's result is whatever the
// stack held, read against an output buffer that holds another request's answer. No deferred
// function runs then, so finished stays 0, and worker.mjs retires the instance instead of
// reading that answer.
var finished uint32

// kamuiFinished hands worker.mjs the address of finished.
//
//go:wasmexport kamuiFinished
func kamuiFinished() int32 { return int32(uintptr(unsafe.Pointer(&finished))) }

// markFinished is endCall for the exports that recover nothing of their own (the runner's
// recovers for them).
func markFinished() { finished = 1 }

// afterPanic logs a recovered panic, or stops the program when the panic left a lock held.
// Between calls no lock is ever held, and one left held would make the next call that needs it
// wait inside an export, where nothing else can run to release it: the js/wasm runtime then
// returns to JS from the middle of that call, with the program neither running nor stopped,
// and every later call answered with what was last in the output buffer (another request's
// answer). Stopping is what any fatal error does: worker.mjs fails the calls in flight and
// starts a new instance.
//
// The request's exchange (token's, 0 for none) is dropped first, so that the line can say how
// many exchanges stay kept for worker.mjs to come back for: those of requests still in flight,
// and nothing the panics left behind.
func afterPanic(export string, token int) {
	if !edge.MutexesFree(&mu, &waits.mu) || !pending.Unlocked() || handler != nil && !handler.Unlocked() {
		println(`{"msg":"edge.panic_with_lock_held","export":"` + export + `"}`) // no lock needed
		syscall.Exit(2)
	}
	forget(token)
	var l jsLogger
	l.Log(`{"msg":"edge.panic_recovered","export":"` + export + `","kept":` + strconv.Itoa(pending.Kept()) + `}`)
}

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

// kamuiPuts makes the route-cache entries held since worker.mjs last asked, and answers them
// (wire.AnswerPuts) for it to store. Any request's call takes every entry waiting, so a later
// one may find none.
//
//go:wasmexport kamuiPuts
func kamuiPuts() (answer int32) {
	defer endCall(&answer, 0, "puts")
	clock.read()
	fault("puts", "")
	mu.Lock()
	puts := held
	held = nil
	mu.Unlock()
	made := puts[:0]
	for i := range puts {
		if puts[i].Make() {
			made = append(made, puts[i])
		}
	}
	l := drain()
	b, err := wire.Puts(out, l, made)
	return send(0, l, b, err)
}

// hold keeps the entries an answer planned until worker.mjs asks for them.
func hold(puts []edge.CachePut) {
	if len(puts) == 0 {
		return
	}
	mu.Lock()
	held = append(held, puts...)
	if over := len(held) - maxHeld; over > 0 {
		held = append(held[:0], held[over:]...)
	}
	mu.Unlock()
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
		forget(token)
		b, _ = wire.Lost(b, token, lines)
	}
	out = b
	return int32(len(b))
}

// sendPlan sends a decided plan.
func sendPlan(token int, p edge.Plan) int32 {
	hold(p.CachePuts)
	l := drain()
	b, err := wire.Plan(out, token, l, p)
	return send(token, l, b, err)
}

// lost answers a token that is not (or no longer) pending, or whose request cannot go on.
func lost(token int) int32 {
	forget(token)
	l := drain()
	b, err := wire.Lost(out, token, l)
	return send(token, l, b, err)
}

// forget drops token's exchange if it is still kept (0: none). worker.mjs fails a request
// answered wire.AnswerLost and never comes back for its token, so a slot left holding it
// would hold the exchange's memory until the table fills, and then make a request in flight
// give way for it (wire.Pending.Keep).
func forget(token int) {
	if token != 0 {
		pending.Take(token)
	}
}

func decide(msg []byte) int32 {
	if handler == nil {
		return lost(0) // called before init: worker.mjs always inits first
	}
	req, err := wire.DecodeRequest(msg)
	if err != nil {
		return lost(0)
	}
	fault("decide", req.URL)
	ex := handler.Begin(req)
	return settle(&wire.Exchange{Ex: ex, Req: req}, 0, ex.Decide())
}

func lookups(token int, msg []byte) int32 {
	x := pending.Take(token)
	if x == nil {
		return lost(token)
	}
	fault("lookups", x.Req.URL)
	reads, err := wire.DecodeLookups(msg)
	if err != nil {
		return lost(token)
	}
	if reads.Content != nil {
		x.Req.Content = reads.Content
	}
	if reads.Route != nil {
		x.Ex.RouteBack(reads.Route)
	}
	if reads.Object != nil {
		x.Req.Object = reads.Object
	}
	if reads.Read != nil {
		x.Req.Read = reads.Read
	}
	if reads.Ahead != nil {
		x.Req.Ahead = reads.Ahead
	}
	return settle(x, token, x.Ex.Decide())
}

// settle answers a Decide: the plan when it decided, else the lookups, the object read or
// the binding read it needs (wire.AnswerLookups) or a request to run it with I/O
// (wire.AnswerRun); the exchange is kept until worker.mjs comes back.
func settle(x *wire.Exchange, token int, decided bool) int32 {
	if decided && x.Ex.Plan.Forward == nil {
		return sendPlan(token, x.Ex.Plan)
	}
	if token == 0 {
		token = pending.Keep(x)
		kept = token
		fault("keep", x.Req.URL)
	} else {
		pending.Put(x)
		fault("put", x.Req.URL)
	}
	if decided {
		return sendPlan(token, x.Ex.Plan)
	}
	l := drain()
	content, route := x.Ex.Lookups()
	object := x.Ex.ObjectKey()
	read, ahead := x.Ex.Read(), x.Ex.ReadAhead()
	if content == "" && route == "" && object == "" && read.Kind == edge.ReadNone && ahead.Kind == edge.ReadNone {
		b, err := wire.Run(out, token, l)
		return send(token, l, b, err)
	}
	b, err := wire.Lookups(out, token, l, content, route, object, read, ahead)
	return send(token, l, b, err)
}

// kamuiRun hands token's exchange to a runner, which decides with I/O: the answer's length
// once it is done, or 0 while it waits for a binding read (its answer then comes from the
// kamuiSettle that completes it).
//
//go:wasmexport kamuiRun
func kamuiRun(token int32) int32 {
	defer markFinished()
	clock.read()
	x := pending.Take(int(token))
	if x == nil {
		return lost(int(token))
	}
	r := &run{x: x, yield: make(chan int32)}
	return r.resume(func() {
		// An idle runner takes the request if there is one: its stack has already grown to
		// what Run needs, which a new goroutine would grow again, copy by copy.
		select {
		case runs <- r:
		default:
			go runner(r)
		}
	})
}

// kamuiSettle completes binding read id (ok 0: rejected), its value (or the rejection's
// message) left in io.value. When the read's runner is waiting for it, the runner goes on
// until it waits again or is done: the answer's length when done, else 0.
//
//go:wasmexport kamuiSettle
func kamuiSettle(id, ok int32) int32 {
	defer markFinished()
	clock.read()
	w := waits.take(int(id))
	if w == nil {
		return 0
	}
	v := io.Get("value")
	if ok != 0 {
		w.result = settled{v: v}
	} else {
		msg := "rejected"
		if v.Type() == js.TypeString {
			msg = v.String()
		}
		w.result = settled{err: errors.New(msg)}
	}
	w.done = true
	if w.awaitedBy == nil {
		return 0 // started ahead; its runner takes the value when it gets there
	}
	return w.awaitedBy.resume(func() { w.wake <- struct{}{} })
}

// run is one request decided with I/O. yield carries what its runner hands back to the
// export that woke it: 0 when it waits for a binding read, else the answer's length.
type run struct {
	x     *wire.Exchange
	yield chan int32
}

// current is the run whose runner an export woke, while it runs; nil otherwise.
var current *run

// resume wakes r's runner (wake makes it ready) and waits, inside the export, until it
// waits again or is done.
func (r *run) resume(wake func()) int32 {
	current = r
	wake()
	n := <-r.yield
	current = nil
	return n
}

// runs hands requests to idle runners; there are never more runners than requests that
// once waited on I/O at the same time.
var runs = make(chan *run)

func runner(r *run) {
	for {
		r.yield <- runOne(r.x)
		r = <-runs
	}
}

// runOne decides x with I/O and returns its answer's length; a panic is a lost request.
func runOne(x *wire.Exchange) (n int32) {
	defer func() {
		if p := recover(); p != nil {
			afterPanic("run", x.Token)
			io.Set("object", js.Null())
			n = lost(x.Token)
		}
	}()
	x.Ex.Run()
	if x.Ex.Plan.Forward != nil {
		pending.Put(x)
	}
	// The body worker.mjs passes along beside the answer, when the plan names one: it reads
	// io.object as the export returns.
	obj := js.Null()
	if b, ok := x.Ex.Plan.Body.(body); ok && x.Ex.Plan.Forward == nil {
		obj = b.v
	}
	io.Set("object", obj)
	return sendPlan(x.Token, x.Ex.Plan)
}

func finish(token int, msg []byte) int32 {
	x := pending.Take(token)
	if x == nil {
		return lost(token)
	}
	fault("finish", x.Req.URL)
	u, err := wire.DecodeUpstream(msg)
	if err != nil {
		return lost(token)
	}
	switch u.Outcome {
	case wire.UpstreamOK:
		e := x.Ex.UpstreamResponse(u.Status, u.Names)
		l := drain()
		b, err := wire.Edits(out, token, l, e)
		return send(token, l, b, err)
	case wire.UpstreamTimeout:
		return sendPlan(token, x.Ex.UpstreamFailed(true, ""))
	}
	return sendPlan(token, x.Ex.UpstreamFailed(false, u.Detail))
}

func newHandler(env js.Value) *edge.Handler {
	h := &edge.Handler{
		Clock:      clock.now,
		Log:        &jsLogger{},
		WaitShared: waitShared,
		StartMatch: startMatch,
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
	h.Routes = &kv{env.Get(edge.BindingRoutes)}
	h.Domains = &kv{env.Get(edge.BindingDomains)}
	h.Static = &bucket{env.Get(edge.BindingStatic)}
	h.Cache = &cache{}
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

func (*jsLogger) Log(line string) {
	mu.Lock()
	lines = append(lines, line)
	mu.Unlock()
}

// The bindings are read through the JS helpers of worker.mjs (io), which also keep the
// bodies on the JS side and turn answers into the same fields the buffer carries.
//
// The binding types (and jsLogger) have pointer receivers, and the Handler holds pointers:
// a value in an interface is called through a generated pointer wrapper of each method,
// one more copy of it in the Wasm.

type kv struct{ ns js.Value }

func (k *kv) Get(key string, ttl time.Duration) ([]byte, bool, error) {
	// Always pass cacheTtl: left out, KV applies its default (60 s), which would break the
	// budget arithmetic; route.DeriveTTLs never goes below KV's minimum (route.MinKVCacheTTL).
	v, err := call("kv", k.ns, key, int(ttl/time.Second))
	if err != nil || v.Type() != js.TypeString {
		return nil, false, err
	}
	return []byte(v.String()), true, nil
}

// GetBytes reads a binary value (the name filter) as an ArrayBuffer, copied into Go whole.
func (k *kv) GetBytes(key string, ttl time.Duration) ([]byte, bool, error) {
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
func (*cache) Match(key string) (edge.Entry, bool, error) {
	return matchResult(start("match", key).await())
}

// startMatch is the Handler's StartMatch: the lookup starts now, and the request's runner
// waits for it when it needs the answer.
func startMatch(key string) func() (edge.Entry, bool, error) {
	w := start("match", key)
	return func() (edge.Entry, bool, error) { return matchResult(w.await()) }
}

func matchResult(v js.Value, err error) (edge.Entry, bool, error) {
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

func (b *bucket) Get(key string, withBody bool) (edge.Object, bool, error) {
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
func (b *bucket) Text(key string, limit int64) (string, bool, error) {
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

// Binding reads in flight: each call through io names one by its id, and worker.mjs settles
// it through kamuiSettle when its promise does.
var waits waitTable

type waitTable struct {
	mu   sync.Mutex
	byID map[int]*wait
	last int
}

// wait is one binding read in flight, started by a runner.
type wait struct {
	done   bool
	result settled
	// awaitedBy is the run waiting for it (nil until its runner gets there), and wake
	// what that runner waits on.
	awaitedBy *run
	wake      chan struct{}
}

type settled struct {
	v   js.Value
	err error
}

func (t *waitTable) add(w *wait) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID == nil {
		t.byID = map[int]*wait{}
	}
	t.last++
	t.byID[t.last] = w
	return t.last
}

func (t *waitTable) take(id int) *wait {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.byID[id]
	delete(t.byID, id)
	return w
}

// errNotInRun answers a binding read asked for outside a runner: only a runner may wait,
// and a read nobody could wait for is refused rather than started.
var errNotInRun = errors.New("edge adapter: a binding read outside a run")

// start calls io's method with args and the id of a new wait, without waiting.
func start(method string, args ...any) *wait {
	w := &wait{wake: make(chan struct{}, 1)}
	if current == nil {
		w.done, w.result = true, settled{err: errNotInRun}
		return w
	}
	io.Call(method, append(args, waits.add(w))...)
	return w
}

// await returns w's value, handing control back to the export that woke this runner while
// the read is pending. Only a runner calls it, and only while current is its run.
func (w *wait) await() (js.Value, error) {
	if !w.done {
		r := current
		w.awaitedBy = r
		r.yield <- 0
		<-w.wake
	}
	return w.result.v, w.result.err
}

// call calls io's method with args and waits for it.
func call(method string, args ...any) (js.Value, error) {
	return start(method, args...).await()
}
