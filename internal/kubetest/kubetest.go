// Package kubetest starts a real Kubernetes API server for a test: etcd and kube-apiserver,
// both on free loopback ports, through controller-runtime's envtest, and hands back a
// client-go *rest.Config for an administrator (group system:masters).
//
// The binaries come from the directory KUBEBUILDER_ASSETS names; scripts/install-tools.sh kube
// puts them there (etcd from Debian, kube-apiserver built from the Go module proxy) and prints
// that directory, and scripts/test.sh exports it. Without them the test fails, it never skips.
//
// Only the API server runs: no controller manager, no scheduler, no nodes. Objects are stored
// and validated, server-side apply and field management work, but no pod ever starts, nothing
// is garbage-collected and a namespace never finishes terminating, so tests must not wait for
// rollouts or namespace deletion.
package kubetest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// AssetsEnv names the directory holding the etcd and kube-apiserver binaries.
const AssetsEnv = "KUBEBUILDER_ASSETS"

// installHint is what a failing test tells the developer to run.
const installHint = `run: export KUBEBUILDER_ASSETS="$(scripts/install-tools.sh kube)"`

// startTimeout bounds each process's start; envtest's own default (20 s) is short for a shared,
// loaded CI machine, where kube-apiserver alone can take that long.
const startTimeout = 2 * time.Minute

func init() {
	// envtest logs through controller-runtime's global logger; without one set, controller-runtime
	// prints a warning with a stack trace after 30 s. The processes' own output is kept in files
	// (see Start) and shown when a test fails.
	log.SetLogger(logr.Discard())
}

// Start starts etcd and kube-apiserver for t and returns a config for an administrator of that
// server. The processes stop, and their data is removed, when t ends. It fails t (never skips)
// when the binaries are not installed.
func Start(t testing.TB) *rest.Config {
	t.Helper()
	etcd, apiserver := binaries(t)

	logs := t.TempDir()
	apiserverLog := createLog(t, filepath.Join(logs, "kube-apiserver.log"))
	etcdLog := createLog(t, filepath.Join(logs, "etcd.log"))

	noExistingCluster := false
	env := &envtest.Environment{
		// Never a cluster named by USE_EXISTING_CLUSTER and a kubeconfig: tests create and
		// delete objects, so they get a server of their own or none.
		UseExistingCluster:       &noExistingCluster,
		ControlPlaneStartTimeout: startTimeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// Explicit paths: TEST_ASSET_* variables cannot point elsewhere, and kubectl (which envtest
	// only runs for its deprecated helpers) is not needed.
	env.ControlPlane.GetAPIServer().Path = apiserver
	env.ControlPlane.GetAPIServer().Out = apiserverLog
	env.ControlPlane.GetAPIServer().Err = apiserverLog
	env.ControlPlane.Etcd = &envtest.Etcd{Path: etcd, Out: etcdLog, Err: etcdLog}

	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop()
		t.Fatalf("kubetest: starting etcd and kube-apiserver from %s: %v\n%s\n%s", filepath.Dir(apiserver), err,
			tail(apiserverLog.Name(), 40), tail(etcdLog.Name(), 20))
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kubetest: the server's last output, for the failure above:\n%s", tail(apiserverLog.Name(), 40))
		}
		if err := env.Stop(); err != nil {
			t.Errorf("kubetest: stopping etcd and kube-apiserver: %v", err)
		}
	})
	return cfg
}

// binaries returns the paths of etcd and kube-apiserver in KUBEBUILDER_ASSETS, failing t with
// what to run when the variable is unset or a binary is missing.
func binaries(t testing.TB) (etcd, apiserver string) {
	t.Helper()
	dir := os.Getenv(AssetsEnv)
	if dir == "" {
		t.Fatalf("kubetest: %s is not set; this test needs etcd and kube-apiserver, %s", AssetsEnv, installHint)
	}
	etcd, apiserver = filepath.Join(dir, "etcd"), filepath.Join(dir, "kube-apiserver")
	for _, p := range []string{etcd, apiserver} {
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			t.Fatalf("kubetest: %s=%s has no executable %s; %s", AssetsEnv, dir, filepath.Base(p), installHint)
		}
	}
	return etcd, apiserver
}

func createLog(t testing.TB, path string) *os.File {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("kubetest: %v", err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// tail returns the last n lines of the file at path, labelled, for a failure message.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(%s: %v)", filepath.Base(path), err)
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var s strings.Builder
	fmt.Fprintf(&s, "--- last %d lines of %s ---\n", len(lines), filepath.Base(path))
	s.Write(bytes.Join(lines, []byte("\n")))
	return s.String()
}
