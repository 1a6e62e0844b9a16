package workertest

import (
	"os"
	"strings"
)

// LoadAverage is the machine's 1-minute load average from /proc/loadavg, or "unknown": the
// benchmarks print it beside their figures, which swing with the machine's load.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}
