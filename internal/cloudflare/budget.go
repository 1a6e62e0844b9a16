package cloudflare

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// The API's budget (1,200 requests per five minutes) is per user, not per process: dev, prod
// and CI runs with one token share it, and once it is exceeded every call is refused for
// minutes. This process's own limiter cannot see the others, so the server's word counts too:
// every answer carries `Ratelimit: "default";r=<remaining>;t=<seconds to reset>`, and a refusal
// `Retry-After`. sharedBudget holds every request of the process (not only the one refused)
// until the server says there is room again.
type sharedBudget struct {
	// reserve is the remaining quota at which new requests wait for the reset: room for the
	// requests already in flight, and for the other users of the token.
	reserve int
	// refusalPause is the pause after a 429 without Retry-After.
	refusalPause time.Duration
	now          func() time.Time

	mu    sync.Mutex
	until time.Time
}

func newSharedBudget(now func() time.Time) *sharedBudget {
	return &sharedBudget{reserve: 10, refusalPause: time.Minute, now: now}
}

// wait blocks until the budget is open, or ctx ends.
func (b *sharedBudget) wait(ctx context.Context) error {
	b.mu.Lock()
	d := b.until.Sub(b.now())
	b.mu.Unlock()
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// observe reads what an answer says of the budget.
func (b *sharedBudget) observe(ctx context.Context, resp *http.Response) {
	var pause time.Duration
	var why string
	if resp.StatusCode == http.StatusTooManyRequests {
		pause, why = b.refusalPause, "the API refused a request for the rate limit"
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), b.now()); ok {
			pause = d
		}
	} else if remaining, reset, ok := parseRatelimit(resp.Header.Get("Ratelimit")); ok && remaining <= b.reserve {
		pause, why = reset, "the API's budget for this token is nearly spent (remaining "+strconv.Itoa(remaining)+")"
	}
	if pause <= 0 {
		return
	}
	until := b.now().Add(pause)
	b.mu.Lock()
	longer := until.After(b.until)
	if longer {
		b.until = until
	}
	b.mu.Unlock()
	if longer {
		tflog.Info(ctx, "Pausing every Cloudflare API call until the budget resets", map[string]any{
			"reason": why, "pause": pause.Round(time.Second).String()})
	}
}

// parseRatelimit reads the "default" item of a Ratelimit header (the IETF draft's structured
// list: `"default";r=50;t=30`): the remaining quota and the time to its reset.
func parseRatelimit(v string) (remaining int, reset time.Duration, ok bool) {
	for _, item := range strings.Split(v, ",") {
		params := strings.Split(strings.TrimSpace(item), ";")
		if len(params) == 0 || strings.Trim(strings.TrimSpace(params[0]), `"`) != "default" {
			continue
		}
		r, t := -1, -1
		for _, p := range params[1:] {
			k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
			n, err := strconv.Atoi(strings.TrimSpace(val))
			if err != nil || n < 0 {
				continue
			}
			switch strings.TrimSpace(k) {
			case "r":
				r = n
			case "t":
				t = n
			}
		}
		if r >= 0 && t >= 0 {
			return r, seconds(float64(t)), true
		}
	}
	return 0, 0, false
}
