package main

import (
	"fmt"
	"time"
)

// What a turn's first requests say about the pause before it (-settle). A Worker's turn
// follows another Worker's, whose background work (cache puts, its runtime's collections) may
// still be running on the same two CPUs when the first requests arrive. If it is, the first
// requests of each turn are slower, against the rest of the turn, with no pause than with one;
// and the Worker whose turn comes right after a busy one pays more than the others. The split
// is by position in the slice, so every Worker's first requests are the same requests of the
// trace, and a comparison across Workers or across runs with another -settle compares like
// with like.

// positionStats summarises one group of requests: how many answered, the p50, p90 and mean of
// their latency, and the mean of the Worker's own duration (dur_us) over those that logged.
type positionStats struct {
	n             int
	p50, p90, avg time.Duration
	dur           time.Duration // 0 when no request of the group logged a duration
}

// splitByPosition gathers the answered requests of every round of w into the first `first` of
// each round and the rest. A request that failed (latency 0) is in neither.
func (w *workerResult) splitByPosition(first int) (head, rest positionStats) {
	var heads, rests positionGroup
	at := 0 // index of the round's first request in w.ids
	for _, round := range w.rounds {
		for k, d := range round {
			if d == 0 {
				continue
			}
			g := &rests
			if k < first {
				g = &heads
			}
			g.lat = append(g.lat, d)
			if l, ok := w.logs[w.ids[at+k]]; ok {
				g.dur = append(g.dur, time.Duration(l.DurUS)*time.Microsecond)
			}
		}
		at += len(round)
	}
	return heads.summary(), rests.summary()
}

// positionGroup is one group's latencies, and the Worker's own durations of those that logged.
type positionGroup struct{ lat, dur []time.Duration }

func (g *positionGroup) summary() positionStats {
	return positionStats{n: len(g.lat), p50: pct(g.lat, 50), p90: pct(g.lat, 90), avg: mean(g.lat), dur: mean(g.dur)}
}

func mean(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	var sum time.Duration
	for _, v := range d {
		sum += v
	}
	return sum / time.Duration(len(d))
}

// positionLine is one Worker's line of the -by-position diagnostic.
func positionLine(name string, first int, head, rest positionStats) string {
	group := func(s positionStats) string {
		return fmt.Sprintf("n=%d p50=%.2fms p90=%.2fms mean=%.2fms dur=%.2fms", s.n, ms(s.p50), ms(s.p90), ms(s.avg), ms(s.dur))
	}
	return fmt.Sprintf("bench-edge: %-14s first %d of each turn: %s | the rest: %s | mean first/rest %.3f\n",
		name, first, group(head), group(rest), ratioOf(head.avg, rest.avg))
}

// printPositions prints the diagnostic for every Worker of the run, in the order they took
// their turns, so that each line follows the Worker whose turn came before it.
func printPositions(picked []benchWorker, results map[string]*workerResult, first int) {
	fmt.Printf("bench-edge: by position in the turn (diagnostic; -settle %v, turns in the order below, each after the one above it and the first after the last):\n", settle)
	for _, w := range picked {
		if r := results[w.name]; r != nil {
			head, rest := r.splitByPosition(first)
			fmt.Print(positionLine(w.name, first, head, rest))
		}
	}
}
