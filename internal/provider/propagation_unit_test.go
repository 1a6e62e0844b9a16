package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// fakeEdge answers the probe as the Worker does: "none" for the first stale probes, then the
// given match; GET / answers status. It records the Host of every request.
func fakeEdge(t *testing.T, stale int32, match string, status int) (*httptest.Server, *[]string) {
	t.Helper()
	return fakeEdgeAnswering(t, route.RevMatchNone, stale, match, status)
}

// fakeEdgeAnswering is fakeEdge with the answer to the first stale probes given.
func fakeEdgeAnswering(t *testing.T, staleMatch string, stale int32, match string, status int) (*httptest.Server, *[]string) {
	t.Helper()
	var probes atomic.Int32
	var hosts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hosts = append(hosts, r.Host)
		if r.URL.Path == route.ProbePath {
			if _, err := route.VerifyProbe(r.Header, r.Host, testProbeKey, time.Now(), 0); err != nil {
				t.Errorf("a probe the Worker would refuse: %v", err)
			}
			if match != "" {
				m := staleMatch
				if probes.Add(1) > stale {
					m = match
				}
				w.Header().Set(route.RevMatchHeader, m)
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, &hosts
}

// testProbeKey signs the probes the fake edge checks.
var testProbeKey = route.ProbeKey([]byte("unit-test-signing-secret-0123456789"))

func TestPropagationProbe_WaitsThenProvesTheRoute(t *testing.T) {
	srv, hosts := fakeEdge(t, 2, route.RevMatchRecord, 200)
	p := propagationProbe{EdgeURL: srv.URL, Key: testProbeKey, Interval: time.Millisecond}
	if diags := p.wait(context.Background(), "shop.kamui.test", "abc", true, time.Minute); diags.HasError() {
		t.Fatalf("diagnostics: %v", diags)
	}
	if len(*hosts) != 4 { // three probes, then the real request
		t.Fatalf("requests: %v, want 3 probes and one GET", *hosts)
	}
	for _, h := range *hosts {
		if h != "shop.kamui.test" {
			t.Fatalf("a request carried Host %q", h)
		}
	}
}

func TestPropagationProbe_Failures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		match  string
		status int
		active bool
		want   string
	}{
		{"never propagates", route.RevMatchNone, 200, true, "Route Did Not Propagate"},
		{"a Worker that refuses the probe", "", 200, true, "derived from the deployed Worker's current signing secret"},
		{"the app is unreachable", route.RevMatchRecord, 502, true, "answered HTTP 502"},
		{"a disabled app answers", route.RevMatchMapping, 200, false, "should answer 503"},
		{"a mapping to an app with no record", route.RevMatchMappingNoRecord, 404, true,
			"the app it names has no route record there, so visitors get 404. Check the domain's app"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := fakeEdge(t, 0, tc.match, tc.status)
			p := propagationProbe{EdgeURL: srv.URL, Key: testProbeKey, Interval: time.Millisecond}
			diags := p.wait(context.Background(), "shop.kamui.test", "abc", tc.active, time.Second)
			if !diags.HasError() || !strings.Contains(diags[0].Detail()+diags[0].Summary(), tc.want) {
				t.Fatalf("diagnostics %v, want one saying %q", diags, tc.want)
			}
		})
	}
	// A disabled app whose edge answers 503 is what was asked for.
	srv, _ := fakeEdge(t, 0, route.RevMatchRecord, 503)
	p := propagationProbe{EdgeURL: srv.URL, Key: testProbeKey, Interval: time.Millisecond}
	if diags := p.wait(context.Background(), "shop.kamui.test", "abc", false, time.Minute); diags.HasError() {
		t.Fatalf("disabled app answering 503: %v", diags)
	}
}

// TestPropagationProbe_MappingWaitsForItsApp: a domain's mapping seen before its app's record
// is not yet a match (visitors still get 404); the wait goes on, and passes once the edge has
// the record too.
func TestPropagationProbe_MappingWaitsForItsApp(t *testing.T) {
	srv, hosts := fakeEdgeAnswering(t, route.RevMatchMappingNoRecord, 3, route.RevMatchMapping, 200)
	p := propagationProbe{EdgeURL: srv.URL, Key: testProbeKey, Interval: time.Millisecond}
	if diags := p.wait(context.Background(), "www.shop.example", "abc", true, time.Minute); diags.HasError() {
		t.Fatalf("diagnostics: %v", diags)
	}
	if len(*hosts) != 5 { // three probes answered mapping-no-record, one mapping, then the real request
		t.Fatalf("requests: %v, want 4 probes and one GET", *hosts)
	}
}

func TestIsEdgeURL(t *testing.T) {
	for s, want := range map[string]bool{
		"http://127.0.0.1:8788": true, "https://edge.example/": true,
		"ftp://x": false, "http://user:pw@x": false, "http://x/path": false, "http://x?q=1": false, "127.0.0.1:8788": false,
	} {
		if got := isEdgeURL(s); got != want {
			t.Errorf("isEdgeURL(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestPropagationProbe_FinalRequestHasItsOwnTime: the wait bounds the probes. A route that
// propagates just before the wait runs out still gets its request through the new route, with
// the client's own timeout, instead of a "request failed: context deadline exceeded" that blames
// a working route.
func TestPropagationProbe_FinalRequestHasItsOwnTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == route.ProbePath {
			time.Sleep(400 * time.Millisecond) // the answer comes just before the wait ends
			w.Header().Set(route.RevMatchHeader, route.RevMatchRecord)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		time.Sleep(200 * time.Millisecond) // the app takes a moment, well within the client's timeout
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	p := propagationProbe{EdgeURL: srv.URL, Key: testProbeKey, Interval: time.Millisecond}
	if diags := p.wait(context.Background(), "shop.kamui.test", "abc", true, 500*time.Millisecond); diags.HasError() {
		t.Fatalf("the route propagated within the wait and its app answers 200, but: %v", diags)
	}
}
