package cloudflare

import (
	"context"
	"sync"
	"time"
)

// listings holds one listing per key (a KV namespace, a zone) shared by every resource of a
// provider process: concurrent first lookups share one fetch, a listing serves until it is
// maxAge old, and writes of the process are applied to it in place. KVIndex and HostnameIndex
// are built on it. Safe for concurrent use; items are read and changed under its lock only.
type listings[K comparable, M any] struct {
	maxAge time.Duration
	now    func() time.Time

	mu    sync.Mutex
	byKey map[K]*listing[M]
}

type listing[M any] struct {
	ready chan struct{} // closed once the listing is in (or failed)
	err   error
	at    time.Time
	items M
}

func newListings[K comparable, M any](maxAge time.Duration) *listings[K, M] {
	return &listings[K, M]{maxAge: maxAge, now: time.Now, byKey: map[K]*listing[M]{}}
}

// get returns key's listing, fetching it when there is none, the last one failed or it is
// older than maxAge; a caller arriving while a fetch is in flight waits for it.
func (s *listings[K, M]) get(ctx context.Context, key K, fetch func(context.Context) (M, error)) (*listing[M], error) {
	s.mu.Lock()
	l := s.byKey[key]
	if l == nil || (isClosed(l.ready) && (l.err != nil || s.now().Sub(l.at) > s.maxAge)) {
		l = &listing[M]{ready: make(chan struct{})}
		s.byKey[key] = l
		s.mu.Unlock()
		items, err := fetch(ctx)
		s.mu.Lock()
		l.err, l.at = err, s.now()
		if err == nil {
			l.items = items
		}
		close(l.ready)
		s.mu.Unlock()
		return l, err
	}
	s.mu.Unlock()
	select {
	case <-l.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return l, l.err
}

// peek calls f with key's listing when one is in and fresh, without fetching; it reports
// whether it did.
func (s *listings[K, M]) peek(key K, f func(M)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.byKey[key]
	if l == nil || !isClosed(l.ready) || l.err != nil || s.now().Sub(l.at) > s.maxAge {
		return false
	}
	f(l.items)
	return true
}

// read calls f with l's items under the lock (l as get returned it).
func (s *listings[K, M]) read(l *listing[M], f func(M)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(l.items)
}

// update applies a write of this process to key's listing. A listing still in flight (or
// failed) may predate the write, so it is dropped instead: the next lookup lists afresh.
func (s *listings[K, M]) update(key K, change func(M)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.byKey[key]
	if l == nil {
		return
	}
	if !isClosed(l.ready) || l.err != nil {
		delete(s.byKey, key)
		return
	}
	change(l.items)
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
