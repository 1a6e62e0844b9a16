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

	"k8s.io/client-go/rest"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localcluster"
)

// AssetsEnv names the directory holding the etcd and kube-apiserver binaries.
const AssetsEnv = localcluster.AssetsEnv

// installHint is what a failing test tells the developer to run.
const installHint = `run: export KUBEBUILDER_ASSETS="$(scripts/install-tools.sh kube)"`

// Start starts etcd and kube-apiserver for t and returns a config for an administrator of that
// server. The processes stop, and their data is removed, when t ends. It fails t (never skips)
// when the binaries are not installed.
func Start(t testing.TB) *rest.Config {
	t.Helper()
	assets := os.Getenv(AssetsEnv)
	if _, _, err := localcluster.Binaries(assets); err != nil {
		t.Fatalf("kubetest: %v; this test needs etcd and kube-apiserver, %s", err, installHint)
	}
	logs := t.TempDir()
	apiserverLog := createLog(t, filepath.Join(logs, "kube-apiserver.log"))
	etcdLog := createLog(t, filepath.Join(logs, "etcd.log"))
	cluster, err := localcluster.Start(assets, etcdLog, apiserverLog)
	if err != nil {
		t.Fatalf("kubetest: %v\n%s\n%s", err, tail(apiserverLog.Name(), 40), tail(etcdLog.Name(), 20))
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kubetest: the server's last output, for the failure above:\n%s", tail(apiserverLog.Name(), 40))
		}
		if err := cluster.Stop(); err != nil {
			t.Errorf("kubetest: stopping etcd and kube-apiserver: %v", err)
		}
	})
	return cluster.Config
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
