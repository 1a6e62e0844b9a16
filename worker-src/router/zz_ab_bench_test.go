package router_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/url"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

func BenchmarkAB_Router(b *testing.B) { benchAB(b, false) }
func BenchmarkAB_Bare(b *testing.B)   { benchAB(b, true) }

func labelled(side string, f func()) {
	go pprof.Do(context.Background(), pprof.Labels("side", side), func(context.Context) { f() })
}

func benchAB(b *testing.B, bare bool) {
	backendLn, _ := net.Listen("tcp", "127.0.0.1:0")
	backend := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("ok from backend") }}
	labelled("backend", func() { _ = backend.Serve(backendLn) })
	defer backend.Shutdown()
	secret := make([]byte, 32)
	target := &url.URL{Scheme: "http", Host: backendLn.Addr().String()}
	var front *fasthttp.Server
	if bare {
		hc := &fasthttp.HostClient{Addr: backendLn.Addr().String()}
		front = &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
			if err := hc.Do(&ctx.Request, &ctx.Response); err != nil {
				ctx.Error(err.Error(), 502)
			}
		}}
	} else {
		rt, err := router.New(router.Config{Secret: secret, AllowedNamespacePrefix: nsPrefix,
			Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), SampleSuccess: router.SampleRate(0),
			Resolve: func(route.Upstream) (*url.URL, error) { return target, nil }})
		if err != nil {
			b.Fatal(err)
		}
		front = router.NewServer(rt)
	}
	frontLn, _ := net.Listen("tcp", "127.0.0.1:0")
	labelled("front", func() { _ = front.Serve(frontLn) })
	defer front.Shutdown()
	client := &fasthttp.HostClient{Addr: frontLn.Addr().String()}
	b.ResetTimer()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		for pb.Next() {
			req.Reset()
			req.Header.SetMethod("GET")
			req.SetRequestURI("http://origin.kamui.test/bench?x=1")
			c := validContext("GET", "req-bench")
			c.Target, c.Time = "/bench?x=1", time.Now()
			c.SetHeaders(&req.Header, secret)
			if err := client.Do(req, res); err != nil || res.StatusCode() != 200 {
				b.Errorf("got %d, %v", res.StatusCode(), err)
				return
			}
		}
	})
}
