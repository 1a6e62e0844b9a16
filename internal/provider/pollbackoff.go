package provider

import (
	"context"
	"time"
)

// pollBackoff paces the status checks of a wait (a custom hostname validating, the fallback
// origin deploying or being deleted): the first pause is first, each next one half again as
// long, never longer than most. Quick changes are seen quickly, and a wait of many minutes
// costs a few calls a minute, not one a second, against the account's rate limit.
type pollBackoff struct{ next, most time.Duration }

func newPollBackoff(first, most time.Duration) *pollBackoff {
	return &pollBackoff{next: first, most: max(first, most)}
}

// sleep waits out the next pause and lengthens the one after it. It returns false, at once,
// when ctx ends first: the wait's deadline passed (or Terraform was interrupted).
func (b *pollBackoff) sleep(ctx context.Context) bool {
	t := time.NewTimer(b.next)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	}
	b.next = min(b.next*3/2, b.most)
	return true
}
