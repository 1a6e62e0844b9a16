// Command kamuidash-router runs the internal router: the signed-context reverse proxy on one port
// and its health, readiness and metrics endpoints on another. Every flag falls back to the
// environment variable KAMUI_ROUTER_<FLAG> (upper case, "-" as "_"); the signing secret comes
// from --secret-file or KAMUI_ROUTER_SECRET, never from a flag, so it stays out of process
// listings. While the secret rotates, the key the Worker will sign with next comes the same way,
// from --next-secret-file or KAMUI_ROUTER_NEXT_SECRET (optional), and contexts signed with
// either key verify. Both keys are at least 32 bytes and never logged. SIGTERM or SIGINT starts
// a graceful drain.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

const envPrefix = "KAMUI_ROUTER_"

type options struct {
	listen, adminListen   string
	secretFile            string
	nextSecretFile        string
	namespacePrefix       string
	upstreamTemplate      string
	forwardedProto        string
	dialTimeout           time.Duration
	responseHeaderTimeout time.Duration
	drainTimeout          time.Duration
	maxSkew               time.Duration
	logSampleRate         float64
	gcPercent             int // negative: leave the runtime's setting (GOGC) alone
}

// defaultGCPercent is the router's garbage-collection target. Its live heap is a few MB while
// every request allocates a few KB, so at the runtime default (GOGC=100, a 4 MB heap goal) it
// collected about ten times a second under load, which profiles showed costing ~15% of its CPU
// and lengthening tail latency; at 400 the heap goal is 16 MB and collections are rare.
const defaultGCPercent = 400

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "kamuidash-router:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	opts, err := parseOptions(args)
	if err != nil {
		return err
	}
	secret, err := loadSecret(opts.secretFile)
	if err != nil {
		return err
	}
	nextSecret, err := loadNextSecret(opts.nextSecretFile)
	if err != nil {
		return err
	}
	if opts.gcPercent >= 0 {
		debug.SetGCPercent(opts.gcPercent)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	cfg := router.Config{
		Secret:                 secret,
		NextSecret:             nextSecret,
		AllowedNamespacePrefix: opts.namespacePrefix,
		MaxSkew:                opts.maxSkew,
		DialTimeout:            opts.dialTimeout,
		ResponseHeaderTimeout:  opts.responseHeaderTimeout,
		ForwardedProto:         opts.forwardedProto,
		Logger:                 logger,
		SampleSuccess:          router.SampleRate(opts.logSampleRate),
	}
	if opts.upstreamTemplate != "" {
		cfg.Resolve = templateResolver(opts.upstreamTemplate)
	}
	rt, err := router.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		return err
	}
	adminLn, err := net.Listen("tcp", opts.adminListen)
	if err != nil {
		_ = ln.Close() // never served: the admin listener's error is the one to report
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal during the drain kills the process at once
	}()
	logger.Info("router started", "listen", ln.Addr().String(), "admin", adminLn.Addr().String(),
		"namespace_prefix", opts.namespacePrefix, "next_signing_key", nextSecret != nil)
	err = router.Serve(ctx, rt, ln, adminLn, opts.drainTimeout)
	logger.Info("router stopped", "clean", err == nil)
	return err
}

func parseOptions(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("kamuidash-router", flag.ContinueOnError)
	fs.StringVar(&o.listen, "listen", ":8080", "address the tunnel connector reaches")
	fs.StringVar(&o.adminListen, "admin-listen", ":9090", "address of /healthz, /readyz and /metrics")
	fs.StringVar(&o.secretFile, "secret-file", "", "file holding the context signing secret (trailing newlines ignored); else $"+envPrefix+"SECRET")
	fs.StringVar(&o.nextSecretFile, "next-secret-file", "", "file holding the signing secret the Worker will sign with next, during a rotation (optional; trailing newlines ignored); else $"+envPrefix+"NEXT_SECRET")
	fs.StringVar(&o.namespacePrefix, "namespace-prefix", "", "prefix every upstream namespace must start with (required)")
	fs.StringVar(&o.upstreamTemplate, "upstream-template", "", `upstream address with {namespace}, {service} and {port}, e.g. "127.0.0.1:{port}" for a local edge; empty means service.namespace.svc.cluster.local:port`)
	fs.StringVar(&o.forwardedProto, "forwarded-proto", router.DefaultForwardedProto, "X-Forwarded-Proto sent upstream")
	fs.DurationVar(&o.dialTimeout, "dial-timeout", router.DefaultDialTimeout, "upstream connect timeout (504 when exceeded)")
	fs.DurationVar(&o.responseHeaderTimeout, "response-header-timeout", router.DefaultResponseHeaderTimeout, "wait for upstream response headers (504 when exceeded)")
	fs.DurationVar(&o.drainTimeout, "drain-timeout", 30*time.Second, "how long in-flight requests may run after SIGTERM")
	fs.DurationVar(&o.maxSkew, "max-skew", route.DefaultMaxSkew, "accepted age of a signed context, either way")
	fs.Float64Var(&o.logSampleRate, "log-sample-rate", 1, "fraction of success access-log lines kept (failures are always logged)")
	fs.IntVar(&o.gcPercent, "gc-percent", defaultGCPercent, "garbage-collection target percentage (as GOGC); when neither this flag nor its variable is set, a GOGC in the environment is honoured instead")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if err := applyEnv(fs); err != nil {
		return o, err
	}
	gcGiven := false
	fs.Visit(func(f *flag.Flag) { gcGiven = gcGiven || f.Name == "gc-percent" })
	if _, gogc := os.LookupEnv("GOGC"); gogc && !gcGiven {
		o.gcPercent = -1
	}
	if gcGiven && o.gcPercent < 0 {
		return o, errors.New("--gc-percent must not be negative")
	}
	if o.namespacePrefix == "" {
		return o, errors.New("--namespace-prefix (or " + envPrefix + "NAMESPACE_PREFIX) is required")
	}
	for _, d := range []struct {
		name  string
		value time.Duration
	}{{"drain-timeout", o.drainTimeout}, {"dial-timeout", o.dialTimeout},
		{"response-header-timeout", o.responseHeaderTimeout}, {"max-skew", o.maxSkew}} {
		// The router would take zero or less for its default, silently.
		if d.value <= 0 {
			return o, errors.New("--" + d.name + " must be positive")
		}
	}
	if !(o.logSampleRate >= 0 && o.logSampleRate <= 1) { // NaN too
		return o, errors.New("--log-sample-rate must be between 0 and 1")
	}
	return o, nil
}

// applyEnv fills every flag not given on the command line from its environment variable.
func applyEnv(fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		name := envPrefix + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(name); ok && !given[f.Name] {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			}
		}
	})
	return errors.Join(errs...)
}

// loadSecret reads the signing secret (required). Errors never include the secret itself.
func loadSecret(file string) ([]byte, error) {
	secret, err := readKey(file, "SECRET", "secret file")
	if err != nil {
		return nil, err
	}
	if secret == nil {
		return nil, errors.New("no signing secret: set --secret-file or " + envPrefix + "SECRET")
	}
	return secret, nil
}

// loadNextSecret reads the next signing secret of a rotation: nil when neither
// --next-secret-file nor its variable is given. Errors never include the secret itself.
func loadNextSecret(file string) ([]byte, error) {
	return readKey(file, "NEXT_SECRET", "next secret file")
}

// readKey reads a key from file, or else from the variable envPrefix+variable, without trailing
// line endings: nil when neither holds one, an error when it is shorter than route.MinSigningSecretBytes.
func readKey(file, variable, what string) ([]byte, error) {
	var key []byte
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("reading the %s: %w", what, err)
		}
		key = []byte(strings.TrimRight(string(b), "\r\n"))
		if len(key) == 0 {
			return nil, fmt.Errorf("the %s %s is empty", what, file)
		}
	} else {
		// Line endings are ignored here as in a file: the same Secret may be mounted or set.
		key = []byte(strings.TrimRight(os.Getenv(envPrefix+variable), "\r\n"))
		if len(key) == 0 {
			return nil, nil
		}
		what = "$" + envPrefix + variable
	}
	if len(key) < route.MinSigningSecretBytes {
		return nil, fmt.Errorf("the %s holds %d bytes; a signing secret has at least %d (the Worker's rule)", what, len(key), route.MinSigningSecretBytes)
	}
	return key, nil
}

// templateResolver resolves upstreams by filling a host:port template. The template is split
// once: building a strings.Replacer per request showed up in CPU profiles.
func templateResolver(template string) func(route.Upstream) (*url.URL, error) {
	segments := compileTemplate(template)
	return func(u route.Upstream) (*url.URL, error) {
		var b strings.Builder
		for _, s := range segments {
			switch s.field {
			case fieldNamespace:
				b.WriteString(u.Namespace)
			case fieldService:
				b.WriteString(u.Service)
			case fieldPort:
				b.WriteString(strconv.Itoa(u.Port))
			default:
				b.WriteString(s.literal)
			}
		}
		return &url.URL{Scheme: "http", Host: b.String()}, nil
	}
}

const (
	fieldLiteral = iota
	fieldNamespace
	fieldService
	fieldPort
)

var placeholders = [...]struct {
	text  string
	field int
}{{"{namespace}", fieldNamespace}, {"{service}", fieldService}, {"{port}", fieldPort}}

type segment struct {
	literal string
	field   int
}

// compileTemplate splits t into literal text and placeholders; an unknown "{…}" stays literal.
func compileTemplate(t string) []segment {
	var segs []segment
	for t != "" {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			return append(segs, segment{literal: t})
		}
		matched := false
		for _, p := range placeholders {
			if strings.HasPrefix(t[i:], p.text) {
				segs = append(segs, segment{literal: t[:i]}, segment{field: p.field})
				t = t[i+len(p.text):]
				matched = true
				break
			}
		}
		if !matched {
			segs = append(segs, segment{literal: t[:i+1]})
			t = t[i+1:]
		}
	}
	return segs
}
