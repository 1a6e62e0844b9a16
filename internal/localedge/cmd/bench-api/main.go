// Command bench-api measures how many Cloudflare API calls the provider makes for a
// multi-tenant platform (issue 13): it applies 1,000 tenant apps, 1,000 custom domains and 20
// static sites (with the edge Worker, two KV namespaces and a tunnel) to a local edge with
// the real Terraform CLI, then runs a no-change plan, a change of 10 apps and the apply of a
// saved plan that edits one file of one site, and counts the calls the local edge received in
// each phase, by operation, REST and object storage apart.
// It does so twice in the same run, each on a fresh local edge: with the provider's API
// economy (the default) and with KAMUIDASH_API_ECONOMY=off (one call per resource, the
// anchor), and prints the table, the wall times measured and at Cloudflare's pace, and the
// ratios economy ÷ anchor. The last line is machine-readable:
//
//	bench-api: refresh_calls=<n> create_kv_calls=<n> static_edit_calls=<n> first_apply_calls=<n> refresh_calls_per_resource_mode=<n>
//
// refresh_calls are the REST calls of the no-change plan, create_kv_calls the KV write calls
// (single and bulk) of the first apply that wrote route records (the domain mappings' and the
// name filters' rebuilds are reported beside them), first_apply_calls its REST calls, all with the
// economy on; refresh_calls_per_resource_mode is the anchor's refresh. static_edit_calls are
// the calls (REST, object storage and S3) of applying the saved plan of a one-file edit of one
// site.
//
// Pacing: Cloudflare allows 1,200 calls per five minutes, 4 a second, so the anchor's calls
// would take hours at the real pace. The bench runs scaled (-scale, default 20): the
// provider's limiter is given 1,200 × scale per five minutes
// (KAMUIDASH_API_REQUESTS_PER_FIVE_MINUTES) and the local edge enforces the same
// (--api-rate-limit), so an overrun still shows as 429s. "At Cloudflare's pace" is the calls
// Cloudflare counts against the limit (REST, and object storage, which goes through the REST
// API today) ÷ 4 per second, or the measured time if that is longer. -scale 1 runs at the
// real pace.
//
// The applies run at -parallelism=100 (-parallelism), and the first apply again at
// -parallelism=10 (-low-parallelism; two more runs, economy and anchor, first apply only, at
// full size) because coalescing can batch only what Terraform has in flight.
//
// Static-site objects travel over R2's S3 API in both modes (the local edge's env file gives
// the provider its key pair): those calls are counted apart, outside the REST budget.
//
// It builds the provider from this checkout into an offline filesystem mirror and writes a
// CLI configuration for it, as internal/rollout's end-to-end test and scripts/demo.sh do;
// the local edge is the built binary's `localedge` sub-command (no router: no request is
// sent through the edge). Sizes are flags, so `-apps 50 -domains 50 -sites 2` is a quick run.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/provider"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/workertest"
)

// The provider's switches the bench sets: its client-side limit, and the economy ("off":
// one call per resource, the anchor).
const (
	envRequestsPerFiveMinutes = provider.EnvAPIRequestsPerFiveMinutes
	envEconomy                = provider.EnvAPIEconomy
)

// cloudflarePerSecond is Cloudflare's global limit as a rate: 1,200 per five minutes.
const cloudflarePerSecond = 4.0

// providerVersion is the version the mirror serves (a prerelease would not satisfy the
// configuration's empty version constraint).
const providerVersion = "0.0.1"

const (
	modeEconomy = "economy"
	modeAnchor  = "per-resource"
)

// The phases, in order.
const (
	phaseApply  = "first apply"
	phasePlan   = "no-change plan (refresh)"
	phaseChange = "change of N apps"
	phaseEdit   = "edit one file of one site"
)

var phases = []string{phaseApply, phasePlan, phaseChange, phaseEdit}

type options struct {
	sizes          sizes
	changed        int
	scale          int
	parallelism    int
	lowParallelism int
	anchor         bool
	terraform      string
	keep           bool
	edgeLimit      cfapi.RateLimit
}

func main() {
	var o options
	flag.IntVar(&o.sizes.Apps, "apps", 1000, "dynamic tenant apps (kamuidash_tenant_app)")
	flag.IntVar(&o.sizes.Domains, "domains", 1000, "custom domains (kamuidash_custom_domain), each mapped to an app")
	flag.IntVar(&o.sizes.Sites, "sites", 20, "static sites (kamuidash_static_site + kamuidash_route_record)")
	flag.IntVar(&o.sizes.Files, "files", 30, "files per static site")
	flag.IntVar(&o.changed, "changed", 10, "apps changed in the third phase")
	flag.IntVar(&o.scale, "scale", 20, "run this many times faster than Cloudflare's 1,200 calls per five minutes (provider and local edge alike); 1 is the real pace")
	flag.IntVar(&o.parallelism, "parallelism", 100, "terraform -parallelism of every phase")
	flag.IntVar(&o.lowParallelism, "low-parallelism", 10, "also run the first apply at this -parallelism (two more runs); 0 skips them")
	flag.BoolVar(&o.anchor, "anchor", true, "also run with "+envEconomy+"=off (one call per resource) for the ratios")
	flag.StringVar(&o.terraform, "terraform", defaultTerraform(), "the Terraform CLI (scripts/install-tools.sh terraform prints its directory)")
	flag.BoolVar(&o.keep, "keep", false, "keep the work directory (configurations, states, logs)")
	edgeLimit := flag.String("edge-rate-limit", "", "the local edge's --api-rate-limit (default: 1200×scale per 5m, the provider's own limit)")
	flag.Parse()
	if err := o.complete(*edgeLimit); err != nil {
		fmt.Fprintln(os.Stderr, "bench-api:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-api:", err)
		os.Exit(1)
	}
}

func (o *options) complete(edgeLimit string) error {
	if o.sizes.Apps < 1 || o.sizes.Domains < 0 || o.sizes.Sites < 0 || o.sizes.Files < 2 {
		return errors.New("-apps must be at least 1, -domains and -sites not negative, -files at least 2")
	}
	if o.changed < 0 || o.changed > o.sizes.Apps {
		return fmt.Errorf("-changed must be within 0..%d (-apps)", o.sizes.Apps)
	}
	if o.scale < 1 || o.parallelism < 1 || o.lowParallelism < 0 {
		return errors.New("-scale and -parallelism must be positive, -low-parallelism not negative")
	}
	o.edgeLimit = cfapi.RateLimit{Requests: cfapi.CloudflareRateLimit.Requests * o.scale, Window: cfapi.CloudflareRateLimit.Window}
	if edgeLimit != "" {
		l, err := cfapi.ParseRateLimit(edgeLimit)
		if err != nil {
			return fmt.Errorf("-edge-rate-limit: %w", err)
		}
		o.edgeLimit = l
	}
	if _, err := os.Stat(o.terraform); err != nil {
		return fmt.Errorf("the Terraform CLI %s: %w (build it with scripts/install-tools.sh terraform, or pass -terraform)", o.terraform, err)
	}
	return nil
}

func defaultTerraform() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "terraform"
	}
	return filepath.Join(dir, "kamuidash", "tools", "bin", "terraform")
}

// runSpec is one run on a fresh local edge.
type runSpec struct {
	mode        string
	parallelism int
	firstOnly   bool // only the first apply (the -low-parallelism runs)
}

func (s runSpec) String() string { return fmt.Sprintf("%s, -parallelism=%d", s.mode, s.parallelism) }

// phaseResult is what one phase cost.
type phaseResult struct {
	calls cfapi.CallStats
	wall  time.Duration
	note  string // something the table must say (a plan that was not empty)
	na    string // why the phase did not run
	// routesNS and domainsNS are the run's two KV namespaces, for the calls by namespace.
	routesNS, domainsNS string
}

func (p *phaseResult) rateLimited() int {
	return p.calls.REST.TooManyRequests + p.calls.ObjectStorage.TooManyRequests
}

// budgetCalls are the calls Cloudflare counts against the global limit: every REST call,
// and the object-storage calls, which go through the REST API today.
func (p *phaseResult) budgetCalls() int { return p.calls.REST.Calls + p.calls.ObjectStorage.Calls }

// allCalls are every call of the phase: the budget's and R2's S3 API's.
func (p *phaseResult) allCalls() int { return p.budgetCalls() + p.calls.S3.Calls }

// atCloudflarePace is how long the phase takes at 4 calls a second, or the measured time if
// that is longer.
func (p *phaseResult) atCloudflarePace() time.Duration {
	paced := time.Duration(float64(p.budgetCalls()) / cloudflarePerSecond * float64(time.Second))
	return max(paced, p.wall)
}

// kvWriteCalls are the KV write calls (single-key and bulk) of the phase.
func (p *phaseResult) kvWriteCalls() int { return p.kvWriteCallsIn("") }

// kvWriteCallsIn are the KV write calls of the phase to namespace ns ("": to any), the name
// filter's included.
func (p *phaseResult) kvWriteCallsIn(ns string) int {
	n := 0
	for _, o := range p.calls.Operations {
		if o.Operation == opKVPut || o.Operation == opKVBulkPut {
			if ns == "" {
				n += o.Calls
			} else {
				n += o.ByNamespace[ns]
			}
		}
	}
	return n
}

// filterWriteCallsIn are the KV write calls of the phase to the name filter's keys in
// namespace ns: two a rebuild (the recent keys and the filter).
func (p *phaseResult) filterWriteCallsIn(ns string) int {
	for _, o := range p.calls.Operations {
		if o.Operation == opKVPut {
			return o.NameFilterByNamespace[ns]
		}
	}
	return 0
}

// routeWriteCalls are the KV write calls to the routes namespace that wrote route records:
// the name filter's rebuilds there are counted apart (filterWriteCallsIn).
func (p *phaseResult) routeWriteCalls() int {
	return p.kvWriteCallsIn(p.routesNS) - p.filterWriteCallsIn(p.routesNS)
}

const (
	opKVPut     = "PUT /accounts/{account_id}/storage/kv/namespaces/{namespace_id}/values/{key_name}"
	opKVBulkPut = "PUT /accounts/{account_id}/storage/kv/namespaces/{namespace_id}/bulk"
)

type runResult struct {
	spec    runSpec
	phases  map[string]*phaseResult
	pages   *pageSizes // probed after the economy run's phases
	elapsed time.Duration
}

type bench struct {
	options
	repo, work, binary, cliConfig string
	runs                          []*runResult
}

func run(ctx context.Context, o options) error {
	start := time.Now()
	loadStart := loadAverage()
	repo, err := workertest.RepoRoot()
	if err != nil {
		return err
	}
	if err := workertest.CheckNodeModules(repo); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "bench-api-*")
	if err != nil {
		return err
	}
	b := &bench{options: o, repo: repo, work: work}
	failed := true
	defer func() {
		if o.keep || failed {
			fmt.Printf("bench-api: work directory kept: %s\n", work)
			return
		}
		if err := os.RemoveAll(work); err != nil {
			fmt.Printf("bench-api: removing the work directory: %v\n", err)
		}
	}()

	tfVersion := "unknown"
	if tf, err := tfexec.NewTerraform(work, o.terraform); err == nil {
		if v, _, err := tf.Version(ctx, true); err == nil {
			tfVersion = v.String()
		}
	}
	b.printHeader(tfVersion, loadStart)
	fmt.Println("bench-api: building the provider into an offline mirror…")
	if err := b.installProvider(ctx); err != nil {
		return err
	}

	specs := []runSpec{{mode: modeEconomy, parallelism: o.parallelism}}
	if o.anchor {
		specs = append(specs, runSpec{mode: modeAnchor, parallelism: o.parallelism})
	}
	if o.lowParallelism > 0 && o.lowParallelism != o.parallelism {
		specs = append(specs, runSpec{mode: modeEconomy, parallelism: o.lowParallelism, firstOnly: true})
		if o.anchor {
			specs = append(specs, runSpec{mode: modeAnchor, parallelism: o.lowParallelism, firstOnly: true})
		}
	}
	var runErr error
	for i, spec := range specs {
		fmt.Printf("bench-api: run %d of %d: %s%s\n", i+1, len(specs), spec, map[bool]string{true: " (first apply only)"}[spec.firstOnly])
		res, err := b.runOne(ctx, spec, i)
		b.runs = append(b.runs, res)
		if err != nil {
			runErr = fmt.Errorf("run %s: %w", spec, err)
			break
		}
	}
	b.printReport()
	fmt.Printf("bench-api: machine load (1-minute average) %s at start, %s at the end, on %d CPUs; %s in all\n",
		loadStart, loadAverage(), runtime.NumCPU(), time.Since(start).Round(time.Second))
	if runErr != nil {
		return runErr
	}
	b.printLastLine()
	failed = false
	return nil
}

func (b *bench) printHeader(tfVersion, load string) {
	sz := b.sizes
	fmt.Printf("bench-api: %d tenant apps, %d custom domains, %d static sites × %d files, the edge Worker, 2 KV namespaces and a tunnel: %d resources, Terraform %s\n",
		sz.Apps, sz.Domains, sz.Sites, sz.Files, sz.resources(), tfVersion)
	fmt.Println("bench-api: the resources are generated directly (for_each over JSON, in modules/tenant's shapes, verify_propagation off),")
	fmt.Println("           not as one modules/tenant instance per app: the same API calls, without the CLI work of 2,000 module instances")
	fmt.Printf("bench-api: applies and plans at -parallelism=%d", b.parallelism)
	if b.lowParallelism > 0 && b.lowParallelism != b.parallelism {
		fmt.Printf("; the first apply also at -parallelism=%d (runs of their own, first apply only, same sizes)", b.lowParallelism)
	}
	fmt.Println()
	fmt.Printf("bench-api: scale %d×: the provider's limit %s=%d, the local edge enforcing --api-rate-limit %s\n",
		b.scale, envRequestsPerFiveMinutes, cfapi.CloudflareRateLimit.Requests*b.scale, b.edgeLimit)
	fmt.Println("bench-api: \"at Cloudflare's pace\" = (REST + object-storage calls, which go through the REST API today) ÷ 4/s, or the measured time if longer")
	fmt.Printf("bench-api: machine load (1-minute average) %s at start, on %d CPUs\n", load, runtime.NumCPU())
}

// installProvider builds the provider from the checkout and lays it into an offline
// filesystem mirror with a CLI configuration that installs from there only.
func (b *bench) installProvider(ctx context.Context) error {
	b.binary = filepath.Join(b.work, "terraform-provider-kamuidash")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-X main.version="+providerVersion, "-o", b.binary, ".")
	cmd.Dir = b.repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the provider: %w\n%s", err, out)
	}
	const host = "registry.terraform.io"
	mirror := filepath.Join(b.work, "mirror")
	dir := filepath.Join(mirror, host, "kamuidash", "kamuidash", providerVersion, runtime.GOOS+"_"+runtime.GOARCH)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := os.ReadFile(b.binary)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "terraform-provider-kamuidash_v"+providerVersion), data, 0o755); err != nil {
		return err
	}
	b.cliConfig = filepath.Join(b.work, "cli.tfrc")
	return os.WriteFile(b.cliConfig, fmt.Appendf(nil, "provider_installation {\n  filesystem_mirror {\n    path    = %q\n    include = [\"%s/kamuidash/kamuidash\"]\n  }\n}\n", mirror, host), 0o644)
}

// namespaceIDs reads the configuration's two KV namespace ids from its outputs.
func namespaceIDs(ctx context.Context, tf *tfexec.Terraform) (routes, domains string, err error) {
	outputs, err := tf.Output(ctx)
	if err != nil {
		return "", "", err
	}
	for name, into := range map[string]*string{"routes_namespace_id": &routes, "domains_namespace_id": &domains} {
		if err := json.Unmarshal(outputs[name].Value, into); err != nil || *into == "" {
			return "", "", fmt.Errorf("output %s: %q (%v)", name, outputs[name].Value, err)
		}
	}
	return routes, domains, nil
}

// runOne runs the phases of one spec on a fresh local edge.
func (b *bench) runOne(ctx context.Context, spec runSpec, index int) (*runResult, error) {
	res := &runResult{spec: spec, phases: map[string]*phaseResult{}}
	start := time.Now()
	defer func() { res.elapsed = time.Since(start) }()
	dir := filepath.Join(b.work, fmt.Sprintf("run%d-%s-p%d", index+1, spec.mode, spec.parallelism))
	edge, err := startEdge(ctx, b.repo, b.binary, filepath.Join(dir, "edge"), b.edgeLimit)
	if err != nil {
		return res, err
	}
	defer edge.stop()

	config := filepath.Join(dir, "config")
	if err := writeConfig(config, b.sizes, edge.env["KAMUIDASH_LOCAL_SIGNING_SECRET"], randomHex(16)); err != nil {
		return res, err
	}
	logPath := filepath.Join(dir, "terraform.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return res, err
	}
	defer func() { _ = logFile.Close() }() // a log kept for error messages: nothing reads it after the run
	tf, err := tfexec.NewTerraform(config, b.terraform)
	if err != nil {
		return res, err
	}
	tf.SetStdout(logFile)
	tf.SetStderr(logFile)
	if err := tf.SetEnv(b.environ(edge, spec.mode)); err != nil {
		return res, err
	}
	if err := tf.Init(ctx); err != nil {
		return res, fmt.Errorf("terraform init: %w\n%s", err, tail(logPath, 20))
	}

	measure := func(name string, f func(p *phaseResult) error) error {
		if _, err := edge.resetCalls(ctx); err != nil {
			return err
		}
		p := &phaseResult{}
		began := time.Now()
		fErr := f(p)
		p.wall = time.Since(began)
		calls, err := edge.resetCalls(ctx)
		if err != nil {
			return err
		}
		p.calls = calls
		res.phases[name] = p
		fmt.Printf("  %-27s %6d REST + %5d object-storage + %5d S3 calls, %d × 429, %s measured, %s at Cloudflare's pace (%.1f calls/s)%s\n",
			b.label(name)+":", p.calls.REST.Calls, p.calls.ObjectStorage.Calls, p.calls.S3.Calls, p.rateLimited(), roundDuration(p.wall),
			roundDuration(p.atCloudflarePace()), float64(p.budgetCalls())/max(p.wall.Seconds(), 0.001), noteSuffix(p.note))
		if fErr != nil {
			return fmt.Errorf("%s: %w\n%s\n(terraform's output: %s; the local edge's log: %s)", name, fErr, tail(logPath, 30), logPath, edge.log)
		}
		return nil
	}
	var routesNS, domainsNS string
	apply := func(p *phaseResult) error {
		err := tf.Apply(ctx, tfexec.Parallelism(spec.parallelism))
		if routesNS == "" && err == nil {
			routesNS, domainsNS, err = namespaceIDs(ctx, tf)
		}
		p.routesNS, p.domainsNS = routesNS, domainsNS
		return err
	}
	if err := measure(phaseApply, apply); err != nil {
		return res, err
	}
	if spec.firstOnly {
		return res, nil
	}
	if err := measure(phasePlan, func(p *phaseResult) error {
		changes, err := tf.Plan(ctx, tfexec.Parallelism(spec.parallelism))
		if changes {
			p.note = "the plan was NOT empty"
		}
		return err
	}); err != nil {
		return res, err
	}
	if err := writeApps(config, b.sizes, b.changed); err != nil {
		return res, err
	}
	if err := measure(phaseChange, apply); err != nil {
		return res, err
	}
	if b.sizes.Sites == 0 {
		res.phases[phaseEdit] = &phaseResult{na: "n/a (no static site: -sites 0)"}
	} else {
		// The edit is planned first and the saved plan applied: the phase counts the apply
		// alone (its refresh is the no-change plan's business).
		planFile := filepath.Join(dir, "edit.tfplan")
		if err := editSiteFile(config); err != nil {
			return res, err
		}
		if _, err := tf.Plan(ctx, tfexec.Parallelism(spec.parallelism), tfexec.Out(planFile)); err != nil {
			return res, fmt.Errorf("planning the site edit: %w\n%s", err, tail(logPath, 30))
		}
		if err := measure(phaseEdit, func(*phaseResult) error {
			return tf.Apply(ctx, tfexec.Parallelism(spec.parallelism), tfexec.DirOrPlan(planFile))
		}); err != nil {
			return res, err
		}
	}
	if spec.mode == modeEconomy {
		pages, err := probePageSizes(ctx, tf, edge)
		if err != nil {
			fmt.Printf("  (the page sizes could not be probed: %v)\n", err)
		}
		res.pages = pages
	}
	return res, nil
}

// environ is the CLI's environment: this process's, without input variables (terraform-exec
// refuses them) and without any Cloudflare or KamuiDash settings of its own, plus the local
// edge's provider settings, the mirror's CLI configuration and the provider's switches.
func (b *bench) environ(e *localEdge, mode string) map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.HasPrefix(k, "TF_VAR_") || strings.HasPrefix(k, "CLOUDFLARE_") || strings.HasPrefix(k, "KAMUIDASH_") {
			continue
		}
		env[k] = v
	}
	for k, v := range e.env {
		if k != "KAMUIDASH_LOCAL_SIGNING_SECRET" { // the Worker gets it as an input variable
			env[k] = v
		}
	}
	env["TF_CLI_CONFIG_FILE"] = b.cliConfig
	env[envRequestsPerFiveMinutes] = strconv.Itoa(cfapi.CloudflareRateLimit.Requests * b.scale)
	if mode == modeAnchor {
		env[envEconomy] = "off"
	}
	return tfexec.CleanEnv(env)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// loadAverage is the 1-minute load average from /proc/loadavg, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

func roundDuration(d time.Duration) string {
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

func noteSuffix(note string) string {
	if note == "" {
		return ""
	}
	return "; " + note
}
