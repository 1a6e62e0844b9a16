package cfapi

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CloudflareRateLimit is Cloudflare's documented global API rate limit: 1,200 requests per
// five minutes per user.
var CloudflareRateLimit = RateLimit{Requests: 1200, Window: 5 * time.Minute}

// RateLimit is the global API rate limit the server enforces, as Cloudflare does per user:
// at most Requests per Window; the request that exceeds it, and every request for one Window
// after it, is answered 429 with Retry-After (seconds until the block ends, rounded up) and
// Cloudflare's error envelope.
//
// The window is fixed, opened by the first request after the previous window (or block)
// ended, and counts the requests it admits; blocked requests neither count nor extend the
// block. Every authenticated API response carries Cloudflare's headers while a limit is set:
//
//	Ratelimit: "default";r=<requests left in the window>;t=<seconds until it resets>
//	Ratelimit-Policy: "default";q=<Requests>;w=<Window in seconds>
//
// (t rounded up; while blocked r=0 and t is the time left of the block). The zero value
// enforces nothing and sends no headers.
type RateLimit struct {
	Requests int
	Window   time.Duration
}

// Enabled reports whether the limit is enforced.
func (l RateLimit) Enabled() bool { return l.Requests > 0 }

// String is the limit as ParseRateLimit reads it ("1200/5m0s"), or "off".
func (l RateLimit) String() string {
	if !l.Enabled() {
		return "off"
	}
	return fmt.Sprintf("%d/%s", l.Requests, l.Window)
}

func (l RateLimit) validate() error {
	if l.Requests < 0 {
		return fmt.Errorf("rate limit: requests must not be negative, got %d", l.Requests)
	}
	if l.Enabled() && (l.Window < time.Second || l.Window%time.Second != 0) {
		return fmt.Errorf("rate limit: the window must be a whole number of seconds, at least 1s, got %s", l.Window)
	}
	return nil
}

// ParseRateLimit reads "N/DURATION" (e.g. "1200/5m", Cloudflare's limit) or "off".
func ParseRateLimit(s string) (RateLimit, error) {
	if s == "" || s == "off" {
		return RateLimit{}, nil
	}
	n, d, ok := strings.Cut(s, "/")
	if !ok {
		return RateLimit{}, fmt.Errorf("rate limit %q: want REQUESTS/DURATION, e.g. 1200/5m", s)
	}
	requests, err := strconv.Atoi(n)
	if err != nil || requests < 1 {
		return RateLimit{}, fmt.Errorf("rate limit %q: requests must be a positive integer", s)
	}
	window, err := time.ParseDuration(d)
	if err != nil {
		return RateLimit{}, fmt.Errorf("rate limit %q: %w", s, err)
	}
	l := RateLimit{Requests: requests, Window: window}
	if err := l.validate(); err != nil {
		return RateLimit{}, err
	}
	return l, nil
}

// rateLimiter enforces a RateLimit with an injected clock.
type rateLimiter struct {
	limit RateLimit
	now   func() time.Time

	mu           sync.Mutex
	windowEnd    time.Time // zero: no window open
	used         int
	blockedUntil time.Time
}

func newRateLimiter(limit RateLimit, now func() time.Time) *rateLimiter {
	return &rateLimiter{limit: limit, now: now}
}

// take admits or refuses one request; remaining is what the window has left after it and
// reset the time until the window resets (or, refused, until the block ends).
func (l *rateLimiter) take() (ok bool, remaining int, reset time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Before(l.blockedUntil) {
		return false, 0, l.blockedUntil.Sub(now)
	}
	if l.windowEnd.IsZero() || !now.Before(l.windowEnd) {
		l.windowEnd, l.used = now.Add(l.limit.Window), 0
	}
	if l.used >= l.limit.Requests {
		l.blockedUntil, l.windowEnd, l.used = now.Add(l.limit.Window), time.Time{}, 0
		return false, 0, l.limit.Window
	}
	l.used++
	return true, l.limit.Requests - l.used, l.windowEnd.Sub(now)
}

// admit applies the limit to one authenticated API request: it sets the rate-limit headers
// and, when the request is refused, answers 429. It reports whether the request may go on.
func (l *rateLimiter) admit(w http.ResponseWriter) bool {
	if l == nil || !l.limit.Enabled() {
		return true
	}
	ok, remaining, reset := l.take()
	seconds := ceilSeconds(reset)
	h := w.Header()
	h.Set("Ratelimit", fmt.Sprintf(`"default";r=%d;t=%d`, remaining, seconds))
	h.Set("Ratelimit-Policy", fmt.Sprintf(`"default";q=%d;w=%d`, l.limit.Requests, int(l.limit.Window/time.Second)))
	if ok {
		return true
	}
	h.Set("Retry-After", strconv.Itoa(seconds))
	writeError(w, &apiError{Status: http.StatusTooManyRequests, Code: codeRateLimited,
		Message: fmt.Sprintf("Please wait and consider throttling your request speed: the limit of %d requests per %s was exceeded, and every API call is refused for %s after that",
			l.limit.Requests, l.limit.Window, l.limit.Window)})
	return false
}

// ceilSeconds rounds up to whole seconds, at least 1 (a client told 0 would retry at once).
func ceilSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
