package edge

import "testing"

// The Serve benchmarks measure the core's CPU per request on each path. Run them in Wasm
// too (GOOS=js GOARCH=wasm go test -bench . -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec")
// to see what the Worker's isolate pays.

func benchServe(b *testing.B, host, path string, prime func(w *world)) {
	w := newWorld(b)
	w.log = &fakeLog{}
	w.h.Log = discardLogger{}
	if prime != nil {
		prime(w)
	}
	req := get(host, path)
	b.ReportAllocs()
	for b.Loop() {
		ex := w.h.Serve(req)
		if ex.Plan.Forward != nil {
			ex.UpstreamResponse(200, Header{{"Content-Type", "text/html"}})
		}
	}
}

func BenchmarkServeMemoDynamic(b *testing.B) {
	benchServe(b, "shop.kamui.test", "/cart", func(w *world) { w.h.Serve(get("shop.kamui.test", "/")) })
}

func BenchmarkServeKVCustomDomain(b *testing.B) {
	// No memo: every iteration resolves through KV (route entries are not stored here).
	benchServe(b, "www.shop.example", "/cart", func(w *world) { w.h.Config.TTLs.Memo = 0 })
}

func BenchmarkServeRouteCacheHit(b *testing.B) {
	benchServe(b, "www.shop.example", "/cart", func(w *world) {
		w.serve(w.h, get("www.shop.example", "/"))
		w.h.Config.TTLs.Memo = 0
		w.h.memo = nil
	})
}
