// Command hertzproxy is a bare reverse proxy on hertz (CloudWeGo's HTTP library: its server on
// the netpoll event loop, and its client), the counterpart of `benchtool proxy` on fasthttp: a
// second library's floor for the router, measured in the router's slot of `make bench-router`
// (`make bench-router-hertz`). It does nothing a router must (no signature, no header rules,
// no idle check) and is not part of the provider.
//
// It takes the router's flags so that the harness can start it as a router, and ignores all
// but --listen; the upstream's port comes from the first request's Kamui-Upstream header
// (namespace/service:port), as the router's --upstream-template 127.0.0.1:{port} would take it.
package main

import (
	"context"
	"flag"
	"strings"
	"sync"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/client"
	"github.com/cloudwego/hertz/pkg/app/server"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to serve on")
	for _, name := range []string{"admin-listen", "secret-file", "namespace-prefix", "upstream-template", "log-sample-rate", "max-skew"} {
		flag.String(name, "", "the router's flag, ignored")
	}
	flag.Parse()
	upstreams, err := client.NewClient(client.WithMaxConnsPerHost(1024))
	if err != nil {
		panic(err)
	}
	var once sync.Once
	var upstream string
	h := server.New(server.WithHostPorts(*listen), server.WithDisablePrintRoute(true))
	h.NoRoute(func(c context.Context, ctx *app.RequestContext) {
		once.Do(func() {
			u := string(ctx.Request.Header.Peek("Kamui-Upstream"))
			upstream = "127.0.0.1" + u[strings.LastIndex(u, ":"):]
		})
		ctx.Request.SetHost(upstream)
		if err := upstreams.Do(c, &ctx.Request, &ctx.Response); err != nil {
			ctx.String(502, "upstream: "+err.Error())
		}
	})
	h.Spin()
}
