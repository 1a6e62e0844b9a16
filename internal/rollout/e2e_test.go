package rollout

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localcluster"
)

// accCLI is the Terraform or OpenTofu binary an end-to-end test (what) runs: it skips the test
// without TF_ACC and fails it without TF_ACC_TERRAFORM_PATH.
func accCLI(t *testing.T, what string) string {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip(what + ": set TF_ACC=1 and TF_ACC_TERRAFORM_PATH (scripts/test.sh does)")
	}
	cli := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if cli == "" {
		t.Fatal("TF_ACC_TERRAFORM_PATH must name the terraform or tofu binary")
	}
	return cli
}

// TestAccRollout_DevThenProd is the rollout end to end: the real CLI (TF_ACC_TERRAFORM_PATH,
// Terraform or OpenTofu), the provider binary built from this checkout and installed from an
// offline filesystem mirror, examples/environments/{dev,prod} with the configuration they
// share (examples/environments/shared) and the modules it uses, and two local edges (API,
// workerd, tunnel emulation, router) in front of a loopback tenant backend. The smoke checks
// are real requests through each edge.
func TestAccRollout_DevThenProd(t *testing.T) {
	cli := accCLI(t, "end-to-end rollout test")
	w := newWorld(t, cli)

	// 1. The first deployment creates the Workers: refused without --allow-bootstrap, before
	// anything is applied, then rolled out to both with it.
	out, code := w.rollout(t)
	if code != 1 || !strings.Contains(out, "for the first time (a bootstrap)") || !strings.Contains(out, "prod  not started") {
		t.Fatalf("bootstrap without --allow-bootstrap: exit %d, want 1 with the rule named and prod not started:\n%s", code, out)
	}
	if etag := w.dev.workerEtag(t); etag != "" {
		t.Fatalf("dev has a Worker (%s) although the guard refused the plan", etag)
	}
	out, code = w.rollout(t, "--allow-bootstrap")
	if code != 0 || !strings.Contains(out, "dev   ok") || !strings.Contains(out, "prod  ok") {
		t.Fatalf("bootstrap rollout: exit %d:\n%s", code, out)
	}
	devWorker, prodWorker := w.dev.workerEtag(t), w.prod.workerEtag(t)
	devRecord, prodRecord := w.dev.shopRecord(t), w.prod.shopRecord(t)

	// 2. A Worker-only change rolls out to both; the smoke checks pass on each.
	w.setValues(t, "log_sample_rate", "0.5", "0.5")
	out, code = w.rollout(t, "--worker-only")
	if code != 0 || !allPassed(out, "dev", "prod") {
		t.Fatalf("Worker-only rollout: exit %d, want both environments done with every smoke check passing:\n%s", code, out)
	}
	if w.dev.workerEtag(t) == devWorker || w.prod.workerEtag(t) == prodWorker {
		t.Fatal("the Worker-only rollout did not upload new Workers to both environments")
	}
	if w.dev.shopRecord(t) != devRecord || w.prod.shopRecord(t) != prodRecord {
		t.Fatal("the Worker-only rollout changed a route record")
	}
	devWorker, prodWorker = w.dev.workerEtag(t), w.prod.workerEtag(t)

	// 3. A Worker change mixed with a route record change is refused in dev before any apply;
	// neither environment changes.
	w.setValues(t, "log_sample_rate", "0.25", "0.25")
	w.setValues(t, "shop_timeout", `"20s"`, `"20s"`)
	out, code = w.rollout(t)
	if code != 1 || !strings.Contains(out, "together with changes of other classes") || !strings.Contains(out, "module.shop.kamuidash_tenant_app") ||
		!strings.Contains(out, "dev   FAILED at guard") || !strings.Contains(out, "prod  not started") {
		t.Fatalf("mixed rollout: exit %d, want the guard to refuse dev and prod not started:\n%s", code, out)
	}
	if w.dev.workerEtag(t) != devWorker || w.prod.workerEtag(t) != prodWorker ||
		w.dev.shopRecord(t) != devRecord || w.prod.shopRecord(t) != prodRecord {
		t.Fatal("an environment changed although the guard refused the plan")
	}

	// 4. A change that breaks dev's app (its placement moves to a port nobody listens on; no
	// Worker change, so the guard allows it) is applied to dev, its smoke check fails, and
	// prod is never touched.
	w.setValues(t, "log_sample_rate", "0.5", "0.5")
	w.setValues(t, "shop_timeout", `"30s"`, `"30s"`)
	w.vars["dev"]["backend_port"] = fmt.Sprint(closedPort(t))
	out, code = w.rollout(t, "--smoke-timeout", "15s")
	if code != 1 || !strings.Contains(out, "dev   FAILED at smoke checks") || !strings.Contains(out, "prod  not started") ||
		!strings.Contains(out, "HTTP 502, want 200") {
		t.Fatalf("rollout with a broken dev: exit %d, want dev's smoke check to stop it before prod:\n%s", code, out)
	}
	if w.dev.shopRecord(t) == devRecord {
		t.Fatal("dev's change was not applied")
	}
	if w.prod.shopRecord(t) != prodRecord || w.prod.workerEtag(t) != prodWorker {
		t.Fatal("prod changed although dev's smoke checks failed")
	}
}

// allPassed says whether the last summary shows every named environment done with all of its
// smoke checks passing.
func allPassed(out string, envs ...string) bool {
	summary := out[strings.LastIndex(out, "rollout summary:"):]
	for _, env := range envs {
		ok := false
		for _, line := range strings.Split(summary, "\n") {
			f := strings.Fields(line)
			if len(f) == 5 && f[0] == env && f[1] == "ok" {
				passed, total, _ := strings.Cut(f[4], "/")
				ok = passed == total && total != "0"
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// world is the test's two environments and what they share.
type world struct {
	binary, cli, cliConfig, root string
	dev, prod                    *edgeEnv
	vars                         map[string]map[string]string // env → TF_VAR name → value
	// values are changes of an environment's own values (its call of ../shared), as an edit
	// of its main.tf would make them: env → argument → HCL expression.
	values map[string]map[string]string
}

func newWorld(t *testing.T, cli string) *world {
	t.Helper()
	repo := repoRoot(t)
	tmp := t.TempDir()
	w := &world{cli: cli, vars: map[string]map[string]string{}, values: map[string]map[string]string{}}
	w.binary, w.cliConfig = installProvider(t, repo, tmp)
	backendPort := startShopBackend(t)

	var wg sync.WaitGroup
	edges := make([]*edgeEnv, 2)
	for i, name := range []string{"dev", "prod"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			edges[i] = startEdge(t, repo, w.binary, name, filepath.Join(tmp, name+"-edge"))
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	w.dev, w.prod = edges[0], edges[1]

	w.root = copyEnvironments(t, repo, filepath.Join(tmp, "tree"), "dev", "prod")
	for _, e := range edges {
		w.values[e.name] = map[string]string{}
		w.vars[e.name] = map[string]string{
			"edge_url":       e.env["KAMUIDASH_EDGE_URL"],
			"backend_port":   fmt.Sprint(backendPort),
			"signing_secret": randomHex(t, 32),
			"cache_marker":   randomHex(t, 16),
			// The router image goes to the edge's registry, the NetworkPolicy to its
			// Kubernetes API server (KUBECONFIG in its env file).
			"router_image_repository": e.env["KAMUIDASH_LOCAL_REGISTRY"] + "/kamuidash/router",
		}
	}
	return w
}

// installProvider builds the provider from this checkout into tmp and puts it in an offline
// filesystem mirror; it returns the binary and a CLI configuration that installs from there.
func installProvider(t *testing.T, repo, tmp string) (binary, cliConfig string) {
	t.Helper()
	const version = "0.0.1"
	binary = filepath.Join(tmp, "terraform-provider-kamuidash")
	run(t, repo, "go", "build", "-trimpath", "-ldflags", "-X main.version="+version, "-o", binary, ".")
	host := os.Getenv("TF_ACC_PROVIDER_HOST")
	if host == "" {
		host = "registry.terraform.io"
	}
	mirror := filepath.Join(tmp, "mirror")
	platform := runtime.GOOS + "_" + runtime.GOARCH
	installed := filepath.Join(mirror, host, "kamuidash", "kamuidash", version, platform, "terraform-provider-kamuidash_v"+version)
	must(t, os.MkdirAll(filepath.Dir(installed), 0o755))
	copyFile(t, binary, installed, 0o755)
	cliConfig = filepath.Join(tmp, "cli.tfrc")
	must(t, os.WriteFile(cliConfig, fmt.Appendf(nil, "provider_installation {\n  filesystem_mirror {\n    path    = %q\n    include = [\"%s/kamuidash/kamuidash\"]\n  }\n}\n", mirror, host), 0o644))
	return binary, cliConfig
}

// shopBackendBody is what the tenant backend answers to every request.
const shopBackendBody = "shop backend\n"

// startShopBackend starts the tenant backend every app's upstream reaches through the router
// and returns its loopback port.
func startShopBackend(t *testing.T) int {
	t.Helper()
	backend := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(rw, shopBackendBody) // the smoke checks read what arrives
	}))
	t.Cleanup(backend.Close)
	return tcpPort(t, backend.Listener)
}

// setValues changes one argument of dev's and prod's call of ../shared (an HCL expression
// each), through an override file beside the environment's main.tf.
func (w *world) setValues(t *testing.T, name, dev, prod string) {
	t.Helper()
	w.values["dev"][name] = dev
	w.values["prod"][name] = prod
	for _, env := range []string{"dev", "prod"} {
		var b strings.Builder
		b.WriteString("module \"platform\" {\n")
		for _, k := range slices.Sorted(maps.Keys(w.values[env])) {
			fmt.Fprintf(&b, "  %s = %s\n", k, w.values[env][k])
		}
		b.WriteString("}\n")
		must(t, os.WriteFile(filepath.Join(w.root, env, "rollout_test_override.tf"), []byte(b.String()), 0o644))
	}
}

// rollout runs the sub-command for dev then prod with the environments' env files and
// returns its output and exit code.
func (w *world) rollout(t *testing.T, extra ...string) (string, int) {
	t.Helper()
	args := []string{"--root", w.root, "--cli", w.cli, "--env", "dev", "--env", "prod"}
	for _, e := range []*edgeEnv{w.dev, w.prod} {
		var b strings.Builder
		for k, v := range e.env {
			fmt.Fprintf(&b, "export %s='%s'\n", k, v)
		}
		fmt.Fprintf(&b, "export TF_CLI_CONFIG_FILE='%s'\n", w.cliConfig)
		for k, v := range w.vars[e.name] {
			fmt.Fprintf(&b, "export TF_VAR_%s='%s'\n", k, v)
		}
		file := filepath.Join(e.stateDir, "rollout.env")
		must(t, os.WriteFile(file, []byte(b.String()), 0o600))
		args = append(args, "--env-file", e.name+"="+file)
	}
	args = append(args, extra...)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	code := Main(ctx, args, &out, &out)
	t.Logf("rollout %s → exit %d\n%s", strings.Join(extra, " "), code, out.String())
	for _, e := range []*edgeEnv{w.dev, w.prod} {
		for _, secret := range []string{w.vars[e.name]["signing_secret"], w.vars[e.name]["cache_marker"], e.env["CLOUDFLARE_API_TOKEN"]} {
			if strings.Contains(out.String(), secret) {
				t.Fatalf("the rollout's output shows a secret of %s", e.name)
			}
		}
	}
	return out.String(), code
}

// edgeEnv is one running local edge.
type edgeEnv struct {
	name, stateDir string
	env            map[string]string
	client         *kdcf.Client
}

// startEdge starts a local edge with its router (extraArgs are added to its flags) and waits
// until it is ready.
func startEdge(t *testing.T, repo, binary, name, stateDir string, extraArgs ...string) *edgeEnv {
	t.Helper()
	ready := filepath.Join(stateDir, "ready")
	logFile, err := os.Create(stateDir + ".log")
	if err != nil {
		t.Error(err)
		return nil
	}
	t.Cleanup(func() { _ = logFile.Close() }) // the edge wrote to it through a descriptor of its own
	// The example environments manage the router's NetworkPolicy: the edge runs a real
	// Kubernetes API server for them.
	assets := os.Getenv(localcluster.AssetsEnv)
	if _, _, err := localcluster.Binaries(assets); err != nil {
		t.Errorf("%v; the example environments need etcd and kube-apiserver: run export KUBEBUILDER_ASSETS=\"$(scripts/install-tools.sh kube)\"", err)
		return nil
	}
	cmd := exec.Command(binary, append([]string{"localedge", "--state-dir", stateDir, "--api", "127.0.0.1:0", "--edge", "127.0.0.1:0",
		"--ready-file", ready, "--router", "--router-upstream-template", "127.0.0.1:{port}", "--kube-assets", assets}, extraArgs...)...)
	cmd.Dir = repo // the router and the npm packages are found from the checkout
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return nil
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if data, err := os.ReadFile(ready); err == nil {
			env, err := parseEnvFile(string(data), ready)
			if err != nil {
				t.Error(err)
				return nil
			}
			client, err := kdcf.New(kdcf.Config{APIToken: env["CLOUDFLARE_API_TOKEN"], BaseURL: env["KAMUIDASH_API_BASE_URL"] + "/", UserAgent: "rollout-test"})
			if err != nil {
				t.Error(err)
				return nil
			}
			return &edgeEnv{name: name, stateDir: stateDir, env: env, client: client}
		}
		select {
		case <-exited: // it stopped (bad flags, say): no use waiting out the deadline
		case <-time.After(200 * time.Millisecond):
			if time.Now().Before(deadline) {
				continue
			}
		}
		log, _ := os.ReadFile(stateDir + ".log")
		t.Errorf("the %s local edge did not become ready:\n%s", name, log)
		return nil
	}
}

// workerEtag is the uploaded Worker's etag, "" when there is none.
func (e *edgeEnv) workerEtag(t *testing.T) string {
	t.Helper()
	etag, _, err := e.client.WorkerEtag(context.Background(), e.env["KAMUIDASH_ACCOUNT_ID"], "kamuidash-edge-"+e.name)
	must(t, err)
	return etag
}

// shopRecord is the raw route record of the shop app, "" when there is none.
func (e *edgeEnv) shopRecord(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	acct := e.env["KAMUIDASH_ACCOUNT_ID"]
	page, err := e.client.KV.Namespaces.List(ctx, kv.NamespaceListParams{AccountID: cf.F(acct)})
	must(t, err)
	for _, ns := range page.Result {
		if ns.Title == "kamuidash-"+e.name+"-routes" {
			entry, found, err := e.client.KVGet(ctx, acct, ns.ID, "shop")
			must(t, err)
			if found {
				return string(entry.Value)
			}
		}
	}
	return ""
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	must(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(from)
	must(t, err)
	must(t, os.WriteFile(to, data, mode))
}

// copyEnvironments copies the named environments of examples/environments, the configuration
// they share and the modules they use into tree, in the repository's layout, so the relative
// module sources resolve and the checkout gets no state files. It returns the environments'
// root (tree/examples/environments).
func copyEnvironments(t *testing.T, repo, tree string, envs ...string) string {
	t.Helper()
	copyTree(t, filepath.Join(repo, "modules"), filepath.Join(tree, "modules"))
	root := filepath.Join(tree, "examples", "environments")
	for _, dir := range append([]string{"shared"}, envs...) {
		copyTree(t, filepath.Join(repo, "examples", "environments", dir), filepath.Join(root, dir))
	}
	return root
}

// copyTree copies a directory of configuration (regular files only; .terraform and state
// left behind by a developer's runs are skipped).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() && (d.Name() == ".terraform") || strings.HasSuffix(d.Name(), ".tfstate") || strings.HasSuffix(d.Name(), ".tfstate.backup") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		copyFile(t, p, filepath.Join(to, rel), 0o644)
		return nil
	})
	must(t, err)
}

// closedPort is a loopback port with nothing listening.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	port := tcpPort(t, ln)
	must(t, ln.Close())
	return port
}

// tcpPort is the port a TCP listener listens on.
func tcpPort(t *testing.T, ln net.Listener) int {
	t.Helper()
	addr, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("a TCP listener's address is a %T", ln.Addr())
	}
	return addr.Port
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	must(t, err)
	return hex.EncodeToString(b)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
