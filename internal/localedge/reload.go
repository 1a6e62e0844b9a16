package localedge

import (
	"context"
	"net/http"
	"net/url"
	"sync"
)

// A Worker upload restarts workerd (Miniflare's setOptions), while on Cloudflare a deploy
// fails no request: in-flight ones finish on the old version, new ones get the new. So that a
// local rollout (a signing secret rotation, say) can be rehearsed with traffic flowing, the
// edge holds new requests while workerd restarts and sends a bodiless GET, HEAD or OPTIONS
// that the restart cut off once more to the new workerd. Anything else that was in flight
// still fails (it may have had effects), as a request to a crashing origin would.

// reloadGate is open except while workerd restarts; its generation counts the restarts.
type reloadGate struct {
	mu         sync.Mutex
	open       chan struct{} // closed while no restart runs
	generation uint64
}

func newReloadGate() *reloadGate {
	open := make(chan struct{})
	close(open)
	return &reloadGate{open: open}
}

// begin closes the gate for a restart; end opens it again. They are called in pairs, by one
// goroutine (the follower's).
func (g *reloadGate) begin() {
	g.mu.Lock()
	g.open = make(chan struct{})
	g.generation++
	g.mu.Unlock()
}

func (g *reloadGate) end() {
	g.mu.Lock()
	close(g.open)
	g.mu.Unlock()
}

// wait blocks until no restart runs and returns the generation then current.
func (g *reloadGate) wait(ctx context.Context) (uint64, error) {
	g.mu.Lock()
	open, gen := g.open, g.generation
	g.mu.Unlock()
	select {
	case <-open:
		return gen, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// restartedSince says whether a restart began after generation gen.
func (g *reloadGate) restartedSince(gen uint64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.generation != gen
}

// reloadTransport carries the edge's requests to workerd across its restarts (see above). Each
// attempt goes to the runtime's current address, which a restart may change.
type reloadTransport struct {
	base       http.RoundTripper
	gate       *reloadGate
	runtimeURL func() string
}

func (t *reloadTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	gen, err := t.gate.wait(req.Context())
	if err != nil {
		return nil, err
	}
	res, err := t.base.RoundTrip(t.toRuntime(req))
	if err == nil || !replayable(req) || !t.gate.restartedSince(gen) {
		return res, err
	}
	if _, err := t.gate.wait(req.Context()); err != nil {
		return nil, err
	}
	return t.base.RoundTrip(t.toRuntime(req))
}

// toRuntime is req aimed at the runtime's current address.
func (t *reloadTransport) toRuntime(req *http.Request) *http.Request {
	target, err := url.Parse(t.runtimeURL())
	if err != nil || target.Host == "" {
		return req // the base transport reports the address it was given
	}
	out := req.Clone(req.Context())
	out.URL.Scheme, out.URL.Host = target.Scheme, target.Host
	return out
}

// replayable: a bodiless request of a method that may be sent twice.
func replayable(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return req.Body == nil || req.Body == http.NoBody
	}
	return false
}
