// Package localcluster runs a Kubernetes control plane's API on this machine: etcd and
// kube-apiserver on free loopback ports, through controller-runtime's envtest, for the tests
// (internal/kubetest) and for the local edge (--kube-assets), so that the cluster-side
// resources run against a real API server with no cluster.
//
// Only the API server runs: no controller manager, no scheduler, no nodes. Objects are stored
// and validated, server-side apply and field management work, but no pod ever starts.
package localcluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// AssetsEnv names the directory holding the etcd and kube-apiserver binaries, as envtest
// knows it; scripts/install-tools.sh kube prints that directory.
const AssetsEnv = "KUBEBUILDER_ASSETS"

// startTimeout bounds each process's start; envtest's own default (20 s) is short for a shared,
// loaded machine, where kube-apiserver alone can take that long.
const startTimeout = 2 * time.Minute

func init() {
	// envtest logs through controller-runtime's global logger; without one set, controller-runtime
	// prints a warning with a stack trace after 30 s. The processes' own output goes to the
	// writers Start is given.
	log.SetLogger(logr.Discard())
}

// Cluster is a running etcd and kube-apiserver.
type Cluster struct {
	// Config is an administrator's (group system:masters) client configuration.
	Config *rest.Config
	env    *envtest.Environment
}

// Binaries returns the paths of etcd and kube-apiserver in assets, or an error saying which is
// missing.
func Binaries(assets string) (etcd, apiserver string, err error) {
	if assets == "" {
		return "", "", fmt.Errorf("%s is not set", AssetsEnv)
	}
	etcd, apiserver = filepath.Join(assets, "etcd"), filepath.Join(assets, "kube-apiserver")
	for _, p := range []string{etcd, apiserver} {
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", "", fmt.Errorf("%s has no executable %s", assets, filepath.Base(p))
		}
	}
	return etcd, apiserver, nil
}

// Start starts etcd and kube-apiserver from assets; their output goes to etcdOut and
// apiserverOut. Stop the cluster with Stop: its data is removed then.
func Start(assets string, etcdOut, apiserverOut io.Writer) (*Cluster, error) {
	etcd, apiserver, err := Binaries(assets)
	if err != nil {
		return nil, err
	}
	noExistingCluster := false
	env := &envtest.Environment{
		// Never a cluster named by USE_EXISTING_CLUSTER and a kubeconfig: callers create and
		// delete objects, so they get a server of their own.
		UseExistingCluster:       &noExistingCluster,
		ControlPlaneStartTimeout: startTimeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// Explicit paths: TEST_ASSET_* variables cannot point elsewhere, and kubectl (which envtest
	// only runs for its deprecated helpers) is not needed.
	env.ControlPlane.GetAPIServer().Path = apiserver
	env.ControlPlane.GetAPIServer().Out = apiserverOut
	env.ControlPlane.GetAPIServer().Err = apiserverOut
	env.ControlPlane.Etcd = &envtest.Etcd{Path: etcd, Out: etcdOut, Err: etcdOut}
	cfg, err := env.Start()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("starting etcd and kube-apiserver from %s: %w", assets, err), env.Stop())
	}
	return &Cluster{Config: cfg, env: env}, nil
}

// Stop stops both processes and removes etcd's data.
func (c *Cluster) Stop() error {
	return c.env.Stop()
}
