package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// SmokeCheck is one request an environment promises its edge will answer, read from the root
// module's `smoke_checks` output (modules/tenant and modules/edge produce them).
type SmokeCheck struct {
	Name string `json:"name"`
	// URL is what to GET; Host is the Host header to send (the edge routes by it, so a check
	// can go through a local edge's address while naming the public host).
	URL  string `json:"url"`
	Host string `json:"host"`
	// ExpectStatus is the status the answer must have.
	ExpectStatus int `json:"expect_status"`
	// ExpectHeaders maps a header name to a substring its value must contain.
	ExpectHeaders map[string]string `json:"expect_headers"`
}

// parseSmokeChecks decodes the output's value and checks every entry is usable, so a broken
// module output fails before anything is applied to the next environment.
func parseSmokeChecks(raw json.RawMessage) ([]SmokeCheck, error) {
	var checks []SmokeCheck
	if err := json.Unmarshal(raw, &checks); err != nil {
		return nil, fmt.Errorf("the smoke_checks output is not a list of {name, url, host, expect_status, expect_headers}: %w", err)
	}
	if len(checks) == 0 {
		// Zero checks would all pass at once, and the next environment would get the change
		// on the word of no request at all.
		return nil, errors.New("the smoke_checks output is empty; every environment must check at least one host (modules/edge's check of an unknown host is one)")
	}
	var problems []string
	for i, c := range checks {
		if c.Name == "" || c.URL == "" || c.ExpectStatus < 100 || c.ExpectStatus > 599 {
			problems = append(problems, fmt.Sprintf("entry %d (%q) needs a name, a url and an expect_status between 100 and 599", i, c.Name))
		}
		if !strings.HasPrefix(c.URL, "http://") && !strings.HasPrefix(c.URL, "https://") {
			problems = append(problems, fmt.Sprintf("entry %d (%q): url %q is not http(s)", i, c.Name, c.URL))
		}
	}
	if len(problems) > 0 {
		return nil, errors.New("the smoke_checks output is unusable: " + strings.Join(problems, "; "))
	}
	return checks, nil
}

// checkResult is the outcome of one attempt at one check.
type checkResult struct {
	Check   SmokeCheck
	OK      bool
	Problem string // why it failed, for the progress line and the summary
}

// runCheck sends one check's request. Redirects are not followed: a check states the status
// the edge itself answers.
func runCheck(ctx context.Context, client *http.Client, c SmokeCheck) checkResult {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL, nil)
	if err != nil {
		return checkResult{Check: c, Problem: err.Error()}
	}
	if c.Host != "" {
		req.Host = c.Host
	}
	resp, err := client.Do(req)
	if err != nil {
		return checkResult{Check: c, Problem: "request failed: " + err.Error()}
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != c.ExpectStatus {
		return checkResult{Check: c, Problem: fmt.Sprintf("HTTP %d, want %d", resp.StatusCode, c.ExpectStatus)}
	}
	for name, want := range c.ExpectHeaders {
		if got := resp.Header.Get(name); !strings.Contains(got, want) {
			return checkResult{Check: c, Problem: fmt.Sprintf("header %s is %q, want it to contain %q", name, got, want)}
		}
	}
	return checkResult{Check: c, OK: true}
}

// runSmokeChecks repeats the checks until all pass in one round or the deadline passes: edge
// changes take a while to arrive (KV propagation, a Worker upload), so one failed attempt
// proves nothing. It reports progress after every failing round and returns the last round.
func runSmokeChecks(ctx context.Context, client *http.Client, checks []SmokeCheck, timeout, interval time.Duration, progress func(passed, total int, failing []checkResult)) ([]checkResult, error) {
	deadline := time.Now().Add(timeout)
	for {
		results := make([]checkResult, len(checks))
		var failing []checkResult
		for i, c := range checks {
			results[i] = runCheck(ctx, client, c)
			if !results[i].OK {
				failing = append(failing, results[i])
			}
		}
		if len(failing) == 0 {
			return results, nil
		}
		if ctx.Err() != nil {
			return results, ctx.Err()
		}
		if time.Now().Add(interval).After(deadline) {
			return results, fmt.Errorf("%d of %d smoke checks still failing after %s", len(failing), len(checks), timeout)
		}
		progress(len(checks)-len(failing), len(checks), failing)
		select {
		case <-ctx.Done():
			return results, ctx.Err()
		case <-time.After(interval):
		}
	}
}
