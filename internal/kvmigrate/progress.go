package kvmigrate

import "time"

// meter reports one step's progress through Options.Progress: when ProgressEvery more keys are
// done or ProgressInterval has passed since the last report, and once at the end.
type meter struct {
	report   func(Progress)
	every    int
	interval time.Duration
	now      func() time.Time

	step, namespace string
	total           int
	lastDone        int
	lastAt          time.Time
}

func (m *migration) meter(step, namespace string, total int) *meter {
	return &meter{
		report: m.opts.Progress, every: m.opts.ProgressEvery, interval: m.opts.ProgressInterval, now: m.opts.Now,
		step: step, namespace: namespace, total: total, lastAt: m.opts.Now(),
	}
}

func (p *meter) update(done int) {
	if p.report == nil {
		return
	}
	if p.total > 0 && done >= p.total {
		return // finish reports the last count
	}
	if now := p.now(); done-p.lastDone >= p.every || now.Sub(p.lastAt) >= p.interval {
		p.lastDone, p.lastAt = done, now
		p.report(Progress{Step: p.step, Namespace: p.namespace, Done: done, Total: p.total})
	}
}

func (p *meter) finish(done int) {
	if p.report == nil {
		return
	}
	p.report(Progress{Step: p.step, Namespace: p.namespace, Done: done, Total: p.total, Final: true})
}
