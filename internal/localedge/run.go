package localedge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/procgroup"
	edgeruntime "github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/runtime"
)

// Run starts the local edge and serves until ctx ends, then stops everything it started
// (workerd and its Node host, the router) and returns nil. Progress, the credentials and the
// ready line go to stdout; logs go to stderr.
func Run(ctx context.Context, opts Options, stdout, stderr io.Writer) error {
	if !procgroup.Supported {
		return errors.New("the local edge stops workerd and the router by process group, which this system does not have: " +
			"run it on Linux or macOS (on Windows, in WSL)")
	}
	if err := opts.validate(); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	layout := newStateLayout(opts.StateDir)
	if err := os.MkdirAll(layout.root, 0o700); err != nil {
		return fmt.Errorf("creating the state dir: %w", err)
	}
	// One local edge per state dir: a second would rewrite the env file with its own ports and
	// the API's state under the first one.
	unlock, err := lockStateDir(layout.lock)
	if err != nil {
		return err
	}
	defer unlock()

	// Everything that can fail fast does so before anything long-running starts.
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := edgeruntime.FindNode(); err != nil {
		return err
	}
	nodeModules, err := edgeruntime.FindNodeModules(opts.NodeModules, wd)
	if errors.Is(err, edgeruntime.ErrNoMiniflare) && opts.NodeModules == "" && opts.NodePackages != nil {
		// Outside a checkout: the packages the provider binary pins, installed once.
		cache, absErr := filepath.Abs(NodeModulesCacheDir())
		if absErr != nil {
			return absErr
		}
		nodeModules, err = edgeruntime.InstallNodeModules(ctx, opts.NodePackages, cache, stdout)
	}
	if err != nil {
		return err
	}
	var router *localRouter
	if opts.Router {
		bin, err := buildRouter(ctx, layout.bin, opts.Sources, stdout)
		if err != nil {
			return err
		}
		router = &localRouter{binary: bin, upstreamTemplate: opts.RouterUpstreamTemplate,
			namespacePrefix: opts.RouterNamespacePrefix, secretDir: opts.RouterSecretDir, log: logger, output: stderr}
		defer router.Close()
		if opts.RouterSecretDir != "" {
			followCtx, stopFollowing := context.WithCancel(ctx)
			following := make(chan struct{})
			go func() { router.followSecretDir(followCtx); close(following) }()
			defer func() { stopFollowing(); <-following }() // before router.Close: nothing starts after it
		}
	}
	listeners, err := listenAll(opts.APIAddr, opts.EdgeAddr)
	if err != nil {
		return err
	}
	defer listeners.close()

	var onScripts func([]*cfapi.Script)
	routerURL := func() string { return "" }
	if router != nil {
		onScripts, routerURL = router.scriptsLoaded, router.URL
	}
	signingSecret, err := loadSigningSecret(layout.signingSecret)
	if err != nil {
		return fmt.Errorf("the local edge's signing secret: %w", err)
	}
	watch := &signingSecretWatch{own: signingSecret, log: logger}
	follow := newFollower(logger, func(scripts []*cfapi.Script) {
		watch.scriptsLoaded(scripts)
		if onScripts != nil {
			onScripts(scripts)
		}
	})
	api, err := cfapi.New(cfapi.Config{
		StateDir:           layout.api,
		ZoneName:           opts.ZoneName,
		AutoValidate:       opts.AutoValidate,
		FallbackActivation: opts.FallbackActivation,
		KVPropagationDelay: opts.KVPropagation,
		RateLimit:          opts.APIRateLimit,
		Logger:             logger,
		Hooks:              follow.hooks(),
	})
	if err != nil {
		return fmt.Errorf("loading the API state: %w", err)
	}
	defer func() { _ = api.Close() }() // stops the API's timers; it has nothing to report
	// The zone cache in front of proxied origins applies the zone's Cache Rules as the API
	// has them; a purge drops its entries (through the follower's purge hook).
	cache := newZoneCache(zoneCacheConfig{
		Rules: func() []cfapi.RulesetRule {
			rs, _ := api.Entrypoint(cfapi.CachePhase)
			return rs.Rules
		},
		Logger: logger,
	})
	follow.zoneCache = cache

	// The runtime's KV and R2 stores are copies of the API's; start them empty and seed them.
	for _, store := range []string{"kv", "r2"} {
		if err := os.RemoveAll(filepath.Join(layout.runtime, store)); err != nil {
			return err
		}
	}
	_, _ = fmt.Fprintln(stdout, "starting workerd (Miniflare from "+nodeModules+")…")
	host, err := edgeruntime.Start(edgeruntime.Config{
		NodeModules: nodeModules,
		WorkDir:     layout.runtime,
		OriginURL:   "http://" + listeners.tunnel.Addr().String(),
		Logger:      logger,
		Progress:    stdout,
	})
	if err != nil {
		return err
	}
	defer func() {
		if err := host.Close(); err != nil {
			logger.Warn("stopping the runtime", "error", err)
		}
	}()

	servers := []*http.Server{
		{Handler: api, ReadHeaderTimeout: 10 * time.Second},
		{Handler: newEdgeHandler(api, host.URL, follow.isLoaded, follow.gate), ReadHeaderTimeout: 10 * time.Second},
		{Handler: newTunnelHandler(api, routerURL, cache), ReadHeaderTimeout: 10 * time.Second},
	}
	serveErr := make(chan error, len(servers))
	for i, ln := range []net.Listener{listeners.api, listeners.edge, listeners.tunnel} {
		go func() { serveErr <- servers[i].Serve(ln) }()
	}
	defer shutdown(servers)

	if err := follow.start(ctx, api, host); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("loading the Workers into workerd: %w", err)
	}
	runCtx, stopFollower := context.WithCancel(ctx)
	followerDone := make(chan struct{})
	go func() { follow.run(runCtx); close(followerDone) }()
	defer func() { stopFollower(); <-followerDone }()

	// The cluster side: a registry always (it costs nothing), the API server on request.
	registryAddr, stopRegistry, err := startRegistry()
	if err != nil {
		return err
	}
	defer stopRegistry()
	cluster := clusterEnv{registry: registryAddr}
	if router != nil {
		cluster.namespacePrefix = opts.RouterNamespacePrefix
	}
	if opts.KubeAssets != "" {
		kubeconfig, stopCluster, err := startCluster(ctx, opts.KubeAssets, layout.cluster, stdout)
		if err != nil {
			return err
		}
		defer stopCluster()
		cluster.kubeconfig = kubeconfig
	}

	apiURL := "http://" + listeners.api.Addr().String()
	edgeURL := "http://" + listeners.edge.Addr().String()
	env := envFile(api.Identity(), apiURL, edgeURL, signingSecret, cluster)
	if err := writeFileAtomic(layout.env, env); err != nil {
		return fmt.Errorf("writing %s: %w", layout.env, err)
	}
	// The credentials are in the env file too: printing them is a convenience.
	_, _ = fmt.Fprintf(stdout, "\nPoint the provider at the local edge (also in %s):\n\n%s\n", layout.env, env)
	if opts.ReadyFile != "" {
		if err := writeFileAtomic(opts.ReadyFile, env); err != nil {
			return fmt.Errorf("writing the ready file: %w", err)
		}
		defer func() {
			// Left behind, it would tell the next script polling for it that a stopped edge is up.
			if err := os.Remove(opts.ReadyFile); err != nil && !errors.Is(err, os.ErrNotExist) {
				logger.Warn("removing the ready file", "path", opts.ReadyFile, "error", err)
			}
		}()
	}
	_, _ = fmt.Fprintf(stdout, "ready: API %s, R2 over S3 %s, edge %s (stop with Ctrl-C or SIGTERM)\n", apiURL+cfapi.APIPrefix, apiURL+cfapi.S3Prefix, edgeURL)

	select {
	case <-ctx.Done():
		_, _ = fmt.Fprintln(stdout, "stopping the local edge…")
		return nil
	case err := <-serveErr:
		return fmt.Errorf("a listener failed: %w", err)
	}
}

// stateLayout names what lives under the state dir.
type stateLayout struct {
	root    string
	api     string // the API server's state (identity, scripts, KV, zone, tunnels)
	runtime string // host.mjs and Miniflare's data (KV and R2 are copies rebuilt at start)
	bin     string // the router binary built by --router
	env     string // the credentials as export lines
	cluster string // the local cluster's kubeconfig and logs (--kube-assets); etcd's data is temporary
	lock    string // held while a local edge runs on this state dir; it names that one's pid
	// signingSecret is the local edge's own signing secret (see signing.go).
	signingSecret string
}

func newStateLayout(root string) stateLayout {
	return stateLayout{
		root:    root,
		api:     filepath.Join(root, "api"),
		runtime: filepath.Join(root, "runtime"),
		bin:     filepath.Join(root, "bin"),
		env:     filepath.Join(root, "env"),
		cluster: filepath.Join(root, "cluster"),
		lock:    filepath.Join(root, "lock"),

		signingSecret: filepath.Join(root, "signing-secret"),
	}
}

type listenerSet struct{ api, edge, tunnel net.Listener }

// listenAll opens the public listeners and the tunnel emulation's private one.
func listenAll(apiAddr, edgeAddr string) (*listenerSet, error) {
	var s listenerSet
	var err error
	if s.api, err = net.Listen("tcp", apiAddr); err != nil {
		return nil, fmt.Errorf("--api: %w", err)
	}
	if s.edge, err = net.Listen("tcp", edgeAddr); err != nil {
		s.close()
		return nil, fmt.Errorf("--edge: %w", err)
	}
	if s.tunnel, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		s.close()
		return nil, err
	}
	return &s, nil
}

func (s *listenerSet) close() {
	for _, ln := range []net.Listener{s.api, s.edge, s.tunnel} {
		if ln != nil {
			_ = ln.Close() // a server has closed the one it served already: the error says only that
		}
	}
}

func shutdown(servers []*http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		if err := s.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			_ = s.Close()
		}
	}
}
