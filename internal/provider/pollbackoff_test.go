package provider

import (
	"context"
	"testing"
	"time"
)

func TestPollBackoff_GrowsByHalfUpToTheMost(t *testing.T) {
	b := newPollBackoff(2*time.Millisecond, 5*time.Millisecond)
	want := []time.Duration{3 * time.Millisecond, 4500 * time.Microsecond, 5 * time.Millisecond, 5 * time.Millisecond}
	for i, w := range want {
		if !b.sleep(context.Background()) {
			t.Fatalf("pause %d: sleep reported the context ended", i+1)
		}
		if b.next != w {
			t.Errorf("after pause %d the next is %v, want %v", i+1, b.next, w)
		}
	}
	if b := newPollBackoff(time.Second, time.Millisecond); b.most != time.Second {
		t.Errorf("a most below the first pause: most %v, want the first pause (1s)", b.most)
	}
}

func TestPollBackoff_EndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := newPollBackoff(time.Hour, time.Hour)
	start := time.Now()
	if b.sleep(ctx) {
		t.Fatal("sleep on an ended context reported a full pause")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("sleep on an ended context took %v, want at once", d)
	}
	if b.next != time.Hour {
		t.Errorf("an interrupted pause lengthened the next one to %v", b.next)
	}
}
