package bundle

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// GoEnvVar names the environment variable that points the builder at a Go command when `go`
// is not on PATH (or a different toolchain should build the bundle).
const GoEnvVar = "KAMUIDASH_GO"

// PinnedToolchain is the Go release every bundle is built with, whatever Go the operator has
// installed: edge.wasm from two patch releases differs, and two machines (or a machine and CI)
// building different bytes would see a Worker update in every plan, which the guard then
// refuses beside any other change. The operator's go command fetches this release from the
// module proxy the first time (GOTOOLCHAIN; it lands in the operator's module cache, about
// 76 MB), which Go 1.21 and newer can do. scripts/build-worker.sh and build-router.sh read the same file.
var PinnedToolchain = strings.TrimSpace(pinnedToolchainFile)

//go:embed go-toolchain
var pinnedToolchainFile string

// minOperatorGo is the oldest go command that can fetch PinnedToolchain (GOTOOLCHAIN).
const minOperatorGo = "1.21"

// ErrNoToolchain reports that no Go command could be found, or none that can fetch the pinned
// release. The provider surfaces it as a plan-time diagnostic; its message says how to fix it.
var ErrNoToolchain = errors.New("no usable Go toolchain: install Go " + minOperatorGo +
	" or newer and put it on PATH, or set " + GoEnvVar + "=/path/to/go (the bundle is built with " +
	PinnedToolchain + ", which that go command fetches from the module proxy once)")

// ErrToolchainFetch reports that the go command could not fetch PinnedToolchain.
var ErrToolchainFetch = errors.New("the go command could not fetch " + PinnedToolchain)

// minGoVersion is the go line of the synthetic module the pinned toolchain builds.
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
	goCmd   string // the pinned toolchain's own go command
	version string // its GOVERSION: PinnedToolchain
	goroot  string
}

// fetchEnv is the environment in which the operator's go command resolves PinnedToolchain: the
// operator's own (GOPROXY, GONOSUMDB, GOFLAGS, a go env file: whatever reaches their module
// proxy or mirror, and their module cache, where the go command keeps the toolchains it
// fetched, so one fetch serves every later build), with the toolchain asked for. Nothing here
// reaches a build: the builds run the pinned toolchain with the pinned environment (buildEnv).
// The variables that only configure what a build produces are neutralised: the go command checks
// them whenever it starts, so one the pinned release does not know (an experiment of the
// operator's newer Go, say) would fail the resolution, reported as a missing toolchain, for a
// setting no build uses.
func fetchEnv() []string {
	env := []string{}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOTOOLCHAIN", "GOROOT", "GOWORK":
			continue
		}
		if slices.ContainsFunc(fetchNeutralEnv, func(n string) bool { return strings.HasPrefix(n, name+"=") }) {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GOTOOLCHAIN="+PinnedToolchain, "GOWORK=off")
	return append(env, fetchNeutralEnv...)
}

// fetchNeutralEnv are the build settings the go command validates whenever it starts, each set
// to a value every release accepts. An empty value is the default, but a go env file's value
// (`go env -w`) takes its place for the two read from there too, which get an explicit one
// instead: nothing is built in the fetch, so which valid value does not matter.
var fetchNeutralEnv = []string{
	"GO386=", "GOAMD64=", "GOARM=", "GOARM64=", "GOEXPERIMENT=none", "GOFIPS140=off",
	"GOMIPS=", "GOMIPS64=", "GOPPC64=", "GORISCV64=", "GOWASM=",
}

// goCommandIn is the go command of the toolchain at goroot.
func goCommandIn(goroot string) string {
	name := "go"
	if runtime.GOOS == "windows" {
		name = "go.exe"
	}
	return filepath.Join(goroot, "bin", name)
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
