package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// cpuProfile is the part of V8's .cpuprofile JSON (the inspector's Profiler.Profile) the
// summary reads: each node's own function and how many samples it was on top of the stack.
type cpuProfile struct {
	Nodes []struct {
		CallFrame struct {
			FunctionName string `json:"functionName"`
			URL          string `json:"url"`
			LineNumber   int    `json:"lineNumber"`
		} `json:"callFrame"`
		HitCount int `json:"hitCount"`
	} `json:"nodes"`
	TimeDeltas []int64 `json:"timeDeltas"` // µs between samples
}

// summarizeProfile prints where an isolate's CPU went: its samples per request, the share of
// each part (the Go Wasm, the Worker's JS, Go's wasm_exec.js glue, the runtime's own work) and
// the functions with the most samples. workerd's sampler takes no samples while the isolate
// waits, so a sample's interval (time since the one before) covers idle time after a wait: the
// busy time is estimated from the intervals under busyInterval alone, and the Workers of one
// run are best compared by samples per request (the same sampler profiles them all).
func summarizeProfile(w io.Writer, name, file string, requests, top int) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var p cpuProfile
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	samples := 0
	for _, n := range p.Nodes {
		samples += n.HitCount
	}
	if samples == 0 {
		return fmt.Errorf("%s: no samples", file)
	}
	var busyTime time.Duration
	for _, d := range p.TimeDeltas {
		if d := time.Duration(d) * time.Microsecond; d < busyInterval {
			busyTime += d
		}
	}
	byPart := map[string]int{}
	byFunc := map[string]int{}
	busy := 0
	for _, n := range p.Nodes {
		if n.HitCount == 0 {
			continue
		}
		f := n.CallFrame
		part := profilePart(f.FunctionName, f.URL)
		byPart[part] += n.HitCount
		if part != "idle" {
			busy += n.HitCount
			fn := f.FunctionName
			if fn == "" {
				fn = "(anonymous)"
			}
			where := path.Base(f.URL)
			if strings.HasPrefix(f.URL, "wasm://") {
				where = "wasm"
			}
			byFunc[fmt.Sprintf("%s %s:%d", fn, where, f.LineNumber+1)] += n.HitCount
		}
	}
	reqs := float64(max(requests, 1))
	var out strings.Builder // written in one piece, so that a failed write is reported
	fmt.Fprintf(&out, "bench-edge: profile %s: %.2f samples per request (%d over %d requests), about %v busy per request\n",
		name, float64(busy)/reqs, busy, requests, (busyTime / time.Duration(max(requests, 1))).Round(time.Microsecond))
	fmt.Fprintf(&out, "bench-edge: profile %s: samples by part:%s\n", name, shares(byPart, busy, func(k string) bool { return k != "idle" }))
	type fc struct {
		f string
		n int
	}
	var fs []fc
	for f, n := range byFunc {
		fs = append(fs, fc{f, n})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].n > fs[j].n || fs[i].n == fs[j].n && fs[i].f < fs[j].f })
	for _, f := range fs[:min(top, len(fs))] {
		fmt.Fprintf(&out, "bench-edge: profile %s:   %5.1f%% %.3f/req %s\n", name, 100*float64(f.n)/float64(busy), float64(f.n)/reqs, f.f)
	}
	_, err = io.WriteString(w, out.String())
	return err
}

// busyInterval is the longest interval between two samples taken as busy time; the sampler
// asks for one every 100 µs and, on a loaded machine, takes one every few hundred.
const busyInterval = time.Millisecond

// profilePart names the part of the isolate a frame belongs to.
func profilePart(fn, url string) string {
	switch {
	case fn == "(idle)":
		return "idle"
	case fn == "(garbage collector)":
		return "v8-gc"
	case fn == "(program)" || fn == "(root)":
		return "runtime"
	case strings.HasPrefix(url, "wasm://"):
		return "go-wasm"
	case strings.HasSuffix(url, "wasm_exec.js"):
		return "wasm_exec.js"
	case url == "":
		return "builtins"
	default:
		return path.Base(url)
	}
}

func shares(m map[string]int, total int, keep func(string) bool) string {
	var keys []string
	for k := range m {
		if keep(k) {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s %.1f%%", k, 100*float64(m[k])/float64(max(total, 1)))
	}
	return b.String()
}
