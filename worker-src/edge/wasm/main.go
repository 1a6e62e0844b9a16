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
// Requests and plans cross the boundary as NUL-separated UTF-8 fields in one shared
// Uint8Array (the protocol is described at the top of worker.mjs): one copy each way
// instead of a js.Value, with its finalizer, per header. Bodies never cross: they move
// from one JS object to another by reference.
package main

import (
	"bytes"
	"errors"
	"strconv"
	"sync"
	"time"

	"syscall/js"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge"
)

var (
	initOnce sync.Once
	handler  *edge.Handler

	// io holds worker.mjs's helpers for the bindings (kv, match, r2, text).
	io js.Value

	// buf is the shared Uint8Array; in holds the bytes read from it.
	buf    js.Value
	bufLen int
	in     []byte

	// mu guards what goroutines share: pending, nextToken and lines. In js/wasm only one
	// goroutine runs at a time, but nothing here may rely on where they switch.
	mu        sync.Mutex
	pending   [pendingSlots]*exchange
	nextToken int
	lines     []string // log lines not yet handed to JS
)

// exchange is a request between two calls from worker.mjs.
type exchange struct {
	token int
	ex    *edge.Exchange
	req   *edge.Request
}

// pendingSlots bounds the exchanges kept between calls: token t lives in slot t mod
// pendingSlots until a newer token takes the slot. A request whose client went away never
// comes back for its token, and its slot is simply reused; a request still in flight
// 4096 tokens later (far beyond what one isolate serves at once) fails closed.
const pendingSlots = 4096

func main() {
	api := js.Global().Get("Object").New()
	export := func(name string, f func(a []js.Value) any) {
		api.Set(name, js.FuncOf(func(_ js.Value, a []js.Value) any { return f(a) }))
	}
	// init(env, buffer, io): the configuration, once per isolate, the shared buffer and
	// the binding helpers.
	export("init", func(a []js.Value) any {
		io = a[2]
		initOnce.Do(func() { handler = newHandler(a[0]) })
		setBuffer(a[1])
		return nil
	})
	export("setBuffer", func(a []js.Value) any { setBuffer(a[0]); return nil })
	// decide(n) → answer length: a request in buf, decided without waiting.
	export("decide", func(a []js.Value) any { return decide(a[0].Int()) })
	// lookups(token, n) → answer length: the cache lookups asked for, decided again.
	export("lookups", func(a []js.Value) any { return lookups(a[0].Int(), a[1].Int()) })
	// run(token): decides with I/O in a goroutine; the answer arrives via __kamuiEdgeDone.
	export("run", func(a []js.Value) any { run(a[0].Int()); return nil })
	// finish(token, n) → answer length: the upstream outcome, answered with edits or a plan.
	export("finish", func(a []js.Value) any { return finish(a[0].Int(), a[1].Int()) })
	js.Global().Set("__kamuiEdge", api)
	select {}
}

func setBuffer(v js.Value) {
	buf = v
	bufLen = v.Length()
}

// fields reads the NUL-terminated fields JS wrote into buf.
type fields struct{ b []byte }

func readFields(n int) *fields {
	if cap(in) < n {
		in = make([]byte, n)
	}
	in = in[:n]
	js.CopyBytesToGo(in, buf)
	return &fields{in}
}

func (f *fields) next() string {
	i := bytes.IndexByte(f.b, 0)
	if i < 0 {
		s := string(f.b)
		f.b = nil
		return s
	}
	s := string(f.b[:i])
	f.b = f.b[i+1:]
	return s
}

func (f *fields) int() int {
	n, _ := strconv.Atoi(f.next())
	return n
}

func (f *fields) header() edge.Header {
	n := f.int()
	h := make(edge.Header, n)
	for i := range h {
		h[i].Name = f.next()
		h[i].Value = f.next()
	}
	return h
}

// lookup reads one lookup outcome: "" not made, "M" miss, "E" error + message, or
// "H" hit + status + header. The entry's body stays in worker.mjs (cachedBody): a content
// entry is served from there, and a route-cache entry is all in its headers.
func (f *fields) lookup() *edge.Lookup {
	switch f.next() {
	case "M":
		return &edge.Lookup{}
	case "E":
		return &edge.Lookup{Err: errors.New(f.next())}
	case "H":
		l := &edge.Lookup{Found: true}
		l.Entry.Status = f.int()
		l.Entry.Header = f.header()
		l.Entry.Body = cachedBody{}
		return l
	}
	return nil
}

// answer builds the bytes handed back to JS.
type answer struct{ b []byte }

// str appends one field. No field can hold a NUL: header names and values and URLs cannot
// (the Fetch standard forbids it), and the core's JSON and texts never do.
func (a *answer) str(s string) {
	a.b = append(a.b, s...)
	a.b = append(a.b, 0)
}

func (a *answer) int(n int) {
	a.b = strconv.AppendInt(a.b, int64(n), 10)
	a.b = append(a.b, 0)
}

func (a *answer) header(h edge.Header) {
	a.int(len(h))
	for _, f := range h {
		a.str(f.Name)
		a.str(f.Value)
	}
}

// begin starts every answer: its kind, the token, then the log lines to print.
func begin(kind string, token int) *answer {
	a := &answer{b: make([]byte, 0, 512)}
	a.str(kind)
	a.int(token)
	mu.Lock()
	a.int(len(lines))
	for _, l := range lines {
		a.str(l)
	}
	lines = lines[:0]
	mu.Unlock()
	return a
}

// send copies the answer into buf (growing it through JS when it is too small).
func (a *answer) send() int {
	if len(a.b) > bufLen {
		setBuffer(js.Global().Call("__kamuiEdgeGrow", len(a.b)))
	}
	return js.CopyBytesToJS(buf, a.b)
}

// plan encodes a decided plan: "R" respond or "F" forward. obj reports whether the body
// is a JS value the caller passes along (an R2 object or a Cache API entry).
func plan(token int, p edge.Plan) (a *answer, obj js.Value) {
	obj = js.Null()
	if f := p.Forward; f != nil {
		a = begin("F", token)
		a.str(f.Method)
		a.str(f.URL)
		a.int(int(f.Timeout.Milliseconds()))
		ws := ""
		if f.WebSocket {
			ws = "1"
		}
		a.str(ws)
		a.header(f.Header)
	} else {
		a = begin("R", token)
		a.int(p.Status)
		switch b := p.Body.(type) {
		case nil:
			a.str("N")
			a.str("")
		case edge.TextBody:
			a.str("T")
			a.str(string(b))
		case cachedBody:
			a.str("C")
			a.str("")
		case body:
			a.str("O")
			a.str("")
			obj = b.v
		default:
			a.str("N")
			a.str("")
		}
		if r := p.Range; r != nil {
			a.int(int(r.Offset))
			a.int(int(r.Length))
		} else {
			a.str("")
			a.str("")
		}
		a.header(p.Header)
		if p.Store != nil {
			a.str(p.Store.Key)
			a.header(p.Store.Header)
		} else {
			a.str("")
			a.int(0)
		}
	}
	a.int(len(p.CachePuts))
	for _, put := range p.CachePuts {
		a.str(put.Key)
		a.int(put.Entry.Status)
		a.header(put.Entry.Header)
		text := ""
		if t, ok := put.Entry.Body.(edge.TextBody); ok {
			text = string(t)
		}
		a.str(text)
	}
	return a, obj
}

func decide(n int) any {
	f := readFields(n)
	req := &edge.Request{ID: f.next(), Method: f.next(), URL: f.next()}
	req.Header = f.header()
	ex := handler.Begin(req)
	return settle(&exchange{ex: ex, req: req}, 0, ex.Decide())
}

func lookups(token, n int) any {
	x := take(token)
	if x == nil {
		return begin("X", token).send()
	}
	f := readFields(n)
	if l := f.lookup(); l != nil {
		x.req.Content = l
	}
	if l := f.lookup(); l != nil {
		x.req.Route = l
	}
	return settle(x, token, x.ex.Decide())
}

// settle answers a Decide: the plan when it decided, else the lookups it needs ("L") or
// a request to run it with I/O ("W"); the exchange is kept until worker.mjs comes back.
func settle(x *exchange, token int, decided bool) int {
	if decided && x.ex.Plan.Forward == nil {
		a, _ := plan(token, x.ex.Plan)
		return a.send()
	}
	if token == 0 {
		token = keep(x)
	} else {
		put(x)
	}
	if decided {
		a, _ := plan(token, x.ex.Plan)
		return a.send()
	}
	content, route := x.ex.Lookups()
	if content == "" && route == "" {
		return begin("W", token).send()
	}
	a := begin("L", token)
	a.str(content)
	a.str(route)
	return a.send()
}

func run(token int) {
	x := take(token)
	if x == nil {
		js.Global().Call("__kamuiEdgeDone", token, -1, js.Null())
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
var runs = make(chan *exchange)

func runner(x *exchange) {
	for {
		runOne(x)
		x = <-runs
	}
}

func runOne(x *exchange) {
	done := js.Global().Get("__kamuiEdgeDone")
	defer func() {
		if r := recover(); r != nil {
			done.Invoke(x.token, -1, js.Null())
		}
	}()
	x.ex.Run()
	if x.ex.Plan.Forward != nil {
		put(x)
	}
	a, obj := plan(x.token, x.ex.Plan)
	done.Invoke(x.token, a.send(), obj)
}

func finish(token, n int) any {
	x := take(token)
	if x == nil {
		return begin("X", token).send()
	}
	f := readFields(n)
	outcome, status, detail := f.next(), f.int(), f.next()
	names := make(edge.Header, f.int())
	for i := range names {
		names[i].Name = f.next()
	}
	switch outcome {
	case "ok":
		e := x.ex.UpstreamResponse(status, names)
		a := begin("E", token)
		a.int(len(e.Del))
		for _, d := range e.Del {
			a.str(d)
		}
		a.header(e.Set)
		return a.send()
	case "timeout":
		a, _ := plan(token, x.ex.UpstreamFailed(true, ""))
		return a.send()
	}
	a, _ := plan(token, x.ex.UpstreamFailed(false, detail))
	return a.send()
}

func keep(x *exchange) int {
	mu.Lock()
	nextToken++
	if nextToken > 1<<30 {
		nextToken = 1
	}
	x.token = nextToken
	pending[x.token%pendingSlots] = x
	mu.Unlock()
	return x.token
}

func put(x *exchange) {
	mu.Lock()
	pending[x.token%pendingSlots] = x
	mu.Unlock()
}

func take(token int) *exchange {
	mu.Lock()
	defer mu.Unlock()
	x := pending[token%pendingSlots]
	if x == nil || x.token != token {
		return nil
	}
	pending[token%pendingSlots] = nil
	return x
}

// cachedBody is the body of a Cache API entry worker.mjs looked up: it stays there (a content
// entry is served from there; a route-cache entry is all in its headers).
type cachedBody struct{}

func (cachedBody) Text() (string, error) { return "", errors.New("the cached body stays in JS") }

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
	for _, b := range []struct{ name, method string }{
		{edge.BindingRoutes, "get"}, {edge.BindingDomains, "get"}, {edge.BindingStatic, "head"},
	} {
		if v := env.Get(b.name); v.Type() != js.TypeObject || v.Get(b.method).Type() != js.TypeFunction {
			errs = append(errs, &edge.ConfigError{Binding: b.name, Problem: "missing or not the right binding type"})
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
		if _, err := await(js.Global().Call("__kamuiSleep", 1)); err != nil {
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
	v, err := await(io.Call("kv", k.ns, key, int(ttl/time.Second)))
	if err != nil || v.Type() != js.TypeString {
		return nil, false, err
	}
	return []byte(v.String()), true, nil
}

// GetBytes reads a binary value (the name filter) as an ArrayBuffer, copied into Go whole.
func (k kv) GetBytes(key string, ttl time.Duration) ([]byte, bool, error) {
	v, err := await(io.Call("kvBytes", k.ns, key, int(ttl/time.Second)))
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
	v, err := await(io.Call("match", key))
	if err != nil {
		return edge.Entry{}, false, err
	}
	l := (&fields{[]byte(v.Get("f").String())}).lookup()
	if l.Found {
		l.Entry.Body = body{v: v.Get("r")}
	}
	return l.Entry, l.Found, l.Err
}

type bucket struct{ b js.Value }

func (b bucket) Get(key string, withBody bool) (edge.Object, bool, error) {
	v, err := await(io.Call("r2", b.b, key, withBody))
	if err != nil || v.Type() != js.TypeObject {
		return edge.Object{}, false, err
	}
	f := &fields{[]byte(v.Get("h").String())}
	var o edge.Object
	for _, name := range []string{"Content-Type", "ETag", "Last-Modified", "Content-Length"} {
		if s := f.next(); s != "" {
			o.Header.Set(name, s)
		}
	}
	if withBody {
		o.Body = body{v: v.Get("o")}
	}
	return o, true, nil
}

// Text reads a whole object as text through worker.mjs, which refuses one larger than
// limit before reading its body.
func (b bucket) Text(key string, limit int64) (string, bool, error) {
	v, err := await(io.Call("text", b.b, key, float64(limit)))
	if err != nil || v.Type() != js.TypeString {
		return "", false, err
	}
	return v.String(), true, nil
}

// body is a JS object with a .body stream (Response, R2ObjectBody); the stream stays in JS.
type body struct{ v js.Value }

func (body) Text() (string, error) { return "", errors.New("the body stays in JS") }

type settled struct {
	v   js.Value
	err error
}

func await(p js.Value) (js.Value, error) {
	if p.Type() != js.TypeObject || p.Get("then").Type() != js.TypeFunction {
		return p, nil
	}
	ch := make(chan settled, 1)
	onOK := js.FuncOf(func(_ js.Value, a []js.Value) any {
		v := js.Undefined()
		if len(a) > 0 {
			v = a[0]
		}
		ch <- settled{v: v}
		return nil
	})
	onErr := js.FuncOf(func(_ js.Value, a []js.Value) any {
		msg := "rejected"
		if len(a) > 0 && a[0].Type() == js.TypeObject {
			if m := a[0].Get("message"); m.Type() == js.TypeString {
				msg = m.String()
			}
		}
		ch <- settled{err: errors.New(msg)}
		return nil
	})
	p.Call("then", onOK, onErr)
	r := <-ch
	onOK.Release()
	onErr.Release()
	return r.v, r.err
}
