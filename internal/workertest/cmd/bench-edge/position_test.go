package main

import (
	"strings"
	"testing"
	"time"
)

// Each round's first requests, by their place in the round, go to the first group and the
// rest to the other; a failed request (latency 0) to neither; durations come from the log
// lines of the requests they belong to, and a request without one does not count in the mean.
func TestSplitByPosition(t *testing.T) {
	ms := time.Millisecond
	w := &workerResult{}
	w.add(&sliceResult{
		reqs: make([]request, 4), sentAt: make([]time.Duration, 4),
		lat:  []time.Duration{10 * ms, 20 * ms, 1 * ms, 3 * ms},
		ids:  []string{"a", "b", "c", "d"},
		logs: map[string]logEntry{"a": {RequestID: "a", DurUS: 4000}, "c": {RequestID: "c", DurUS: 500}, "d": {RequestID: "d", DurUS: 1500}},
	})
	w.add(&sliceResult{
		reqs: make([]request, 3), sentAt: make([]time.Duration, 3),
		lat:  []time.Duration{0, 30 * ms, 5 * ms}, // the round's first request failed
		ids:  []string{"", "f", "g"},
		logs: map[string]logEntry{"f": {RequestID: "f", DurUS: 6000}},
	})
	head, rest := w.splitByPosition(2)
	if head.n != 3 || head.avg != 20*ms || head.dur != 5*ms {
		t.Errorf("first two of each round: n=%d mean=%v dur=%v, want n=3 (10, 20, 30 ms; the failed one left out) mean=20ms dur=5ms (4 and 6 ms; b logged nothing)",
			head.n, head.avg, head.dur)
	}
	if rest.n != 3 || rest.avg != 3*ms || rest.dur != time.Millisecond {
		t.Errorf("the rest: n=%d mean=%v dur=%v, want n=3 (1, 3, 5 ms) mean=3ms dur=1ms (0.5 and 1.5 ms; g logged nothing)", rest.n, rest.avg, rest.dur)
	}
	if line := positionLine("edge", 2, head, rest); !strings.Contains(line, "mean first/rest 6.667") {
		t.Errorf("positionLine = %q, want the ratio of the means, 6.667", line)
	}
}
