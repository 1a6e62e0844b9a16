package main

import (
	"math/rand"
	"sort"
)

// How far one run's median over its rounds can be trusted. A round's p99 is its few slowest
// requests, so the per-round ratios scatter widely (0.35 to 2.5 in one quiet run), and the
// same two builds have measured 0.91, 0.97 and 1.15 of each other in three runs. The median
// of a dozen such ratios is itself uncertain: resampling the rounds (with replacement) says
// by how much, and how often a run like this one would put the median on either side of a
// goal. It is a diagnostic beside the goal, which stays the plain median.

// bootstrapResamples is the number of resamples behind an interval: enough for the 5 % and
// 95 % points and the share to be stable to about a percent.
const bootstrapResamples = 2000

// bootstrapSeed fixes the resamples, so that the same rounds always print the same interval.
const bootstrapSeed = 1

// medianInterval is the bootstrap distribution of the median of v: its 5th and 95th
// percentiles, and the share of resamples whose median is at most goal. It is (0, 0, 0) for
// no values.
func medianInterval(v []float64, goal float64) (lo, hi, atMostGoal float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	r := rand.New(rand.NewSource(bootstrapSeed))
	medians := make([]float64, bootstrapResamples)
	sample := make([]float64, len(v))
	met := 0
	for i := range medians {
		for k := range sample {
			sample[k] = v[r.Intn(len(v))]
		}
		m := median(sample)
		medians[i] = m
		if m <= goal {
			met++
		}
	}
	sort.Float64s(medians)
	at := func(q float64) float64 { return medians[min(int(q*float64(len(medians))), len(medians)-1)] }
	return at(0.05), at(0.95), float64(met) / float64(len(medians))
}

// median is the median of v (v is not modified), as medianSpread computes it.
func median(v []float64) float64 {
	m, _, _ := medianSpread(v)
	return m
}
