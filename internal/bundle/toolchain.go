package bundle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// GoEnvVar names the environment variable that points the builder at a Go command when `go`
// is not on PATH (or a different toolchain should build the bundle).
const GoEnvVar = "KAMUIDASH_GO"

// ErrNoToolchain reports that no Go command could be found. The provider surfaces it as a
// plan-time diagnostic; its message says how to fix it.
var ErrNoToolchain = errors.New("no Go toolchain found: install Go " + minGoVersion +
	"+ and put it on PATH, or set " + GoEnvVar + "=/path/to/go")

// minGoVersion is the oldest toolchain that accepts the synthetic module's go line.
const minGoVersion = "1.26"

// Invocation is one run of the go command.
type Invocation struct {
	Go   string   // path of the go command
	Args []string // arguments after the command name
	Dir  string   // working directory
	Env  []string // the complete environment; nothing is inherited
}

// FindGo is the default locator: $KAMUIDASH_GO when set, else `go` on PATH. A missing
// command returns an error wrapping ErrNoToolchain.
func FindGo() (string, error) {
	if p := os.Getenv(GoEnvVar); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w (%s=%s: %v)", ErrNoToolchain, GoEnvVar, p, err)
		}
		return p, nil
	}
	p, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("%w (%v)", ErrNoToolchain, err)
	}
	return p, nil
}

// RunGo is the default runner: it executes inv and returns stdout and stderr combined, which
// is what a build failure should show.
func RunGo(ctx context.Context, inv Invocation) ([]byte, error) {
	cmd := exec.CommandContext(ctx, inv.Go, inv.Args...)
	cmd.Dir = inv.Dir
	cmd.Env = inv.Env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.Bytes(), err
}

// toolchainInfo identifies the toolchain for cache keys and locates wasm_exec.js.
type toolchainInfo struct {
	goCmd   string
	version string // `go version` output, trimmed
	goroot  string
}

// BuildError is a failed go command; Output holds what the compiler said (trimmed).
type BuildError struct {
	Target string // what was being built, e.g. "worker js/wasm"
	Output string
	Err    error
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("bundle: building %s: %v\n%s", e.Target, e.Err, e.Output)
}

func (e *BuildError) Unwrap() error { return e.Err }

// maxOutput bounds the compiler output kept in an error: enough for every real message,
// not enough to flood a plan.
const maxOutput = 8 << 10

func trimOutput(out []byte) string {
	s := strings.TrimSpace(string(out))
	if len(s) > maxOutput {
		s = s[:maxOutput] + "\n…(output truncated)"
	}
	return s
}
