package localedge

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/kubeaccess"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localcluster"
)

// The cluster side on this machine: an OCI registry the router image is pushed to, and (with
// --kube-assets) a real Kubernetes API server the router's NetworkPolicy is applied to. No pod
// runs: the local edge runs the router binary itself (--router); these two are what the
// cluster-side resources talk to, so that a configuration that manages them applies here as it
// does against a real cluster.

// routerNamespace is created in the local cluster, as installing the router would: the
// router's NetworkPolicy lives there.
const routerNamespace = "kamuidash-system"

// startRegistry serves an in-memory OCI distribution registry on a free loopback port (plain
// HTTP, which registry clients use for loopback hosts). Images last as long as the process:
// after a restart the router image resource sees its image gone and pushes it again.
func startRegistry() (addr string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("the local registry: %w", err)
	}
	srv := &http.Server{Handler: registry.New(registry.Logger(log.New(io.Discard, "", 0))), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// startCluster starts etcd and kube-apiserver from assets, writes an administrator's
// kubeconfig to kubeconfigPath and creates the router's namespace. Their output goes to
// files beside the kubeconfig.
func startCluster(ctx context.Context, assets, dir string, progress io.Writer) (kubeconfigPath string, stop func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	logs := make([]*os.File, 0, 2)
	for _, name := range []string{"etcd.log", "kube-apiserver.log"} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return "", nil, err
		}
		logs = append(logs, f)
	}
	closeLogs := func() {
		for _, f := range logs {
			_ = f.Close() // best effort: logs to read after a failure, nothing depends on them
		}
	}
	// Progress lines are best effort here and elsewhere in the package: the local edge works
	// the same whether or not anyone reads them.
	_, _ = fmt.Fprintln(progress, "starting etcd and kube-apiserver from "+assets+" (logs in "+dir+")…")
	started := time.Now()
	cluster, err := localcluster.Start(assets, logs[0], logs[1])
	if err != nil {
		closeLogs()
		return "", nil, fmt.Errorf("--kube-assets: %w (see %s)", err, filepath.Join(dir, "kube-apiserver.log"))
	}
	stop = func() { _ = cluster.Stop(); closeLogs() }
	kubeconfig, err := kubeaccess.Kubeconfig(cluster.Config, "localedge")
	if err == nil {
		kubeconfigPath = filepath.Join(dir, "kubeconfig")
		err = writeFileAtomic(kubeconfigPath, kubeconfig)
	}
	if err == nil {
		err = createNamespace(ctx, cluster.Config, routerNamespace)
	}
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("the local cluster: %w", err)
	}
	_, _ = fmt.Fprintf(progress, "Kubernetes API at %s, ready in %s\n", cluster.Config.Host, time.Since(started).Round(100*time.Millisecond))
	return kubeconfigPath, stop, nil
}

func createNamespace(ctx context.Context, cfg *rest.Config, name string) error {
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	_, err = c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
