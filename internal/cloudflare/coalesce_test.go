package cloudflare

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestPace_LullFollowsTheMedianGap(t *testing.T) {
	var p pace
	start := time.Unix(0, 0)
	at := func(ms ...int) {
		for _, m := range ms {
			p.arrived(start.Add(time.Duration(m) * time.Millisecond))
		}
	}
	const least, most = 300 * time.Millisecond, 1250 * time.Millisecond
	at(0, 100, 200, 300, 400, 500, 600)
	if got := p.lull(least, most); got != least {
		t.Errorf("after 6 gaps the lull is %v, want the least (%v): too few gaps to judge", got, least)
	}
	at(700, 800, 900)
	if got := p.lull(least, most); got != 400*time.Millisecond {
		t.Errorf("gaps of 100 ms give a lull of %v, want 4 × 100 ms", got)
	}
	// A few long pauses between cohorts do not move the median; an arrival out of order (a
	// request that waited out a flush) records no gap.
	at(5000, 5100, 5200, 9000, 9100, 50)
	if got := p.lull(least, most); got != 400*time.Millisecond {
		t.Errorf("after two pauses the lull is %v, want 400 ms still", got)
	}
	at(9500, 9900, 10300, 10700, 11100, 11500, 11900, 12300, 12700, 13100, 13500)
	if got := p.lull(least, most); got != most {
		t.Errorf("gaps of 400 ms give a lull of %v, want the most (%v)", got, most)
	}
	var none pace
	none.arrived(start)
	if got := none.lull(0, most); got != 0 {
		t.Errorf("a coalescer without a lull got %v", got)
	}
}

// TestCoalescer_SlowStartsStillShareBatches: operations that start further apart than the
// least lull, one after another as Terraform starts them on a loaded machine, share batches
// once the coalescer has seen their pace; with the fixed lull each would go out alone.
func TestCoalescer_SlowStartsStillShareBatches(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	c := &coalescer[int, struct{}]{
		linger: 4 * time.Second,
		quiet:  20 * time.Millisecond,
		fits:   func([]int, int) bool { return true },
		flush: func(_ context.Context, batch []int) []outcome[struct{}] {
			mu.Lock()
			sizes = append(sizes, len(batch))
			mu.Unlock()
			return make([]outcome[struct{}], len(batch))
		},
	}
	const n, gap = 40, 50 * time.Millisecond
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.do(context.Background(), i); err != nil {
				t.Error(err)
			}
		}()
		time.Sleep(gap)
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	total := 0
	for _, s := range sizes {
		total += s
	}
	if total != n {
		t.Fatalf("batches %v hold %d requests, want %d", sizes, total, n)
	}
	// The first paceGaps/2+1 go out alone (their pace is not known yet); the 31 after them
	// 50 ms apart, with a lull of 200 ms, share a few batches.
	if len(sizes) > paceGaps/2+1+4 {
		t.Errorf("%d requests %v apart took %d batches %v, want the later ones batched", n, gap, len(sizes), sizes)
	}
}
