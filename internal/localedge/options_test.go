package localedge

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

func TestParseOptions(t *testing.T) {
	o, err := parseOptions(nil, io.Discard)
	must(t, "defaults", err)
	if o.APIAddr != "127.0.0.1:8787" || o.EdgeAddr != "127.0.0.1:8788" || o.StateDir == "" || o.RouterUpstreamTemplate != "127.0.0.1:{port}" {
		t.Errorf("defaults = %+v", o)
	}
	for _, args := range [][]string{
		{"--api", "0.0.0.0:8787"},
		{"--edge", "192.0.2.1:80"},
		{"--kv-propagation", "-1s"},
		{"--fallback-activation", "-1s"},
		{"--fallback-activation", "soon"},
		{"--router-secret-dir", "/etc/kamuidash/signing"}, // without --router
		{"--api-rate-limit", "1200"},
		{"--api-rate-limit", "0/5m"},
		{"--api-rate-limit", "1200/500ms"},
		{"extra"},
	} {
		if _, err := parseOptions(args, io.Discard); err == nil {
			t.Errorf("parseOptions(%q) accepted", args)
		}
	}
	o, err = parseOptions([]string{"--router", "--router-secret-dir", "/etc/kamuidash/signing"}, io.Discard)
	if err != nil || o.RouterSecretDir != "/etc/kamuidash/signing" {
		t.Errorf("--router --router-secret-dir: %+v, %v", o, err)
	}
	if o.FallbackActivation != DefaultFallbackActivation {
		t.Errorf("--fallback-activation defaults to %v, want %v", o.FallbackActivation, DefaultFallbackActivation)
	}
	if o, err := parseOptions([]string{"--fallback-activation", "1m30s"}, io.Discard); err != nil || o.FallbackActivation != 90*time.Second {
		t.Errorf("--fallback-activation 1m30s: %v, %v", o.FallbackActivation, err)
	}
	if o, err := parseOptions([]string{"--fallback-activation", "0"}, io.Discard); err != nil || o.FallbackActivation != 0 {
		t.Errorf("--fallback-activation 0: %v, %v; want active at once", o.FallbackActivation, err)
	}
	if o.APIRateLimit.Enabled() {
		t.Errorf("the rate limit is on by default: %v", o.APIRateLimit)
	}
	o, err = parseOptions([]string{"--api-rate-limit", "1200/5m"}, io.Discard)
	if err != nil || o.APIRateLimit != cfapi.CloudflareRateLimit {
		t.Errorf("--api-rate-limit 1200/5m: %v, %v; want Cloudflare's limit", o.APIRateLimit, err)
	}
}

// TestParseOptions_PathsAreAbsolute: every path flag comes out resolved against the working
// directory (the runtime host runs in a directory of its own).
func TestParseOptions_PathsAreAbsolute(t *testing.T) {
	wd, err := os.Getwd()
	must(t, "working directory", err)
	o, err := parseOptions([]string{"--state-dir", "build/edge", "--ready-file", "build/ready", "--node-modules", "../node_modules",
		"--router", "--router-secret-dir", "keys", "--kube-assets", "./assets"}, io.Discard)
	must(t, "parse", err)
	for name, got := range map[string][2]string{
		"--state-dir":         {o.StateDir, filepath.Join(wd, "build/edge")},
		"--ready-file":        {o.ReadyFile, filepath.Join(wd, "build/ready")},
		"--node-modules":      {o.NodeModules, filepath.Join(filepath.Dir(wd), "node_modules")},
		"--router-secret-dir": {o.RouterSecretDir, filepath.Join(wd, "keys")},
		"--kube-assets":       {o.KubeAssets, filepath.Join(wd, "assets")},
	} {
		if got[0] != got[1] {
			t.Errorf("%s = %q, want %q", name, got[0], got[1])
		}
	}
}

func TestMain_BadFlagsExit2(t *testing.T) {
	var stderr strings.Builder
	if code := Main(t.Context(), []string{"--api", "0.0.0.0:1"}, io.Discard, &stderr); code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "loopback") {
		t.Errorf("stderr = %q, want it to say why", stderr.String())
	}
}

func TestMain_MissingNodeModulesSaysNpmCi(t *testing.T) {
	var stderr strings.Builder
	code := Main(t.Context(), []string{"--state-dir", t.TempDir(), "--api", "127.0.0.1:0", "--edge", "127.0.0.1:0",
		"--node-modules", t.TempDir()}, io.Discard, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "run npm ci at the repo root") {
		t.Errorf("exit %d, stderr %q; want 1 and the npm ci hint", code, stderr.String())
	}
}

func TestEnvFile(t *testing.T) {
	id := cfapi.Identity{AccountID: "acc", ZoneID: "zone", ZoneName: "kamui.test", APIToken: "tok'en",
		R2AccessKeyID: "r2key", R2SecretAccessKey: "r2secret"}
	const secret = "local-signing-secret-0123456789abcdef"
	got := string(envFile(id, "http://127.0.0.1:8787", "http://127.0.0.1:8788", secret,
		clusterEnv{registry: "127.0.0.1:5000", kubeconfig: "/state/cluster/kubeconfig", namespacePrefix: "tenant-"}))
	want := "export CLOUDFLARE_API_TOKEN='tok'\\''en'\n" +
		"export KAMUIDASH_API_BASE_URL=http://127.0.0.1:8787/client/v4\n" +
		"export KAMUIDASH_ACCOUNT_ID=acc\n" +
		"export KAMUIDASH_ZONE_ID=zone\n" +
		"export KAMUIDASH_PLATFORM_DOMAIN=kamui.test\n" +
		"export KAMUIDASH_EDGE_URL=http://127.0.0.1:8788\n" +
		"export KAMUIDASH_PROBE_KEY=" + route.EncodeProbeKey(route.ProbeKey([]byte(secret))) + "\n" +
		"export KAMUIDASH_LOCAL_SIGNING_SECRET=" + secret + "\n" +
		"export KAMUIDASH_R2_S3_ENDPOINT=http://127.0.0.1:8787/r2-s3\n" +
		"export KAMUIDASH_R2_ACCESS_KEY_ID=r2key\n" +
		"export KAMUIDASH_R2_SECRET_ACCESS_KEY=r2secret\n" +
		"export KAMUIDASH_LOCAL_REGISTRY=127.0.0.1:5000\n" +
		"export KAMUIDASH_TENANT_NAMESPACE_PREFIX=tenant-\n" +
		"export KUBECONFIG=/state/cluster/kubeconfig\n"
	if got != want {
		t.Errorf("env file:\n%s\nwant:\n%s", got, want)
	}
}

// TestLocalSigningSecret: made once per state dir, kept across restarts, and a file that holds
// no usable secret is refused rather than signed with.
func TestLocalSigningSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "signing-secret")
	first, err := loadSigningSecret(path)
	must(t, "create", err)
	again, err := loadSigningSecret(path)
	must(t, "load", err)
	if len(first) < route.MinSigningSecretBytes || again != first {
		t.Fatalf("first %d bytes, then %q: want one secret of at least %d bytes kept", len(first), again, route.MinSigningSecretBytes)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	other, err := loadSigningSecret(filepath.Join(t.TempDir(), "signing-secret"))
	must(t, "create another", err)
	if other == first {
		t.Error("two state dirs got the same secret")
	}
	must(t, "truncate", os.WriteFile(path, []byte("short"), 0o600))
	if _, err := loadSigningSecret(path); err == nil || strings.Contains(err.Error(), "short") {
		t.Errorf("a short secret: %v", err)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	path := t.TempDir() + "/sub/env"
	must(t, "write", writeFileAtomic(path, []byte("a")))
	must(t, "overwrite", writeFileAtomic(path, []byte("b")))
	b, err := os.ReadFile(path)
	must(t, "read", err)
	info, _ := os.Stat(path)
	if string(b) != "b" || info.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v", b, info.Mode().Perm())
	}
}
