package bundle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Builder builds the bundled sources. The zero value is not usable: Sources is required;
// every other field has a default. A Builder is safe for concurrent use and may be reused;
// it asks the toolchain for its identity once.
type Builder struct {
	// Sources holds the trees named by SourceRoots at their repository-relative paths: an
	// embed.FS of the provider's main package, or os.DirFS of a checkout (source_dir).
	Sources fs.FS

	// CacheDir holds the built artifacts, by input hash, and the go build cache.
	// Default: os.UserCacheDir()/kamuidash/bundle.
	CacheDir string

	// GoCacheDir is the go command's build cache (GOCACHE). It makes builds faster and never
	// changes their bytes. Default: CacheDir/gocache.
	GoCacheDir string

	// FindGo locates the go command. A missing toolchain should return an error wrapping
	// ErrNoToolchain. Default: FindGo ($KAMUIDASH_GO, else go on PATH).
	FindGo func() (string, error)

	// RunGo runs one go command and returns its combined output. Default: RunGo (os/exec).
	RunGo func(ctx context.Context, inv Invocation) ([]byte, error)

	mu        sync.Mutex
	toolchain *toolchainInfo // memoized on success only: a toolchain installed later is found
}

func (b *Builder) cacheDir() (string, error) {
	if b.CacheDir != "" {
		return b.CacheDir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("bundle: no cache directory for the builds: set XDG_CACHE_HOME or HOME (%w)", err)
	}
	return filepath.Join(base, "kamuidash", "bundle"), nil
}

func (b *Builder) goCacheDir(cacheDir string) string {
	if b.GoCacheDir != "" {
		return b.GoCacheDir
	}
	return filepath.Join(cacheDir, "gocache")
}

func (b *Builder) run(ctx context.Context, inv Invocation) ([]byte, error) {
	if b.RunGo != nil {
		return b.RunGo(ctx, inv)
	}
	return RunGo(ctx, inv)
}

// toolchainInfo finds the operator's go command and has it resolve PinnedToolchain (fetching it
// into the operator's module cache the first time), then identifies that toolchain.
func (b *Builder) toolchainInfo(ctx context.Context) (*toolchainInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.toolchain != nil {
		return b.toolchain, nil
	}
	find := b.FindGo
	if find == nil {
		find = FindGo
	}
	goCmd, err := find()
	if err != nil {
		if !errors.Is(err, ErrNoToolchain) {
			err = fmt.Errorf("%w (%v)", ErrNoToolchain, err)
		}
		return nil, err
	}
	dir, err := os.MkdirTemp("", "kamuidash-bundle-env-")
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	// Best effort: the directory only gives the go command a place outside any module.
	defer func() { _ = os.RemoveAll(dir) }()
	out, err := b.run(ctx, Invocation{
		Go:   goCmd,
		Args: []string{"env", "GOVERSION", "GOROOT"},
		Dir:  dir,
		Env:  fetchEnv(),
	})
	// The output is stdout and stderr together, and a first fetch says "go: downloading …" on
	// stderr before the pinned toolchain answers: the go command's own lines are left out. A
	// working go command may say more before its answer (a warning about GOPATH, the runtime's
	// traces that GODEBUG asks for), so the answer is the last two lines, printed as it ends.
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(l, "go: ") {
			lines = append(lines, l)
		}
	}
	switch {
	case err != nil && strings.Contains(string(out), PinnedToolchain):
		// The go command knew what to fetch and could not: a module proxy it cannot reach.
		return nil, fmt.Errorf("%w from the module proxy (%s): %s\nLet it reach your module proxy or mirror "+
			"(GOPROXY, GONOSUMDB, GOFLAGS, as for any module), or install %s and set %s to its go command",
			ErrToolchainFetch, goCmd, trimOutput(out), PinnedToolchain, GoEnvVar)
	case err != nil || len(lines) < 2:
		return nil, fmt.Errorf("%w (%s env: %v: %s)", ErrNoToolchain, goCmd, err, trimOutput(out))
	}
	lines = lines[len(lines)-2:]
	info := &toolchainInfo{version: strings.TrimSpace(lines[0]), goroot: strings.TrimSpace(lines[1])}
	if info.version != PinnedToolchain {
		// A go command older than 1.21 ignores GOTOOLCHAIN and answers for itself.
		return nil, fmt.Errorf("%w (%s at %s answered for itself instead of fetching %s)", ErrNoToolchain, info.version, goCmd, PinnedToolchain)
	}
	info.goCmd = goCommandIn(info.goroot)
	b.toolchain = info
	return info, nil
}
