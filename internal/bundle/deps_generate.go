package bundle

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/sumdb/dirhash"
)

// This file makes the router's dependency tree (RouterDepsDir) from a checkout: the go command
// lists what the router's main package needs, and the files come from the module cache. It is
// development tooling (cmd/router-deps, the drift check); a provider only reads the tree.

// listedPackage is the part of `go list -json` output the tree needs.
type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	Module     *listedModule
	// The files a build of the package reads for the listed platform.
	GoFiles, SFiles, HFiles, EmbedFiles, SysoFiles []string
	Error                                          *struct{ Err string }
	DepsErrors                                     []*struct{ Err string }
}

type listedModule struct {
	Path      string
	Version   string
	Dir       string
	GoVersion string
	Main      bool
	Replace   *listedModule
}

// depPackage is one third-party package with the files its builds read on any RouterPlatform.
type depPackage struct {
	dir    string // in the module cache
	module *listedModule
	files  map[string]bool // relative to dir, slash-separated
}

// licensePrefixes are the file names `go mod vendor` keeps beside the sources as the modules'
// legal notices (cmd/go's metaPrefixes).
var licensePrefixes = []string{"AUTHORS", "CONTRIBUTORS", "COPYLEFT", "COPYING", "COPYRIGHT", "LEGAL", "LICENSE", "NOTICE", "PATENTS"}

// listRouterDeps asks goCmd, in the module at repoRoot, for the packages outside the standard
// library and this module that the router's main package imports on each RouterPlatform.
func listRouterDeps(ctx context.Context, goCmd, repoRoot string) (map[string]*depPackage, error) {
	pkgs := map[string]*depPackage{}
	for _, t := range routerRecipe.targets {
		out, err := RunGo(ctx, Invocation{
			Go:   goCmd,
			Args: []string{"list", "-deps", "-json=ImportPath,Dir,Standard,Module,GoFiles,SFiles,HFiles,EmbedFiles,SysoFiles,Error,DepsErrors", t.pkg},
			Dir:  repoRoot,
			Env:  depsListEnv(t.platform),
		})
		if err != nil {
			return nil, fmt.Errorf("bundle: go list %s for %s: %v\n%s", t.pkg, t.platform, err, trimOutput(out))
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var p listedPackage
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, fmt.Errorf("bundle: go list %s for %s: %w", t.pkg, t.platform, err)
			}
			if p.Error != nil {
				return nil, fmt.Errorf("bundle: go list %s for %s: %s", p.ImportPath, t.platform, p.Error.Err)
			}
			if len(p.DepsErrors) > 0 {
				return nil, fmt.Errorf("bundle: go list %s for %s: %s", p.ImportPath, t.platform, p.DepsErrors[0].Err)
			}
			if p.Standard || p.Module == nil || p.Module.Main {
				continue
			}
			if p.Module.Replace != nil {
				// vendor/modules.txt would need the replacement, and the go.sum hash would not match.
				return nil, fmt.Errorf("bundle: the router needs %s from %s, which go.mod replaces: the dependency tree supports no replacements", p.ImportPath, p.Module.Path)
			}
			dp := pkgs[p.ImportPath]
			if dp == nil {
				dp = &depPackage{dir: p.Dir, module: p.Module, files: map[string]bool{}}
				pkgs[p.ImportPath] = dp
			}
			for _, list := range [][]string{p.GoFiles, p.SFiles, p.HFiles, p.EmbedFiles, p.SysoFiles} {
				for _, f := range list {
					dp.files[filepath.ToSlash(f)] = true
				}
			}
		}
	}
	return pkgs, nil
}

// depsListEnv is the environment of the listing for p: the caller's own (module proxy and
// cache, so that a module not yet downloaded is fetched), with everything that decides which
// files a build reads pinned as the bundle's build pins it, and the pinned toolchain, whose
// release tags decide files too.
func depsListEnv(p Platform) []string {
	env := fetchEnv()
	for _, kv := range pinnedEnv {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "CGO_ENABLED", "GO111MODULE", "GOAMD64", "GOARM64", "GOEXPERIMENT":
			env = append(env, kv)
		}
	}
	// Later entries win: the caller's GOFLAGS (-tags, -mod) must not reach the listing.
	return append(env, "GOOS="+p.OS, "GOARCH="+p.Arch, "GOFLAGS=-mod=readonly")
}

// writeRouterDepsTree lists the router's dependencies in the module at repoRoot and writes
// the tree, manifest included, into the empty directory outDir.
func writeRouterDepsTree(ctx context.Context, goCmd, repoRoot, outDir string) error {
	goMod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		return fmt.Errorf("bundle: %w (run from the repository root)", err)
	}
	if p := modfile.ModulePath(goMod); p != modulePath {
		return fmt.Errorf("bundle: %s is the root of %q, not of %s", repoRoot, p, modulePath)
	}
	pkgs, err := listRouterDeps(ctx, goCmd, repoRoot)
	if err != nil {
		return err
	}
	sums, err := readGoSum(filepath.Join(repoRoot, "go.sum"))
	if err != nil {
		return err
	}
	mods := map[string]*DepModule{}
	for _, importPath := range slices.Sorted(maps.Keys(pkgs)) {
		p := pkgs[importPath]
		m := mods[p.module.Path]
		if m == nil {
			sum, err := verifiedSum(p.module, sums)
			if err != nil {
				return err
			}
			m = &DepModule{Path: p.module.Path, Version: p.module.Version, Sum: sum, GoVersion: p.module.GoVersion}
			mods[p.module.Path] = m
		}
		m.Packages = append(m.Packages, importPath)
		for _, f := range slices.Sorted(maps.Keys(p.files)) {
			if path.Base(f) == "go.mod" {
				// go:embed refuses a directory holding a go.mod (another module's root).
				return fmt.Errorf("bundle: %s embeds %s, which the dependency tree cannot carry", importPath, f)
			}
			if err := copyFile(filepath.Join(p.dir, filepath.FromSlash(f)), filepath.Join(outDir, filepath.FromSlash(importPath+"/"+f))); err != nil {
				return err
			}
		}
		if err := copyLicenses(p, importPath, outDir); err != nil {
			return err
		}
	}
	list := make([]DepModule, 0, len(mods))
	for _, m := range mods {
		list = append(list, *m)
	}
	return os.WriteFile(filepath.Join(outDir, DepsManifestName), FormatDepsManifest(list), 0o644)
}

// copyLicenses copies the legal notices found in the package's directory and each directory
// above it up to its module's root, as `go mod vendor` does.
func copyLicenses(p *depPackage, importPath, outDir string) error {
	rel, err := filepath.Rel(p.module.Dir, p.dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("bundle: %s is not inside its module's directory %s", p.dir, p.module.Dir)
	}
	dir, target := p.dir, importPath
	for {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() && isLicenseFile(e.Name()) {
				if err := copyFile(filepath.Join(dir, e.Name()), filepath.Join(outDir, filepath.FromSlash(target), e.Name())); err != nil {
					return err
				}
			}
		}
		if filepath.Clean(dir) == filepath.Clean(p.module.Dir) {
			return nil
		}
		dir, target = filepath.Dir(dir), path.Dir(target)
	}
}

func isLicenseFile(name string) bool {
	for _, prefix := range licensePrefixes {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// copyFile copies src to dst with fixed permissions: the tree must not depend on the module
// cache's read-only modes or the caller's umask.
func copyFile(src, dst string) error {
	content, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	if err := os.WriteFile(dst, content, 0o644); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	return nil
}

// readGoSum returns go.sum's module hashes ("h1:…") by "path version". go.sum is three fields
// a line; its /go.mod lines hash only a go.mod, so they are left out.
func readGoSum(file string) (map[string]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && !strings.HasSuffix(f[1], "/go.mod") {
			sums[f[0]+" "+f[1]] = f[2]
		}
	}
	return sums, sc.Err()
}

// verifiedSum returns m's go.sum hash after checking that the module cache's copy, which the
// tree is made from, still has it (as `go mod verify` does).
func verifiedSum(m *listedModule, sums map[string]string) (string, error) {
	want, ok := sums[m.Path+" "+m.Version]
	if !ok {
		return "", fmt.Errorf("bundle: go.sum has no hash for %s %s: run 'go mod tidy'", m.Path, m.Version)
	}
	got, err := dirhash.HashDir(m.Dir, m.Path+"@"+m.Version, dirhash.Hash1)
	if err != nil {
		return "", fmt.Errorf("bundle: hashing %s %s in the module cache: %w", m.Path, m.Version, err)
	}
	if got != want {
		return "", fmt.Errorf("bundle: the module cache's %s %s (%s) does not match go.sum (%s): run 'go clean -modcache' and try again", m.Path, m.Version, got, want)
	}
	return want, nil
}
