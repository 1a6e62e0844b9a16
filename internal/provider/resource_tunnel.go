package provider

import (
	"context"
	"net/url"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
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
	CacheRuleID    types.String `tfsdk:"cache_rule_id"`
	CNAMETarget    types.String `tfsdk:"cname_target"`
	Token          types.String `tfsdk:"token"`
	TokenRotation  types.String `tfsdk:"token_rotation"`
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
			"It also owns one zone Cache Rule that keeps the origin hostname out of Cloudflare's cache: every tenant app is " +
			"forwarded to the same origin URLs (only signed headers say which tenant a request is for), so a response cached for " +
			"one tenant could otherwise be served to another. The edge Worker already opts out of the cache on every origin " +
			"fetch; the rule is the second layer, for any other Worker or script that fetches the origin. The rule is added at " +
			"the end of the zone's `http_request_cache_settings` entrypoint ruleset (created if the zone has none); other rules " +
			"in that ruleset are never touched. A rule deleted or changed outside Terraform shows in the plan and the next " +
			"apply restores it. The connector token is exposed as a sensitive attribute. Delete removes the CNAME, then the " +
			"Cache Rule, then cleans up the tunnel's connections and deletes the tunnel. " +
			"Import by tunnel ID or name (the Cache Rule is found by its reference, `kamuidash_tunnel_<tunnel id>`). " +
			"The API token needs, besides the tunnel and DNS permissions, permission to edit the zone's Cache Rules.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The tunnel's ID.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The tunnel's name, unique in the account. Changing it renames the tunnel in place: its ID, " +
					"connector token, CNAME and Cache Rule stay, so running connectors are not interrupted.",
				Required:   true,
				Validators: []validator.String{stringvalidator.LengthBetween(1, 64)},
			},
			"origin_hostname": schema.StringAttribute{
				MarkdownDescription: "The hostname the edge Worker forwards dynamic requests to (the `origin` of tenant apps), for example `origin.dev.kamui.app`.",
				Required:            true,
				Validators:          []validator.String{hostname()},
			},
			"router_service": schema.StringAttribute{
				MarkdownDescription: "The router's URL as the connector reaches it, for example `http://kamuidash-router.kamuidash-system.svc.cluster.local:8080`: a scheme and a host (with its port), and no path, not even `/`, which cloudflared refuses in an ingress rule.",
				Required:            true,
				Validators:          []validator.String{serviceURL()},
			},
			"dns_record_id": schema.StringAttribute{
				MarkdownDescription: "The ID of the proxied CNAME record for the origin hostname.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"cache_rule_id": schema.StringAttribute{
				MarkdownDescription: "The ID of the zone Cache Rule (a `set_cache_settings` rule with `cache = false` on `(http.host eq \"<origin_hostname>\")`) " +
					"that keeps the origin hostname's responses out of Cloudflare's cache. It changes only if the rule had to be recreated.",
				Computed:      true,
				PlanModifiers: stable,
			},
			"cname_target": schema.StringAttribute{
				MarkdownDescription: "The CNAME target that routes a hostname into this tunnel.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"token": schema.StringAttribute{
				MarkdownDescription: "The connector token that cloudflared runs with. Sensitive: keep it in a secret store. " +
					"Read again on every refresh, so a token rotated outside Terraform shows here.",
				Computed:      true,
				Sensitive:     true,
				PlanModifiers: stable,
			},
			"token_rotation": schema.StringAttribute{
				MarkdownDescription: "Any value, a date for example. Changing it from one value to another gives the tunnel a new " +
					"secret, so a new `token`, in place (the tunnel's ID, CNAME and Cache Rule stay); connectors started with the " +
					"old token cannot connect again, so roll them out with the new one. Setting it for the first time (after an " +
					"import, say) or removing it rotates nothing.",
				Optional: true,
			},
		},
	}
}

func (r *tunnelResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// cacheRuleDriftKey is the private state key where Read records that the tunnel's Cache Rule
// is missing or was changed outside Terraform ("missing" or "changed", as JSON strings);
// ModifyPlan turns it into a planned update that Update repairs.
const cacheRuleDriftKey = "cache_rule_drift"

// tunnelCacheRule is the Cache Rule a tunnel owns: no caching for its origin hostnames (one,
// or the old and the new one while the origin moves). The ref carries the tunnel ID, so an
// import (or a retried create) finds the rule without knowing its ID.
func tunnelCacheRule(tunnelID, name string, hosts ...string) kdcf.BypassCacheRule {
	return kdcf.BypassCacheRule{
		Ref: "kamuidash_tunnel_" + tunnelID,
		Description: "Managed by kamuidash_tunnel " + quote(name) + ": the tunnel's origin is never cached " +
			"(every tenant app is forwarded to the same origin URLs).",
		Hosts: hosts,
	}
}

func (r *tunnelResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	if r.data.ZoneID == "" {
		resp.Diagnostics.Append(missingZoneDiag(path.Root("zone_id")))
	}
	if req.State.Raw.IsNull() {
		return
	}
	// Drift Read found in the computed parts (the Cache Rule, the origin CNAME) changes
	// nothing in the configuration, so it is planned here: the value becomes unknown and the
	// apply is an update that restores the object.
	var state, plan tunnelModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	drift, diags := req.Private.GetKey(ctx, cacheRuleDriftKey)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state.CacheRuleID.ValueString() == "" || len(drift) > 0 {
		how := "is missing"
		if string(drift) == `"changed"` {
			how = "was changed outside Terraform"
		}
		resp.Diagnostics.AddWarning("Tunnel Cache Rule Drifted",
			"The zone Cache Rule that keeps "+quote(state.OriginHostname.ValueString())+" out of Cloudflare's cache "+how+
				". Without it, a Worker that fetches the origin without opting out of the cache could serve one tenant's "+
				"cached responses to another. Apply to restore the rule.")
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("cache_rule_id"), types.StringUnknown())...)
	}
	if state.DNSRecordID.ValueString() == "" {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("dns_record_id"), types.StringUnknown())...)
	}
	// A value known only at apply may turn out to be the same one: the token may stay too.
	if plan.TokenRotation.IsUnknown() || rotationAsked(state.TokenRotation, plan.TokenRotation) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("token"), types.StringUnknown())...)
	}
}

// rotationAsked says whether token_rotation going from one value to the other asks for a new
// secret: a change between two values, not a value set for the first time or removed.
func rotationAsked(from, to types.String) bool {
	return !from.IsNull() && !from.IsUnknown() && !to.IsNull() && !to.IsUnknown() && from.ValueString() != to.ValueString()
}

func (r *tunnelResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan tunnelModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, account, zone := r.data.Client, r.data.AccountID, r.data.ZoneID
	name, host := plan.Name.ValueString(), plan.OriginHostname.ValueString()
	alreadyExists := func(existing string, err error) {
		// Names are unique in the account: the tunnel is one made outside Terraform.
		if existing == "" {
			existing = quote(name) // its name imports it as well
		}
		detail := "The account already has a tunnel named " + quote(name) + ". Nothing was created. To manage it here, import it: " +
			"terraform import <address> " + existing + ". Or choose another name."
		if err != nil {
			detail += "\n\nError: " + err.Error()
		}
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Tunnel Already Exists", detail)
	}
	// Looked up first, so that a tunnel found after a create whose answer was lost is known to
	// be that create's (createdWithoutAnswer).
	if existing, found, err := c.FindTunnel(ctx, account, name); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Look Up Tunnel", "Looking for a tunnel named "+quote(name), err))
		return
	} else if found {
		alreadyExists(existing, nil)
		return
	}
	id, err := c.CreateTunnel(ctx, account, name)
	if isConflict(err) {
		alreadyExists("", err) // created meanwhile, outside this apply
		return
	}
	if err != nil {
		var made bool
		id, made = createdWithoutAnswer(ctx, err, func(ctx context.Context) (string, bool, error) {
			return c.FindTunnel(ctx, account, name)
		})
		if !made {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Create Tunnel", "Creating tunnel "+quote(name), err))
			return
		}
		resp.Diagnostics.Append(createdAnywayWarning("Tunnel", "tunnel "+quote(name), err))
	}
	tflog.Info(ctx, "Created tunnel", map[string]any{"id": id, "name": name})
	plan.ID = types.StringValue(id)
	plan.CNAMETarget = types.StringValue(id + kdcf.TunnelTargetSuffix)
	plan.DNSRecordID = types.StringValue("")
	plan.CacheRuleID = types.StringValue("")
	plan.Token = types.StringValue("")
	// From here on the tunnel exists: keep it in state even if a later step fails.
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)

	if err := c.SetTunnelIngress(ctx, account, id, host, plan.RouterService.ValueString()); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Configure Tunnel", "Setting the ingress of tunnel "+id, err))
		return
	}
	// The Cache Rule comes before the CNAME, so the origin is never reachable uncovered.
	wantRule := tunnelCacheRule(id, name, host)
	rule, err := c.CreateBypassCacheRule(ctx, zone, wantRule)
	if err != nil {
		// The rule's ref names this tunnel, made just now: a rule with it is this create's.
		var made bool
		rule, made = createdWithoutAnswer(ctx, err, func(ctx context.Context) (*kdcf.CacheRule, bool, error) {
			rule, found, err := c.FindCacheRule(ctx, zone, "", wantRule.Ref)
			return rule, found && rule.Bypasses(wantRule), err
		})
		if !made {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Create Tunnel Cache Rule", "Adding the Cache Rule that bypasses the cache for "+quote(host), err))
			return
		}
		resp.Diagnostics.Append(createdAnywayWarning("Tunnel Cache Rule", "the Cache Rule for "+quote(host), err))
	}
	tflog.Info(ctx, "Created tunnel Cache Rule", map[string]any{"id": rule.ID, "ruleset_id": rule.RulesetID})
	plan.CacheRuleID = types.StringValue(rule.ID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)

	// A tunnel deleted outside Terraform leaves its CNAME behind; Cloudflare allows one CNAME
	// per name, so that record is taken over rather than a second one added.
	staleID, err := r.deadTunnelCNAME(ctx, host)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Create Origin DNS Record", "Looking for an existing CNAME for "+quote(host), err))
		return
	}
	rec, err := c.UpsertTunnelCNAME(ctx, zone, staleID, host, id)
	if err != nil {
		// No CNAME for the host was there, and nothing routed into this tunnel, made just now:
		// one for the host into it is this create's. (A dead tunnel's record taken over is
		// updated, which the client sends again itself when its answer is lost.)
		var made bool
		if staleID == "" {
			rec, made = createdWithoutAnswer(ctx, err, func(ctx context.Context) (*kdcf.DNSRecord, bool, error) {
				rec, found, err := c.FindDNSRecord(ctx, zone, "CNAME", host)
				return rec, found && rec.RoutesInto(id), err
			})
		}
		if !made {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Create Origin DNS Record", "Creating the CNAME for "+quote(host), err))
			return
		}
		resp.Diagnostics.Append(createdAnywayWarning("Origin DNS Record", "the CNAME for "+quote(host), err))
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
	// What the Cache Rule must match: the origin as the ingress has it (a rule for another
	// host is drift).
	want := tunnelCacheRule(id, t.Name, state.OriginHostname.ValueString())

	var rec *kdcf.DNSRecord
	if recID := state.DNSRecordID.ValueString(); recID != "" {
		rec, found, err = c.GetDNSRecord(ctx, r.data.ZoneID, recID)
	} else { // imported, or lost: look for the record by name
		rec, found, err = c.FindDNSRecord(ctx, r.data.ZoneID, "CNAME", state.OriginHostname.ValueString())
		if err == nil && found {
			// A record routing into another tunnel that is alive is that tunnel's: adopted, it
			// would be re-pointed here by the next apply and deleted by a destroy.
			var theirs bool
			if theirs, err = r.routesIntoAnotherLiveTunnel(ctx, rec, t.ID); theirs {
				found = false
			}
		}
	}
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Origin DNS Record", "Reading the CNAME of tunnel "+id, err))
		return
	}
	switch {
	case !found:
		state.DNSRecordID = types.StringValue("")
	case !rec.RoutesInto(t.ID) || rec.Name != state.OriginHostname.ValueString():
		// Pointing elsewhere: show the record's name as drift so the next apply repairs it.
		state.DNSRecordID = types.StringValue(rec.ID)
		state.OriginHostname = types.StringValue(rec.Name + " (CNAME to " + rec.Content + ")")
	default:
		state.DNSRecordID = types.StringValue(rec.ID)
	}

	// The Cache Rule: by ID, or by its ref after an import. A missing or altered rule is
	// recorded for ModifyPlan, which plans its repair.
	rule, found, err := c.FindCacheRule(ctx, r.data.ZoneID, state.CacheRuleID.ValueString(), want.Ref)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Tunnel Cache Rule", "Reading the zone's Cache Rules for tunnel "+id, err))
		return
	}
	var drift []byte
	switch {
	case !found:
		state.CacheRuleID = types.StringValue("")
		drift = []byte(`"missing"`)
	case !rule.Bypasses(want):
		state.CacheRuleID = types.StringValue(rule.ID)
		drift = []byte(`"changed"`)
	default:
		state.CacheRuleID = types.StringValue(rule.ID)
	}
	if drift != nil {
		tflog.Warn(ctx, "Tunnel Cache Rule drifted", map[string]any{"id": id, "drift": string(drift)})
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, cacheRuleDriftKey, drift)...)

	// Every time: a token rotated outside Terraform (the dashboard's refresh) shows here.
	token, err := c.TunnelToken(ctx, r.data.AccountID, id)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Tunnel Token", "Reading the connector token of tunnel "+id, err))
		return
	}
	state.Token = types.StringValue(token)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *tunnelResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state tunnelModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, id, zone := r.data.Client, state.ID.ValueString(), r.data.ZoneID
	name, host := plan.Name.ValueString(), plan.OriginHostname.ValueString()
	if name != state.Name.ValueString() {
		// First, and on its own in the state: a rename refused changes nothing else.
		if !r.rename(ctx, id, state.Name.ValueString(), name, &resp.Diagnostics) {
			return
		}
		state.Name = plan.Name
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	}
	rotate := rotationAsked(state.TokenRotation, plan.TokenRotation)
	state.TokenRotation = plan.TokenRotation // saved by rotateToken only once the secret is new
	if rotate && !r.rotateToken(ctx, id, &state, &resp.State, &resp.Diagnostics) {
		return
	}
	// While the origin moves, the rule covers both hostnames, so neither is ever cacheable;
	// it is narrowed to the new one once the CNAME has moved.
	hosts := []string{host}
	if old := state.OriginHostname.ValueString(); old != host && isNormalHostname(old) {
		hosts = []string{old, host}
	}
	rule, err := r.ensureCacheRule(ctx, state.CacheRuleID.ValueString(), tunnelCacheRule(id, name, hosts...))
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Update Tunnel Cache Rule", "Writing the Cache Rule that bypasses the cache for "+quote(host), err))
		return
	}
	plan.ID, plan.Token, plan.CNAMETarget = state.ID, state.Token, state.CNAMETarget
	plan.CacheRuleID, plan.DNSRecordID = types.StringValue(rule.ID), state.DNSRecordID
	if plan.DNSRecordID.IsUnknown() || plan.DNSRecordID.IsNull() {
		plan.DNSRecordID = types.StringValue("")
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, cacheRuleDriftKey, nil)...)

	if err := c.SetTunnelIngress(ctx, r.data.AccountID, id, host, plan.RouterService.ValueString()); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Configure Tunnel", "Setting the ingress of tunnel "+id, err))
		return
	}
	rec, err := c.UpsertTunnelCNAME(ctx, zone, state.DNSRecordID.ValueString(), host, id)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Update Origin DNS Record", "Writing the CNAME for "+quote(host), err))
		return
	}
	plan.DNSRecordID = types.StringValue(rec.ID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if len(hosts) > 1 {
		rule, err = c.UpdateBypassCacheRule(ctx, zone, rule.RulesetID, rule.ID, tunnelCacheRule(id, name, host))
		if err != nil {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Update Tunnel Cache Rule", "Narrowing the Cache Rule to "+quote(host), err))
			return
		}
		plan.CacheRuleID = types.StringValue(rule.ID)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

// rotateToken gives the tunnel a new secret and reads its new token into state, saving state
// as it goes: once the secret is replaced the old token connects nowhere, so it is not kept
// even when the new one cannot be read (the next refresh reads it).
func (r *tunnelResource) rotateToken(ctx context.Context, id string, state *tunnelModel, saved *tfsdk.State, diags *diag.Diagnostics) bool {
	c, account := r.data.Client, r.data.AccountID
	if err := c.RotateTunnelSecret(ctx, account, id); err != nil {
		// Most likely refused, so the old token still connects; a call carried out whose answer
		// was lost would have replaced it, which the next refresh reads either way.
		diags.Append(apiErrorDiag("Unable to Rotate Tunnel Token", "Giving tunnel "+id+" a new secret (the next refresh reads "+
			"whichever token it has; the next apply asks again)", err))
		return false
	}
	tflog.Info(ctx, "Rotated tunnel secret", map[string]any{"id": id})
	state.Token = types.StringValue("")
	diags.Append(saved.Set(ctx, state)...)
	token, err := c.TunnelToken(ctx, account, id)
	if err != nil {
		diags.Append(apiErrorDiag("Unable to Read Tunnel Token",
			"Reading the new connector token of tunnel "+id+" (its secret was rotated: the old token no longer connects; "+
				"the next refresh reads the new one)", err))
		return false
	}
	state.Token = types.StringValue(token)
	diags.Append(saved.Set(ctx, state)...)
	return true
}

// rename gives the tunnel the name to, in place. A name another tunnel of the account has is
// refused with what to do (the API's conflict alone does not say which tunnel has it).
func (r *tunnelResource) rename(ctx context.Context, id, from, to string, diags *diag.Diagnostics) bool {
	c, account := r.data.Client, r.data.AccountID
	taken := func(other string) {
		detail := "The account already has another tunnel named " + quote(to)
		if other != "" {
			detail += " (" + other + ")"
		}
		diags.AddAttributeError(path.Root("name"), "Tunnel Name Taken", detail+". Tunnel names are unique in the account; "+
			"this tunnel keeps the name "+quote(from)+" and nothing was changed. Choose another name, or rename or delete "+
			"the other tunnel first.")
	}
	other, found, err := c.FindTunnel(ctx, account, to)
	switch {
	case err != nil:
		diags.Append(apiErrorDiag("Unable to Look Up Tunnel", "Looking for a tunnel named "+quote(to), err))
		return false
	case found && other == id:
		return true // renamed already: an apply that failed after the rename, or a rename in the dashboard
	case found:
		taken(other)
		return false
	}
	if err := c.RenameTunnel(ctx, account, id, to); err != nil {
		if isConflict(err) { // named so since the look-up
			taken("")
			return false
		}
		diags.Append(apiErrorDiag("Unable to Rename Tunnel", "Renaming tunnel "+id+" from "+quote(from)+" to "+quote(to), err))
		return false
	}
	tflog.Info(ctx, "Renamed tunnel", map[string]any{"id": id, "from": from, "to": to})
	return true
}

// deadTunnelCNAME returns the ID of the CNAME for host when it routes into a tunnel that no
// longer exists (left behind by a tunnel deleted outside Terraform), or "" when there is none.
// A record that routes anywhere else is not touched.
func (r *tunnelResource) deadTunnelCNAME(ctx context.Context, host string) (string, error) {
	rec, found, err := r.data.Client.FindDNSRecord(ctx, r.data.ZoneID, "CNAME", host)
	if err != nil || !found {
		return "", err
	}
	other, ok := strings.CutSuffix(rec.Content, kdcf.TunnelTargetSuffix)
	if !ok || other == "" {
		return "", nil
	}
	if alive, err := r.tunnelAlive(ctx, other); err != nil || alive {
		return "", err
	}
	return rec.ID, nil
}

// routesIntoAnotherLiveTunnel reports whether rec routes into a tunnel other than ours that
// still exists.
func (r *tunnelResource) routesIntoAnotherLiveTunnel(ctx context.Context, rec *kdcf.DNSRecord, ours string) (bool, error) {
	other, ok := strings.CutSuffix(rec.Content, kdcf.TunnelTargetSuffix)
	if !ok || other == "" || other == ours {
		return false, nil
	}
	return r.tunnelAlive(ctx, other)
}

func (r *tunnelResource) tunnelAlive(ctx context.Context, id string) (bool, error) {
	_, alive, err := r.data.Client.GetTunnel(ctx, r.data.AccountID, id)
	return alive, err
}

// ensureCacheRule rewrites the tunnel's Cache Rule (found by ID or ref) to want, or adds it
// again when it is gone.
func (r *tunnelResource) ensureCacheRule(ctx context.Context, ruleID string, want kdcf.BypassCacheRule) (*kdcf.CacheRule, error) {
	c, zone := r.data.Client, r.data.ZoneID
	rule, found, err := c.FindCacheRule(ctx, zone, ruleID, want.Ref)
	if err != nil {
		return nil, err
	}
	if found {
		return c.UpdateBypassCacheRule(ctx, zone, rule.RulesetID, rule.ID, want)
	}
	return c.CreateBypassCacheRule(ctx, zone, want)
}

func (r *tunnelResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state tunnelModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, id, zone := r.data.Client, state.ID.ValueString(), r.data.ZoneID
	// The CNAME first: once nothing routes to the origin, the Cache Rule can go safely.
	if recID := state.DNSRecordID.ValueString(); recID != "" {
		if err := c.DeleteDNSRecord(ctx, zone, recID); err != nil {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Delete Origin DNS Record", "Deleting the CNAME of tunnel "+id, err))
			return
		}
	}
	rule, found, err := c.FindCacheRule(ctx, zone, state.CacheRuleID.ValueString(), tunnelCacheRule(id, "").Ref)
	if err == nil && found {
		err = c.DeleteCacheRule(ctx, zone, rule.RulesetID, rule.ID)
	}
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Delete Tunnel Cache Rule", "Deleting the Cache Rule of tunnel "+id, err))
		return
	}
	if err := c.DeleteTunnel(ctx, r.data.AccountID, id); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Delete Tunnel", "Deleting tunnel "+id, err))
	}
}

// ImportState takes a tunnel's ID or its name (what the configuration holds).
func (r *tunnelResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	find := func(ctx context.Context, name string) (string, bool, error) {
		return r.data.Client.FindTunnel(ctx, r.data.AccountID, name)
	}
	importIDOrName(ctx, req, resp, isUUID, find, importedByName{what: "tunnel", title: "Tunnel", name: "name", named: "named",
		where: "the dashboard and cloudflared tunnel list"})
}

// serviceURL is an ingress rule's origin service as cloudflared takes it: a scheme and a host,
// nothing else. cloudflared refuses a service with a path, even "/", and would do so only
// when the tunnel already exists; this refuses it at plan.
func serviceURL() validator.String {
	return stringCheck{
		ok: func(s string) bool {
			u, err := url.Parse(s)
			return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil &&
				u.Path == "" && !u.ForceQuery && u.RawQuery == "" && u.Fragment == ""
		},
		rule: "an http(s) URL with a host and no path (cloudflared refuses one, even \"/\"), " +
			"such as http://kamuidash-router.kamuidash-system.svc.cluster.local:8080",
		hide: hasUserInfo,
	}
}
