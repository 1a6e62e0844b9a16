package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// load offers a fixed rate of GET requests, open loop: request i is due at start + i/rate
// whatever happened to the ones before, and its latency counts from when it was due, so a slow
// answer that holds a connection shows in the latency of every request that waited for one
// (wrk's closed loop would instead send less while the proxy is slow). With -rate 0 every
// connection sends as fast as it is answered, to find the most this generator gets through
// (it costs the machine more per request than wrk, so wrk's maximum is not its). It prints
// "<achieved req/s> <p50 ms> <p99 ms> <requests>", failing on any error or non-2xx answer.
func load(args []string) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	url := fs.String("url", "", "URL to request")
	host := fs.String("host", "", "Host header (the public host)")
	rate := fs.Float64("rate", 1000, "requests per second offered")
	duration := fs.Duration("duration", 10*time.Second, "how long to offer them")
	conns := fs.Int("conns", 64, "keep-alive connections, each with one request in flight at most")
	secretFile := fs.String("secret-file", "", "sign a router context with this secret (none: a plain request, for nginx)")
	app := fs.String("app", "bench", "app name of the signed context")
	upstream := fs.String("upstream", "", "upstream of the signed context")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *url == "" || *rate < 0 || *conns < 1 {
		return fmt.Errorf("load: -url, a rate of at least 0 and -conns are required")
	}
	header := http.Header{}
	if *secretFile != "" {
		secret, err := os.ReadFile(*secretFile)
		if err != nil {
			return err
		}
		// Signed once: the router's skew allowance (--max-skew) covers the run.
		c := route.Context{Method: http.MethodGet, Target: "/", Host: *host, App: *app, Upstream: *upstream,
			RequestID: "bench-load", Time: time.Now()}
		c.SetHeaders(header, []byte(strings.TrimRight(string(secret), "\r\n")))
	}
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: *conns, MaxIdleConnsPerHost: *conns,
		DisableCompression: true}}

	closed := *rate == 0
	n := int(*rate * duration.Seconds())
	if closed {
		n = *conns * 1000 // refilled below until the duration is over
	}
	due := make(chan time.Time, n)
	lat := make([]time.Duration, 0, n)
	var mu sync.Mutex
	var failed error
	var wg sync.WaitGroup
	for range *conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for at := range due {
				if at.IsZero() {
					at = time.Now()
				}
				time.Sleep(time.Until(at))
				err := get(client, *url, *host, header)
				d := time.Since(at)
				mu.Lock()
				lat = append(lat, d)
				if err != nil && failed == nil {
					failed = err
				}
				mu.Unlock()
			}
		}()
	}
	start := time.Now().Add(50 * time.Millisecond)
	if closed {
		// Every request is due at once: each connection takes the next as soon as it is free.
		for end := start.Add(*duration); time.Now().Before(end); {
			select {
			case due <- time.Time{}:
			default:
				time.Sleep(time.Millisecond)
			}
		}
	} else {
		for i := range n {
			due <- start.Add(time.Duration(float64(i) / *rate * float64(time.Second)))
		}
	}
	close(due)
	wg.Wait()
	elapsed := time.Since(start)
	if failed != nil {
		return failed
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond) }
	fmt.Printf("%.2f %.3f %.3f %d\n", float64(len(lat))/elapsed.Seconds(), pct(0.50), pct(0.99), len(lat))
	return nil
}

func get(client *http.Client, url, host string, header http.Header) error {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Host = host
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("load: HTTP %d", resp.StatusCode)
	}
	return nil
}
