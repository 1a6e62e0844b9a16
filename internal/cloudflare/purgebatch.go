package cloudflare

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Cache purges have limits of their own, per account and besides the API's global one: every
// plan takes up to 100 URLs per purge call, and the smallest plan (Free) allows 5 purge calls a
// minute with a bucket of 25. The batcher keeps to the smallest plan's, which the provider cannot
// tell from the others: a plan's first 25 batches go out at once, later ones at 5 a minute.
const (
	purgeMaxURLs        = 100
	purgeBurst          = 25
	purgeCallsPerMinute = 5
	purgeLinger         = 100 * time.Millisecond
)

// PurgeBatches coalesces the cache purges of one zone made at the same time (one per changed
// host) into purge calls of up to 100 URLs, paced by the purge limits. Safe for concurrent use.
type PurgeBatches struct {
	c       *Client
	limiter *rate.Limiter

	mu    sync.Mutex
	zones map[string]*coalescer[string, struct{}]
}

// NewPurgeBatches returns the batched purges of client c.
func NewPurgeBatches(c *Client) *PurgeBatches {
	return &PurgeBatches{c: c, limiter: rate.NewLimiter(rate.Limit(purgeCallsPerMinute/60.0), purgeBurst),
		zones: map[string]*coalescer[string, struct{}]{}}
}

// Purge purges url from the zone's cache, in a purge call shared with the zone's other
// purges of the moment.
func (p *PurgeBatches) Purge(ctx context.Context, zoneID, url string) error {
	p.mu.Lock()
	z, ok := p.zones[zoneID]
	if !ok {
		z = &coalescer[string, struct{}]{
			linger: purgeLinger,
			fits:   func(batch []string, _ string) bool { return len(batch) < purgeMaxURLs },
			flush: func(ctx context.Context, urls []string) []outcome[struct{}] {
				if err := p.limiter.Wait(ctx); err != nil {
					return everyone[struct{}](len(urls), err)
				}
				return everyone[struct{}](len(urls), p.c.PurgeURLs(ctx, zoneID, dedupe(urls)))
			},
		}
		p.zones[zoneID] = z
	}
	p.mu.Unlock()
	_, err := z.do(ctx, url)
	return err
}

func dedupe(s []string) []string {
	seen := make(map[string]bool, len(s))
	out := s[:0:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
