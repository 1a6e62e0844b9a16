package edge

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// probe is a probe of host for rev as the provider sends it: signed under the probe key
// derived from the Worker's signing secret, at the world's time.
func (w *world) probe(host, rev string) *Request {
	return w.probeSigned(host, host, rev, route.ProbeKey([]byte(testSecret)), w.clock.Now())
}

// probeSigned sends a probe to host that was signed for signedHost under key at t.
func (w *world) probeSigned(host, signedHost, rev string, key []byte, t time.Time) *Request {
	r := get(host, route.ProbePath)
	route.Probe{Host: signedHost, ExpectRev: rev, Time: t}.SetHeaders(&r.Header, key)
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
			ex := w.serve(w.h, w.probe(tc.host, tc.rev))
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
	if got := w.serve(w.h, w.probe("www.shop.example", www.Rev)).Plan.Header.Get(route.RevMatchHeader); got != route.RevMatchMapping || w.kvReads() != reads {
		t.Fatalf("memo probe: %q with %d more KV reads", got, w.kvReads()-reads)
	}
	if got := w.serve(w.handler(t), w.probe("www.shop.example", www.Rev)).Plan.Header.Get(route.RevMatchHeader); got != route.RevMatchMapping || w.kvReads() != reads {
		t.Fatalf("route-cache probe: %q with %d more KV reads", got, w.kvReads()-reads)
	}

	// Without the expected revision the path is an ordinary request, forwarded to the app.
	if p := w.serve(w.h, get("shop.kamui.test", route.ProbePath)).Plan; p.Forward == nil {
		t.Fatalf("a plain GET of the probe path was not forwarded: %+v", p)
	}
}

// TestProbeOnlyAnswersSignedProbes: an unsigned, forged, stale, future, wrongly keyed or
// other host's probe is an ordinary request of the probe URL, answered exactly as one, so that
// guessing revisions offline and asking the edge learns nothing.
func TestProbeOnlyAnswersSignedProbes(t *testing.T) {
	w := newWorld(t)
	_, shop, _ := route.EncodeRecord(dynamicRecord("shop"))
	now := w.clock.Now()
	key := route.ProbeKey([]byte(testSecret))
	unsigned := func(host, rev string) *Request {
		r := get(host, route.ProbePath)
		r.Header = append(r.Header, Field{route.ExpectRevHeader, rev})
		return r
	}
	forged := w.probe("shop.kamui.test", shop.Rev)
	forged.Header.Set(route.ProbeSignatureHeader, "v1="+strings.Repeat("ab", 32))
	for name, req := range map[string]*Request{
		"unsigned":                  unsigned("shop.kamui.test", shop.Rev),
		"forged signature":          forged,
		"stale":                     w.probeSigned("shop.kamui.test", "shop.kamui.test", shop.Rev, key, now.Add(-time.Minute)),
		"from the future":           w.probeSigned("shop.kamui.test", "shop.kamui.test", shop.Rev, key, now.Add(time.Minute)),
		"signed for another host":   w.probeSigned("shop.kamui.test", "www.shop.example", shop.Rev, key, now),
		"signed with the secret":    w.probeSigned("shop.kamui.test", "shop.kamui.test", shop.Rev, []byte(testSecret), now),
		"another environment's key": w.probeSigned("shop.kamui.test", "shop.kamui.test", shop.Rev, route.ProbeKey([]byte("another-signing-secret-0123456789")), now),
	} {
		t.Run(name, func(t *testing.T) {
			ex := w.serve(w.h, req)
			f := ex.Plan.Forward
			if f == nil || ex.Plan.Header.Has(route.RevMatchHeader) {
				t.Fatalf("answered as a probe: %+v", ex.Plan)
			}
			for _, h := range []string{route.ExpectRevHeader, route.ProbeTimeHeader, route.ProbeSignatureHeader} {
				if f.Header.Has(h) {
					t.Errorf("%s reached the upstream", h)
				}
			}
			if !strings.HasPrefix(ex.line.Error, "probe refused: ") {
				t.Errorf("log line error %q does not say why the probe was refused", ex.line.Error)
			}
		})
	}

	// A few hundred guesses, the right one among them, against a dynamic host, a static host
	// and an unknown host: every answer is the one an ordinary GET of the URL gets.
	for _, host := range []string{"shop.kamui.test", "docs.kamui.test", "nobody.kamui.test"} {
		want := answerShape(t, w.serve(w.h, get(host, route.ProbePath)))
		for i := 0; i < 300; i++ {
			guess := strconv.FormatInt(int64(i)*7919, 16)
			if i == 150 {
				guess = shop.Rev
			}
			if got := answerShape(t, w.serve(w.h, unsigned(host, guess))); got != want {
				t.Fatalf("%s, guess %d: answer %q differs from an ordinary request's %q", host, i, got, want)
			}
		}
	}
}

// answerShape is what a client can observe of an answer, less the request id: the status,
// the headers and the body, or for a forward what the upstream would be sent.
func answerShape(t *testing.T, ex *Exchange) string {
	t.Helper()
	var b strings.Builder
	if f := ex.Plan.Forward; f != nil {
		b.WriteString("forward " + f.Method + " " + f.URL)
		for _, h := range f.Header {
			switch h.Name {
			case "X-Request-Id", route.HeaderRequestID, route.HeaderContextSignature, route.HeaderContextTime:
				continue
			}
			b.WriteString("|" + h.Name + ": " + h.Value)
		}
		return b.String()
	}
	b.WriteString(strconv.Itoa(ex.Plan.Status))
	for _, h := range ex.Plan.Header {
		if h.Name != "X-Request-Id" {
			b.WriteString("|" + h.Name + ": " + h.Value)
		}
	}
	b.WriteString("|" + strings.ReplaceAll(bodyText(t, ex.Plan.Body), ex.RequestID(), "<id>"))
	return b.String()
}

// TestProbeMappingToAbsentApp: a custom host whose mapping names an app with no record is
// served by that mapping, to the edge's 404. A probe for the mapping's revision says so
// (mapping-no-record, which is not a match: verify_propagation must not pass while visitors
// get 404, and its failure can then say why), whichever way the isolate resolves it: from KV,
// from the memo, from the route cache, or through the app's absence remembered under its own
// host. Once the app has a record, the same probe matches.
func TestProbeMappingToAbsentApp(t *testing.T) {
	w := newWorld(t)
	m := route.DomainMapping{App: "ghost", Status: route.StatusActive}
	w.domains.data["www.ghost.example"] = mapping(t, m)
	_, ghost, _ := route.EncodeDomainMapping(m)

	ask := func(h *Handler, what string) {
		t.Helper()
		ex := w.serve(h, w.probe("www.ghost.example", ghost.Rev))
		if got := ex.Plan.Header.Get(route.RevMatchHeader); got != route.RevMatchMappingNoRecord {
			t.Errorf("%s: %s = %q, want %q", what, route.RevMatchHeader, got, route.RevMatchMappingNoRecord)
		}
	}
	ask(w.h, "from KV")
	ask(w.h, "from the memo")
	ask(w.handler(t), "from the route cache")

	// The same answer when the isolate already knows the app is absent (its platform host).
	w2 := newWorld(t)
	w2.domains.data["www.ghost.example"] = mapping(t, m)
	if ex := w2.serve(w2.h, get("ghost.kamui.test", "/")); ex.Plan.Status != 404 {
		t.Fatalf("ghost.kamui.test: status %d, want 404", ex.Plan.Status)
	}
	ex := w2.serve(w2.h, w2.probe("www.ghost.example", ghost.Rev))
	if got := ex.Plan.Header.Get(route.RevMatchHeader); got != route.RevMatchMappingNoRecord {
		t.Errorf("through the app's memo: %s = %q, want %q", route.RevMatchHeader, got, route.RevMatchMappingNoRecord)
	}

	// The app's record is written: once the absence cached in the colo has expired, a fresh
	// isolate sees the mapping match.
	w.routes.data["ghost"] = record(t, dynamicRecord("ghost"))
	w.clock.Advance(testConfig(t).TTLs.Negative + time.Second)
	if got := w.serve(w.handler(t), w.probe("www.ghost.example", ghost.Rev)).Plan.Header.Get(route.RevMatchHeader); got != route.RevMatchMapping {
		t.Errorf("once the app has a record: %s = %q, want %q", route.RevMatchHeader, got, route.RevMatchMapping)
	}
}
