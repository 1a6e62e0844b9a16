package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestIsNamespacePrefix(t *testing.T) {
	for s, want := range map[string]bool{
		"tenant-": true, "t": true, "team1-": true, "0x": true, strings.Repeat("a", 63): true,
		"": false, "-tenant": false, "Tenant-": false, "tenant_": false, "tenant.": false, strings.Repeat("a", 64): false,
	} {
		if got := isNamespacePrefix(s); got != want {
			t.Errorf("isNamespacePrefix(%q) = %v, want %v", s, got, want)
		}
	}
}

// An app pointed outside the router's prefix is an error when the plan sets or changes its
// namespace, a warning when it is applied that way already, and nothing when the provider
// does not know the prefix or the namespace is inside it.
func TestUpstreamNamespaceDiags(t *testing.T) {
	at := path.Root("namespace")
	for _, tc := range []struct {
		name, prefix, namespace string
		applied                 bool
		want                    diag.Severity // 0: no diagnostic
	}{
		{"no prefix known", "", "kube-system", false, 0},
		{"inside", "tenant-", "tenant-shop", false, 0},
		{"the prefix itself", "tenant-", "tenant-", false, 0},
		{"outside, planned", "tenant-", "kube-system", false, diag.SeverityError},
		{"outside, applied before", "tenant-", "kube-system", true, diag.SeverityWarning},
		{"a prefix of the prefix", "tenant-", "tenant", false, diag.SeverityError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &providerData{TenantNamespacePrefix: tc.prefix}
			diags := d.upstreamNamespaceDiags(tc.namespace, tc.applied, at)
			if tc.want == 0 {
				if len(diags) != 0 {
					t.Fatalf("want no diagnostic, got %v", diags)
				}
				return
			}
			if len(diags) != 1 || diags[0].Severity() != tc.want {
				t.Fatalf("want one diagnostic of severity %v, got %v", tc.want, diags)
			}
			detail := diags[0].Detail()
			for _, want := range []string{`"` + tc.namespace + `"`, `"` + tc.prefix + `"`, "403", "tenant_namespace_prefix"} {
				if !strings.Contains(detail, want) {
					t.Errorf("the detail lacks %s: %s", want, detail)
				}
			}
		})
	}
}

// providerBlockWithPrefix is the provider block for this edge, knowing the router's tenant
// namespace prefix.
func (e *testEdge) providerBlockWithPrefix(prefix string) string {
	return strings.TrimSuffix(e.providerBlock(), "}\n") + fmt.Sprintf("  tenant_namespace_prefix = %q\n}\n", prefix)
}

// A tenant app pointed outside the router's prefix fails its plan, before anything is written;
// one applied that way before the prefix was set plans without a change (a warning), so that
// other changes still go through; moving it to another namespace outside fails, moving it
// inside applies.
func TestAccTenantApp_NamespaceOutsideTheRouterPrefix(t *testing.T) {
	edge := newTestEdge(t)
	// tenantAppConfig's app, with the given provider block and namespace.
	config := func(provider, namespace string) string {
		c := strings.Replace(tenantAppConfig(edge, 8080, ""), edge.providerBlock(), provider, 1)
		return strings.Replace(c, `namespace           = "tenant-shop"`, fmt.Sprintf("namespace           = %q", namespace), 1)
	}
	withPrefix := edge.providerBlockWithPrefix("tenant-")
	refused := regexp.MustCompile(`(?s)Namespace Outside the Router's Tenant Prefix.*"kube-system".*"tenant-"`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config(withPrefix, "kube-system"), PlanOnly: true, ExpectError: refused},
			{Config: config(edge.providerBlock(), "team-shop")},
			{
				Config: config(withPrefix, "team-shop"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{Config: config(withPrefix, "kube-system"), ExpectError: refused},
			{
				Config: config(withPrefix, "tenant-shop"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(tenantAppAddr, tfjsonpath.New("namespace"), knownvalue.StringExact("tenant-shop")),
				},
			},
		},
	})
}

// The same check holds for a dynamic route record's upstream.
func TestAccRouteRecord_UpstreamOutsideTheRouterPrefix(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: strings.Replace(routeRecordConfig(edge, `dynamic = { origin = "origin.kamui.test", upstream = "kube-system/dns:53" }`),
				edge.providerBlock(), edge.providerBlockWithPrefix("tenant-"), 1),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Namespace Outside the Router's Tenant Prefix.*"kube-system".*"tenant-"`),
		}},
	})
}
