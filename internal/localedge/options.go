package localedge

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// Options configure Run; each field is a flag of the sub-command.
type Options struct {
	// StateDir holds everything that survives a restart (see the package comment for its
	// layout). Default DefaultStateDir().
	StateDir string
	// APIAddr and EdgeAddr are loopback listen addresses; port 0 picks a free port (the
	// chosen addresses are in the env and ready files).
	APIAddr, EdgeAddr string
	// ReadyFile, when set, is written atomically (same content as <state-dir>/env) once
	// everything listens.
	ReadyFile string
	// ZoneName names the zone of a fresh state dir; ignored once the state dir has one.
	ZoneName string
	// AutoValidate activates custom hostnames that long after creation (0: only by TXT record).
	AutoValidate time.Duration
	// FallbackActivation is how long the zone's fallback origin stays pending_deployment
	// once its proxied record exists (cfapi.Config.FallbackActivation); custom hostnames are
	// served only once it is active.
	FallbackActivation time.Duration
	// KVPropagation delays KV writes on their way to the runtime, as KV's eventual consistency.
	KVPropagation time.Duration
	// APIRateLimit is the global API rate limit the API enforces, with Cloudflare's
	// rate-limit headers (cfapi.RateLimit; --api-rate-limit 1200/5m is Cloudflare's). Default
	// off.
	APIRateLimit cfapi.RateLimit
	// NodeModules is the node_modules holding Miniflare. Default: the nearest one found
	// walking up from the working directory, else NodePackages installed into the cache.
	NodeModules string
	// NodePackages is the pinned npm manifest (package.json and package-lock.json) the
	// provider binary carries (not a flag): installed with npm ci into the user's cache
	// directory, once per lockfile, when no node_modules is found. Default nil: none is
	// installed, and a missing node_modules is an error that says to run npm ci.
	NodePackages fs.FS
	// Router starts the router and sends tunnel ingress aimed at the router's in-cluster
	// service to it.
	Router bool
	// Sources are the bundled sources the router is built from (the provider's embedded
	// worker-src and internal/route; not a flag). Default nil: go build from the checkout.
	Sources fs.FS
	// RouterUpstreamTemplate is the router's --upstream-template: where namespace/service:port
	// upstreams go on this machine.
	RouterUpstreamTemplate string
	// RouterNamespacePrefix is the router's required --namespace-prefix.
	RouterNamespacePrefix string
	// RouterSecretDir, when set, is where the router takes its signing keys from instead of
	// following the loaded Worker's SIGNING_SECRET: files laid out like the router's mounted
	// Kubernetes Secret (signing-secret, optional signing-secret-next), re-read when they
	// change and rolled out with no request dropped, standing in for the cluster's secret
	// store and router rollout (to rehearse a rotation of the signing secret). Default "":
	// follow the Worker.
	RouterSecretDir string
	// KubeAssets, when set, is a directory holding etcd and kube-apiserver: the local edge
	// starts them as the router's cluster API (see cluster.go) and exports KUBECONFIG.
	KubeAssets string
}

// DefaultFallbackActivation is --fallback-activation's default: short, but long enough that
// a configuration that does not wait for the fallback origin to be active is caught (Cloudflare
// takes from seconds to minutes).
const DefaultFallbackActivation = 2 * time.Second

// NodeModulesCacheDir is where the pinned npm packages are installed: <user cache
// dir>/kamuidash/localedge-npm (the working directory's .localedge-npm when the system has no
// cache dir).
func NodeModulesCacheDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "kamuidash", "localedge-npm")
	}
	return ".localedge-npm"
}

// DefaultStateDir is <user cache dir>/kamuidash/localedge, or .localedge in the working
// directory when the system has no cache dir.
func DefaultStateDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "kamuidash", "localedge")
	}
	return ".localedge"
}

// parseOptions reads the sub-command's flags. Usage goes to out.
func parseOptions(args []string, out io.Writer) (Options, error) {
	var o Options
	fs := flag.NewFlagSet("localedge", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		_, _ = fmt.Fprint(out, "usage: terraform-provider-kamuidash localedge [flags]\n"+
			"Runs the KamuiDash edge on this machine: a Cloudflare-API-compatible server, the uploaded\n"+
			"Worker in workerd, tunnel emulation and (with --router) the router, all on loopback.\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.StateDir, "state-dir", DefaultStateDir(), "directory holding the API state, credentials and runtime data")
	fs.StringVar(&o.APIAddr, "api", "127.0.0.1:8787", "loopback address of the Cloudflare-compatible API")
	fs.StringVar(&o.EdgeAddr, "edge", "127.0.0.1:8788", "loopback address where requests reach the Workers by Host")
	fs.StringVar(&o.ReadyFile, "ready-file", "", "file written (atomically, with the env lines) once everything listens")
	fs.StringVar(&o.ZoneName, "zone", cfapi.DefaultZoneName, "zone name of a fresh state dir (the platform domain)")
	fs.DurationVar(&o.AutoValidate, "auto-validate", 0, "activate custom hostnames this long after creation even without their TXT record (0: never)")
	fs.DurationVar(&o.FallbackActivation, "fallback-activation", DefaultFallbackActivation, "how long the zone's fallback origin stays pending_deployment once its proxied record exists; custom hostnames are served only once it is active")
	fs.DurationVar(&o.KVPropagation, "kv-propagation", cfapi.DefaultKVPropagationDelay, "delay before a KV write is visible to the Workers (Cloudflare: up to 60s; 0 means the API server's default)")
	fs.Func("api-rate-limit", "enforce a global API rate limit of `REQUESTS/DURATION` with Cloudflare's rate-limit headers and a block of one DURATION once exceeded (Cloudflare: 1200/5m; default off)", func(v string) error {
		l, err := cfapi.ParseRateLimit(v)
		o.APIRateLimit = l
		return err
	})
	fs.StringVar(&o.NodeModules, "node-modules", "", "node_modules directory holding miniflare (default: found walking up from the working directory, else the provider's pinned packages, installed into the cache directory on first use)")
	fs.BoolVar(&o.Router, "router", false, "build and start the router; tunnel ingress to the kamuidash-router service goes to it")
	fs.StringVar(&o.RouterUpstreamTemplate, "router-upstream-template", "127.0.0.1:{port}", "the router's upstream template: where namespace/service:port upstreams go locally")
	fs.StringVar(&o.RouterNamespacePrefix, "router-namespace-prefix", "tenant-", "the router's namespace prefix (upstream namespaces must start with it)")
	fs.StringVar(&o.RouterSecretDir, "router-secret-dir", "", "take the router's keys from this directory (signing-secret, optional signing-secret-next, as its Kubernetes Secret mounts them), re-read on change with a rolling restart, instead of from the Worker's SIGNING_SECRET")
	fs.StringVar(&o.KubeAssets, "kube-assets", "", "start a Kubernetes API server (etcd and kube-apiserver from this directory, as `scripts/install-tools.sh kube` prints it) for the cluster-side resources, and export KUBECONFIG")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if err := o.validate(); err != nil {
		return o, err
	}
	return o, o.absolutePaths()
}

// absolutePaths resolves every path flag against the working directory, once: the parts of the
// local edge run child processes in directories of their own (the runtime host in its work
// dir), where a relative path would name another file.
func (o *Options) absolutePaths() error {
	for _, p := range []*string{&o.StateDir, &o.ReadyFile, &o.NodeModules, &o.RouterSecretDir, &o.KubeAssets} {
		if *p == "" || filepath.IsAbs(*p) {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return fmt.Errorf("resolving %q against the working directory: %w", *p, err)
		}
		*p = abs
	}
	return nil
}

func (o Options) validate() error {
	var errs []error
	for flagName, addr := range map[string]string{"--api": o.APIAddr, "--edge": o.EdgeAddr} {
		if err := checkLoopback(addr); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", flagName, err))
		}
	}
	if o.StateDir == "" {
		errs = append(errs, errors.New("--state-dir must not be empty"))
	}
	if o.FallbackActivation < 0 {
		errs = append(errs, errors.New("--fallback-activation must not be negative"))
	}
	if o.KVPropagation < 0 {
		errs = append(errs, errors.New("--kv-propagation must not be negative"))
	}
	if o.RouterSecretDir != "" && !o.Router {
		errs = append(errs, errors.New("--router-secret-dir needs --router"))
	}
	return errors.Join(errs...)
}

// checkLoopback refuses addresses other machines could reach: the API token is the only
// protection of the API, and the local edge is meant for this machine only.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%q is not a loopback address (use 127.0.0.1:PORT)", addr)
	}
	return nil
}
