package bundle

import (
	"context"
	"errors"
	"os"
	"os/exec"
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
	for _, want := range []string{"install Go " + minOperatorGo + " or newer", "PATH", "KAMUIDASH_GO=/path/to/go"} {
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

// TestToolchainTooOld: a go command older than 1.21 ignores GOTOOLCHAIN and answers for
// itself; nothing is built with it, and the error names it.
func TestToolchainTooOld(t *testing.T) {
	b := &Builder{
		Sources:  repoSources,
		CacheDir: t.TempDir(),
		FindGo:   func() (string, error) { return "/opt/go1.20/bin/go", nil },
		RunGo: func(_ context.Context, inv Invocation) ([]byte, error) {
			if inv.Args[0] != "env" {
				t.Errorf("ran go %v with a toolchain that is too old", inv.Args)
			}
			return []byte("go1.20.5\n/opt/go1.20\n"), nil
		},
	}
	_, err := b.Worker(context.Background())
	assertNoToolchain(t, err)
	if !strings.Contains(err.Error(), "go1.20.5") || !strings.Contains(err.Error(), PinnedToolchain) {
		t.Errorf("error %q does not name the old version and the pinned one", err)
	}
}

// TestPinnedToolchainResolvedThroughTheOperatorsProxy: the operator's go command is asked for
// the pinned release with the operator's module proxy settings (a mirror must keep working)
// and module cache (one fetch serves every build), and the builds then run that release's own
// go command with the pinned environment: no proxy, no further switch.
func TestPinnedToolchainResolvedThroughTheOperatorsProxy(t *testing.T) {
	t.Setenv("GOPROXY", "https://mirror.invalid/go")
	t.Setenv("GONOSUMDB", "corp.invalid")
	t.Setenv("GOTOOLCHAIN", "local")
	t.Setenv("GOMODCACHE", "/home/operator/go/pkg/mod")
	cache := t.TempDir()
	var fetch Invocation
	b := &Builder{
		Sources:  repoSources,
		CacheDir: cache,
		FindGo:   func() (string, error) { return "/usr/lib/go-1.27/bin/go", nil },
		RunGo: func(_ context.Context, inv Invocation) ([]byte, error) {
			fetch = inv
			// A first fetch: the go command says so on stderr before the toolchain answers.
			return []byte("go: downloading " + PinnedToolchain + " (linux/amd64)\n" + PinnedToolchain +
				"\n/cache/golang.org/toolchain@v0.0.1-" + PinnedToolchain + "\n"), nil
		},
	}
	tc, err := b.toolchainInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range fetch.Env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := env[k]; dup {
			t.Errorf("%s set twice in the fetch environment", k)
		}
		env[k] = v
	}
	for k, want := range map[string]string{
		"GOTOOLCHAIN": PinnedToolchain, "GOPROXY": "https://mirror.invalid/go", "GONOSUMDB": "corp.invalid",
		"GOMODCACHE": "/home/operator/go/pkg/mod",
	} {
		if env[k] != want {
			t.Errorf("fetch environment %s = %q, want %q", k, env[k], want)
		}
	}
	if fetch.Go != "/usr/lib/go-1.27/bin/go" {
		t.Errorf("the fetch ran %s, want the operator's go command", fetch.Go)
	}
	if want := goCommandIn("/cache/golang.org/toolchain@v0.0.1-" + PinnedToolchain); tc.goCmd != want || tc.version != PinnedToolchain {
		t.Errorf("toolchain %+v, want %s's own go command %s", tc, PinnedToolchain, want)
	}
}

// TestPinnedToolchainFetchFails: a go command that knows what to fetch and cannot reach the
// module proxy gets an error saying which release, why, and the two ways out.
func TestPinnedToolchainFetchFails(t *testing.T) {
	b := &Builder{
		Sources:  repoSources,
		CacheDir: t.TempDir(),
		FindGo:   func() (string, error) { return "/usr/local/go/bin/go", nil },
		RunGo: func(context.Context, Invocation) ([]byte, error) {
			return []byte("go: downloading " + PinnedToolchain + " (linux/amd64)\ngo: download " + PinnedToolchain +
				": golang.org/toolchain@v0.0.1-" + PinnedToolchain + ".linux-amd64.zip: dial tcp: connection refused\n"), errors.New("exit status 1")
		},
	}
	_, err := b.Worker(context.Background())
	if !errors.Is(err, ErrToolchainFetch) {
		t.Fatalf("error %v, want ErrToolchainFetch", err)
	}
	for _, want := range []string{PinnedToolchain, "connection refused", "GOPROXY", GoEnvVar} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
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

// TestPinnedToolchain_SameBytesFromTwoGoReleases: an operator with this machine's go and one
// with another release (fetched here through the module proxy, as an operator might install
// it) build the same Worker bytes and report the same toolchain: each builds with the pinned
// release. The first run fetches up to two toolchains (about 76 MB each) into the module cache.
func TestPinnedToolchain_SameBytesFromTwoGoReleases(t *testing.T) {
	const other = "go1.26.0"
	if PinnedToolchain == other {
		t.Fatalf("the other release must not be the pinned one (%s)", other)
	}
	cmd := exec.Command("go", "env", "GOROOT")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+other)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fetching %s through the module proxy: %v\n%s", other, err, out)
	}
	otherGo := goCommandIn(strings.TrimSpace(string(out)))
	if v, err := exec.Command(otherGo, "env", "GOVERSION").Output(); err != nil || strings.TrimSpace(string(v)) != other {
		t.Fatalf("%s says it is %q (%v), want %s", otherGo, v, err, other)
	}

	mine, _, _ := sharedWorker(t)
	b := &Builder{
		Sources:    repoSources,
		CacheDir:   newTempDir(t, "cache-"),
		GoCacheDir: sharedGoCache(),
		FindGo:     func() (string, error) { return otherGo, nil },
	}
	theirs, err := b.Worker(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if theirs.SHA256 != mine.SHA256 || theirs.GoVersion != PinnedToolchain || mine.GoVersion != PinnedToolchain {
		t.Errorf("with %s installed: %s built by %s; with this machine's go: %s built by %s; want the same bytes from %s",
			other, theirs.SHA256, theirs.GoVersion, mine.SHA256, mine.GoVersion, PinnedToolchain)
	}
}

// TestPinnedToolchainResolvedDespiteTheOperatorsBuildSettings: variables that only configure
// what a build produces (an experiment, a GOWASM feature, a FIPS module version) never reach the
// bundle's builds, so values the pinned release does not know, in the environment or in a go env
// file, must not stop it from being resolved either, let alone read as a missing toolchain.
func TestPinnedToolchainResolvedDespiteTheOperatorsBuildSettings(t *testing.T) {
	for name, value := range map[string]string{
		"GOEXPERIMENT": "nosuchexperiment", // known only to a newer release, say
		"GOWASM":       "nosuchfeature",
		"GOFIPS140":    "v9.9.9",
		"GOARM64":      "v9.9",
		"GOMIPS":       "nosuchfloat",
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, value)
			assertPinnedToolchainResolves(t)
		})
		t.Run(name+"InGoEnvFile", func(t *testing.T) {
			goEnv := filepath.Join(t.TempDir(), "go.env")
			if err := os.WriteFile(goEnv, []byte(name+"="+value+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("GOENV", goEnv)
			assertPinnedToolchainResolves(t)
		})
	}
}

func assertPinnedToolchainResolves(t *testing.T) {
	t.Helper()
	b := &Builder{Sources: repoSources, CacheDir: t.TempDir()}
	tc, err := b.toolchainInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tc.version != PinnedToolchain {
		t.Errorf("toolchain %s, want %s", tc.version, PinnedToolchain)
	}
}

// TestPinnedToolchainAnswerFoundAmidWarnings: a working go command may write more than the
// answer to stderr, which comes back in the same output: a warning about the operator's GOPATH,
// the runtime's traces when GODEBUG asks for them. The answer is still the toolchain's, not a
// missing one.
func TestPinnedToolchainAnswerFoundAmidWarnings(t *testing.T) {
	t.Run("GOPATHIsGOROOT", func(t *testing.T) {
		goroot := "/usr/local/go"
		b := &Builder{
			Sources:  repoSources,
			CacheDir: t.TempDir(),
			FindGo:   func() (string, error) { return goroot + "/bin/go", nil },
			RunGo: func(context.Context, Invocation) ([]byte, error) {
				// What the go command says, on stderr, when GOPATH is its GOROOT.
				return []byte("warning: both GOPATH and GOROOT are the same directory (" + goroot + ")\n" +
					PinnedToolchain + "\n" + goroot + "\n"), nil
			},
		}
		tc, err := b.toolchainInfo(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if tc.version != PinnedToolchain || tc.goroot != goroot {
			t.Errorf("toolchain %+v, want %s at %s", tc, PinnedToolchain, goroot)
		}
	})
	t.Run("GODEBUGTraces", func(t *testing.T) {
		t.Setenv("GODEBUG", "inittrace=1")
		assertPinnedToolchainResolves(t)
	})
}
