package router_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

const (
	streamSize = 100 << 20
	// heapBudget is the most the heap may grow while 100 MB pass through: far below the body
	// size, so any whole-body buffering on either path fails the test.
	heapBudget = 32 << 20
)

// patternReader yields size deterministic bytes without holding them in memory.
type patternReader struct{ off, size int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.off >= p.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(b)), p.size-p.off))
	for i := range n {
		b[i] = byte((p.off + int64(i)) % 251)
	}
	p.off += int64(n)
	return n, nil
}

func patternSum(size int64) string {
	h := sha256.New()
	_, _ = io.Copy(h, &patternReader{size: size}) // neither a patternReader nor a hash fails
	return hex.EncodeToString(h.Sum(nil))
}

// heapPeak samples HeapInuse until stop is closed and reports the peak growth over the start.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > base {
				peak = max(peak, ms.HeapInuse-base)
			}
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

func TestRouter_StreamsLargeBodiesWithBoundedMemory(t *testing.T) {
	want := patternSum(streamSize)

	t.Run("upload", func(t *testing.T) {
		var received atomic.Int64
		b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
			h := sha256.New()
			n, _ := io.Copy(h, r.Body)
			received.Store(n)
			_, _ = io.WriteString(w, hex.EncodeToString(h.Sum(nil)))
		})
		h := newHarness(t, b, nil)
		req := h.request(t, validContext(http.MethodPut, "req-up"), "/upload", &patternReader{size: streamSize})
		req.ContentLength = streamSize

		stop := make(chan struct{})
		peak := heapPeak(stop)
		res, body := do(t, req)
		close(stop)

		if res.StatusCode != http.StatusOK || body != want || received.Load() != streamSize {
			t.Fatalf("got %d, %d bytes, digest %q; want 200, %d bytes, %q", res.StatusCode, received.Load(), body, streamSize, want)
		}
		p := <-peak
		t.Logf("heap growth while streaming up: %d KiB", p>>10)
		if p > heapBudget {
			t.Errorf("heap grew by %d MiB while streaming 100 MiB up, want under %d MiB", p>>20, heapBudget>>20)
		}
	})

	t.Run("download", func(t *testing.T) {
		b := newBackend(t, func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.Copy(w, &patternReader{size: streamSize}) // no Content-Length: chunked
		})
		h := newHarness(t, b, nil)
		req := h.request(t, validContext(http.MethodGet, "req-down"), "/download", nil)

		stop := make(chan struct{})
		peak := heapPeak(stop)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		digest := sha256.New()
		n, err := io.Copy(digest, res.Body)
		_ = res.Body.Close()
		close(stop)

		if err != nil || n != streamSize || hex.EncodeToString(digest.Sum(nil)) != want {
			t.Fatalf("read %d bytes (err %v), digest mismatch or short; want %d", n, err, streamSize)
		}
		p := <-peak
		t.Logf("heap growth while streaming down: %d KiB", p>>10)
		if p > heapBudget {
			t.Errorf("heap grew by %d MiB while streaming 100 MiB down, want under %d MiB", p>>20, heapBudget>>20)
		}
		lines := h.logs.accessLines(t)
		if len(lines) != 1 || lines[0]["bytes"] != float64(streamSize) {
			t.Errorf("access lines %v, want one with bytes=%s", lines, strconv.Itoa(streamSize))
		}
	})
}
