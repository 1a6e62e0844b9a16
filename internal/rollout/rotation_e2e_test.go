package rollout

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

// nextSecretFlag is what the rendered router Deployment runs with while it accepts the next key.
const nextSecretFlag = "--next-secret-file=/etc/kamuidash/signing/signing-secret-next"

// TestAccRollout_SigningSecretRotation rotates an environment's signing secret end to end with
// requests flowing all along: the real CLI (TF_ACC_TERRAFORM_PATH), the provider from this
// checkout, examples/environments/dev, and a local edge whose router takes its keys from a
// directory laid out like its Kubernetes Secret (--router-secret-dir: the stand-in for the
// cluster's secret store and router rollout). After the bootstrap come the three plans of a
// rotation, each judged by the guard, allowed and applied, with the Secret updated where the
// cluster would update it:
//
//  1. the router learns the next key (a cluster change: the module input renders the
//     Deployment with --next-secret-file, the Secret gets signing-secret-next);
//  2. the Worker signs with it (a Worker-only plan);
//  3. the router drops the old key (input off, signing-secret = the new key, -next removed).
//
// A background loop sends requests through the edge during every step, and every one must be
// the backend's 200. Last, a Worker-only plan that signs with a key the router was never given
// (a rotation that skips step 1) is allowed by the guard, and the same loop sees 403s: the
// loop's check can fail.
func TestAccRollout_SigningSecretRotation(t *testing.T) {
	cli := accCLI(t, "end-to-end rotation test")
	repo := repoRoot(t)
	tmp := t.TempDir()
	binary, cliConfig := installProvider(t, repo, tmp)
	backendPort := startShopBackend(t)

	oldKey, newKey, unknownKey := randomHex(t, 32), randomHex(t, 32), randomHex(t, 32)
	secret := &secretDir{dir: filepath.Join(tmp, "router-secret")}
	must(t, os.Mkdir(secret.dir, 0o700))
	secret.set(t, map[string]string{"signing-secret": oldKey})

	edge := startEdge(t, repo, binary, "dev", filepath.Join(tmp, "dev-edge"), "--router-secret-dir", secret.dir)
	if edge == nil {
		t.FailNow()
	}
	root := copyEnvironments(t, repo, filepath.Join(tmp, "tree"), "dev")
	vars := map[string]string{
		"edge_url":                edge.env["KAMUIDASH_EDGE_URL"],
		"backend_port":            fmt.Sprint(backendPort),
		"signing_secret":          oldKey,
		"cache_marker":            randomHex(t, 16),
		"router_image_repository": edge.env["KAMUIDASH_LOCAL_REGISTRY"] + "/kamuidash/router",
	}
	secrets := []string{oldKey, newKey, unknownKey, vars["cache_marker"], edge.env["CLOUDFLARE_API_TOKEN"]}

	// rollout applies dev through the rollout (init, plan, guard, apply, smoke checks) and
	// returns its result and output.
	rollout := func(what string, r Rollout) (EnvResult, string) {
		t.Helper()
		env := map[string]string{"TF_CLI_CONFIG_FILE": cliConfig}
		for k, v := range edge.env {
			env[k] = v
		}
		for k, v := range vars {
			env["TF_VAR_"+k] = v
		}
		r.Root, r.CLI = root, cli
		return rolloutDev(t, what, r, env, secrets)
	}
	// allowedAndApplied fails the test unless the guard allowed the plan, it was applied and
	// the smoke checks passed.
	allowedAndApplied := func(what string, res EnvResult) {
		t.Helper()
		if res.Report == nil || !res.Report.Allowed || !res.Applied || res.Stage != StageDone {
			t.Fatalf("%s: stage %s, applied %v, err %v, guard %+v; want it allowed, applied and its smoke checks passing",
				what, res.Stage, res.Applied, res.Err, res.Report)
		}
	}

	res, _ := rollout("bootstrap", Rollout{Guard: guard.Options{AllowBootstrap: true}})
	allowedAndApplied("bootstrap", res)
	worker := edge.workerEtag(t)

	traffic := startTraffic(t, edge.env["KAMUIDASH_EDGE_URL"], "shop."+edge.env["KAMUIDASH_PLATFORM_DOMAIN"])
	defer traffic.stop()

	// 1. The router learns the next key: a cluster change (no resource but the rendered
	// manifests changes; the Worker is untouched), then the Secret gets signing-secret-next
	// and the router rolls out.
	traffic.enter(t, "1. the router learns the next key")
	vars["router_accept_next_signing_secret"] = "true"
	res, _ = rollout("step 1", Rollout{})
	allowedAndApplied("step 1", res)
	if len(res.Report.Changes) != 0 || edge.workerEtag(t) != worker {
		t.Fatalf("step 1 changed resources (%v) or the Worker; it is the cluster's change alone", res.Report.Changes)
	}
	if m := routerManifests(t, cli, cliConfig, filepath.Join(root, "dev")); !strings.Contains(m, nextSecretFlag) {
		t.Fatalf("step 1: the rendered router Deployment does not read the next key:\n%s", m)
	}
	rolled := edge.routerRollouts(t)
	secret.set(t, map[string]string{"signing-secret": oldKey, "signing-secret-next": newKey})
	edge.waitForRouterRollout(t, rolled, true)

	// 2. The Worker signs with the next key: a Worker-only plan.
	traffic.enter(t, "2. the Worker signs with the next key")
	vars["signing_secret"] = newKey
	res, _ = rollout("step 2", Rollout{WorkerOnly: true})
	allowedAndApplied("step 2", res)
	if edge.workerEtag(t) == worker {
		t.Fatal("step 2 did not upload a new Worker")
	}
	worker = edge.workerEtag(t)
	// The operator waits for the router's access log to show the next key in use before
	// dropping the old one (signing_key names the key that verified each request).
	edge.waitForLog(t, "requests verified under the next key", `"signing_key":"next"`)

	// 3. The router drops the old key: the input off, the Secret holds the new key alone.
	traffic.enter(t, "3. the router drops the old key")
	vars["router_accept_next_signing_secret"] = "false"
	res, _ = rollout("step 3", Rollout{})
	allowedAndApplied("step 3", res)
	if len(res.Report.Changes) != 0 || edge.workerEtag(t) != worker {
		t.Fatalf("step 3 changed resources (%v) or the Worker; it is the cluster's change alone", res.Report.Changes)
	}
	if m := routerManifests(t, cli, cliConfig, filepath.Join(root, "dev")); strings.Contains(m, nextSecretFlag) {
		t.Fatalf("step 3: the rendered router Deployment still reads the next key:\n%s", m)
	}
	rolled = edge.routerRollouts(t)
	secret.set(t, map[string]string{"signing-secret": newKey})
	edge.waitForRouterRollout(t, rolled, false)
	traffic.enter(t, "rotated")

	// Skipping step 1: the Worker signs with a key the router does not know. The guard allows
	// the Worker-only plan (it cannot see the cluster); the requests fail.
	traffic.enter(t, "skipped step 1")
	vars["signing_secret"] = unknownKey
	res, out := rollout("skipping step 1", Rollout{WorkerOnly: true, SmokeTimeout: 10 * time.Second})
	if res.Report == nil || !res.Report.Allowed || !res.Applied || res.Stage != StageSmoke ||
		!strings.Contains(out, "HTTP 403, want 200") {
		t.Errorf("skipping step 1: stage %s, applied %v, err %v; want the plan allowed and applied, then its smoke checks failing with 403",
			res.Stage, res.Applied, res.Err)
	}
	traffic.waitForFailure(t, "skipped step 1")
	traffic.stop()

	counts, failures := traffic.result()
	t.Logf("requests per step: %v", counts)
	for _, step := range []string{"bootstrap", "1. the router learns the next key", "2. the Worker signs with the next key", "3. the router drops the old key", "rotated"} {
		if counts[step] == 0 {
			t.Errorf("no request went through the edge during %q", step)
		}
		for _, f := range failures[step] {
			t.Errorf("%s: %s", step, f)
		}
	}
	refused := 0
	for _, f := range failures["skipped step 1"] {
		if strings.HasPrefix(f, "HTTP 403") {
			refused++
		}
	}
	if refused == 0 {
		t.Errorf("skipping step 1: no request was refused with 403 (failures %q)", failures["skipped step 1"])
	}
}

// secretDir is the router's Kubernetes Secret as the local edge reads it.
type secretDir struct{ dir string }

// set replaces the Secret's keys as one update, as the kubelet does: the files of keys that
// stay are replaced by rename, removed keys are removed last.
func (s *secretDir) set(t *testing.T, keys map[string]string) {
	t.Helper()
	for name, value := range keys {
		tmp := filepath.Join(s.dir, "."+name+".tmp")
		must(t, os.WriteFile(tmp, []byte(value), 0o400))
		must(t, os.Rename(tmp, filepath.Join(s.dir, name)))
	}
	entries, err := os.ReadDir(s.dir)
	must(t, err)
	for _, e := range entries {
		if _, keep := keys[e.Name()]; !keep {
			must(t, os.Remove(filepath.Join(s.dir, e.Name())))
		}
	}
}

// routerManifests is the environment's router_manifests output, read from its state as the
// cluster's tooling would (`terraform output -raw router_manifests`).
func routerManifests(t *testing.T, cli, cliConfig, dir string) string {
	t.Helper()
	cmd := exec.Command(cli, "output", "-raw", "router_manifests")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+cliConfig)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s output router_manifests: %v", cli, err)
	}
	return string(out)
}

// log is everything the local edge (and its routers) wrote so far.
func (e *edgeEnv) log(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(e.stateDir + ".log")
	must(t, err)
	return string(b)
}

// routerRollouts counts the router processes the local edge has switched to.
func (e *edgeEnv) routerRollouts(t *testing.T) int {
	t.Helper()
	return strings.Count(e.log(t), `msg="router rolled out"`)
}

// waitForRouterRollout waits until the local edge has switched to a router started after
// `after` switches, with the next key or without.
func (e *edgeEnv) waitForRouterRollout(t *testing.T, after int, withNextKey bool) {
	t.Helper()
	want := fmt.Sprintf("next_signing_key=%v", withNextKey)
	deadline := time.Now().Add(time.Minute)
	for {
		log := e.log(t)
		lines := strings.Split(log, "\n")
		n := 0
		for _, l := range lines {
			if strings.Contains(l, `msg="router rolled out"`) {
				if n++; n > after && strings.Contains(l, want) {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the router was not rolled out with %s:\n%s", want, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitForLog waits until the local edge's log contains text.
func (e *edgeEnv) waitForLog(t *testing.T, what, text string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(e.log(t), text) {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s (no %s in the local edge's log)", what, text)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// traffic sends one request after another through the edge to the shop, and files each
// failure (anything but the backend's 200) under the step it happened in.
type traffic struct {
	mu       sync.Mutex
	step     string
	counts   map[string]int
	failures map[string][]string
	done     chan struct{}
	stopOnce sync.Once
	quit     chan struct{}
}

func startTraffic(t *testing.T, edgeURL, host string) *traffic {
	t.Helper()
	tr := &traffic{step: "bootstrap", counts: map[string]int{}, failures: map[string][]string{},
		done: make(chan struct{}), quit: make(chan struct{})}
	client := &http.Client{Timeout: 30 * time.Second}
	go func() {
		defer close(tr.done)
		defer client.CloseIdleConnections()
		for {
			select {
			case <-tr.quit:
				return
			case <-time.After(20 * time.Millisecond): // a steady trickle, not a load test
			}
			problem := ""
			req, err := http.NewRequest(http.MethodGet, edgeURL+"/", nil)
			if err != nil {
				problem = err.Error()
			} else {
				req.Host = host
				res, err := client.Do(req)
				if err != nil {
					problem = err.Error()
				} else {
					body, err := io.ReadAll(res.Body)
					_ = res.Body.Close()
					if res.StatusCode != http.StatusOK || string(body) != shopBackendBody || err != nil {
						problem = fmt.Sprintf("HTTP %d %q (%v)", res.StatusCode, body, err)
					}
				}
			}
			tr.mu.Lock()
			tr.counts[tr.step]++
			if problem != "" {
				tr.failures[tr.step] = append(tr.failures[tr.step], problem)
			}
			tr.mu.Unlock()
		}
	}()
	return tr
}

// enter starts the next step once the current one has carried a few requests.
func (tr *traffic) enter(t *testing.T, step string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		tr.mu.Lock()
		n, current := tr.counts[tr.step], tr.step
		if n >= 3 {
			tr.step = step
		}
		tr.mu.Unlock()
		if n >= 3 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no requests went through the edge during %q", current)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitForFailure waits until a request failed during step.
func (tr *traffic) waitForFailure(t *testing.T, step string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		tr.mu.Lock()
		n := len(tr.failures[step])
		tr.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no request failed during %q", step)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (tr *traffic) stop() {
	tr.stopOnce.Do(func() { close(tr.quit) })
	<-tr.done
}

func (tr *traffic) result() (map[string]int, map[string][]string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.counts, tr.failures
}
