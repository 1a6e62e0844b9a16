package edge

import (
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

func probe(host, rev string) *Request {
	r := get(host, route.ProbePath)
	r.Header = append(r.Header, Field{route.ExpectRevHeader, rev})
	return r
}

// TestPropagationProbe: the probe resolves like a real request (KV, then the memo and the
// route cache), answers only match or not, never forwards and never serves content.
func TestPropagationProbe(t *testing.T) {
	w := newWorld(t)
	_, shop, _ := route.EncodeRecord(dynamicRecord("shop"))
	_, www, _ := route.EncodeDomainMapping(route.DomainMapping{App: "shop", Status: route.StatusActive})
	_, off, _ := route.EncodeDomainMapping(route.DomainMapping{App: "shop", Status: route.StatusDisabled})
	for _, tc := range []struct {
		name, host, rev, want string
	}{
		{"platform host, current record", "shop.kamui.test", shop.Rev, route.RevMatchRecord},
		{"platform host, other revision", "shop.kamui.test", "000000000000000000000000", route.RevMatchNone},
		{"custom host, its mapping", "www.shop.example", www.Rev, route.RevMatchMapping},
		{"custom host, the app's record", "www.shop.example", shop.Rev, route.RevMatchRecord},
		{"custom host, disabled mapping", "www.off.example", off.Rev, route.RevMatchMapping},
		{"unknown host", "nobody.kamui.test", shop.Rev, route.RevMatchNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := w.serve(w.h, probe(tc.host, tc.rev))
			p := ex.Plan
			if p.Forward != nil || p.Status != 204 || p.Body != nil || p.Store != nil {
				t.Fatalf("probe answered %+v, want a bodyless 204 the Worker makes itself", p)
			}
			if got := p.Header.Get(route.RevMatchHeader); got != tc.want {
				t.Fatalf("%s = %q, want %q", route.RevMatchHeader, got, tc.want)
			}
			if p.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control = %q", p.Header.Get("Cache-Control"))
			}
		})
	}

	// A second probe answers from the memo (no KV read) and still matches; a fresh isolate
	// answers from the route cache, which keeps the mapping's revision.
	reads := w.kvReads()
	if got := w.serve(w.h, probe("www.shop.example", www.Rev)).Plan.Header.Get(route.RevMatchHeader); got != route.RevMatchMapping || w.kvReads() != reads {
		t.Fatalf("memo probe: %q with %d more KV reads", got, w.kvReads()-reads)
	}
	if got := w.serve(w.handler(t), probe("www.shop.example", www.Rev)).Plan.Header.Get(route.RevMatchHeader); got != route.RevMatchMapping || w.kvReads() != reads {
		t.Fatalf("route-cache probe: %q with %d more KV reads", got, w.kvReads()-reads)
	}

	// Without the expected revision the path is an ordinary request, forwarded to the app.
	if p := w.serve(w.h, get("shop.kamui.test", route.ProbePath)).Plan; p.Forward == nil {
		t.Fatalf("a plain GET of the probe path was not forwarded: %+v", p)
	}
}
