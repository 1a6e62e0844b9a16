package bundle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrRouterDepsStale reports that the committed dependency tree is not what go.mod and the
// router's imports call for.
var ErrRouterDepsStale = errors.New(RouterDepsDir + " is stale: run 'make router-deps' and commit the result")

// UpdateRouterDeps regenerates the router's dependency tree (RouterDepsDir) in the checkout at
// repoRoot from its go.mod and the module cache. The tree is written beside the old one and
// swapped in whole, so a failure leaves the old tree as it was.
func UpdateRouterDeps(ctx context.Context, repoRoot string) error {
	goCmd, err := FindGo()
	if err != nil {
		return err
	}
	final := filepath.Join(repoRoot, filepath.FromSlash(RouterDepsDir))
	// A dot directory: the go command ignores it while it exists.
	tmp, err := os.MkdirTemp(filepath.Dir(final), ".deps-new-")
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }() // gone after the rename; a failed run leaves nothing else
	if err := writeRouterDepsTree(ctx, goCmd, repoRoot, tmp); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	if err := os.RemoveAll(final); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	return nil
}

// CheckRouterDeps regenerates the dependency tree of the checkout at repoRoot into a temporary
// directory and compares it with the committed one, file by file. A difference is an error
// wrapping ErrRouterDepsStale that names the files.
func CheckRouterDeps(ctx context.Context, repoRoot string) error {
	goCmd, err := FindGo()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "kamuidash-router-deps-")
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }() // a temporary directory: a leftover only takes space
	if err := writeRouterDepsTree(ctx, goCmd, repoRoot, tmp); err != nil {
		return err
	}
	diffs, err := compareTrees(filepath.Join(repoRoot, filepath.FromSlash(RouterDepsDir)), tmp)
	if err != nil {
		return err
	}
	if len(diffs) > 0 {
		const shown = 20
		if len(diffs) > shown {
			diffs = append(diffs[:shown], fmt.Sprintf("… and %d more", len(diffs)-shown))
		}
		return fmt.Errorf("%w\n  %s", ErrRouterDepsStale, strings.Join(diffs, "\n  "))
	}
	return nil
}

// compareTrees lists how the tree at got differs from the tree at want, one line per file.
// A missing got tree is a tree with no files.
func compareTrees(got, want string) ([]string, error) {
	gotFiles, err := readTree(got)
	if err != nil {
		return nil, err
	}
	wantFiles, err := readTree(want)
	if err != nil {
		return nil, err
	}
	var diffs []string
	for _, p := range slices.Sorted(maps.Keys(wantFiles)) {
		g, ok := gotFiles[p]
		switch {
		case !ok:
			diffs = append(diffs, "missing: "+p)
		case !bytes.Equal(g, wantFiles[p]):
			diffs = append(diffs, "differs: "+p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(gotFiles)) {
		if _, ok := wantFiles[p]; !ok {
			diffs = append(diffs, "not needed: "+p)
		}
	}
	return diffs, nil
}

// readTree returns the regular files under dir by slash-separated relative path.
func readTree(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return fs.SkipAll
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		content, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = content
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	return files, nil
}
