package main

import "testing"

// An operator's (or a manifest's) out-of-range value must stop the router, not be replaced
// silently: a --log-sample-rate of NaN or -1 dropped every success line, one of 50 (meant as
// percent) kept them all, and a zero or negative --max-skew, --dial-timeout or
// --response-header-timeout quietly became the default (a --max-skew=0 meant to tighten the
// replay window widened it to the contract's default instead).
func TestParseOptions_RefusesOutOfRangeValues(t *testing.T) {
	for _, bad := range [][]string{
		{"--log-sample-rate", "NaN"},
		{"--log-sample-rate", "-1"},
		{"--log-sample-rate", "50"},
		{"--max-skew", "0s"},
		{"--max-skew", "-30s"},
		{"--dial-timeout", "0s"},
		{"--dial-timeout", "-1s"},
		{"--response-header-timeout", "-5s"},
	} {
		args := append([]string{"--namespace-prefix", "tenant-"}, bad...)
		if _, err := parseOptions(args); err == nil {
			t.Errorf("accepted %s %s", bad[0], bad[1])
		}
	}
	t.Setenv("KAMUI_ROUTER_LOG_SAMPLE_RATE", "NaN")
	if _, err := parseOptions([]string{"--namespace-prefix", "tenant-"}); err == nil {
		t.Error("accepted KAMUI_ROUTER_LOG_SAMPLE_RATE=NaN")
	}
	t.Setenv("KAMUI_ROUTER_LOG_SAMPLE_RATE", "0")
	if _, err := parseOptions([]string{"--namespace-prefix", "tenant-"}); err != nil {
		t.Errorf("refused a sample rate of 0: %v", err)
	}
}
