package provider

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/kubeaccess"
)

// kubernetesModel is the provider's optional kubernetes block.
type kubernetesModel struct {
	ConfigPath           types.String `tfsdk:"config_path"`
	ConfigContext        types.String `tfsdk:"config_context"`
	Host                 types.String `tfsdk:"host"`
	Token                types.String `tfsdk:"token"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	Insecure             types.Bool   `tfsdk:"insecure"`
}

func kubernetesBlock() schema.Block {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Access to the Kubernetes cluster the router runs in, for the cluster-side resources " +
			"(`kamuidash_router_network_policy`). Without the block, or with parts of it unset, the provider falls back as " +
			"kubectl does: the `KUBECONFIG` environment variable, then `~/.kube/config`, then the in-cluster service account " +
			"when it runs in a pod. Settings in the block override the kubeconfig's. Only resources that need a cluster fail " +
			"when none is configured, at plan time; the Cloudflare side works without one.",
		Attributes: map[string]schema.Attribute{
			"config_path": schema.StringAttribute{
				MarkdownDescription: "A kubeconfig file. It must exist; unset, `KUBECONFIG` and `~/.kube/config` are used.",
				Optional:            true,
			},
			"config_context": schema.StringAttribute{
				MarkdownDescription: "The kubeconfig context to use; unset, the kubeconfig's current context.",
				Optional:            true,
			},
			"host": schema.StringAttribute{
				MarkdownDescription: "The API server's URL, for example `https://10.0.0.1:6443`; overrides the kubeconfig's.",
				Optional:            true,
			},
			"token": schema.StringAttribute{
				MarkdownDescription: "A bearer token (for example a service account's); overrides the kubeconfig's credentials.",
				Optional:            true,
				Sensitive:           true,
			},
			"cluster_ca_certificate": schema.StringAttribute{
				MarkdownDescription: "The PEM certificate of the cluster's CA; overrides the kubeconfig's.",
				Optional:            true,
			},
			"insecure": schema.BoolAttribute{
				MarkdownDescription: "Skip verifying the API server's certificate. Only for a throwaway cluster.",
				Optional:            true,
			},
		},
	}
}

// kubeConnection is the provider's one Kubernetes client, or why there is none.
type kubeConnection struct {
	client kubernetes.Interface
	err    error
	// unknown: some setting is known only after apply, so the plan cannot reach the cluster
	// yet; the apply will (Terraform configures the provider again with known values).
	unknown bool
}

// newKubeConnection builds the client from the block (nil when the block is absent). It never
// contacts the cluster, and never fails the provider: a cluster is needed by few resources.
func newKubeConnection(m *kubernetesModel) *kubeConnection {
	var s kubeaccess.Settings
	if m != nil {
		for _, v := range []interface{ IsUnknown() bool }{m.ConfigPath, m.ConfigContext, m.Host, m.Token, m.ClusterCACertificate, m.Insecure} {
			if v.IsUnknown() {
				return &kubeConnection{unknown: true}
			}
		}
		s = kubeaccess.Settings{
			ConfigPath:           m.ConfigPath.ValueString(),
			ConfigContext:        m.ConfigContext.ValueString(),
			Host:                 m.Host.ValueString(),
			Token:                m.Token.ValueString(),
			ClusterCACertificate: m.ClusterCACertificate.ValueString(),
			Insecure:             m.Insecure.ValueBool(),
		}
	}
	c, err := s.Client()
	return &kubeConnection{client: c, err: err}
}

// require returns the client, or adds the diagnostic saying which setting to give. ok is false
// also while the settings are unknown (then without a diagnostic: the plan leaves what depends
// on the cluster unknown). The router's NetworkPolicy is the one resource that needs it.
func (k *kubeConnection) require(diags *diag.Diagnostics) (kubernetes.Interface, bool) {
	const resource = routerPolicyResourceName
	switch {
	case k == nil:
		diags.Append(unexpectedProviderDataDiag())
		return nil, false
	case k.unknown:
		return nil, false
	case errors.Is(k.err, kubeaccess.ErrNotConfigured):
		diags.AddError("Kubernetes Cluster Not Configured",
			resource+" manages an object in the router's cluster, and the provider has no cluster to talk to: "+k.err.Error()+". "+
				"Add a kubernetes block to the provider (config_path and config_context, or host with token and "+
				"cluster_ca_certificate), or set KUBECONFIG.")
		return nil, false
	case k.err != nil:
		diags.AddError("Invalid Kubernetes Settings",
			resource+" cannot reach the cluster: "+k.err.Error()+". Fix the provider's kubernetes block or the kubeconfig it names.")
		return nil, false
	}
	return k.client, true
}
