//go:build js && wasm

// Command wasm is the thin js/wasm adapter of the edge Worker: it turns JS objects
// (Request, env bindings, Cache API, R2, fetch) into the edge package's small interfaces
// and carries out the core's plan. All decisions live in package edge.
//
// One Go instance serves every request of an isolate: main registers a global function
// that returns a Promise per request and handles each request in its own goroutine, then
// blocks forever. JS promises (KV, Cache API, R2, fetch) are awaited through channels.
// Bodies never cross into Go: they move from one JS object to another by reference.
package main

import (
	"errors"
	"sync"
	"time"

	"syscall/js"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge"
)

var (
	initOnce sync.Once
	handler  *edge.Handler
	console  = js.Global().Get("console")
)

func main() {
	// __kamuiEdgeServe(request, env, ctx, host) → Promise<Response>. host holds the JS
	// helpers of worker.mjs (forward, respond) that keep bodies on the JS side.
	js.Global().Set("__kamuiEdgeServe", js.FuncOf(func(_ js.Value, args []js.Value) any {
		request, env, host := args[0], args[1], args[3]
		var executor js.Func
		executor = js.FuncOf(func(_ js.Value, pa []js.Value) any {
			resolve, reject := pa[0], pa[1]
			go func() {
				defer func() {
					if r := recover(); r != nil {
						reject.Invoke(js.Global().Get("Error").New("edge adapter panic"))
					}
				}()
				resolve.Invoke(serve(request, env, host))
			}()
			return nil
		})
		p := js.Global().Get("Promise").New(executor)
		executor.Release()
		return p
	}))
	select {}
}

func serve(request, env, host js.Value) js.Value {
	initOnce.Do(func() { handler = newHandler(env) })
	ex := handler.Serve(&edge.Request{
		Method: request.Get("method").String(),
		URL:    request.Get("url").String(),
		Header: headerList(request.Get("headers")),
	})
	p := ex.Plan
	for _, put := range p.CachePuts {
		// Stored in the background (ctx.waitUntil): the request does not wait for it.
		host.Call("store", put.Key, put.Entry.Status, pairs(put.Entry.Header), jsBody(put.Entry.Body))
	}
	if p.Forward == nil {
		return respond(host, p)
	}
	f := p.Forward
	out, err := await(host.Call("forward", request, f.URL, f.Method, pairs(f.Header), f.Timeout.Milliseconds(), f.WebSocket))
	if err != nil {
		return respond(host, ex.UpstreamFailed(false, "forward: "+err.Error()))
	}
	if out.Get("timeout").Truthy() {
		return respond(host, ex.UpstreamFailed(true, ""))
	}
	if e := out.Get("error"); e.Truthy() {
		return respond(host, ex.UpstreamFailed(false, e.String()))
	}
	resp := out.Get("response")
	edits := ex.UpstreamResponse(resp.Get("status").Int(), headerList(resp.Get("headers")))
	del := make([]any, len(edits.Del))
	for i, n := range edits.Del {
		del[i] = n
	}
	return host.Call("finish", resp, del, pairs(edits.Set))
}

// respond builds the Response of a plan; host.respond also puts the content-cache copy
// (a tee of the stream) when the plan asks for it.
func respond(host js.Value, p edge.Plan) js.Value {
	var store, storeKey any = js.Null(), js.Null()
	if p.Store != nil {
		store, storeKey = pairs(p.Store.Header), p.Store.Key
	}
	return host.Call("respond", p.Status, pairs(p.Header), jsBody(p.Body), storeKey, store)
}

func newHandler(env js.Value) *edge.Handler {
	h := &edge.Handler{
		Log:          jsLogger{},
		NewRequestID: func() string { return js.Global().Get("crypto").Call("randomUUID").String() },
		WaitShared:   waitShared,
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
	h.Cache = cache{js.Global().Get("caches").Get("default")}
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

type jsLogger struct{}

func (jsLogger) Log(line string) { console.Call("log", line) }

type kv struct{ ns js.Value }

func (k kv) Get(key string, ttl time.Duration) ([]byte, bool, error) {
	// Always pass cacheTtl: left out, KV applies its default (60 s), which would break the
	// budget arithmetic; route.DeriveTTLs never goes below KV's minimum (route.MinKVCacheTTL).
	opts := map[string]any{"type": "text", "cacheTtl": int(ttl / time.Second)}
	v, err := call(k.ns, "get", key, opts)
	if err != nil {
		return nil, false, err
	}
	if v.IsNull() || v.IsUndefined() {
		return nil, false, nil
	}
	return []byte(v.String()), true, nil
}

type cache struct{ c js.Value }

func (c cache) Match(key string) (edge.Entry, bool, error) {
	v, err := call(c.c, "match", key)
	if err != nil || v.IsUndefined() || v.IsNull() {
		return edge.Entry{}, false, err
	}
	return edge.Entry{Status: v.Get("status").Int(), Header: headerList(v.Get("headers")), Body: body{v}}, true, nil
}

type bucket struct{ b js.Value }

func (b bucket) Get(key string, withBody bool) (edge.Object, bool, error) {
	method := "head"
	if withBody {
		method = "get"
	}
	v, err := call(b.b, method, key)
	if err != nil || v.IsNull() || v.IsUndefined() {
		return edge.Object{}, false, err
	}
	var h edge.Header
	if ct := v.Get("httpMetadata").Get("contentType"); ct.Type() == js.TypeString {
		h.Set("Content-Type", ct.String())
	}
	if et := v.Get("httpEtag"); et.Type() == js.TypeString {
		h.Set("ETag", et.String())
	}
	if up := v.Get("uploaded"); up.Type() == js.TypeObject {
		h.Set("Last-Modified", up.Call("toUTCString").String())
	}
	o := edge.Object{Header: h}
	if withBody {
		o.Body = body{v}
	}
	return o, true, nil
}

// body is a JS object with a .body stream (Response, R2ObjectBody).
type body struct{ v js.Value }

func (b body) Text() (string, error) {
	t, err := call(b.v, "text")
	if err != nil {
		return "", err
	}
	return t.String(), nil
}

func jsBody(b edge.Body) any {
	switch b := b.(type) {
	case nil:
		return js.Null()
	case edge.TextBody:
		return string(b)
	case body:
		return b.v.Get("body")
	}
	return js.Null()
}

func headerList(h js.Value) edge.Header {
	arr := js.Global().Get("Array").Call("from", h)
	n := arr.Length()
	out := make(edge.Header, n)
	for i := 0; i < n; i++ {
		kv := arr.Index(i)
		out[i] = edge.Field{Name: kv.Index(0).String(), Value: kv.Index(1).String()}
	}
	return out
}

func pairs(h edge.Header) []any {
	out := make([]any, len(h))
	for i, f := range h {
		out[i] = []any{f.Name, f.Value}
	}
	return out
}

// call invokes a method that returns a promise and awaits it; a synchronous throw becomes
// an error too.
func call(v js.Value, method string, args ...any) (res js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New(method + " threw")
			if je, ok := r.(js.Error); ok && je.Value.Type() == js.TypeObject {
				err = errors.New(method + ": " + je.Value.Get("message").String())
			}
		}
	}()
	return await(v.Call(method, args...))
}

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
