package main

import "testing"

// Rounds that all measured the same ratio leave the median no room: the interval is that
// ratio, and every resample is on the same side of a goal.
func TestMedianInterval_SameRatioEveryRound(t *testing.T) {
	v := []float64{1.1, 1.1, 1.1, 1.1, 1.1}
	lo, hi, share := medianInterval(v, 1.0)
	if lo != 1.1 || hi != 1.1 || share != 0 {
		t.Errorf("medianInterval(%v, 1.0) = [%v..%v] share %v, want [1.1..1.1] share 0", v, lo, hi, share)
	}
	if _, _, share := medianInterval(v, 1.1); share != 1 {
		t.Errorf("share at most 1.1 = %v, want 1 (the goal is inclusive)", share)
	}
}

// Scattered rounds give an interval around the sample median, inside the spread, and a
// share strictly between 0 and 1 for a goal within it; the same rounds give the same answer.
func TestMedianInterval_ScatteredRounds(t *testing.T) {
	v := []float64{0.35, 0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.12, 1.15, 1.3, 1.6, 2.5}
	lo, hi, share := medianInterval(v, 1.0)
	m := median(v)
	if !(0.35 <= lo && lo <= m && m <= hi && hi <= 2.5) {
		t.Errorf("interval [%v..%v] does not hold the median %v within the spread [0.35..2.5]", lo, hi, m)
	}
	if lo == hi {
		t.Errorf("interval [%v..%v] is a point for scattered rounds", lo, hi)
	}
	if share <= 0 || share >= 1 {
		t.Errorf("share of resampled medians ≤ 1.0 = %v, want strictly between 0 and 1", share)
	}
	lo2, hi2, share2 := medianInterval(v, 1.0)
	if lo2 != lo || hi2 != hi || share2 != share {
		t.Errorf("a second call gave [%v..%v] %v, the first [%v..%v] %v: the resamples are not fixed", lo2, hi2, share2, lo, hi, share)
	}
}

// More rounds of the same scatter narrow the interval: it measures the median's
// uncertainty, not the rounds' spread.
func TestMedianInterval_NarrowsWithMoreRounds(t *testing.T) {
	few := []float64{0.8, 0.9, 1.0, 1.1, 1.2, 1.3}
	var many []float64
	for range 8 {
		many = append(many, few...)
	}
	lo1, hi1, _ := medianInterval(few, 1.0)
	lo2, hi2, _ := medianInterval(many, 1.0)
	if hi2-lo2 >= hi1-lo1 {
		t.Errorf("48 rounds gave an interval of %v, 6 rounds %v: want it narrower", hi2-lo2, hi1-lo1)
	}
}

func TestMedianInterval_NoRounds(t *testing.T) {
	if lo, hi, share := medianInterval(nil, 1.0); lo != 0 || hi != 0 || share != 0 {
		t.Errorf("medianInterval(nil) = %v %v %v, want zeros", lo, hi, share)
	}
}
