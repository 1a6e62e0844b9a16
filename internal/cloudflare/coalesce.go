package cloudflare

import (
	"context"
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
}

type outcome[R any] struct {
	val R
	err error
}

type pending[T, R any] struct {
	ctx  context.Context
	item T
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
	p := pending[T, R]{ctx: ctx, item: item, done: make(chan outcome[R], 1)}
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
			batch = append(batch, <-c.in)
		}
		items := []T{batch[0].item}
		timer := time.NewTimer(c.linger)
		var lull <-chan time.Time
		if c.quiet > 0 {
			lull = time.After(c.quiet)
		}
	gather:
		for {
			select {
			case p := <-c.in:
				if !c.fits(items, p.item) {
					carry = &p
					break gather
				}
				batch, items = append(batch, p), append(items, p.item)
				if c.quiet > 0 {
					lull = time.After(c.quiet)
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
