package router_test

import (
	"io"
	"log/slog"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

// BenchmarkRouter_GET drives signed keep-alive GETs through the router to a bare fasthttp
// backend, all on loopback in this process: for profiles and allocations per request (the
// harness in scripts/bench-router.sh measures against nginx).
func BenchmarkRouter_GET(b *testing.B) { benchRouter(b, fasthttp.MethodGet, 0) }

// BenchmarkRouter_POST16K is the harness's POST case: a 16 KiB body, streamed to the backend.
func BenchmarkRouter_POST16K(b *testing.B) { benchRouter(b, fasthttp.MethodPost, 16<<10) }

func benchRouter(b *testing.B, method string, bodyBytes int) {
	backendLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	backend := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("ok from backend") }}
	go func() { _ = backend.Serve(backendLn) }()
	b.Cleanup(func() { _ = backend.Shutdown() })

	secret := make([]byte, 32)
	target := &url.URL{Scheme: "http", Host: backendLn.Addr().String()}
	rt, err := router.New(router.Config{
		Secret:                 secret,
		AllowedNamespacePrefix: nsPrefix,
		Logger:                 slog.New(slog.NewJSONHandler(io.Discard, nil)),
		SampleSuccess:          router.SampleRate(0),
		Resolve:                func(route.Upstream) (*url.URL, error) { return target, nil },
	})
	if err != nil {
		b.Fatal(err)
	}
	front := router.NewServer(rt)
	frontLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = front.Serve(frontLn) }()
	b.Cleanup(func() { _ = front.Shutdown() })

	client := &fasthttp.HostClient{Addr: frontLn.Addr().String()}
	body := make([]byte, bodyBytes)
	b.SetBytes(int64(bodyBytes))
	b.ResetTimer()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(res)
		for pb.Next() {
			req.Reset()
			req.Header.SetMethod(method)
			req.SetRequestURI("http://origin.kamui.test/bench?x=1")
			if bodyBytes > 0 {
				req.SetBodyRaw(body)
			}
			c := validContext(method, "req-bench")
			c.Target, c.Time = "/bench?x=1", time.Now()
			c.SetHeaders(&req.Header, secret)
			if err := client.Do(req, res); err != nil || res.StatusCode() != fasthttp.StatusOK {
				b.Errorf("got %d, %v", res.StatusCode(), err) // Fatal is for the benchmark's own goroutine
				return
			}
		}
	})
}
