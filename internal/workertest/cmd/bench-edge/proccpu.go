package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// processCPU is the CPU time the processes of one Worker's host have run for so far: the host
// (host.mjs in Node, which reads the runtime's log lines) and the runtime under it (workerd:
// the Worker's isolate, and the KV, R2 and Cache API the local runtime serves, on all their
// threads). Each Worker runs in a workerd of its own, so the runtime's CPU over a Worker's own
// turn is what serving that turn cost the machine, waits for I/O included only as the CPU the
// emulated I/O used. workerd's own per-request CPU time (a tail Worker's cpuTime) reads 0 in
// the local runtime, and the Worker's clock stops while it runs (Date.now moves only with
// I/O), so this is the finest measure of a Worker's CPU in workerd there is here.
type processCPU struct {
	host, runtime time.Duration
	// byThread is the runtime's time by thread name (comm): its event loop and V8's
	// background threads (the collector's, the compilers') apart.
	byThread map[string]time.Duration
}

func (c processCPU) minus(b processCPU) processCPU {
	d := processCPU{host: c.host - b.host, runtime: c.runtime - b.runtime, byThread: map[string]time.Duration{}}
	for name, t := range c.byThread {
		d.byThread[name] = t - b.byThread[name]
	}
	return d
}

// readProcessCPU sums, from /proc (Linux), the run time of every thread of the process pid
// (the host) and of every thread of its descendants (the runtime). ok is false where /proc
// does not answer, and the bench then prints no CPU.
func readProcessCPU(pid int) (c processCPU, ok bool) {
	host, ok := threadsCPU(pid, nil)
	if !ok {
		return processCPU{}, false
	}
	c.host = host
	c.byThread = map[string]time.Duration{}
	seen := map[int]bool{pid: true}
	queue := children(pid)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		if t, ok := threadsCPU(p, c.byThread); ok {
			c.runtime += t
		}
		queue = append(queue, children(p)...)
	}
	return c, true
}

// threadsCPU is the time every thread of pid has run, from each thread's schedstat (its first
// field: nanoseconds on a CPU), finer than stat's clock ticks; byName, when given, adds each
// thread's time under its name.
func threadsCPU(pid int, byName map[string]time.Duration) (time.Duration, bool) {
	dirs, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/schedstat")
	if err != nil || len(dirs) == 0 {
		return 0, false
	}
	var sum time.Duration
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			// A thread that ended since the listing. Its time is then missing from this
			// reading: a Worker's turn loses the time of threads that end within it, which
			// workerd's (its event loop, V8's workers) do not.
			continue
		}
		ns, err := strconv.ParseInt(strings.Fields(string(b) + " 0")[0], 10, 64)
		if err != nil {
			continue
		}
		sum += time.Duration(ns)
		if byName != nil {
			name, _ := os.ReadFile(filepath.Join(filepath.Dir(f), "comm"))
			byName[strings.TrimSpace(string(name))] += time.Duration(ns)
		}
	}
	return sum, true
}

// children lists the child processes of every thread of pid.
func children(pid int) []int {
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// printCPU prints, per Worker, the CPU its processes ran per request over its own turns
// (processCPU), and for each Worker beside the edge the median of the per-round ratios of the
// runtime's CPU, edge over it, with their spread: where the latency's difference is CPU in
// the runtime, and where it is not.
func printCPU(picked []benchWorker, results map[string]*workerResult) {
	e := results["edge"]
	for _, w := range picked {
		r := results[w.name]
		if r.cpuLost || len(r.reqs) == 0 {
			continue
		}
		sum := processCPU{byThread: map[string]time.Duration{}}
		for _, c := range r.cpuRounds {
			sum.host += c.host
			sum.runtime += c.runtime
			for name, t := range c.byThread {
				sum.byThread[name] += t
			}
		}
		n := float64(len(r.reqs))
		names := slices.DeleteFunc(slices.Collect(maps.Keys(sum.byThread)), func(name string) bool { return sum.byThread[name] <= 0 })
		sort.Slice(names, func(a, b int) bool { return sum.byThread[names[a]] > sum.byThread[names[b]] })
		var threads []string
		for _, name := range names[:min(len(names), 4)] {
			threads = append(threads, fmt.Sprintf("%s %.3f", name, ms(sum.byThread[name])/n))
		}
		line := fmt.Sprintf("bench-edge: %-14s CPU per request over its turns (diagnostic): runtime %.3fms (%s), host %.3fms", w.name,
			ms(sum.runtime)/n, strings.Join(threads, ", "), ms(sum.host)/n)
		if e != nil && w.name != "edge" && !e.cpuLost && len(e.cpuRounds) == len(r.cpuRounds) {
			ratios := make([]float64, len(r.cpuRounds))
			for k := range ratios {
				// The same slice of the trace in both: the requests' counts cancel.
				ratios[k] = ratioOf(e.cpuRounds[k].runtime, r.cpuRounds[k].runtime)
			}
			m, lo, hi := medianSpread(ratios)
			line += fmt.Sprintf(" | edge's runtime ÷ this %.3f [%.3f..%.3f] (median [spread] of the per-round ratios)", m, lo, hi)
		}
		fmt.Println(line)
	}
}
