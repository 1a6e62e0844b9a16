package bundle

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
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
	if repoSources, err = snapshotSources(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, "removing the test directory:", err)
	}
	os.Exit(code)
}

// repoSources is a snapshot of the repository's source trees, taken once: other work may
// change worker-src while the tests run, and every build of a run must see the same input.
var repoSources fstest.MapFS

func snapshotSources() (fstest.MapFS, error) {
	live := os.DirFS(filepath.Join("..", ".."))
	m := fstest.MapFS{}
	for _, root := range SourceRoots {
		err := fs.WalkDir(live, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			content, err := fs.ReadFile(live, p)
			m[p] = &fstest.MapFile{Data: content, Mode: 0o644}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return m, nil
}

// sharedGoCache is the go build cache of most test builders: the developer's own (`go env
// GOCACHE`), usually warm, since a build's bytes never depend on its cache (which
// TestWorker_ReproducibleWithEmptyCaches checks with a fresh one). Without one, a cache of
// the test run's own.
var sharedGoCache = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if dir := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(testRoot, "gocache")
})

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

// goCounter wraps RunGo and counts invocations by sub-command (build, env), keeping the
// builds' invocations for tests of their environment.
type goCounter struct {
	mu         sync.Mutex
	calls      map[string]int
	buildCalls []Invocation
	total      atomic.Int64
}

func (c *goCounter) run(ctx context.Context, inv Invocation) ([]byte, error) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[inv.Args[0]]++
	if inv.Args[0] == "build" {
		c.buildCalls = append(c.buildCalls, inv)
	}
	c.mu.Unlock()
	c.total.Add(1)
	return RunGo(ctx, inv)
}

// builds is how many times go build ran.
func (c *goCounter) builds() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls["build"]
}

// buildInvocations returns the go build invocations so far.
func (c *goCounter) buildInvocations() []Invocation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.buildCalls)
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

func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }
