package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// The pinned npm manifest a provider binary carries: Miniflare (with workerd) at the versions
// the lockfile names.
const (
	npmManifest = "package.json"
	npmLockfile = "package-lock.json"
)

// ErrNoNPM says what to install when npm is missing.
var ErrNoNPM = errors.New("npm is not on PATH: install Node.js 20 or later with npm (Debian: apt-get install nodejs npm), " +
	"or pass --node-modules DIR holding an installed miniflare")

// InstallNodeModules returns a node_modules holding the packages manifest pins (package.json and
// package-lock.json), installed with `npm ci` under cacheRoot, once per lockfile: a provider
// binary run outside a checkout carries its manifest and needs no repository. The install goes
// to a directory of its own and is renamed into place when complete, so an interrupted or
// concurrent install never leaves a half-filled node_modules behind. progress gets one line when
// an install starts and one when it ends; npm's own output goes to a log file that an error
// names.
func InstallNodeModules(ctx context.Context, manifest fs.FS, cacheRoot string, progress io.Writer) (string, error) {
	pkg, err := fs.ReadFile(manifest, npmManifest)
	if err != nil {
		return "", fmt.Errorf("the npm manifest: %w", err)
	}
	lock, err := fs.ReadFile(manifest, npmLockfile)
	if err != nil {
		return "", fmt.Errorf("the npm lockfile: %w", err)
	}
	sum := sha256.Sum256(lock)
	name := "npm-" + hex.EncodeToString(sum[:8])
	final := filepath.Join(cacheRoot, name)
	nodeModules := filepath.Join(final, "node_modules")
	if hasMiniflare(nodeModules) {
		return nodeModules, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", ErrNoNPM
	}
	if err := os.MkdirAll(cacheRoot, 0o700); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(cacheRoot, name+".installing-")
	if err != nil {
		return "", err
	}
	// Gone once renamed; on failure a leftover only takes space (its name is never looked up).
	defer func() { _ = os.RemoveAll(work) }()
	for file, content := range map[string][]byte{npmManifest: pkg, npmLockfile: lock} {
		if err := os.WriteFile(filepath.Join(work, file), content, 0o600); err != nil {
			return "", err
		}
	}
	logPath := filepath.Join(cacheRoot, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", err
	}
	defer func() { _ = logFile.Close() }() // npm wrote to it through a descriptor of its own
	// Progress lines are best effort: the install is the same whether or not anyone reads them.
	_, _ = fmt.Fprintf(progress, "localedge: installing the local edge's npm packages (Miniflare with workerd, about 250 MB, once per provider version) into %s…\n", final)
	start := time.Now()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--no-update-notifier")
	cmd.Dir = work
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm ci failed (%v); its output is in %s", err, logPath)
	}
	if !hasMiniflare(filepath.Join(work, "node_modules")) {
		return "", fmt.Errorf("npm ci installed no miniflare package; its output is in %s", logPath)
	}
	if err := os.Rename(work, final); err != nil && !hasMiniflare(nodeModules) {
		return "", fmt.Errorf("moving the installed packages into place: %w", err)
	}
	// Either this install is in place, or a concurrent one got there first: both are complete.
	_, _ = fmt.Fprintf(progress, "localedge: npm packages installed in %s\n", time.Since(start).Round(time.Second))
	return nodeModules, nil
}
