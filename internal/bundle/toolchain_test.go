package bundle

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// The fix must be in the message: the provider shows it as the plan-time diagnostic.
func assertNoToolchain(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrNoToolchain) {
		t.Fatalf("err = %v, want ErrNoToolchain", err)
	}
	for _, want := range []string{"install Go 1.26+", "PATH", "KAMUIDASH_GO=/path/to/go"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestMissingToolchain_DefaultLocator(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(GoEnvVar, "")
	c := &goCounter{}
	b := &Builder{Sources: repoSources, CacheDir: t.TempDir(), RunGo: c.run}

	_, err := b.Worker(context.Background())
	assertNoToolchain(t, err)
	_, err = b.Router(context.Background())
	assertNoToolchain(t, err)
	if n := c.total.Load(); n != 0 {
		t.Errorf("the go command ran %d times without a toolchain", n)
	}
}

func TestMissingToolchain_EnvVarPointsNowhere(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "go")
	t.Setenv(GoEnvVar, missing)
	_, err := FindGo()
	assertNoToolchain(t, err)
	if !strings.Contains(err.Error(), missing) {
		t.Errorf("error %q does not name %s", err, missing)
	}
}

func TestMissingToolchain_HookErrorIsWrapped(t *testing.T) {
	b := &Builder{
		Sources:  repoSources,
		CacheDir: t.TempDir(),
		FindGo:   func() (string, error) { return "", errors.New("no go here") },
	}
	_, err := b.Worker(context.Background())
	assertNoToolchain(t, err)
	if !strings.Contains(err.Error(), "no go here") {
		t.Errorf("error %q lost the locator's cause", err)
	}
}

func TestToolchainTooOld(t *testing.T) {
	b := &Builder{
		Sources:  repoSources,
		CacheDir: t.TempDir(),
		FindGo:   func() (string, error) { return "/opt/go1.22/bin/go", nil },
		RunGo: func(_ context.Context, inv Invocation) ([]byte, error) {
			if inv.Args[0] != "env" {
				t.Errorf("ran go %v with a toolchain that is too old", inv.Args)
			}
			return []byte("go1.22.5\n/opt/go1.22\n"), nil
		},
	}
	_, err := b.Worker(context.Background())
	assertNoToolchain(t, err)
	if !strings.Contains(err.Error(), "go1.22.5") {
		t.Errorf("error %q does not name the old version", err)
	}
}

func TestRecentEnough(t *testing.T) {
	for version, want := range map[string]bool{
		"go1.26":                  true,
		"go1.26.8":                true,
		"go1.27rc1":               true,
		"go1.30.1":                true,
		"devel go1.27-abcdef Fri": true,
		"go1.25.9":                false,
		"go1.9":                   false,
		"go2":                     false,
		"":                        false,
	} {
		if got := recentEnough(version); got != want {
			t.Errorf("recentEnough(%q) = %v, want %v", version, got, want)
		}
	}
}

// The build environment is complete on its own: a GOFLAGS or GOEXPERIMENT of the caller must
// not reach the compiler.
func TestBuildEnvIgnoresTheCaller(t *testing.T) {
	t.Setenv("GOFLAGS", "-race")
	t.Setenv("GOEXPERIMENT", "nosuchexperiment")
	t.Setenv("GOPROXY", "http://127.0.0.1:1")
	env := buildEnv(Platform{OS: "js", Arch: "wasm"}, "/c", "/d")
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := got[k]; dup {
			t.Errorf("%s set twice", k)
		}
		got[k] = v
	}
	for k, want := range map[string]string{
		"GOFLAGS": "", "GOEXPERIMENT": "", "GOPROXY": "off", "GOTOOLCHAIN": "local", "GOWORK": "off",
		"CGO_ENABLED": "0", "GOENV": "off", "GOOS": "js", "GOARCH": "wasm", "GOCACHE": "/c",
	} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("%s = %q (set %v), want %q", k, v, ok, want)
		}
	}
}
