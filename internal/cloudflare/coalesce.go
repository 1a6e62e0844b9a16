package cloudflare

import (
	"context"
	"slices"
	"sync"
	"time"
)

// coalescer serves requests that many resources make at about the same time with as few API
// calls as it can. Terraform runs up to -parallelism operations at once, and each of them asks
// for one key, one write or one purge; a coalescer gathers what arrives within linger of the
// first request into one batch and hands the batch to flush. One flush runs at a time: while it
// is in flight the next batch fills, so batches grow with the load instead of with the linger.
//
// Each caller gets its own outcome, so a bulk call that half fails is reported on exactly the
// requests that failed.
type coalescer[T, R any] struct {
	// linger is the longest a batch stays open after its first request.
	linger time.Duration
	// quiet closes a batch early when no request joined it for that long: a pause longer than
	// the gap between two operations Terraform starts means nothing more is coming. Zero: none.
	// It is the least lull: when requests arrive further apart than that (a loaded machine
	// stretches Terraform's gaps, a poll round spreads the waiters it wakes), the lull follows
	// their pace (see pace) up to a quarter of linger.
	quiet time.Duration
	// fits reports whether next may join batch; when it may not (the batch is full, or next
	// conflicts with a request in it), the batch is sent and next opens the following one.
	fits func(batch []T, next T) bool
	// flush serves one batch and returns one outcome per request, in order. Its context carries
	// the first request's values (its logger) but none of the callers' cancellations: the batch
	// is shared, and one caller giving up must not fail the others.
	flush func(ctx context.Context, batch []T) []outcome[R]

	start sync.Once
	in    chan pending[T, R]
	pace  pace // read and written by loop alone
}

type outcome[R any] struct {
	val R
	err error
}

type pending[T, R any] struct {
	ctx  context.Context
	item T
	at   time.Time // when do was called: a request waiting out a flush arrived before loop takes it
	done chan outcome[R]
}

// do submits item and waits for its outcome. A caller whose context ends first gets the
// context's error; its request may still be sent with the batch it joined.
func (c *coalescer[T, R]) do(ctx context.Context, item T) (R, error) {
	var zero R
	c.start.Do(func() {
		c.in = make(chan pending[T, R])
		go c.loop()
	})
	p := pending[T, R]{ctx: ctx, item: item, at: time.Now(), done: make(chan outcome[R], 1)}
	select {
	case c.in <- p:
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	select {
	case o := <-p.done:
		return o.val, o.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// loop gathers and flushes batches for as long as the process runs (a provider process lives
// for one Terraform command).
func (c *coalescer[T, R]) loop() {
	var carry *pending[T, R]
	for {
		var batch []pending[T, R]
		if carry != nil {
			batch, carry = append(batch, *carry), nil
		} else {
			p := <-c.in
			c.pace.arrived(p.at)
			batch = append(batch, p)
		}
		items := []T{batch[0].item}
		timer := time.NewTimer(c.linger)
		var lull <-chan time.Time
		quiet := c.pace.lull(c.quiet, c.linger/4)
		if quiet > 0 {
			lull = time.After(quiet)
		}
	gather:
		for {
			select {
			case p := <-c.in:
				c.pace.arrived(p.at)
				if !c.fits(items, p.item) {
					carry = &p
					break gather
				}
				batch, items = append(batch, p), append(items, p.item)
				if quiet > 0 {
					lull = time.After(quiet)
				}
			case <-timer.C:
				break gather
			case <-lull:
				break gather
			}
		}
		timer.Stop()
		outs := c.flush(context.WithoutCancel(batch[0].ctx), items)
		for i, p := range batch {
			p.done <- outs[i]
		}
	}
}

// everyone gives every request of a batch the same outcome (a call that failed as a whole).
func everyone[R any](n int, err error) []outcome[R] {
	outs := make([]outcome[R], n)
	for i := range outs {
		outs[i].err = err
	}
	return outs
}

// pace follows how far apart requests arrive: the median of the last paceGaps gaps between
// consecutive arrivals. Terraform hands out its operations a few tens a second on a quiet
// machine, but a loaded one (a CI runner) stretches the gaps past a fixed lull, and then every
// request goes out alone; a lull of paceFactor median gaps keeps the batches whole at any pace.
// The median, not the mean: the long pauses between cohorts (a flush, a poll interval) are few
// and must not lengthen the lull.
type pace struct {
	last time.Time
	gaps [paceGaps]time.Duration
	n    int // gaps recorded, up to paceGaps; the next goes to gaps[next]
	next int
}

const (
	paceGaps   = 16
	paceFactor = 4
)

func (p *pace) arrived(at time.Time) {
	if !p.last.IsZero() && at.After(p.last) {
		p.gaps[p.next] = at.Sub(p.last)
		p.next = (p.next + 1) % paceGaps
		p.n = min(p.n+1, paceGaps)
	}
	if at.After(p.last) {
		p.last = at
	}
}

// lull is the pause that closes a batch: paceFactor median gaps, at least least (zero: no
// lull at all) and at most most. Until half the gaps are known it is least.
func (p *pace) lull(least, most time.Duration) time.Duration {
	if least <= 0 || p.n < paceGaps/2 {
		return least
	}
	gaps := slices.Clone(p.gaps[:p.n])
	slices.Sort(gaps)
	return min(max(least, paceFactor*gaps[len(gaps)/2]), max(least, most))
}
