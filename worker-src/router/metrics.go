package router

import (
	"bufio"
	"io"
	"strconv"
	"sync/atomic"
	"time"
)

// latencyBuckets are the histogram's upper bounds in seconds (Prometheus' default set).
var latencyBuckets = [...]float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

var statusClasses = [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

// metrics are lock-free counters, written by every request and read by /metrics.
type metrics struct {
	requests [outcomeCount][len(statusClasses)]atomic.Uint64
	// buckets[i] counts durations in (latencyBuckets[i-1], latencyBuckets[i]]; the last slot
	// counts the ones above every bound. Cumulated only when written out.
	buckets  [len(latencyBuckets) + 1]atomic.Uint64
	sumNanos atomic.Uint64
	inFlight atomic.Int64
}

func (m *metrics) observe(status int, o Outcome, d time.Duration) {
	class := min(max(status/100-1, 0), len(statusClasses)-1)
	m.requests[o][class].Add(1)
	secs := d.Seconds()
	i := 0
	for i < len(latencyBuckets) && secs > latencyBuckets[i] {
		i++
	}
	m.buckets[i].Add(1)
	m.sumNanos.Add(uint64(max(d, 0)))
}

// writeText writes the metrics in the Prometheus text exposition format (version 0.0.4).
func (m *metrics) writeText(out io.Writer, ready bool) error {
	w := bufio.NewWriter(out)
	header := func(name, typ, help string) {
		w.WriteString("# HELP " + name + " " + help + "\n# TYPE " + name + " " + typ + "\n")
	}

	header("kamui_router_requests_total", "counter", "Requests handled, by status class and outcome.")
	for o := range outcomeCount {
		for c, class := range statusClasses {
			// Only series that have occurred: most outcome/class pairs cannot happen.
			if n := m.requests[o][c].Load(); n > 0 {
				w.WriteString(`kamui_router_requests_total{class="` + class + `",outcome="` +
					Outcome(o).String() + `"} ` + strconv.FormatUint(n, 10) + "\n")
			}
		}
	}

	const hist = "kamui_router_request_duration_seconds"
	header(hist, "histogram", "Time from receiving a request to finishing its response.")
	var cumulative uint64
	for i, le := range latencyBuckets {
		cumulative += m.buckets[i].Load()
		w.WriteString(hist + `_bucket{le="` + strconv.FormatFloat(le, 'g', -1, 64) + `"} ` +
			strconv.FormatUint(cumulative, 10) + "\n")
	}
	cumulative += m.buckets[len(latencyBuckets)].Load()
	w.WriteString(hist + `_bucket{le="+Inf"} ` + strconv.FormatUint(cumulative, 10) + "\n")
	w.WriteString(hist + "_sum " + strconv.FormatFloat(time.Duration(m.sumNanos.Load()).Seconds(), 'g', -1, 64) + "\n")
	w.WriteString(hist + "_count " + strconv.FormatUint(cumulative, 10) + "\n")

	header("kamui_router_in_flight_requests", "gauge", "Requests being handled now, upgraded connections included.")
	w.WriteString("kamui_router_in_flight_requests " + strconv.FormatInt(m.inFlight.Load(), 10) + "\n")

	header("kamui_router_ready", "gauge", "1 while the router accepts new requests, 0 while it drains.")
	readyValue := "0"
	if ready {
		readyValue = "1"
	}
	w.WriteString("kamui_router_ready " + readyValue + "\n")
	return w.Flush()
}
