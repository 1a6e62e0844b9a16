package runtime

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrNoMiniflare says how to install the runtime; every "not found" error wraps it.
var ErrNoMiniflare = errors.New("node_modules/miniflare not found: run npm ci at the repo root (or pass --node-modules DIR)")

// FindNodeModules returns the node_modules directory holding Miniflare: dir itself when
// given, else the nearest one found walking up from start (the working directory, so the
// command works from anywhere inside a checkout).
func FindNodeModules(dir, start string) (string, error) {
	if dir != "" {
		if !hasMiniflare(dir) {
			return "", fmt.Errorf("%s has no miniflare package: %w", dir, ErrNoMiniflare)
		}
		return filepath.Abs(dir)
	}
	for d := start; ; {
		candidate := filepath.Join(d, "node_modules")
		if hasMiniflare(candidate) {
			return candidate, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("searched upwards from %s: %w", start, ErrNoMiniflare)
		}
		d = parent
	}
}

func hasMiniflare(nodeModules string) bool {
	_, err := os.Stat(filepath.Join(nodeModules, "miniflare", "package.json"))
	return err == nil
}

// FindNode returns the node executable on PATH.
func FindNode() (string, error) {
	p, err := exec.LookPath("node")
	if err != nil {
		return "", errors.New("node is not on PATH: install Node.js 20 or later (with npm; Debian: apt-get install nodejs npm)")
	}
	return p, nil
}
