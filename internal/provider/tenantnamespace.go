package provider

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// The router forwards only to upstream namespaces that start with its --namespace-prefix and
// answers 403 for any other (worker-src/router: admit). The provider does not see the router's
// flags, so the prefix is a provider setting (tenant_namespace_prefix): with it, an app pointed
// outside the prefix fails its plan instead of failing every request after apply.

// namespacePrefixRule is what tenant_namespace_prefix must be: the start of a Kubernetes
// namespace name (a DNS label), such as "tenant-"; it may end with a hyphen.
const namespacePrefixRule = "the start of a namespace name: 1-63 characters of a-z, 0-9 and '-', starting with a letter or digit, such as tenant-"

func isNamespacePrefix(s string) bool {
	if len(s) == 0 || len(s) > 63 || s[0] == '-' {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

func namespacePrefix() validator.String {
	return stringCheck{ok: isNamespacePrefix, rule: namespacePrefixRule}
}

// upstreamNamespaceDiags checks an app's upstream namespace against the router's prefix, when
// the provider knows it. A namespace the plan sets or changes is an error; one the app already
// has in its state (applied before the prefix was set) is a warning, so that plans of other
// changes still go through while the app is moved.
func (d *providerData) upstreamNamespaceDiags(namespace string, applied bool, at path.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	prefix := d.TenantNamespacePrefix
	if prefix == "" || strings.HasPrefix(namespace, prefix) {
		return diags
	}
	summary := "Namespace Outside the Router's Tenant Prefix"
	why := "The namespace " + quote(namespace) + " does not start with " + quote(prefix) + ", the prefix the router requires of " +
		"every upstream namespace (the provider's tenant_namespace_prefix): the router answers every request for this app with 403. "
	fix := "Deploy the app's service in a namespace starting with " + quote(prefix) + ", or, if the router was started with " +
		"another --namespace-prefix, set tenant_namespace_prefix to that."
	if applied {
		diags.AddAttributeWarning(at, summary, why+"The app is applied that way already. "+fix)
		return diags
	}
	diags.AddAttributeError(at, summary, why+"Nothing was changed. "+fix)
	return diags
}
