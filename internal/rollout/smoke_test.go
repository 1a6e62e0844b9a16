package rollout

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseSmokeChecks(t *testing.T) {
	good := `[{"name":"shop","url":"http://127.0.0.1:1/","host":"shop.kamui.test","expect_status":200,"expect_headers":{}},
	          {"name":"unknown","url":"https://nobody.kamui.test/","host":"nobody.kamui.test","expect_status":404,"expect_headers":{"Cache-Control":"no-store"}}]`
	checks, err := parseSmokeChecks(json.RawMessage(good))
	if err != nil || len(checks) != 2 || checks[1].ExpectHeaders["Cache-Control"] != "no-store" {
		t.Fatalf("parse: %+v, %v", checks, err)
	}
	for name, bad := range map[string]string{
		"not a list":  `{"name":"x"}`,
		"no url":      `[{"name":"x","expect_status":200}]`,
		"bad status":  `[{"name":"x","url":"http://a/","expect_status":0}]`,
		"not http(s)": `[{"name":"x","url":"ftp://a/","expect_status":200}]`,
		// No checks pass vacuously: an environment whose output came out empty (a module
		// left out, a conditional that chose []) would be "done" without a request sent.
		"empty list": `[]`,
		"null":       `null`,
	} {
		if _, err := parseSmokeChecks(json.RawMessage(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestRunSmokeChecks_WaitsForTheEdge: the edge answers 503 twice (a change still
// propagating), then the right status with the right header for the right Host; the checks
// pass on the third round and the progress callback saw the failures.
func TestRunSmokeChecks_WaitsForTheEdge(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		switch r.Host {
		case "shop.kamui.test":
			w.Header().Set("X-Served-By", "router shop")
			w.WriteHeader(http.StatusOK)
		default:
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	checks := []SmokeCheck{
		{Name: "shop", URL: srv.URL + "/", Host: "shop.kamui.test", ExpectStatus: 200, ExpectHeaders: map[string]string{"X-Served-By": "shop"}},
		{Name: "unknown", URL: srv.URL + "/", Host: "nobody.kamui.test", ExpectStatus: 404, ExpectHeaders: map[string]string{"Cache-Control": "no-store"}},
	}
	var rounds []string
	results, err := runSmokeChecks(context.Background(), srv.Client(), checks, time.Minute, time.Millisecond, func(passed, total int, failing []checkResult) {
		rounds = append(rounds, failing[0].Problem)
	})
	if err != nil {
		t.Fatalf("checks failed: %v (%+v)", err, results)
	}
	if len(rounds) == 0 || !strings.Contains(rounds[0], "HTTP 503, want 200") {
		t.Fatalf("progress saw %q, want the 503 reported", rounds)
	}
	for _, r := range results {
		if !r.OK {
			t.Errorf("%s: %s", r.Check.Name, r.Problem)
		}
	}
}

func TestRunSmokeChecks_GivesUpWithTheReason(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public")
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	checks := []SmokeCheck{{Name: "unknown", URL: srv.URL + "/", Host: "nobody.kamui.test", ExpectStatus: 404, ExpectHeaders: map[string]string{"Cache-Control": "no-store"}}}
	results, err := runSmokeChecks(context.Background(), srv.Client(), checks, 0, time.Millisecond, func(int, int, []checkResult) {})
	if err == nil || !strings.Contains(err.Error(), "1 of 1 smoke checks still failing") {
		t.Fatalf("err = %v, want the checks reported as failing", err)
	}
	if results[0].OK || !strings.Contains(results[0].Problem, `header Cache-Control is "public", want it to contain "no-store"`) {
		t.Fatalf("result = %+v", results[0])
	}
}
