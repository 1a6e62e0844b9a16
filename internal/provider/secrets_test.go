package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccSecrets_NeverLogged runs a configuration that handles every secret the provider knows
// (the API token, a tunnel's connector token, the Worker's signing secret and cache marker)
// with full TRACE logging of the CLI and the provider: it creates them, rotates the Worker's
// secrets, and has a too-short marker refused. Then it greps every log line for them, checks
// that no plan shows one outside a sensitive attribute (what a rendered plan would print), and
// that no error text repeats one (the provider logs every diagnostic it returns).
func TestAccSecrets_NeverLogged(t *testing.T) {
	edge := newTestEdge(t)
	logDir := t.TempDir()
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(logDir, "%s.log"))
	t.Setenv("TF_ACC_LOG", "TRACE") // the CLI
	t.Setenv("TF_LOG", "TRACE")     // the in-process provider

	// Every secret comes from the environment, as the docs recommend: the harness logs the
	// configuration text itself, which would otherwise hold them.
	t.Setenv(EnvAPIToken, edge.Identity().APIToken)
	withoutToken := func(config string) string {
		return strings.Replace(config, fmt.Sprintf("api_token       = %q", edge.Identity().APIToken), "", 1)
	}
	workerSecrets := map[string]string{
		"signing secret":         "first-signing-secret-0123456789abcdef",
		"rotated signing secret": "second-signing-secret-fedcba9876543210",
		"cache marker":           "first-cache-marker-0123",
		"rotated cache marker":   "second-cache-marker-4567",
		"refused cache marker":   "short-marker",
	}
	useWorkerSecrets := func(signing, marker string) func() {
		return func() {
			t.Setenv("TF_VAR_signing_secret", workerSecrets[signing])
			t.Setenv("TF_VAR_cache_marker", workerSecrets[marker])
		}
	}
	config := withoutToken(tunnelConfig(edge, "origin.kamui.test")) + `
variable "signing_secret" {
  type      = string
  sensitive = true
}
variable "cache_marker" {
  type      = string
  sensitive = true
}
resource "kamuidash_kv_namespace" "routes" {
  title = "kamuidash-test-routes"
}
resource "kamuidash_kv_namespace" "domains" {
  title = "kamuidash-test-domains"
}
resource "kamuidash_tenant_app" "shop" {
  name                = "shop"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  origin              = kamuidash_tunnel.edge.origin_hostname
  namespace           = "tenant-shop"
  service             = "web"
  port                = 8080
}
resource "kamuidash_edge_worker" "edge" {
  name                 = "kamuidash-edge-test"
  routes_namespace_id  = kamuidash_kv_namespace.routes.id
  domains_namespace_id = kamuidash_kv_namespace.domains.id
  static_bucket        = "kamuidash-test-static"
  signing_secret       = var.signing_secret
  cache_marker         = var.cache_marker
  routes               = ["*.kamui.test/*"]
}`
	plansClean := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{noSecretOutsideSensitive(workerSecrets)}}
	var tunnelToken string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:        useWorkerSecrets("signing secret", "cache marker"),
				Config:           config,
				ConfigPlanChecks: plansClean,
				Check: func(s *terraform.State) error {
					tunnelToken = s.RootModule().Resources[tunnelAddr].Primary.Attributes["token"]
					if tunnelToken == "" {
						return fmt.Errorf("no tunnel token in state")
					}
					return nil
				},
			},
			{
				PreConfig: useWorkerSecrets("rotated signing secret", "rotated cache marker"),
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					noSecretOutsideSensitive(workerSecrets),
					plancheck.ExpectResourceAction("kamuidash_edge_worker.edge", plancheck.ResourceActionUpdate),
				}},
			},
			{
				PreConfig:   useWorkerSecrets("rotated signing secret", "refused cache marker"),
				Config:      config,
				ExpectError: regexp.MustCompile(`cache_marker`),
			},
		},
	})
	// A refused API call: its error and logs must not carry the token either.
	t.Setenv(EnvAPIToken, "wrong-"+edge.Identity().APIToken[:8])
	wrongToken := withoutToken(kvNamespaceConfig(edge, "kamuidash-test-refused"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{{Config: wrongToken, ExpectError: regexp.MustCompile(`API\s+token\s+was\s+refused`)}},
	})

	secrets := map[string]string{"API token": edge.Identity().APIToken, "tunnel token": tunnelToken}
	for name, v := range workerSecrets {
		secrets[name] = v
	}
	files, err := filepath.Glob(filepath.Join(logDir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no log files written (%v): the test would prove nothing", err)
	}
	var total int
	var sawRequests, sawUpload bool
	// The provider logs every diagnostic it returns, so the refused steps' error texts are
	// among the lines grepped below: seeing both proves it.
	sawErrors := map[string]bool{"string length must be at least": false, "API token was": false}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
		// The provider's request lines name the account in their paths: proof that the
		// provider's own logs, not only the CLI's, were captured.
		sawRequests = sawRequests || strings.Contains(string(b), "Cloudflare API response") && strings.Contains(string(b), edge.Identity().AccountID)
		sawUpload = sawUpload || strings.Contains(string(b), "kamuidash-edge-test")
		for text := range sawErrors {
			sawErrors[text] = sawErrors[text] || strings.Contains(string(b), text)
		}
		for name, secret := range secrets {
			if strings.Contains(string(b), secret) {
				t.Errorf("the %s appears in %s", name, filepath.Base(f))
				for _, line := range strings.Split(string(b), "\n") {
					if strings.Contains(line, secret) {
						t.Logf("leaking line: %.300s", strings.ReplaceAll(line, secret, "<SECRET>"))
					}
				}
			}
		}
	}
	if !sawRequests || !sawUpload {
		t.Fatalf("no provider request log lines (%v) or no Worker upload (%v) captured: the test would prove nothing", sawRequests, sawUpload)
	}
	for text, seen := range sawErrors {
		if !seen {
			t.Errorf("no log line carries the error text %q: the error-text check would prove nothing", text)
		}
	}
	if total < 10_000 {
		t.Fatalf("only %d bytes of logs: TRACE logging did not take effect", total)
	}
}

// noSecretOutsideSensitive fails a plan in which any of secrets appears in a value that is not
// marked sensitive: those are the values a rendered plan (terraform plan's output) prints.
func noSecretOutsideSensitive(secrets map[string]string) plancheck.PlanCheck {
	return secretPlanCheck(secrets)
}

type secretPlanCheck map[string]string

func (c secretPlanCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	var visible []string
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Change == nil {
			continue
		}
		for _, pair := range [][2]any{{rc.Change.Before, rc.Change.BeforeSensitive}, {rc.Change.After, rc.Change.AfterSensitive}} {
			visible = append(visible, rc.Address+": "+shownValues(pair[0], pair[1]))
		}
	}
	for name, v := range req.Plan.OutputChanges {
		if v != nil && !isTrue(v.AfterSensitive) {
			visible = append(visible, "output "+name+": "+shownValues(v.After, nil))
		}
	}
	for _, text := range visible {
		for name, secret := range c {
			if strings.Contains(text, secret) {
				resp.Error = fmt.Errorf("the plan shows the %s outside a sensitive value: %.200s", name, strings.ReplaceAll(text, secret, "<SECRET>"))
				return
			}
		}
	}
	if len(visible) == 0 {
		resp.Error = fmt.Errorf("the plan has no values to check")
	}
}

var _ plancheck.PlanCheck = secretPlanCheck(nil)

// shownValues renders the parts of value that sensitive does not mark (a plan's after and
// after_sensitive share their shape: true marks a sensitive subtree).
func shownValues(value, sensitive any) string {
	if isTrue(sensitive) {
		return ""
	}
	switch v := value.(type) {
	case map[string]any:
		s, _ := sensitive.(map[string]any)
		var b strings.Builder
		for k, sub := range v {
			b.WriteString(k + "=" + shownValues(sub, s[k]) + ";")
		}
		return b.String()
	case []any:
		s, _ := sensitive.([]any)
		var b strings.Builder
		for i, sub := range v {
			var si any
			if i < len(s) {
				si = s[i]
			}
			b.WriteString(shownValues(sub, si) + ",")
		}
		return b.String()
	}
	out, _ := json.Marshal(value)
	return string(out)
}

func isTrue(v any) bool {
	b, ok := v.(bool)
	return ok && b
}

// TestSecretPlanCheck: the plan check sees a secret in a shown value and not in a sensitive one.
func TestSecretPlanCheck(t *testing.T) {
	check := noSecretOutsideSensitive(map[string]string{"secret": "s3cr3t-value"})
	run := func(after, afterSensitive any) error {
		resp := &plancheck.CheckPlanResponse{}
		check.CheckPlan(context.Background(), plancheck.CheckPlanRequest{Plan: &tfjson.Plan{ResourceChanges: []*tfjson.ResourceChange{{
			Address: "kamuidash_edge_worker.edge",
			Change:  &tfjson.Change{After: after, AfterSensitive: afterSensitive},
		}}}}, resp)
		return resp.Error
	}
	after := map[string]any{"signing_secret": "s3cr3t-value", "name": "edge", "routes": []any{"a", "b"}}
	if err := run(after, map[string]any{"signing_secret": true}); err != nil {
		t.Errorf("a sensitive secret: %v", err)
	}
	if err := run(after, map[string]any{}); err == nil || strings.Contains(err.Error(), "s3cr3t-value") {
		t.Errorf("a shown secret: %v, want an error that does not repeat it", err)
	}
	nested := map[string]any{"routes": []any{"x", "s3cr3t-value"}}
	if err := run(nested, map[string]any{"routes": []any{false, true}}); err != nil {
		t.Errorf("a sensitive list element: %v", err)
	}
	if err := run(nested, map[string]any{"routes": []any{true, false}}); err == nil {
		t.Error("a shown list element holding the secret passed")
	}
}
