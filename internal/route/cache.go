package route

import (
	"errors"
	"strings"
	"time"
)

// InternalHostLabel is the label, under the platform domain, of the host that internal cache
// keys live under. It is a reserved app name, so no tenant can serve it, and the Worker never
// answers it publicly.
const InternalHostLabel = "kamui-internal"

// CacheMarkerHeader carries the per-deployment private marker on content-cache entries. A cached
// response counts as a hit only with the right marker; the header is removed before any
// response leaves the Worker, and removed from origin responses too, so it cannot be forged.
const CacheMarkerHeader = "Kamui-Cache-Marker"

// RouteCacheKey is the Cache API key (a URL) under which the Worker stores the resolved route
// for host, positive or negative. The provider purges this URL when it changes the host's
// mapping or record, so most changes are visible well inside the freshness budget.
func RouteCacheKey(platformDomain, host string) string {
	return "https://" + InternalHostLabel + "." + platformDomain + "/route/v1/" + host
}

// RouteCacheHost is the host whose route-cache key (RouteCacheKey) key is; ok is false for
// any other URL.
func RouteCacheHost(platformDomain, key string) (host string, ok bool) {
	host, ok = strings.CutPrefix(key, RouteCacheKey(platformDomain, ""))
	return host, ok && host != ""
}

// KV's edge cache refuses a cacheTtl under 30 s.
const MinKVCacheTTL = 30 * time.Second

// Bounds of the freshness budget: the worst-case time from a KV write to every edge serving it.
const (
	MinFreshnessBudget     = 45 * time.Second
	MaxFreshnessBudget     = time.Hour
	DefaultFreshnessBudget = 120 * time.Second
)

// TTLs are the cache lifetimes derived from one freshness budget.
//
// A positive route is stale at worst for Memo + the longer KV cacheTtl + RouteCache: the route
// cache entry may be filled from a KV edge copy that is already that old, and an isolate's memo
// may hold it a little longer. A newly created host is invisible at worst for Memo + the KV
// cacheTtl of the absent key + Negative, and Negative ≤ RouteCache. Both sums are ≤ the budget.
type TTLs struct {
	Budget     time.Duration
	Memo       time.Duration // in-isolate memo of a resolved route
	DomainsKV  time.Duration // cacheTtl of DOMAINS reads: mappings change rarely
	RoutesKV   time.Duration // cacheTtl of ROUTES reads: records change on every move
	RouteCache time.Duration // Cache API entry holding the resolved route
	Negative   time.Duration // Cache API entry for a confirmed absence
	FilterKV   time.Duration // cacheTtl of the name filter's reads
	FilterHold time.Duration // how long an isolate holds the filter it read
}

// DeriveTTLs splits budget into the cache lifetimes. It fails for a budget outside
// [MinFreshnessBudget, MaxFreshnessBudget], the one check the provider runs at plan time.
func DeriveTTLs(budget time.Duration) (TTLs, error) {
	if budget < MinFreshnessBudget || budget > MaxFreshnessBudget {
		// No fmt: this package is compiled into the Worker's Wasm, where fmt costs bytes.
		return TTLs{}, errors.New("freshness budget " + budget.String() + " is outside " +
			MinFreshnessBudget.String() + ".." + MaxFreshnessBudget.String() +
			": the KV edge cache alone holds values for at least " + MinKVCacheTTL.String())
	}
	t := TTLs{Budget: budget}
	t.Memo = clamp(budget/30, time.Second, 10*time.Second)
	t.DomainsKV = max(MinKVCacheTTL, (budget * 2 / 5).Truncate(time.Second))
	t.RoutesKV = max(MinKVCacheTTL, (budget * 3 / 10).Truncate(time.Second))
	t.RouteCache = budget - t.Memo - max(t.DomainsKV, t.RoutesKV)
	t.Negative = min(t.RouteCache, clamp(budget/10, 5*time.Second, time.Minute))
	// The filter is the one large value (a megabyte per million names) every isolate reads, so
	// it is held as long as the budget allows once its KV copy is counted: one read per isolate
	// every FilterHold, 84 s at the default budget.
	t.FilterKV = max(MinKVCacheTTL, (budget * 3 / 10).Truncate(time.Second))
	t.FilterHold = budget - t.FilterKV
	return t, nil
}

// WorstCase is the longest a change can take to be visible everywhere under these TTLs.
func (t TTLs) WorstCase() time.Duration {
	positive := t.Memo + max(t.DomainsKV, t.RoutesKV) + t.RouteCache
	negative := t.Memo + max(t.DomainsKV, t.RoutesKV) + t.Negative
	filter := t.FilterKV + t.FilterHold
	return max(positive, negative, filter)
}

func clamp(d, lo, hi time.Duration) time.Duration {
	return min(max(d, lo), hi)
}
