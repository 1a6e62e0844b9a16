package bundle

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// The builds are real (the local go command) and slow on a small machine, so the tests share
// them: one go build cache for the package, and the first Worker and Router built once.

var testRoot string // removed after the run

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bundle-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// repoSources is the repository checkout this package lives in.
var repoSources = os.DirFS(filepath.Join("..", ".."))

// sharedGoCache is the go build cache of most test builders; the reproducibility test uses
// fresh ones.
func sharedGoCache() string { return filepath.Join(testRoot, "gocache") }

// newTempDir returns a fresh, empty directory under testRoot. (t.TempDir cannot hold the
// shared builds: they outlive the test that made them.)
func newTempDir(t testing.TB, pattern string) string {
	t.Helper()
	dir, err := os.MkdirTemp(testRoot, pattern)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// goCounter wraps RunGo and counts invocations by sub-command (build, env).
type goCounter struct {
	mu    sync.Mutex
	calls map[string]int
	total atomic.Int64
}

func (c *goCounter) run(ctx context.Context, inv Invocation) ([]byte, error) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[inv.Args[0]]++
	c.mu.Unlock()
	c.total.Add(1)
	return RunGo(ctx, inv)
}

func (c *goCounter) count(sub string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[sub]
}

// countingBuilder builds sources (the repository when nil) into a fresh artifact cache
// with the shared go build cache, counting go invocations.
func countingBuilder(t testing.TB, sources fs.FS) (*Builder, *goCounter) {
	t.Helper()
	if sources == nil {
		sources = repoSources
	}
	c := &goCounter{}
	return &Builder{
		Sources:    sources,
		CacheDir:   newTempDir(t, "cache-"),
		GoCacheDir: sharedGoCache(),
		RunGo:      c.run,
	}, c
}

// sharedBuild is a build made once for the whole package run.
type sharedBuild[T any] struct {
	once    sync.Once
	builder *Builder
	counter *goCounter
	result  T
	err     error
}

func (s *sharedBuild[T]) get(t *testing.T, build func(*Builder, context.Context) (T, error)) (T, *Builder, *goCounter) {
	t.Helper()
	s.once.Do(func() {
		s.builder, s.counter = countingBuilder(t, nil)
		s.result, s.err = build(s.builder, context.Background())
	})
	if s.err != nil {
		t.Fatalf("shared build: %v", s.err)
	}
	return s.result, s.builder, s.counter
}

var (
	sharedWorkerBuild sharedBuild[*Worker]
	sharedRouterBuild sharedBuild[*Router]
)

// sharedWorker is the Worker built from the repository, once per run.
func sharedWorker(t *testing.T) (*Worker, *Builder, *goCounter) {
	return sharedWorkerBuild.get(t, (*Builder).Worker)
}

// sharedRouter is the router built from the repository, once per run.
func sharedRouter(t *testing.T) (*Router, *Builder, *goCounter) {
	return sharedRouterBuild.get(t, (*Builder).Router)
}
