package provider

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
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
	_ resource.ResourceWithConfigure   = (*fallbackOriginResource)(nil)
	_ resource.ResourceWithImportState = (*fallbackOriginResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*fallbackOriginResource)(nil)
)

// NewFallbackOriginResource returns the kamuidash_fallback_origin resource: the SaaS zone's
// fallback origin, without which no custom hostname is served, and its proxied placeholder
// record.
func NewFallbackOriginResource() resource.Resource {
	return &fallbackOriginResource{pollInterval: time.Second, maxPollInterval: 10 * time.Second}
}

type fallbackOriginResource struct {
	data *providerData
	// pollInterval is the first wait between status checks while the fallback origin
	// activates; it grows to maxPollInterval.
	pollInterval, maxPollInterval time.Duration
}

type fallbackOriginModel struct {
	ID          types.String   `tfsdk:"id"`
	ZoneID      types.String   `tfsdk:"zone_id"`
	Hostname    types.String   `tfsdk:"hostname"`
	Status      types.String   `tfsdk:"status"`
	DNSRecordID types.String   `tfsdk:"dns_record_id"`
	Timeouts    timeouts.Value `tfsdk:"timeouts"`
}

// defaultFallbackActivation bounds the wait when timeouts says nothing: Cloudflare gives up
// (deployment_timed_out) after about ten minutes.
const defaultFallbackActivation = 15 * time.Minute

// fallbackRecordDriftKey is the private state key where Read records that the placeholder
// record was changed outside Terraform (no longer a proxied AAAA 100:: of the hostname);
// ModifyPlan turns it into a planned update that rewrites the record.
const fallbackRecordDriftKey = "placeholder_record_drift"

const fallbackRecordComment = "managed by kamuidash_fallback_origin: the SaaS zone's fallback origin"

func (r *fallbackOriginResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fallback_origin"
}

func (r *fallbackOriginResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The Cloudflare for SaaS zone's fallback origin: the zone hostname that custom hostnames without a " +
			"custom origin send their traffic to. Cloudflare serves no custom hostname (their validation fails with " +
			"\"Zone does not have a fallback origin set.\" and visitors get error 1016) until the zone's fallback origin is active, " +
			"so every `kamuidash_custom_domain` of the zone should depend on it. On a Worker-served zone the origin is a " +
			"placeholder: the provider creates a proxied `AAAA` record to `100::` for `hostname` (or adopts an identical one), " +
			"sets the fallback origin to it and waits (within `timeouts.create`, logging the status) until it is `active`; " +
			"the Worker route `*/*` then serves the custom hostnames. A zone has one fallback origin: creating this resource on " +
			"a zone that has one fails with a hint to import it. Changing `hostname` moves the fallback origin to a new record " +
			"and deletes the old one once the move is active. A deleted or altered record shows in the plan, and the next apply " +
			"restores it and waits again. Delete removes the fallback origin, then its record. " +
			"Import by zone ID: `terraform import kamuidash_fallback_origin.this <zone_id>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The zone's ID (a zone has one fallback origin).",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"zone_id": schema.StringAttribute{
				MarkdownDescription: "The ID of the SaaS zone. Defaults to the provider's `zone_id`. Changing it replaces the fallback origin.",
				Optional:            true,
				Computed:            true,
				Validators:          []validator.String{hexID()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
			},
			"hostname": schema.StringAttribute{
				MarkdownDescription: "The fallback origin's hostname, a name under the platform domain of the provider's zone, such as " +
					"`fallback.kamui.app`. Changing it moves the fallback origin in place.",
				Required:   true,
				Validators: []validator.String{hostname()},
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "The fallback origin's status as last read: `active` after an apply; `initializing` or " +
					"`pending_deployment` while Cloudflare deploys it, `deployment_timed_out` when it found no proxied record, " +
					"`pending_deletion` or `deletion_timed_out` while it is removed. Any status but `active` plans an update that waits for it.",
				Computed: true,
			},
			"dns_record_id": schema.StringAttribute{
				MarkdownDescription: "The ID of the proxied `AAAA` placeholder record (`100::`) for `hostname`.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

func (r *fallbackOriginResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (r *fallbackOriginResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	var plan fallbackOriginModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var configZone types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("zone_id"), &configZone)...)
	if configZone.IsNull() {
		switch {
		case r.data.ZoneID == "" && req.State.Raw.IsNull():
			resp.Diagnostics.Append(missingZoneDiag(path.Root("zone_id")))
			return
		case r.data.ZoneID != "" && plan.ZoneID.ValueString() != r.data.ZoneID:
			// Unset means the provider's zone, whatever the state holds (UseStateForUnknown
			// kept it): a fallback origin imported by another zone's ID, or left on the zone
			// the provider named before, moves to the provider's zone, a replacement.
			if !req.State.Raw.IsNull() {
				resp.RequiresReplace = append(resp.RequiresReplace, path.Root("zone_id"))
			}
			plan.ZoneID = types.StringValue(r.data.ZoneID)
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("zone_id"), plan.ZoneID)...)
		}
	}
	// The platform domain is the provider's zone; another zone's names are the API's to check.
	if host, platform := plan.Hostname.ValueString(), r.data.PlatformDomain; !plan.Hostname.IsUnknown() && platform != "" &&
		plan.ZoneID.ValueString() == r.data.ZoneID && !strings.HasSuffix(host, "."+platform) {
		resp.Diagnostics.AddAttributeError(path.Root("hostname"), "Fallback Origin Outside the Platform Zone",
			"The fallback origin must be a hostname of the SaaS zone, under the platform domain "+quote(platform)+
				", and "+quote(host)+" is not. Use a name such as "+quote("fallback."+platform)+".")
		return
	}
	if req.State.Raw.IsNull() {
		return
	}
	var state fallbackOriginModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	drift, diags := req.Private.GetKey(ctx, fallbackRecordDriftKey)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// What Read found wrong with the computed parts changes nothing in the configuration, so
	// it is planned here: the apply is an update that repairs it and waits again.
	recordGone := state.DNSRecordID.ValueString() == ""
	if recordGone || len(drift) > 0 {
		resp.Diagnostics.AddWarning("Fallback Origin Record Drifted",
			"The proxied placeholder record of the fallback origin "+quote(state.Hostname.ValueString())+" is missing or was changed "+
				"outside Terraform. Without it the fallback origin cannot stay active and no custom hostname of the zone is served. "+
				"Apply to restore it.")
	}
	if recordGone || !plan.Hostname.Equal(state.Hostname) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("dns_record_id"), types.StringUnknown())...)
	}
	if recordGone || len(drift) > 0 || !plan.Hostname.Equal(state.Hostname) || state.Status.ValueString() != kdcf.FallbackActive {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringUnknown())...)
	} else {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), state.Status)...)
	}
}

func (r *fallbackOriginResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan fallbackOriginModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, zone, host := r.data.Client, plan.ZoneID.ValueString(), plan.Hostname.ValueString()

	// Refuse before creating anything: the zone has one fallback origin, and one already set
	// is imported, not taken over.
	existing, found, err := c.GetFallbackOrigin(ctx, zone)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Fallback Origin", "Reading the fallback origin of zone "+zone, err))
		return
	}
	if found {
		resp.Diagnostics.AddError("Fallback Origin Already Set",
			"The zone already has the fallback origin "+quote(existing.Origin)+" (status "+existing.Status+"). Nothing was changed. "+
				"To manage it here, import it: terraform import <address> "+zone)
		return
	}
	rec, diags := r.placeholderRecord(ctx, zone, host)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	plan.ID = types.StringValue(zone)
	plan.DNSRecordID = types.StringValue(rec.ID)
	plan.Status = types.StringValue("")
	// From here on something exists: keep it in state whatever fails later, so nothing is
	// orphaned and the record is never created twice.
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)

	set, err := c.SetFallbackOrigin(ctx, zone, host)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Set Fallback Origin", "Setting the fallback origin of zone "+zone+" to "+quote(host), err))
		return
	}
	tflog.Info(ctx, "Set the fallback origin; waiting for it to become active", map[string]any{"origin": host, "status": set.Status})
	plan.Status = types.StringValue(set.Status)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)

	timeout, diags := plan.Timeouts.Create(ctx, defaultFallbackActivation)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	f, diags := r.waitActive(ctx, zone, set, timeout, "timeouts.create")
	plan.Status = types.StringValue(f.Status)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// placeholderRecord returns the proxied AAAA 100:: record for host: an identical one the zone
// already has (adopted: a retried apply or a hand-made setup), or a new one. Another AAAA record
// for host is in the way: overwriting it would take the address away from whoever uses it.
func (r *fallbackOriginResource) placeholderRecord(ctx context.Context, zone, host string) (*kdcf.DNSRecord, diag.Diagnostics) {
	var diags diag.Diagnostics
	c := r.data.Client
	rec, found, err := c.FindDNSRecord(ctx, zone, "AAAA", host)
	switch {
	case err != nil:
		diags.Append(apiErrorDiag("Unable to Look Up DNS Record", "Looking up the AAAA record of "+quote(host), err))
		return nil, diags
	case found && rec.IsPlaceholder():
		tflog.Info(ctx, "Adopted the identical placeholder record", map[string]any{"name": host, "id": rec.ID})
		return rec, diags
	case found:
		diags.AddAttributeError(path.Root("hostname"), "DNS Record In the Way",
			"The zone already has an AAAA record for "+quote(host)+" (content "+quote(rec.Content)+", proxied "+strconv.FormatBool(rec.Proxied)+
				"), which is not the proxied "+kdcf.PlaceholderAddress+" placeholder a Worker-served fallback origin needs. Nothing was changed. "+
				"Choose another hostname, or remove that record if nothing uses it.")
		return nil, diags
	}
	rec, err = c.UpsertPlaceholderRecord(ctx, zone, "", host, fallbackRecordComment)
	if err != nil {
		// There was no AAAA record for host above: an identical one now is this create's.
		var made bool
		rec, made = createdWithoutAnswer(ctx, err, func(ctx context.Context) (*kdcf.DNSRecord, bool, error) {
			rec, found, err := c.FindDNSRecord(ctx, zone, "AAAA", host)
			return rec, found && rec.IsPlaceholder(), err
		})
		if !made {
			diags.Append(apiErrorDiag("Unable to Create DNS Record", "Creating the proxied placeholder record of "+quote(host), err))
			return nil, diags
		}
		diags.Append(createdAnywayWarning("DNS Record", "the placeholder record of "+quote(host), err))
	}
	tflog.Info(ctx, "Created the placeholder record", map[string]any{"name": host, "id": rec.ID})
	return rec, diags
}

// waitActive polls the fallback origin until it is active, logging its status at every poll,
// or until timeout passes; f is what the last call answered. It returns the last status read.
func (r *fallbackOriginResource) waitActive(ctx context.Context, zone string, f *kdcf.FallbackOrigin, timeout time.Duration, timeoutAttr string) (*kdcf.FallbackOrigin, diag.Diagnostics) {
	var diags diag.Diagnostics
	outer := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start, pause := time.Now(), newPollBackoff(r.pollInterval, r.maxPollInterval)
	for f.Status != kdcf.FallbackActive {
		elapsed := time.Since(start).Round(time.Second).String()
		tflog.Info(ctx, "Waiting for the fallback origin to become active", map[string]any{
			"origin": f.Origin, "status": f.Status, "elapsed": elapsed, "errors": strings.Join(f.Errors, "; "),
		})
		switch f.Status {
		case kdcf.FallbackDeploymentTimedOut:
			diags.AddError("Fallback Origin Deployment Timed Out",
				"Cloudflare gave up deploying the fallback origin "+quote(f.Origin)+": it found no proxied A, AAAA or CNAME record for it in the zone. "+
					"The provider's placeholder record (dns_record_id) must be a proxied AAAA record to "+kdcf.PlaceholderAddress+" named exactly "+
					"like the fallback origin; check it was not removed, renamed or unproxied, then apply again (the fallback origin is set "+
					"again and the wait starts over). "+strings.Join(f.Errors, "; "))
			return f, diags
		case kdcf.FallbackPendingDeletion, kdcf.FallbackDeletionTimedOut:
			diags.AddError("Fallback Origin Being Deleted",
				"The fallback origin "+quote(f.Origin)+" is being deleted (status "+f.Status+") while the provider waits for it to become active; "+
					"something else removed it. Apply again once the deletion is over to set it again.")
			return f, diags
		}
		if !pause.sleep(ctx) {
			if outer.Err() != nil {
				diags.Append(waitInterruptedDiag("the fallback origin "+quote(f.Origin)+" to become active", time.Since(start),
					"It is kept in state with its placeholder record (last status "+f.Status+"), so nothing is left behind: apply "+
						"again to keep waiting."))
				return f, diags
			}
			diags.AddError("Fallback Origin Not Active",
				"The fallback origin "+quote(f.Origin)+" did not become active within "+timeout.String()+" (last status "+f.Status+
					"). Custom hostnames of the zone are not served until it is. It is kept in state with its placeholder record, so "+
					"nothing is left behind: apply again to keep waiting (a create that failed is set up again from scratch), or raise "+
					timeoutAttr+". "+strings.Join(f.Errors, "; "))
			return f, diags
		}
		next, found, err := r.data.Client.GetFallbackOrigin(ctx, zone)
		switch {
		case err != nil && ctx.Err() != nil:
			continue // the deadline passed mid-request; report it above
		case err != nil:
			diags.Append(apiErrorDiag("Unable to Read Fallback Origin", "Checking the fallback origin "+quote(f.Origin), err))
			return f, diags
		case !found:
			diags.AddError("Fallback Origin Disappeared", "The fallback origin "+quote(f.Origin)+" was deleted while the provider waited for it.")
			return f, diags
		}
		f = next
	}
	tflog.Info(ctx, "Fallback origin is active", map[string]any{"origin": f.Origin, "elapsed": time.Since(start).Round(time.Second).String()})
	return f, diags
}

func (r *fallbackOriginResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state fallbackOriginModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, zone := r.data.Client, state.ZoneID.ValueString()
	f, found, err := c.GetFallbackOrigin(ctx, zone)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Fallback Origin", "Reading the fallback origin of zone "+zone, err))
		return
	}
	if !found {
		tflog.Warn(ctx, "Fallback origin is gone; removing it from state", map[string]any{"zone_id": zone})
		resp.State.RemoveResource(ctx)
		return
	}
	state.ID = types.StringValue(zone)
	state.Hostname = types.StringValue(f.Origin) // another origin is drift the next apply moves back
	state.Status = types.StringValue(f.Status)

	var rec *kdcf.DNSRecord
	if id := state.DNSRecordID.ValueString(); id != "" {
		rec, found, err = c.GetDNSRecord(ctx, zone, id)
	} else { // imported, or lost: look for the record by name
		rec, found, err = c.FindDNSRecord(ctx, zone, "AAAA", f.Origin)
	}
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read DNS Record", "Reading the placeholder record of "+quote(f.Origin), err))
		return
	}
	var drift []byte
	switch {
	case !found:
		state.DNSRecordID = types.StringValue("")
	case rec.Type != "AAAA" || !rec.IsPlaceholder() || rec.Name != f.Origin:
		state.DNSRecordID = types.StringValue(rec.ID)
		drift = []byte(`"changed"`)
		tflog.Warn(ctx, "Fallback origin's placeholder record was changed outside Terraform", map[string]any{"id": rec.ID, "name": rec.Name})
	default:
		state.DNSRecordID = types.StringValue(rec.ID)
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, fallbackRecordDriftKey, drift)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *fallbackOriginResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state fallbackOriginModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, zone, host := r.data.Client, state.ZoneID.ValueString(), plan.Hostname.ValueString()
	moving := host != state.Hostname.ValueString()
	plan.ID, plan.ZoneID, plan.Status = state.ID, state.ZoneID, state.Status

	// The record: a new one for a new hostname (the old one stays until the move is active,
	// so the zone is never without a working fallback origin), else the state's, rewritten
	// when it drifted or created again when it is gone.
	var rec *kdcf.DNSRecord
	var diags diag.Diagnostics
	switch oldID := state.DNSRecordID.ValueString(); {
	case moving || oldID == "":
		rec, diags = r.placeholderRecord(ctx, zone, host)
	default:
		var err error
		if rec, err = c.UpsertPlaceholderRecord(ctx, zone, oldID, host, fallbackRecordComment); err != nil {
			diags.Append(apiErrorDiag("Unable to Update DNS Record", "Rewriting the placeholder record of "+quote(host), err))
		}
	}
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	plan.DNSRecordID = types.StringValue(rec.ID)
	if moving {
		// Until the move is done, state keeps the old hostname and record: a failure here is
		// retried by the next apply, which finds the new record and adopts it.
		plan.Hostname, plan.DNSRecordID = state.Hostname, state.DNSRecordID
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, fallbackRecordDriftKey, nil)...)

	// Set it again only when needed: a PUT restarts Cloudflare's deployment.
	f, found, err := c.GetFallbackOrigin(ctx, zone)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Fallback Origin", "Reading the fallback origin of zone "+zone, err))
		return
	}
	if !found || f.Origin != host || f.Status == kdcf.FallbackDeploymentTimedOut || f.Status == kdcf.FallbackDeletionTimedOut {
		if f, err = c.SetFallbackOrigin(ctx, zone, host); err != nil {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Set Fallback Origin", "Setting the fallback origin of zone "+zone+" to "+quote(host), err))
			return
		}
		tflog.Info(ctx, "Set the fallback origin; waiting for it to become active", map[string]any{"origin": host, "status": f.Status})
	}
	plan.Status = types.StringValue(f.Status)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)

	timeout, diags := plan.Timeouts.Update(ctx, defaultFallbackActivation)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	f, diags = r.waitActive(ctx, zone, f, timeout, "timeouts.update")
	plan.Status = types.StringValue(f.Status)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	if moving {
		if err := c.DeleteDNSRecord(ctx, zone, state.DNSRecordID.ValueString()); err != nil {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Delete DNS Record",
				"The fallback origin moved to "+quote(host)+"; deleting the old placeholder record of "+quote(state.Hostname.ValueString()), err))
		}
		plan.Hostname, plan.DNSRecordID = types.StringValue(host), types.StringValue(rec.ID)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *fallbackOriginResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state fallbackOriginModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, zone, host := r.data.Client, state.ZoneID.ValueString(), state.Hostname.ValueString()
	// The fallback origin first, then its record once it is gone: an origin without its
	// record would time out rather than go.
	f, err := c.DeleteFallbackOrigin(ctx, zone)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Delete Fallback Origin", "Deleting the fallback origin of zone "+zone, err))
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultFallbackActivation)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if f != nil {
		resp.Diagnostics.Append(r.waitGone(ctx, zone, f, timeout)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if id := state.DNSRecordID.ValueString(); id != "" {
		if err := c.DeleteDNSRecord(ctx, zone, id); err != nil {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Delete DNS Record", "Deleting the placeholder record of "+quote(host), err))
		}
	}
}

// waitGone polls until the zone has no fallback origin, logging its status, or until timeout
// passes; Cloudflare answers a deletion with pending_deletion and removes it later.
func (r *fallbackOriginResource) waitGone(ctx context.Context, zone string, f *kdcf.FallbackOrigin, timeout time.Duration) diag.Diagnostics {
	var diags diag.Diagnostics
	outer := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start, pause := time.Now(), newPollBackoff(r.pollInterval, r.maxPollInterval)
	for {
		next, found, err := r.data.Client.GetFallbackOrigin(ctx, zone)
		switch {
		case err != nil && ctx.Err() == nil:
			diags.Append(apiErrorDiag("Unable to Read Fallback Origin", "Checking the deletion of the fallback origin "+quote(f.Origin), err))
			return diags
		case err == nil && !found:
			return diags
		case err == nil:
			f = next
		}
		if f.Status == kdcf.FallbackDeletionTimedOut {
			diags.AddError("Fallback Origin Deletion Timed Out",
				"Cloudflare gave up deleting the fallback origin "+quote(f.Origin)+" (deletion_timed_out). Its placeholder record was kept. "+
					"Run the destroy again, or delete the fallback origin in the dashboard (SSL/TLS → Custom Hostnames).")
			return diags
		}
		tflog.Info(ctx, "Waiting for the fallback origin to be deleted", map[string]any{
			"origin": f.Origin, "status": f.Status, "elapsed": time.Since(start).Round(time.Second).String(),
		})
		if !pause.sleep(ctx) {
			if outer.Err() != nil {
				diags.Append(waitInterruptedDiag("the fallback origin "+quote(f.Origin)+" to be deleted", time.Since(start),
					"Its deletion was asked for (last status "+f.Status+") and its placeholder record was kept: run the destroy again."))
				return diags
			}
			diags.AddError("Fallback Origin Not Deleted",
				"The fallback origin "+quote(f.Origin)+" was still there after "+timeout.String()+" (last status "+f.Status+"). "+
					"Its placeholder record was kept. Run the destroy again, or raise timeouts.delete.")
			return diags
		}
	}
}

// ImportState takes the zone's ID: a zone has one fallback origin.
func (r *fallbackOriginResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !isHexID(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import a fallback origin by its zone's ID, a 32-character hexadecimal Cloudflare ID; got "+quote(req.ID)+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("zone_id"), req.ID)...)
}
