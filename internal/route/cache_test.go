package route

import (
	"testing"
	"time"
)

func TestRouteCacheKey(t *testing.T) {
	got := RouteCacheKey("kamui.app", "www.shop.example")
	if got != "https://kamui-internal.kamui.app/route/v1/www.shop.example" {
		t.Errorf("RouteCacheKey = %q", got)
	}
	if app, isPlatform := PlatformApp("kamui-internal.kamui.app", "kamui.app"); app != "" || !isPlatform {
		t.Errorf("the internal cache host must never resolve to an app, got %q", app)
	}
}

func TestDeriveTTLsFitTheBudget(t *testing.T) {
	for _, budget := range []time.Duration{
		MinFreshnessBudget, 60 * time.Second, DefaultFreshnessBudget, 5 * time.Minute, 17*time.Minute + 3*time.Second, MaxFreshnessBudget,
	} {
		ttl, err := DeriveTTLs(budget)
		if err != nil {
			t.Fatalf("DeriveTTLs(%s): %v", budget, err)
		}
		if ttl.WorstCase() > budget {
			t.Errorf("DeriveTTLs(%s): worst case %s exceeds the budget (%+v)", budget, ttl.WorstCase(), ttl)
		}
		if ttl.DomainsKV < MinKVCacheTTL || ttl.RoutesKV < MinKVCacheTTL {
			t.Errorf("DeriveTTLs(%s): KV cacheTtl under KV's minimum (%+v)", budget, ttl)
		}
		if ttl.FilterKV < MinKVCacheTTL || ttl.FilterHold <= 0 || ttl.FilterKV+ttl.FilterHold > budget {
			t.Errorf("DeriveTTLs(%s): the filter's share does not fit (%+v)", budget, ttl)
		}
		if ttl.RouteCache <= 0 || ttl.Negative <= 0 || ttl.Memo <= 0 {
			t.Errorf("DeriveTTLs(%s): non-positive TTL (%+v)", budget, ttl)
		}
		if ttl.Negative > ttl.RouteCache {
			t.Errorf("DeriveTTLs(%s): negative cache outlives the route cache (%+v)", budget, ttl)
		}
		if ttl.DomainsKV < ttl.RoutesKV {
			t.Errorf("DeriveTTLs(%s): domain mappings change less often and should be cached longer (%+v)", budget, ttl)
		}
	}
}

func TestDeriveTTLsReference(t *testing.T) {
	ttl, err := DeriveTTLs(120 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := TTLs{
		Budget:     120 * time.Second,
		Memo:       4 * time.Second,
		DomainsKV:  48 * time.Second,
		RoutesKV:   36 * time.Second,
		RouteCache: 68 * time.Second,
		Negative:   12 * time.Second,
		FilterKV:   36 * time.Second,
		FilterHold: 84 * time.Second,
	}
	if ttl != want {
		t.Errorf("DeriveTTLs(120s) = %+v; want %+v", ttl, want)
	}
}

func TestDeriveTTLsRejectsOutOfRange(t *testing.T) {
	for _, budget := range []time.Duration{0, 30 * time.Second, MinFreshnessBudget - time.Second, MaxFreshnessBudget + time.Second} {
		if _, err := DeriveTTLs(budget); err == nil {
			t.Errorf("DeriveTTLs(%s) accepted", budget)
		}
	}
}

func TestRouteCacheHost(t *testing.T) {
	for _, host := range []string{"www.shop.example", "shop.kamui.app"} {
		if got, ok := RouteCacheHost("kamui.app", RouteCacheKey("kamui.app", host)); !ok || got != host {
			t.Errorf("RouteCacheHost(RouteCacheKey(%q)) = %q, %v", host, got, ok)
		}
	}
	for _, key := range []string{
		RouteCacheKey("kamui.app", ""),
		RouteCacheKey("other.app", "www.shop.example"),
		"https://www.shop.example/",
		"",
	} {
		if got, ok := RouteCacheHost("kamui.app", key); ok {
			t.Errorf("RouteCacheHost(%q) = %q, want not a route-cache key", key, got)
		}
	}
}
