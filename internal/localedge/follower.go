package localedge

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	edgeruntime "github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/runtime"
)

// follower keeps workerd in step with the API server. cfapi's hooks only queue work (they
// run on the API's request goroutines and must not block); one goroutine applies it in
// order, so a KV write is never applied before the reload that binds its namespace, and a
// burst of uploads costs one reload.
type follower struct {
	api  *cfapi.Server
	host *edgeruntime.Host
	log  *slog.Logger
	// onScripts is told after every reload which scripts are loaded (the router's secret).
	onScripts func([]*cfapi.Script)
	// zoneCache, when set (before the API serves), also loses the entries a purge names: on
	// Cloudflare the Workers' Cache API and the cache in front of origins are the one zone
	// cache.
	zoneCache *zoneCache
	// gate is closed while workerd restarts, so the edge holds requests meanwhile.
	gate *reloadGate

	mu         sync.Mutex
	reload     bool
	tasks      []func(context.Context) error
	namespaces map[string]bool
	buckets    map[string]bool
	loaded     map[string]*cfapi.Script // what workerd runs now, by name
	wake       chan struct{}
}

func newFollower(log *slog.Logger, onScripts func([]*cfapi.Script)) *follower {
	return &follower{log: log, onScripts: onScripts, gate: newReloadGate(), namespaces: map[string]bool{}, buckets: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// hooks are the cfapi hooks that feed the follower.
func (f *follower) hooks() cfapi.Hooks {
	return cfapi.Hooks{
		ScriptChanged: func(cfapi.ScriptEvent) { f.requestReload() },
		KVChanged:     f.kvChanged,
		R2Changed:     f.r2Changed,
		Purged: func(p cfapi.Purge) {
			if f.zoneCache != nil {
				if n := f.zoneCache.purge(p.Files); n > 0 {
					f.log.Info("zone cache purged", "urls", len(p.Files), "entries_dropped", n)
				}
			}
			urls := slices.Clone(p.Files)
			f.enqueue(func(ctx context.Context) error {
				n, err := f.host.Purge(ctx, urls)
				if err == nil {
					f.log.Info("cache purged", "urls", len(urls), "entries_dropped", n)
				}
				return err
			})
		},
	}
}

func (f *follower) kvChanged(e cfapi.KVEvent) {
	f.mu.Lock()
	if !f.namespaces[e.NamespaceID] {
		f.namespaces[e.NamespaceID] = true
		f.reload = true // bind the new namespace before writing to it
	}
	f.mu.Unlock()
	f.enqueue(func(ctx context.Context) error {
		if e.Deleted {
			return f.host.DeleteKV(ctx, e.NamespaceID, e.Key)
		}
		return f.putKV(ctx, e.NamespaceID, e.Key, e.Entry)
	})
}

// r2Changed applies an object change before the API answers: R2 is strongly consistent, so a
// client that saw its upload succeed must be able to read it through the Worker at once.
func (f *follower) r2Changed(e cfapi.R2Event) {
	f.mu.Lock()
	if !f.buckets[e.Bucket] {
		f.buckets[e.Bucket] = true
		f.reload = true // bind the new bucket before writing to it
	}
	f.mu.Unlock()
	applied := make(chan struct{})
	f.enqueue(func(ctx context.Context) error {
		defer close(applied)
		if e.Deleted {
			return f.host.DeleteR2(ctx, e.Bucket, e.Key)
		}
		return f.host.PutR2(ctx, e.Bucket, e.Key, e.Object)
	})
	select {
	case <-applied:
	case <-time.After(r2ApplyWait):
		f.log.Warn("an R2 change is taking long to reach workerd; answering the API call anyway", "bucket", e.Bucket)
	}
}

// r2ApplyWait bounds how long an R2 API call waits for workerd (a first write to a bucket
// includes a reload that binds it).
const r2ApplyWait = 30 * time.Second

func (f *follower) requestReload() {
	f.mu.Lock()
	f.reload = true
	f.mu.Unlock()
	f.signal()
}

func (f *follower) enqueue(task func(context.Context) error) {
	f.mu.Lock()
	f.tasks = append(f.tasks, task)
	f.mu.Unlock()
	f.signal()
}

func (f *follower) signal() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// start loads every script and seeds every KV namespace and R2 bucket from the API's state:
// the runtime's stores are copies, wiped by the caller before this, so nothing stale survives
// a restart.
func (f *follower) start(ctx context.Context, api *cfapi.Server, host *edgeruntime.Host) error {
	f.api, f.host = api, host
	namespaces := api.KVNamespaces()
	buckets := api.R2Buckets()
	f.mu.Lock()
	for _, ns := range namespaces {
		f.namespaces[ns.ID] = true
	}
	for _, b := range buckets {
		f.buckets[b.Name] = true
	}
	f.reload = false
	f.mu.Unlock()
	if err := f.configure(ctx); err != nil {
		return err
	}
	for _, ns := range namespaces {
		for key, e := range ns.Entries {
			if err := f.putKV(ctx, ns.ID, key, e); err != nil {
				return err
			}
		}
	}
	for _, b := range buckets {
		for key, o := range b.Objects {
			if err := f.host.PutR2(ctx, b.Name, key, o); err != nil {
				return err
			}
		}
	}
	return nil
}

// minKVExpiry is the shortest expiration Miniflare accepts (Cloudflare's rule: 60 s ahead).
const minKVExpiry = 60 * time.Second

// putKV writes one key into the runtime's copy. An expiration sooner than Miniflare accepts
// is emulated: the key is written without one and deleted when it expires, unless the API
// holds a live value by then (it was written again).
func (f *follower) putKV(ctx context.Context, namespaceID, key string, e *cfapi.KVEntry) error {
	if e.Expiration > 0 {
		left := time.Until(time.Unix(e.Expiration, 0))
		if left <= 0 {
			return f.host.DeleteKV(ctx, namespaceID, key)
		}
		if left < minKVExpiry+time.Second {
			c := *e
			c.Expiration = 0
			e = &c
			time.AfterFunc(left, func() {
				f.enqueue(func(ctx context.Context) error {
					if _, live := f.api.KVValue(namespaceID, key); live {
						return nil
					}
					return f.host.DeleteKV(ctx, namespaceID, key)
				})
			})
		}
	}
	return f.host.PutKV(ctx, namespaceID, key, e)
}

// configure reloads workerd with the API's current scripts. The API accepts any upload, but
// workerd may refuse one (a syntax error, a bad import): then every changed script is tried
// alone on top of the last set that loaded, the ones that load are kept, and the others keep
// serving their previous version (or nothing, when new), as a rejected deploy would.
func (f *follower) configure(ctx context.Context) error {
	var current []*cfapi.Script
	for _, name := range f.api.ScriptNames() {
		if sc, ok := f.api.Script(name); ok {
			current = append(current, sc)
		}
	}
	err := f.load(ctx, current)
	if err == nil || ctx.Err() != nil {
		return err
	}
	firstErr := err
	base := map[string]*cfapi.Script{}
	for _, sc := range current {
		if good, ok := f.loadedScript(sc.Name); ok {
			base[sc.Name] = good
		}
	}
	var failed []string
	lastFailed := false
	for _, sc := range current {
		if good, ok := base[sc.Name]; ok && good.ETag == sc.ETag {
			continue
		}
		trial := maps.Clone(base)
		trial[sc.Name] = sc
		if lastFailed = f.load(ctx, sortedScripts(trial)) != nil; lastFailed {
			failed = append(failed, sc.Name)
		} else {
			base = trial
		}
	}
	if lastFailed {
		if err := f.load(ctx, sortedScripts(base)); err != nil {
			return err
		}
	}
	f.log.Error("workerd refused uploaded Workers; they keep their previous version (if any)",
		"scripts", strings.Join(failed, ","), "error", firstErr)
	return nil
}

// load configures workerd with exactly these scripts and remembers them as loaded.
func (f *follower) load(ctx context.Context, scripts []*cfapi.Script) error {
	f.mu.Lock()
	namespaces := slices.Sorted(maps.Keys(f.namespaces))
	buckets := slices.Sorted(maps.Keys(f.buckets))
	f.mu.Unlock()
	f.gate.begin()
	err := f.host.Configure(ctx, scripts, namespaces, buckets)
	f.gate.end()
	if err != nil {
		return err
	}
	loaded := map[string]*cfapi.Script{}
	for _, sc := range scripts {
		loaded[sc.Name] = sc
	}
	f.mu.Lock()
	f.loaded = loaded
	f.mu.Unlock()
	if f.onScripts != nil {
		f.onScripts(scripts)
	}
	f.log.Info("workers loaded", "scripts", len(scripts))
	return nil
}

// loadedScript returns the version of a script workerd runs now.
func (f *follower) loadedScript(name string) (*cfapi.Script, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sc, ok := f.loaded[name]
	return sc, ok
}

// isLoaded says whether workerd runs a script of that name.
func (f *follower) isLoaded(name string) bool {
	_, ok := f.loadedScript(name)
	return ok
}

func sortedScripts(m map[string]*cfapi.Script) []*cfapi.Script {
	out := make([]*cfapi.Script, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[name])
	}
	return out
}

// run applies queued work until ctx ends.
func (f *follower) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
		}
		for ctx.Err() == nil {
			f.mu.Lock()
			reload, tasks := f.reload, f.tasks
			f.reload, f.tasks = false, nil
			f.mu.Unlock()
			if !reload && len(tasks) == 0 {
				break
			}
			if reload {
				if err := f.configure(ctx); err != nil {
					f.log.Error("reloading the Workers failed", "error", err)
				}
			}
			for _, task := range tasks {
				if err := task(ctx); err != nil && ctx.Err() == nil {
					f.log.Error("updating the Workers runtime failed", "error", err)
				}
			}
		}
	}
}
