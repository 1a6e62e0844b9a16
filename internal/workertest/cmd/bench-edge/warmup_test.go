package main

import (
	"strings"
	"testing"
)

// The mixed warm-up reaches no host of the measured trace (whose caches must start as cold as
// the floors assume) and only hosts the fixture seeded: every app it names has a record, every
// custom host a mapping, as in the measured trace. Its mix is the trace's.
func TestMixedWarmUpIsDisjointAndSeeded(t *testing.T) {
	const apps = 500
	defer func(m string) { mix = m }(mix)
	mix = "default"
	fx := makeFixture(apps, true)
	measured := makeTrace(3000, 40, apps, 1, 0)[50:]
	warm := makeTrace(600, 40, apps, 3, warmUpApps(apps))[50:]

	hosts := map[string]bool{}
	for _, q := range measured {
		hosts[q.host] = true
	}
	kinds := map[string]int{}
	for _, q := range warm {
		if hosts[q.host] {
			t.Fatalf("the warm-up reaches %s, a host of the measured trace", q.host)
		}
		kind, _, _ := strings.Cut(q.kind, "/")
		kinds[kind]++
		switch {
		case strings.HasPrefix(kind, "unknown"):
			if _, ok := fx.kv["DOMAINS"][q.host]; ok {
				t.Fatalf("unknown host %s has a mapping", q.host)
			}
		case strings.HasSuffix(q.host, "."+platform):
			if _, ok := fx.kv["ROUTES"][strings.TrimSuffix(q.host, "."+platform)]; !ok {
				t.Fatalf("warm-up host %s has no route record", q.host)
			}
		default:
			if _, ok := fx.kv["DOMAINS"][q.host]; !ok {
				t.Fatalf("warm-up custom host %s has no mapping", q.host)
			}
		}
	}
	for _, kind := range []string{"static-get", "static-head", "dynamic", "unknown-label", "unknown-unmapped"} {
		if kinds[kind] == 0 {
			t.Errorf("the warm-up has no %s request (kinds %v)", kind, kinds)
		}
	}
	// Without the mixed warm-up the fixture is what every run before it seeded: the trace's
	// apps and the first warm-up's, so that the name filters, and the flood's bound, are too.
	if plain := makeFixture(apps, false); len(plain.kv["ROUTES"]) != apps+1 {
		t.Errorf("without the mixed warm-up the fixture seeds %d records, want %d", len(plain.kv["ROUTES"]), apps+1)
	}
	if w := warmUpApps(apps); w%6 != 0 || w <= apps {
		t.Errorf("warmUpApps(%d) = %d: not past the trace's apps and the warm-up app, or not a multiple of 6", apps, w)
	}
}
