package router_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

type served struct {
	base, admin string
	done        <-chan error
}

// serve runs router.Serve for h on fresh loopback listeners until ctx is cancelled.
func serve(t *testing.T, ctx context.Context, h *harness, drain time.Duration) served {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	adminLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- router.Serve(ctx, h.rt, ln, adminLn, drain) }()
	return served{base: "http://" + ln.Addr().String(), admin: "http://" + adminLn.Addr().String(), done: done}
}

func statusOf(url string) int {
	res, err := http.Get(url)
	if err != nil {
		return 0
	}
	_ = res.Body.Close()
	return res.StatusCode
}

type result struct {
	status int
	body   string
	err    error
}

func send(req *http.Request) <-chan result {
	out := make(chan result, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- result{err: err}
			return
		}
		defer func() { _ = res.Body.Close() }()
		b, err := io.ReadAll(res.Body)
		out <- result{res.StatusCode, string(b), err}
	}()
	return out
}

func TestServe_FinishesInFlightRequestOnShutdown(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	b := newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
		once.Do(func() { close(entered) })
		<-release
		_, _ = io.WriteString(w, "finished")
	})
	h := newHarness(t, b, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := serve(t, ctx, h, 10*time.Second)

	if got := statusOf(s.admin + "/readyz"); got != http.StatusOK {
		t.Fatalf("readyz before shutdown = %d, want 200", got)
	}
	inFlight := send(h.requestTo(t, s.base, validContext(http.MethodGet, "req-drain"), "/slow", nil))
	<-entered

	cancel() // what SIGTERM does in main
	eventually(t, "readyz turns 503 while draining", func() bool {
		return statusOf(s.admin+"/readyz") == http.StatusServiceUnavailable
	})
	eventually(t, "the listener stops accepting", func() bool {
		c, err := net.Dial("tcp", s.base[len("http://"):])
		if err == nil {
			_ = c.Close() // a probe: connecting was the answer
		}
		return err != nil
	})
	select {
	case err := <-s.done:
		t.Fatalf("Serve returned (%v) with a request in flight", err)
	default:
	}

	close(release)
	r := <-inFlight
	if r.err != nil || r.status != http.StatusOK || r.body != "finished" {
		t.Fatalf("in-flight request: %d %q %v, want 200 finished", r.status, r.body, r.err)
	}
	if err := <-s.done; err != nil {
		t.Fatalf("Serve after a clean drain: %v", err)
	}
}

func TestServe_DrainIsBounded(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	entered := make(chan struct{}, 1)
	b := newBackend(t, func(http.ResponseWriter, *http.Request) {
		entered <- struct{}{}
		<-release
	})
	h := newHarness(t, b, nil)
	ctx, cancel := context.WithCancel(context.Background())
	s := serve(t, ctx, h, 50*time.Millisecond)
	inFlight := send(h.requestTo(t, s.base, validContext(http.MethodGet, "req-stuck"), "/", nil))
	<-entered
	cancel()
	if err := <-s.done; err == nil {
		t.Fatal("Serve reported a clean drain although a request never finished")
	}
	if r := <-inFlight; r.err == nil && r.status == http.StatusOK {
		t.Fatalf("the stuck request got %d after the drain gave up, want its connection cut", r.status)
	}
	// The exchange whose client connection the drain cut ends too, the tenant still working:
	// nobody is left to answer.
	eventually(t, "the cut-off exchange ends as client_gone", func() bool {
		lines := h.logs.accessLines(t)
		return h.rt.InFlight() == 0 && len(lines) == 1 && lines[0]["outcome"] == "client_gone"
	})
}
