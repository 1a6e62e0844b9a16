package router

import (
	"context"
	"log/slog"
	"math"
	"sync/atomic"
	"time"
)

// maxLoggedPath and maxLoggedMethod bound what a client can put into one log line.
const (
	maxLoggedPath   = 2048
	maxLoggedMethod = 64
)

// logAccess writes the request's one access-log line. Only the path is logged, never the query
// (it may carry tokens), and no header values at all (cookies, Authorization). Context fields
// appear only once verified, so a forged request cannot write its own app name into the log;
// signing_key says which key verified the context ("current" or "next", never the key), so an
// operator rotating the secret sees when the Worker has switched.
func (rt *Router) logAccess(ex *exchange, status int, outcome Outcome, bytes int64, d time.Duration) {
	failed := outcome != OutcomeProxied || status >= 500
	if !failed && rt.sampleSuccess != nil && !rt.sampleSuccess() {
		return
	}
	level := slog.LevelInfo
	if outcome != OutcomeProxied {
		level = slog.LevelWarn
	}
	attrs := make([]slog.Attr, 0, 13)
	if c := ex.ctx; c.RequestID != "" {
		attrs = append(attrs,
			slog.String("request_id", c.RequestID),
			slog.String("host", c.Host),
			slog.String("app", c.App),
			slog.String("upstream", c.Upstream),
			slog.String("signing_key", ex.signingKey))
	}
	attrs = append(attrs,
		// Cut here only: the signature is checked against the whole method.
		slog.String("method", ex.method[:min(len(ex.method), maxLoggedMethod)]),
		slog.String("path", ex.path),
		slog.Int("status", status),
		slog.Int64("bytes", bytes),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
		slog.String("outcome", outcome.String()))
	if ex.reason != nil {
		attrs = append(attrs, slog.String("reason", ex.reason.Error()))
	}
	rt.logger.LogAttrs(context.Background(), level, "access", attrs...)
}

// SampleRate returns a SampleSuccess hook that keeps the given fraction of success lines
// (clamped to [0, 1]). It is deterministic rather than random: with rate 0.25 exactly one line in
// every four is kept, so log volume is predictable and tests are exact.
func SampleRate(rate float64) func() bool {
	switch {
	case rate >= 1:
		return func() bool { return true }
	case !(rate > 0): // also NaN
		return func() bool { return false }
	}
	var n atomic.Uint64
	return func() bool {
		i := float64(n.Add(1))
		return math.Floor(i*rate) != math.Floor((i-1)*rate)
	}
}
