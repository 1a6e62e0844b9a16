// Command benchtool holds the pieces scripts/bench-router.sh needs that the shell and wrk cannot
// do themselves. It is a measurement aid, not part of the router.
//
//	benchtool ports N                   print N free loopback TCP ports, one per line
//	benchtool backend -listen ADDR [-fasthttp]
//	                                    serve a small fixed response on ADDR (the tenant service),
//	                                    with net/http or, with -fasthttp, a bare fasthttp server
//	                                    (the floor under a router built on it)
//	benchtool proxy -listen ADDR -upstream ADDR
//	                                    the least a reverse proxy on fasthttp does: its server
//	                                    and one HostClient, in their default configuration, each
//	                                    request sent upstream as received and the answer returned
//	                                    (the floor under any router design built on the library)
//	benchtool wrk-script -secret-file F -method M -host H -app A -upstream U -request-id ID
//	                   [-body-bytes N]
//	                                    print a wrk Lua script sending a context signed now
//	                                    (with no -secret-file: a plain request, for nginx),
//	                                    with a body of N bytes
//	benchtool load -url U -host H -rate R -duration D -conns C [-secret-file F -upstream U]
//	                                    offer R GET requests a second, open loop, and print
//	                                    "<req/s> <p50 ms> <p99 ms> <requests>" (load.go)
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: benchtool ports|backend|proxy|wrk-script|load …")
	}
	var err error
	switch os.Args[1] {
	case "ports":
		err = ports(os.Args[2:])
	case "backend":
		err = backend(os.Args[2:])
	case "proxy":
		err = bareProxy(os.Args[2:])
	case "wrk-script":
		err = wrkScript(os.Args[2:])
	case "load":
		err = load(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "benchtool:", msg)
	os.Exit(1)
}

// ports holds all listeners open until every port is known, so the N ports are distinct.
func ports(args []string) error {
	n := 1
	if len(args) > 0 {
		var err error
		if n, err = strconv.Atoi(args[0]); err != nil || n < 1 {
			return fmt.Errorf("ports: bad count %q", args[0])
		}
	}
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			_ = ln.Close() // held only until every port was printed
		}
	}()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		lns = append(lns, ln)
		addr, ok := ln.Addr().(*net.TCPAddr)
		if !ok {
			return fmt.Errorf("ports: a TCP listener's address is a %T", ln.Addr())
		}
		fmt.Println(addr.Port)
	}
	return nil
}

// backendBody is small, like a typical dynamic API answer, so the bench measures proxy overhead.
var backendBody = []byte(strings.Repeat("kamuidash bench ", 8) + "\n")

func backend(args []string) error {
	fs := flag.NewFlagSet("backend", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "loopback address to serve on")
	useFasthttp := fs.Bool("fasthttp", false, "serve with a bare fasthttp server instead of net/http")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *useFasthttp {
		return fasthttpBackend(*listen)
	}
	srv := &http.Server{
		Addr:              *listen,
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// A tenant service reads what it is sent; the POST case measures bodies both ways.
			_, _ = io.Copy(io.Discard, r.Body) // a body cut short is the load generator's to report
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(backendBody)))
			_, _ = w.Write(backendBody)
		}),
	}
	return srv.ListenAndServe()
}

// fasthttpBackend answers like backend, with fasthttp's server in its default configuration
// (streaming off: a request body is read whole, as the handler needs it anyway).
func fasthttpBackend(listen string) error {
	srv := &fasthttp.Server{
		ReadTimeout: 10 * time.Second,
		Handler: func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("text/plain; charset=utf-8")
			ctx.SetBody(backendBody)
		},
	}
	return srv.ListenAndServe(listen)
}

// bareProxy serves fasthttp's server with a HostClient behind it and nothing in between: no
// signature, no header filtering, no idle check, bodies buffered whole (the library's defaults,
// its cheapest mode). Whatever a router built on fasthttp adds costs on top of this.
func bareProxy(args []string) error {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "loopback address to serve on")
	upstream := fs.String("upstream", "", "host:port of the backend")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *upstream == "" {
		return fmt.Errorf("proxy: -upstream is required")
	}
	client := &fasthttp.HostClient{Addr: *upstream}
	srv := &fasthttp.Server{
		ReadTimeout: 10 * time.Second,
		Handler: func(ctx *fasthttp.RequestCtx) {
			if err := client.Do(&ctx.Request, &ctx.Response); err != nil {
				ctx.Error("upstream: "+err.Error(), fasthttp.StatusBadGateway)
			}
		},
	}
	return srv.ListenAndServe(*listen)
}

func wrkScript(args []string) error {
	fs := flag.NewFlagSet("wrk-script", flag.ContinueOnError)
	secretFile := fs.String("secret-file", "", "file holding the signing secret")
	c := route.Context{Time: time.Now()}
	fs.StringVar(&c.Method, "method", http.MethodGet, "request method")
	fs.StringVar(&c.Host, "host", "", "public host (normalised)")
	fs.StringVar(&c.Target, "target", "/", "request target wrk sends (path and query)")
	fs.StringVar(&c.App, "app", "", "app name")
	fs.StringVar(&c.Upstream, "upstream", "", "namespace/service:port")
	fs.StringVar(&c.RequestID, "request-id", "bench", "request id")
	bodyBytes := fs.Int("body-bytes", 0, "size of the request body to send (0: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	h := http.Header{}
	if *secretFile != "" {
		secret, err := os.ReadFile(*secretFile)
		if err != nil {
			return err
		}
		c.SetHeaders(h, []byte(strings.TrimRight(string(secret), "\r\n")))
	}
	fmt.Printf("wrk.method = %q\n", c.Method)
	fmt.Printf("wrk.headers[%q] = %q\n", "Host", c.Host)
	for name := range h {
		fmt.Printf("wrk.headers[%q] = %q\n", name, h.Get(name))
	}
	if *bodyBytes > 0 {
		fmt.Printf("wrk.headers[%q] = %q\n", "Content-Type", "application/octet-stream")
		fmt.Printf("wrk.body = string.rep(%q, %d)\n", "a", *bodyBytes)
	}
	return nil
}
