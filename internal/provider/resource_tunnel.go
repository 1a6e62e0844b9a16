package provider

import (
	"context"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
)

var (
	_ resource.ResourceWithConfigure   = (*tunnelResource)(nil)
	_ resource.ResourceWithImportState = (*tunnelResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*tunnelResource)(nil)
)

// NewTunnelResource returns the kamuidash_tunnel resource: the remotely managed cloudflared
// tunnel from the edge to the router, its ingress and its proxied origin DNS record.
func NewTunnelResource() resource.Resource {
	return &tunnelResource{}
}

type tunnelResource struct {
	data *providerData
}

type tunnelModel struct {
	ID             types.String `tfsdk:"id"`
	Name           types.String `tfsdk:"name"`
	OriginHostname types.String `tfsdk:"origin_hostname"`
	RouterService  types.String `tfsdk:"router_service"`
	DNSRecordID    types.String `tfsdk:"dns_record_id"`
	CNAMETarget    types.String `tfsdk:"cname_target"`
	Token          types.String `tfsdk:"token"`
}

func (r *tunnelResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tunnel"
}

func (r *tunnelResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A remotely managed cloudflared tunnel that carries the edge Worker's dynamic requests to the router. " +
			"The provider generates the tunnel secret (never stored in state), sets the ingress (the origin hostname to the " +
			"router service, then a catch-all 404) and creates the proxied CNAME that routes the origin hostname into the tunnel. " +
			"The connector token is exposed as a sensitive attribute. Delete cleans up the tunnel's connections first. " +
			"Import by tunnel ID.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The tunnel's ID.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The tunnel's name, unique in the account. Changing it replaces the tunnel.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.LengthBetween(1, 64)},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"origin_hostname": schema.StringAttribute{
				MarkdownDescription: "The hostname the edge Worker forwards dynamic requests to (the `origin` of tenant apps), for example `origin.dev.kamui.app`.",
				Required:            true,
				Validators:          []validator.String{hostname()},
			},
			"router_service": schema.StringAttribute{
				MarkdownDescription: "The router's URL as the connector reaches it, for example `http://kamuidash-router.kamuidash-system.svc.cluster.local:8080`.",
				Required:            true,
				Validators:          []validator.String{serviceURL()},
			},
			"dns_record_id": schema.StringAttribute{
				MarkdownDescription: "The ID of the proxied CNAME record for the origin hostname.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"cname_target": schema.StringAttribute{
				MarkdownDescription: "The CNAME target that routes a hostname into this tunnel.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"token": schema.StringAttribute{
				MarkdownDescription: "The connector token that cloudflared runs with. Sensitive: keep it in a secret store.",
				Computed:            true,
				Sensitive:           true,
				PlanModifiers:       stable,
			},
		},
	}
}

func (r *tunnelResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (r *tunnelResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	if r.data.ZoneID == "" {
		resp.Diagnostics.Append(missingSettingDiag(path.Root("zone_id"), EnvZoneID))
	}
}

func (r *tunnelResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan tunnelModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, account := r.data.Client, r.data.AccountID
	id, err := c.CreateTunnel(ctx, account, plan.Name.ValueString())
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Create Tunnel", "Creating tunnel "+quote(plan.Name.ValueString()), err))
		return
	}
	tflog.Info(ctx, "Created tunnel", map[string]any{"id": id, "name": plan.Name.ValueString()})
	plan.ID = types.StringValue(id)
	plan.CNAMETarget = types.StringValue(id + kdcf.TunnelTargetSuffix)
	plan.DNSRecordID = types.StringValue("")
	plan.Token = types.StringValue("")
	// From here on the tunnel exists: keep it in state even if a later step fails.
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)

	if err := c.SetTunnelIngress(ctx, account, id, plan.OriginHostname.ValueString(), plan.RouterService.ValueString()); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Configure Tunnel", "Setting the ingress of tunnel "+id, err))
		return
	}
	rec, err := c.UpsertTunnelCNAME(ctx, r.data.ZoneID, "", plan.OriginHostname.ValueString(), id)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Create Origin DNS Record", "Creating the CNAME for "+quote(plan.OriginHostname.ValueString()), err))
		return
	}
	plan.DNSRecordID = types.StringValue(rec.ID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)

	token, err := c.TunnelToken(ctx, account, id)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Tunnel Token", "Reading the connector token of tunnel "+id, err))
		return
	}
	plan.Token = types.StringValue(token)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *tunnelResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state tunnelModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, id := r.data.Client, state.ID.ValueString()
	t, found, err := c.GetTunnel(ctx, r.data.AccountID, id)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Tunnel", "Reading tunnel "+id, err))
		return
	}
	if !found {
		tflog.Warn(ctx, "Tunnel is gone; removing it from state", map[string]any{"id": id})
		resp.State.RemoveResource(ctx)
		return
	}
	state.Name = types.StringValue(t.Name)
	state.CNAMETarget = types.StringValue(t.ID + kdcf.TunnelTargetSuffix)
	// The first rule with a hostname is ours; anything else is drift the next apply repairs.
	state.OriginHostname, state.RouterService = types.StringValue(""), types.StringValue("")
	if len(t.Ingress) == 2 && t.Ingress[0].Hostname != "" && t.Ingress[1].Hostname == "" {
		state.OriginHostname = types.StringValue(t.Ingress[0].Hostname)
		state.RouterService = types.StringValue(t.Ingress[0].Service)
	}

	var rec *kdcf.DNSRecord
	if recID := state.DNSRecordID.ValueString(); recID != "" {
		rec, found, err = c.GetDNSRecord(ctx, r.data.ZoneID, recID)
	} else { // imported, or lost: look for the record by name
		rec, found, err = c.FindDNSRecord(ctx, r.data.ZoneID, "CNAME", state.OriginHostname.ValueString())
	}
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Origin DNS Record", "Reading the CNAME of tunnel "+id, err))
		return
	}
	switch {
	case !found:
		state.DNSRecordID = types.StringValue("")
	case rec.Content != t.ID+kdcf.TunnelTargetSuffix || !rec.Proxied || rec.Name != state.OriginHostname.ValueString():
		// Pointing elsewhere: show the record's name as drift so the next apply repairs it.
		state.DNSRecordID = types.StringValue(rec.ID)
		state.OriginHostname = types.StringValue(rec.Name + " (CNAME to " + rec.Content + ")")
	default:
		state.DNSRecordID = types.StringValue(rec.ID)
	}
	if state.Token.IsNull() || state.Token.ValueString() == "" {
		token, err := c.TunnelToken(ctx, r.data.AccountID, id)
		if err != nil {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Read Tunnel Token", "Reading the connector token of tunnel "+id, err))
			return
		}
		state.Token = types.StringValue(token)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *tunnelResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state tunnelModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, id := r.data.Client, state.ID.ValueString()
	if err := c.SetTunnelIngress(ctx, r.data.AccountID, id, plan.OriginHostname.ValueString(), plan.RouterService.ValueString()); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Configure Tunnel", "Setting the ingress of tunnel "+id, err))
		return
	}
	rec, err := c.UpsertTunnelCNAME(ctx, r.data.ZoneID, state.DNSRecordID.ValueString(), plan.OriginHostname.ValueString(), id)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Update Origin DNS Record", "Writing the CNAME for "+quote(plan.OriginHostname.ValueString()), err))
		return
	}
	plan.ID, plan.Token, plan.CNAMETarget = state.ID, state.Token, state.CNAMETarget
	plan.DNSRecordID = types.StringValue(rec.ID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *tunnelResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state tunnelModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, id := r.data.Client, state.ID.ValueString()
	if recID := state.DNSRecordID.ValueString(); recID != "" {
		if err := c.DeleteDNSRecord(ctx, r.data.ZoneID, recID); err != nil {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Delete Origin DNS Record", "Deleting the CNAME of tunnel "+id, err))
			return
		}
	}
	if err := c.DeleteTunnel(ctx, r.data.AccountID, id); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Delete Tunnel", "Deleting tunnel "+id, err))
	}
}

func (r *tunnelResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

func serviceURL() validator.String {
	return stringCheck{
		ok: func(s string) bool {
			u, err := url.Parse(s)
			return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.RawQuery == "" && u.Fragment == ""
		},
		rule: "an http(s) URL with a host, such as http://kamuidash-router.kamuidash-system.svc.cluster.local:8080",
	}
}
