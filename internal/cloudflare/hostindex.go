package cloudflare

import (
	"context"
	"sync"
	"time"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
)

// hostnamesPerPage is the largest page of the custom hostname listing (the API's maximum).
const hostnamesPerPage = 1000

// HostnameIndex holds one listing of a zone's custom hostnames, shared by every resource of a
// provider process (a refresh of a thousand custom domains costs one listing page, not a GET
// each), and runs the one shared poll that hostnames waiting for validation are checked by.
// Like KVIndex it notes what this process writes, and "not listed" means "look it up to be
// sure". Safe for concurrent use.
type HostnameIndex struct {
	c        *Client
	listings *listings[string, map[string]*CustomHostname] // by zone: id → hostname
	now      func() time.Time
	// pollEvery is the shortest time between two poll rounds of a zone.
	pollEvery time.Duration

	mu    sync.Mutex
	zones map[string]*hostZone
}

// hostZone is a zone's shared poll: the round waiters are gathered for starts when its first
// waiter arrives and pollEvery has passed since the last round; its result is every waiter's.
type hostZone struct {
	round     *pollRound
	lastRound time.Time
}

type pollRound struct {
	ids  map[string]bool
	done chan struct{}
	err  error
	seen map[string]*CustomHostname // what the round found of its ids (absent: gone)
}

// NewHostnameIndex returns an empty index over client c.
func NewHostnameIndex(c *Client) *HostnameIndex {
	return &HostnameIndex{c: c, listings: newListings[string, map[string]*CustomHostname](KVIndexMaxAge),
		now: time.Now, pollEvery: 3 * time.Second, zones: map[string]*hostZone{}}
}

func (x *HostnameIndex) zone(zoneID string) *hostZone {
	z, ok := x.zones[zoneID]
	if !ok {
		z = &hostZone{}
		x.zones[zoneID] = z
	}
	return z
}

// ByID returns the listed hostname with id; listed is false when the listing did not have it.
func (x *HostnameIndex) ByID(ctx context.Context, zoneID, id string) (h *CustomHostname, listed bool, err error) {
	l, err := x.listing(ctx, zoneID)
	if err != nil {
		return nil, false, err
	}
	x.listings.read(l, func(byID map[string]*CustomHostname) { h, listed = byID[id] })
	return h, listed, nil
}

// ByName returns the listed hostname named hostname; listed is false when the listing did not
// have it.
func (x *HostnameIndex) ByName(ctx context.Context, zoneID, hostname string) (h *CustomHostname, listed bool, err error) {
	l, err := x.listing(ctx, zoneID)
	if err != nil {
		return nil, false, err
	}
	x.listings.read(l, func(byID map[string]*CustomHostname) {
		for _, candidate := range byID {
			if candidate.Hostname == hostname {
				h, listed = candidate, true
				return
			}
		}
	})
	return h, listed, nil
}

func (x *HostnameIndex) listing(ctx context.Context, zoneID string) (*listing[map[string]*CustomHostname], error) {
	return x.listings.get(ctx, zoneID, func(ctx context.Context) (map[string]*CustomHostname, error) {
		all, err := x.c.ListCustomHostnames(ctx, zoneID)
		if err != nil {
			return nil, err
		}
		byID := make(map[string]*CustomHostname, len(all))
		for _, h := range all {
			byID[h.ID] = h
		}
		return byID, nil
	})
}

// Noted records a hostname this process created or changed.
func (x *HostnameIndex) Noted(zoneID string, h *CustomHostname) {
	x.listings.update(zoneID, func(byID map[string]*CustomHostname) { byID[h.ID] = h })
}

// Forgot records a hostname this process deleted.
func (x *HostnameIndex) Forgot(zoneID, id string) {
	x.listings.update(zoneID, func(byID map[string]*CustomHostname) { delete(byID, id) })
}

// Poll waits for the zone's next poll round and returns what it found of hostname id (found is
// false when the hostname no longer exists). Every hostname waiting at the same time shares
// the round: one GET when it is the only one, otherwise one listing of the zone's hostnames, so
// a thousand hostnames validating at once cost a listing page every few seconds, not a GET
// each.
func (x *HostnameIndex) Poll(ctx context.Context, zoneID, id string) (h *CustomHostname, found bool, err error) {
	x.mu.Lock()
	z := x.zone(zoneID)
	r := z.round
	if r == nil {
		r = &pollRound{ids: map[string]bool{}, done: make(chan struct{})}
		z.round = r
		wait := z.lastRound.Add(x.pollEvery).Sub(x.now())
		go x.runRound(zoneID, z, r, max(wait, 0))
	}
	r.ids[id] = true
	x.mu.Unlock()
	select {
	case <-r.done:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	if r.err != nil {
		return nil, false, r.err
	}
	h, found = r.seen[id]
	return h, found, nil
}

// runRound waits until the round may run, closes it to newcomers, asks the API, and notes what
// it found in the listing.
func (x *HostnameIndex) runRound(zoneID string, z *hostZone, r *pollRound, wait time.Duration) {
	time.Sleep(wait)
	x.mu.Lock()
	z.round = nil // later waiters gather for the next round
	z.lastRound = x.now()
	ids := make([]string, 0, len(r.ids))
	for id := range r.ids {
		ids = append(ids, id)
	}
	x.mu.Unlock()

	ctx := context.Background()
	r.seen = map[string]*CustomHostname{}
	if len(ids) == 1 {
		h, found, err := x.c.GetCustomHostname(ctx, zoneID, ids[0])
		r.err = err
		if found {
			r.seen[h.ID] = h
		}
	} else {
		all, err := x.c.ListCustomHostnames(ctx, zoneID)
		r.err = err
		for _, h := range all {
			if r.ids[h.ID] {
				r.seen[h.ID] = h
			}
		}
	}
	if r.err == nil {
		for _, id := range ids {
			if h, ok := r.seen[id]; ok {
				x.Noted(zoneID, h)
			} else {
				x.Forgot(zoneID, id)
			}
		}
	}
	close(r.done)
}

// ListCustomHostnames lists every custom hostname of the zone, in pages of the API's maximum
// size. It pages by hand: cloudflare-go's auto-pager asks for one more, empty page at the end
// (a call out of the budget per listing) and drops the caller's context after the first page.
func (c *Client) ListCustomHostnames(ctx context.Context, zoneID string) ([]*CustomHostname, error) {
	var all []*CustomHostname
	for page := 1; ; page++ {
		res, err := c.CustomHostnames.List(ctx, custom_hostnames.CustomHostnameListParams{
			ZoneID:  cf.F(zoneID),
			Page:    cf.F(float64(page)),
			PerPage: cf.F(float64(hostnamesPerPage)),
		})
		if err != nil {
			return nil, err
		}
		for _, item := range res.Result {
			h, err := decodeHostname(item.JSON.RawJSON())
			if err != nil {
				return nil, err
			}
			all = append(all, h)
		}
		perPage := int(res.ResultInfo.PerPage)
		if perPage <= 0 {
			perPage = hostnamesPerPage
		}
		if len(res.Result) < perPage {
			return all, nil
		}
	}
}
