package router_test

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// exposition is a parsed Prometheus text page: sample values by "name{labels}" and the declared
// type of each metric family.
type exposition struct {
	samples map[string]float64
	types   map[string]string
}

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*")*\})? (\S+)$`)

// parseExposition checks the text format strictly enough to catch what a scraper would reject:
// every sample belongs to a family declared by HELP and TYPE before it, values are numbers, names
// and labels are well formed, and histogram buckets are cumulative up to +Inf == _count.
func parseExposition(t *testing.T, text string) exposition {
	t.Helper()
	e := exposition{samples: map[string]float64{}, types: map[string]string{}}
	helped := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# HELP "); ok {
			name, help, _ := strings.Cut(rest, " ")
			if help == "" {
				t.Errorf("HELP without text: %q", line)
			}
			helped[name] = true
			continue
		}
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, typ, _ := strings.Cut(rest, " ")
			switch typ {
			case "counter", "gauge", "histogram", "summary", "untyped":
			default:
				t.Errorf("bad TYPE %q", line)
			}
			if !helped[name] {
				t.Errorf("TYPE before HELP for %s", name)
			}
			e.types[name] = typ
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("malformed sample line %q", line)
			continue
		}
		family := m[1]
		if e.types[family] == "" {
			family = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(family, "_bucket"), "_sum"), "_count")
		}
		if e.types[family] == "" {
			t.Errorf("sample %q before its TYPE", line)
		}
		v, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			t.Errorf("sample value in %q: %v", line, err)
		}
		e.samples[m[1]+m[2]] = v
	}
	for family, typ := range e.types {
		if typ != "histogram" {
			continue
		}
		prev := -1.0
		for _, le := range []string{"0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"} {
			v, ok := e.samples[family+`_bucket{le="`+le+`"}`]
			if !ok || v < prev {
				t.Errorf("%s bucket le=%s missing or not cumulative", family, le)
			}
			prev = v
		}
		if prev != e.samples[family+"_count"] {
			t.Errorf("%s: +Inf bucket %v != _count %v", family, prev, e.samples[family+"_count"])
		}
	}
	return e
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return do(t, req)
}

func TestAdmin_HealthAndReadiness(t *testing.T) {
	h := newHarness(t, newBackend(t, nil), nil)
	admin := httptest.NewServer(h.rt.Admin())
	defer admin.Close()

	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{"/healthz", 200, "ok\n"},
		{"/readyz", 200, "ready\n"},
	} {
		if res, body := get(t, admin.URL+tc.path); res.StatusCode != tc.status || body != tc.body {
			t.Errorf("%s: %d %q, want %d %q", tc.path, res.StatusCode, body, tc.status, tc.body)
		}
	}
	h.rt.SetDraining()
	if res, body := get(t, admin.URL+"/readyz"); res.StatusCode != 503 || body != "draining\n" {
		t.Errorf("/readyz while draining: %d %q, want 503", res.StatusCode, body)
	}
	if res, _ := get(t, admin.URL+"/healthz"); res.StatusCode != 200 {
		t.Errorf("/healthz while draining: %d, want 200 (draining is not dead)", res.StatusCode)
	}
	if res, _ := get(t, admin.URL+"/nothing"); res.StatusCode != 404 {
		t.Errorf("unknown admin path: %d, want 404", res.StatusCode)
	}
}

// Every exchange is counted once it is over, however its response's body was relayed (a
// streamed one when its stream ends, after the handler returned).
func TestAdmin_MetricsCountRequests(t *testing.T) {
	for _, shape := range responseShapes {
		t.Run(shape.name, func(t *testing.T) { testMetricsCountRequests(t, shape) })
	}
}

func testMetricsCountRequests(t *testing.T, shape responseShape) {
	page := shape.body("ok")
	h := newHarness(t, newBackend(t, func(w http.ResponseWriter, _ *http.Request) { shape.serve(w, http.StatusOK, page) }), nil)
	admin := httptest.NewServer(h.rt.Admin())
	defer admin.Close()

	for _, id := range []string{"a", "b"} {
		if res, body := do(t, h.request(t, validContext(http.MethodGet, id), "/", nil)); res.StatusCode != http.StatusOK || body != page {
			t.Fatalf("request %s: got %d and %d bytes of body, want 200 and %d bytes", id, res.StatusCode, len(body), len(page))
		}
	}
	unsigned, _ := http.NewRequest(http.MethodGet, h.front.URL, nil)
	unsigned.Host = publicHost
	do(t, unsigned)
	refused := validContext(http.MethodGet, "c")
	refused.Upstream = "kube-system/dns:53"
	do(t, h.request(t, refused, "/", nil))
	// A streamed body's exchange ends when the router's server closes the stream, just after
	// the client has read the last of it.
	eventually(t, "every exchange ended", func() bool { return h.rt.InFlight() == 0 })

	res, body := get(t, admin.URL+"/metrics")
	if ct := res.Header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	e := parseExposition(t, body)
	want := map[string]float64{
		`kamui_router_requests_total{class="2xx",outcome="proxied"}`:           2,
		`kamui_router_requests_total{class="4xx",outcome="denied"}`:            1,
		`kamui_router_requests_total{class="4xx",outcome="namespace_refused"}`: 1,
		`kamui_router_request_duration_seconds_count`:                          4,
		`kamui_router_request_duration_seconds_bucket{le="0.005"}`:             4, // the test clock stands still
		`kamui_router_in_flight_requests`:                                      0,
		`kamui_router_ready`:                                                   1,
	}
	for k, v := range want {
		if got, ok := e.samples[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	for family, typ := range map[string]string{
		"kamui_router_requests_total":           "counter",
		"kamui_router_request_duration_seconds": "histogram",
		"kamui_router_in_flight_requests":       "gauge",
	} {
		if e.types[family] != typ {
			t.Errorf("%s has TYPE %q, want %s", family, e.types[family], typ)
		}
	}
}
