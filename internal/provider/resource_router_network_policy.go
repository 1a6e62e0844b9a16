package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/routerpolicy"
)

var (
	_ resource.ResourceWithConfigure   = (*routerNetworkPolicyResource)(nil)
	_ resource.ResourceWithImportState = (*routerNetworkPolicyResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*routerNetworkPolicyResource)(nil)
)

// The defaults match modules/cluster-ingress and the router's Deployment there.
const (
	defaultRouterNamespace  = "kamuidash-system"
	defaultRouterPolicyName = "kamuidash-router-from-tunnel"
	defaultRouterPort       = 8080
	defaultAdminPort        = 9090
	namespaceNameLabel      = "kubernetes.io/metadata.name"
)

var (
	defaultRouterPodLabels    = map[string]string{"app.kubernetes.io/name": "kamuidash-router", "app.kubernetes.io/component": "router"}
	defaultConnectorPodLabels = map[string]string{"app.kubernetes.io/name": "cloudflared"}
)

// NewRouterNetworkPolicyResource returns kamuidash_router_network_policy: the NetworkPolicy
// that admits only the tunnel connector to the router (see package routerpolicy).
func NewRouterNetworkPolicyResource() resource.Resource {
	return &routerNetworkPolicyResource{}
}

type routerNetworkPolicyResource struct {
	data *providerData
}

type routerNetworkPolicyModel struct {
	ID                       types.String `tfsdk:"id"`
	Namespace                types.String `tfsdk:"namespace"`
	Name                     types.String `tfsdk:"name"`
	Labels                   types.Map    `tfsdk:"labels"`
	RouterPodLabels          types.Map    `tfsdk:"router_pod_labels"`
	RouterPort               types.Int64  `tfsdk:"router_port"`
	ConnectorPodLabels       types.Map    `tfsdk:"connector_pod_labels"`
	ConnectorNamespaceLabels types.Map    `tfsdk:"connector_namespace_labels"`
	MetricsScraper           types.Object `tfsdk:"metrics_scraper"`
	UID                      types.String `tfsdk:"uid"`
	SpecJSON                 types.String `tfsdk:"spec_json"`
	ForeignFields            types.Map    `tfsdk:"foreign_fields"`
	WideningPolicies         types.List   `tfsdk:"widening_policies"`
}

type metricsScraperModel struct {
	PodLabels       types.Map   `tfsdk:"pod_labels"`
	NamespaceLabels types.Map   `tfsdk:"namespace_labels"`
	Port            types.Int64 `tfsdk:"port"`
}

var metricsScraperAttrTypes = map[string]attr.Type{
	"pod_labels":       types.MapType{ElemType: types.StringType},
	"namespace_labels": types.MapType{ElemType: types.StringType},
	"port":             types.Int64Type,
}

func (r *routerNetworkPolicyResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_router_network_policy"
}

func staticMap(m map[string]string) basetypes.MapValue {
	elems := make(map[string]attr.Value, len(m))
	for k, v := range m {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

func (r *routerNetworkPolicyResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	selector := func(what string) []validator.Map {
		return []validator.Map{mapvalidator.SizeAtLeast(1), labelsValidator{what: what}}
	}
	port := []validator.Int64{int64validator.Between(1, 65535)}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The `networking.k8s.io/v1` NetworkPolicy that closes the router to everything but the tunnel connector. " +
			"It selects the router pods and admits ingress only from pods that match both `connector_pod_labels` and a namespace " +
			"matching `connector_namespace_labels` (one peer: both must match), only on `router_port`; optionally a metrics scraper " +
			"to its own port. It declares `policyTypes = [\"Ingress\"]` and nothing more: egress stays open, so the router still " +
			"reaches DNS and the tenants.\n\n" +
			"The provider applies it with server-side apply as field manager `kamuidash`, forcing ownership of its fields. When " +
			"someone edits or deletes the object, the next plan shows it: every attribute that differs, `spec_json` field by " +
			"field, and in `foreign_fields` the field manager that changed each field; the apply puts it back (removing an egress " +
			"rule list someone added, too). NetworkPolicies add up, so the plan also warns about, and `widening_policies` lists, " +
			"every other policy in the namespace that selects the router pods and admits ingress to them.\n\n" +
			"Needs the provider's `kubernetes` block (or `KUBECONFIG`). Changing `namespace` or `name` replaces the policy; add " +
			"`lifecycle { create_before_destroy = true }` so the router is never without one. Import by `<namespace>/<name>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`<namespace>/<name>`.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"namespace": schema.StringAttribute{
				MarkdownDescription: "The router's namespace. Default `" + defaultRouterNamespace + "`.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(defaultRouterNamespace),
				Validators:          []validator.String{dnsLabel()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The policy's name. Default `" + defaultRouterPolicyName + "`.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(defaultRouterPolicyName),
				Validators:          []validator.String{dnsLabel()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"labels": schema.MapAttribute{
				MarkdownDescription: "Labels of the policy object. Only these keys are managed; labels others add are left alone.",
				ElementType:         types.StringType,
				Optional:            true,
				Computed:            true,
				Default:             mapdefault.StaticValue(staticMap(nil)),
				Validators:          []validator.Map{labelsValidator{what: "labels"}},
			},
			"router_pod_labels": schema.MapAttribute{
				MarkdownDescription: "The labels that select the router pods (all must match). Default " +
					"`{\"app.kubernetes.io/name\" = \"kamuidash-router\", \"app.kubernetes.io/component\" = \"router\"}`.",
				ElementType: types.StringType,
				Optional:    true,
				Computed:    true,
				Default:     mapdefault.StaticValue(staticMap(defaultRouterPodLabels)),
				Validators:  selector("router_pod_labels"),
			},
			"router_port": schema.Int64Attribute{
				MarkdownDescription: "The router's container port the connector may reach. Default 8080.",
				Optional:            true,
				Computed:            true,
				Default:             int64default.StaticInt64(defaultRouterPort),
				Validators:          port,
			},
			"connector_pod_labels": schema.MapAttribute{
				MarkdownDescription: "The labels of the tunnel-connector (cloudflared) pods. Default `{\"app.kubernetes.io/name\" = \"cloudflared\"}`.",
				ElementType:         types.StringType,
				Optional:            true,
				Computed:            true,
				Default:             mapdefault.StaticValue(staticMap(defaultConnectorPodLabels)),
				Validators:          selector("connector_pod_labels"),
			},
			"connector_namespace_labels": schema.MapAttribute{
				MarkdownDescription: "The labels of the namespace the connector pods run in. Default: the policy's own namespace, " +
					"`{\"kubernetes.io/metadata.name\" = <namespace>}`.",
				ElementType: types.StringType,
				Optional:    true,
				Computed:    true,
				Validators:  selector("connector_namespace_labels"),
			},
			"metrics_scraper": schema.SingleNestedAttribute{
				MarkdownDescription: "A metrics scraper admitted to the router's admin port only (the kubelet's probes need no rule).",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"pod_labels": schema.MapAttribute{
						MarkdownDescription: "The scraper pods' labels.",
						ElementType:         types.StringType,
						Required:            true,
						Validators:          selector("metrics_scraper.pod_labels"),
					},
					"namespace_labels": schema.MapAttribute{
						MarkdownDescription: "The labels of the scraper's namespace, for example `{\"kubernetes.io/metadata.name\" = \"monitoring\"}`.",
						ElementType:         types.StringType,
						Required:            true,
						Validators:          selector("metrics_scraper.namespace_labels"),
					},
					"port": schema.Int64Attribute{
						MarkdownDescription: "The router's admin port. Default 9090.",
						Optional:            true,
						Computed:            true,
						Default:             int64default.StaticInt64(defaultAdminPort),
						Validators:          port,
					},
				},
			},
			"uid": schema.StringAttribute{
				MarkdownDescription: "The object's UID: it changes when the policy was deleted and created again.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"spec_json": schema.StringAttribute{
				MarkdownDescription: "The policy's spec as the API server holds it, as JSON. A plan shows any difference from the spec this " +
					"resource applies, field by field.",
				Computed: true,
			},
			"foreign_fields": schema.MapAttribute{
				MarkdownDescription: "When the spec differs from this resource's, the spec fields another field manager owns, " +
					"as path → manager (for example `.spec.podSelector` → `kubectl-edit`). Empty when the policy is as applied.",
				ElementType: types.StringType,
				Computed:    true,
			},
			"widening_policies": schema.ListAttribute{
				MarkdownDescription: "The other NetworkPolicies of the namespace that select the router pods and admit ingress: " +
					"what they allow reaches the router too. Empty when this policy alone decides.",
				ElementType: types.StringType,
				Computed:    true,
			},
		},
	}
}

func (r *routerNetworkPolicyResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

const routerPolicyResourceName = "kamuidash_router_network_policy"

// policy is the model as a routerpolicy.Policy; ok is false while something is unknown.
func (m routerNetworkPolicyModel) policy(ctx context.Context, diags *diag.Diagnostics) (p routerpolicy.Policy, ok bool) {
	for _, v := range []attr.Value{m.Namespace, m.Name, m.Labels, m.RouterPodLabels, m.RouterPort, m.ConnectorPodLabels, m.ConnectorNamespaceLabels, m.MetricsScraper} {
		if v.IsUnknown() {
			return p, false
		}
	}
	p = routerpolicy.Policy{
		Namespace:       m.Namespace.ValueString(),
		Name:            m.Name.ValueString(),
		Labels:          stringMap(ctx, m.Labels, diags),
		RouterPodLabels: stringMap(ctx, m.RouterPodLabels, diags),
		Connector: routerpolicy.Peer{
			PodLabels:       stringMap(ctx, m.ConnectorPodLabels, diags),
			NamespaceLabels: stringMap(ctx, m.ConnectorNamespaceLabels, diags),
			Port:            int32(m.RouterPort.ValueInt64()),
		},
	}
	if !m.MetricsScraper.IsNull() {
		var s metricsScraperModel
		diags.Append(m.MetricsScraper.As(ctx, &s, basetypes.ObjectAsOptions{})...)
		if s.PodLabels.IsUnknown() || s.NamespaceLabels.IsUnknown() || s.Port.IsUnknown() {
			return p, false
		}
		p.Metrics = &routerpolicy.Peer{
			PodLabels:       stringMap(ctx, s.PodLabels, diags),
			NamespaceLabels: stringMap(ctx, s.NamespaceLabels, diags),
			Port:            int32(s.Port.ValueInt64()),
		}
	}
	return p, !diags.HasError()
}

func stringMap(ctx context.Context, m types.Map, diags *diag.Diagnostics) map[string]string {
	out := map[string]string{}
	if m.IsNull() || m.IsUnknown() {
		return out
	}
	diags.Append(m.ElementsAs(ctx, &out, false)...)
	return out
}

func (r *routerNetworkPolicyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return // destroy
	}
	var plan routerNetworkPolicyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The connector's namespace defaults to the policy's: a default that depends on another
	// attribute, so it is filled here rather than by a schema default.
	var config routerNetworkPolicyModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if config.ConnectorNamespaceLabels.IsNull() {
		if plan.Namespace.IsUnknown() {
			plan.ConnectorNamespaceLabels = types.MapUnknown(types.StringType)
		} else {
			plan.ConnectorNamespaceLabels = mapValue(map[string]string{namespaceNameLabel: plan.Namespace.ValueString()}, &resp.Diagnostics)
		}
	}
	if !plan.Namespace.IsUnknown() && !plan.Name.IsUnknown() {
		plan.ID = types.StringValue(plan.Namespace.ValueString() + "/" + plan.Name.ValueString())
	}

	p, known := plan.policy(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if known {
		if p.Metrics != nil && p.Metrics.Port == p.Connector.Port {
			resp.Diagnostics.AddAttributeError(path.Root("metrics_scraper").AtName("port"), "Metrics Port Is the Router Port",
				"metrics_scraper.port must be the router's admin port, not router_port: the scraper would reach the proxy port.")
			return
		}
		// The applied spec is known now, so a plan shows exactly what the apply will write, and a
		// policy changed behind Terraform's back shows as a difference here.
		plan.SpecJSON = types.StringValue(routerpolicy.SpecJSON(p.Spec()))
	} else {
		plan.SpecJSON = types.StringUnknown()
	}
	plan.ForeignFields = mapValue(nil, &resp.Diagnostics)

	client, ok := r.data.Kube.require(&resp.Diagnostics)
	if !ok || !known {
		plan.WideningPolicies = types.ListUnknown(types.StringType)
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		return
	}
	widening, err := routerpolicy.Widening(ctx, client, p.Namespace, p.Name, p.RouterPodLabels)
	if err != nil {
		resp.Diagnostics.AddError("Unable to List NetworkPolicies", err.Error())
		return
	}
	if len(widening) > 0 {
		resp.Diagnostics.AddAttributeWarning(path.Root("widening_policies"), "Other NetworkPolicies Admit Traffic to the Router",
			"NetworkPolicies add up: "+strings.Join(widening, ", ")+" in namespace "+p.Namespace+" also select the router pods and admit "+
				"ingress, so what they allow reaches the router besides the tunnel connector. Narrow their podSelector, or remove them.")
	}
	// Planned as seen now when nothing else changes; unknown when the apply changes the policy,
	// because it lists the namespace again then and another policy may come or go meanwhile.
	var state routerNetworkPolicyModel
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	if !req.State.Raw.IsNull() && state.SpecJSON.Equal(plan.SpecJSON) && state.Labels.Equal(plan.Labels) && len(stringMap(ctx, state.ForeignFields, &resp.Diagnostics)) == 0 {
		plan.WideningPolicies = listValue(widening, &resp.Diagnostics)
	} else {
		plan.WideningPolicies = types.ListUnknown(types.StringType)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (r *routerNetworkPolicyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.Diagnostics.Append(r.applyPlan(ctx, req.Plan, &resp.State)...)
}

// Update is Create: a forced server-side apply both creates the object and takes back every
// field someone else changed.
func (r *routerNetworkPolicyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.Append(r.applyPlan(ctx, req.Plan, &resp.State)...)
}

// applyPlan applies the planned policy and saves it as the state.
func (r *routerNetworkPolicyResource) applyPlan(ctx context.Context, planned tfsdk.Plan, state *tfsdk.State) diag.Diagnostics {
	var plan routerNetworkPolicyModel
	diags := planned.Get(ctx, &plan)
	if diags.HasError() {
		return diags
	}
	r.apply(ctx, &plan, &diags)
	if diags.HasError() {
		return diags
	}
	return append(diags, state.Set(ctx, &plan)...)
}

// apply server-side applies the planned policy and fills the computed attributes from the
// object the server returns.
func (r *routerNetworkPolicyResource) apply(ctx context.Context, plan *routerNetworkPolicyModel, diags *diag.Diagnostics) {
	client, ok := r.data.Kube.require(diags)
	if !ok {
		if !diags.HasError() {
			diags.AddError("Kubernetes Settings Unknown", "The provider's kubernetes settings are still unknown at apply time; this is a bug in the provider or Terraform.")
		}
		return
	}
	p, _ := plan.policy(ctx, diags)
	if diags.HasError() {
		return
	}
	observed, removed, err := routerpolicy.Apply(ctx, client, p)
	if err != nil {
		diags.AddError("Unable to Apply the Router NetworkPolicy", err.Error())
		return
	}
	if len(removed) > 0 {
		diags.AddWarning("Removed Fields Another Manager Added",
			"The NetworkPolicy "+p.Namespace+"/"+p.Name+" had "+strings.Join(removed, ", ")+", which this resource never sets; it was removed.")
	}
	tflog.Info(ctx, "Applied the router NetworkPolicy", map[string]any{"namespace": p.Namespace, "name": p.Name, "uid": observed.UID})
	widening, err := routerpolicy.Widening(ctx, client, p.Namespace, p.Name, p.RouterPodLabels)
	if err != nil {
		diags.AddError("Unable to List NetworkPolicies", err.Error())
		return
	}
	plan.ID = types.StringValue(p.Namespace + "/" + p.Name)
	plan.UID = types.StringValue(observed.UID)
	plan.SpecJSON = types.StringValue(observed.SpecJSON)
	plan.ForeignFields = mapValue(observed.ForeignFields, diags)
	plan.WideningPolicies = listValue(widening, diags)
}

func (r *routerNetworkPolicyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state routerNetworkPolicyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	client, ok := r.data.Kube.require(&resp.Diagnostics)
	if !ok {
		return // a refresh with unknown settings keeps the state as it is
	}
	namespace, name := state.Namespace.ValueString(), state.Name.ValueString()
	// The state's policy is what was last applied: the object is read against it. After an
	// import there is none, and the whole object is read.
	var lastApplied *routerpolicy.Policy
	if !state.SpecJSON.IsNull() {
		if p, ok := state.policy(ctx, &resp.Diagnostics); ok {
			lastApplied = &p
		}
	}
	observed, found, err := routerpolicy.Get(ctx, client, namespace, name, lastApplied)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Read the Router NetworkPolicy", err.Error())
		return
	}
	if !found {
		tflog.Warn(ctx, "The router NetworkPolicy is gone; the plan will create it again", map[string]any{"namespace": namespace, "name": name})
		resp.State.RemoveResource(ctx)
		return
	}
	widening, err := routerpolicy.Widening(ctx, client, namespace, name, observed.Policy.RouterPodLabels)
	if err != nil {
		resp.Diagnostics.AddError("Unable to List NetworkPolicies", err.Error())
		return
	}
	p := observed.Policy
	state.ID = types.StringValue(namespace + "/" + name)
	state.UID = types.StringValue(observed.UID)
	state.Labels = mapValue(p.Labels, &resp.Diagnostics)
	state.RouterPodLabels = mapValue(p.RouterPodLabels, &resp.Diagnostics)
	state.RouterPort = types.Int64Value(int64(p.Connector.Port))
	state.ConnectorPodLabels = mapValue(p.Connector.PodLabels, &resp.Diagnostics)
	state.ConnectorNamespaceLabels = mapValue(p.Connector.NamespaceLabels, &resp.Diagnostics)
	if p.Metrics == nil {
		state.MetricsScraper = types.ObjectNull(metricsScraperAttrTypes)
	} else {
		obj, d := types.ObjectValue(metricsScraperAttrTypes, map[string]attr.Value{
			"pod_labels":       mapValue(p.Metrics.PodLabels, &resp.Diagnostics),
			"namespace_labels": mapValue(p.Metrics.NamespaceLabels, &resp.Diagnostics),
			"port":             types.Int64Value(int64(p.Metrics.Port)),
		})
		resp.Diagnostics.Append(d...)
		state.MetricsScraper = obj
	}
	state.SpecJSON = types.StringValue(observed.SpecJSON)
	state.ForeignFields = mapValue(observed.ForeignFields, &resp.Diagnostics)
	state.WideningPolicies = listValue(widening, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *routerNetworkPolicyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state routerNetworkPolicyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	client, ok := r.data.Kube.require(&resp.Diagnostics)
	if !ok {
		return
	}
	if err := routerpolicy.Delete(ctx, client, state.Namespace.ValueString(), state.Name.ValueString()); err != nil {
		resp.Diagnostics.AddError("Unable to Delete the Router NetworkPolicy", err.Error())
	}
}

func (r *routerNetworkPolicyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	namespace, name, ok := strings.Cut(req.ID, "/")
	if !ok || !isDNSLabel(namespace) || !isDNSLabel(name) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import a router NetworkPolicy by <namespace>/<name>, for example kamuidash-system/kamuidash-router-from-tunnel; got "+quote(req.ID)+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), namespace)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}

// labelsValidator checks label keys and values as the API server will, so that a typo fails
// the plan with the rule rather than the apply with a 422.
type labelsValidator struct{ what string }

func (v labelsValidator) Description(context.Context) string {
	return "keys must be qualified names (an optional DNS prefix and '/', then up to 63 characters) and values valid label values"
}
func (v labelsValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v labelsValidator) ValidateMap(ctx context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for k, raw := range req.ConfigValue.Elements() {
		s, ok := raw.(types.String)
		if !ok || s.IsUnknown() {
			continue
		}
		problems := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(s.ValueString())...)
		if len(problems) > 0 {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid Kubernetes Label",
				v.what+" has the label "+quote(k)+" = "+quote(s.ValueString())+", which Kubernetes refuses: "+strings.Join(problems, "; ")+".")
		}
	}
}
