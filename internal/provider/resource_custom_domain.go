package provider

import (
	"context"
	"strings"
	"time"

	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

var (
	_ resource.ResourceWithConfigure   = (*customDomainResource)(nil)
	_ resource.ResourceWithImportState = (*customDomainResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*customDomainResource)(nil)
)

// NewCustomDomainResource returns the kamuidash_custom_domain resource: a tenant's own hostname,
// as a Cloudflare for SaaS custom hostname plus its DOMAINS mapping to an app.
func NewCustomDomainResource() resource.Resource {
	return &customDomainResource{pollInterval: 2 * time.Second, maxPollInterval: 15 * time.Second}
}

type customDomainResource struct {
	data *providerData
	// pollInterval is the first wait between status checks while a hostname validates; it
	// grows to maxPollInterval.
	pollInterval, maxPollInterval time.Duration
}

type customDomainModel struct {
	ID                    types.String   `tfsdk:"id"`
	Hostname              types.String   `tfsdk:"hostname"`
	App                   types.String   `tfsdk:"app"`
	DomainsNamespaceID    types.String   `tfsdk:"domains_namespace_id"`
	Status                types.String   `tfsdk:"status"`
	CustomOriginServer    types.String   `tfsdk:"custom_origin_server"`
	CustomHostnameID      types.String   `tfsdk:"custom_hostname_id"`
	HostnameStatus        types.String   `tfsdk:"hostname_status"`
	SSLStatus             types.String   `tfsdk:"ssl_status"`
	OwnershipVerification types.Object   `tfsdk:"ownership_verification"`
	SSLValidation         types.Object   `tfsdk:"ssl_validation"`
	Rev                   types.String   `tfsdk:"rev"`
	Timeouts              timeouts.Value `tfsdk:"timeouts"`
}

// txtRecordType is a DNS TXT record the tenant publishes: name and value.
var txtRecordType = map[string]attr.Type{"name": types.StringType, "value": types.StringType}

func txtRecord(name, value string) types.Object {
	if name == "" && value == "" {
		return types.ObjectNull(txtRecordType)
	}
	return types.ObjectValueMust(txtRecordType, map[string]attr.Value{"name": types.StringValue(name), "value": types.StringValue(value)})
}

const defaultHostnameActivation = 20 * time.Minute

func (r *customDomainResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_custom_domain"
}

func (r *customDomainResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	txt := func(desc string) schema.SingleNestedAttribute {
		return schema.SingleNestedAttribute{
			MarkdownDescription: desc,
			Computed:            true,
			PlanModifiers:       []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
			Attributes: map[string]schema.Attribute{
				"name":  schema.StringAttribute{MarkdownDescription: "The TXT record's name.", Computed: true},
				"value": schema.StringAttribute{MarkdownDescription: "The TXT record's value.", Computed: true},
			},
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A tenant's own hostname (for example `www.shop.example`). The provider creates the Cloudflare for SaaS " +
			"custom hostname, exposes the TXT records the tenant publishes to prove ownership and validate the certificate, waits " +
			"(within `timeouts.create`, logging progress) until hostname and certificate are active, and only then writes the " +
			"`DOMAINS` mapping that routes the host to its app. Cloudflare activates a custom hostname only while the zone's " +
			"fallback origin is active: make the domain depend on the zone's `kamuidash_fallback_origin`. " +
			"Delete removes the mapping first, then the hostname. A hostname deleted outside Terraform, its mapping still " +
			"there, is planned as a replacement (the mapping goes, the hostname is created and validated again). " +
			"Import by hostname: `terraform import kamuidash_custom_domain.www www.shop.example`; a mapping whose hostname " +
			"is gone imports alone, and the next plan replaces it the same way.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The hostname.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"hostname": schema.StringAttribute{
				MarkdownDescription: "The custom hostname, lower-case without trailing dot. It must not be under the platform domain. Changing it replaces the domain.",
				Required:            true,
				Validators:          []validator.String{hostname()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"app": schema.StringAttribute{
				MarkdownDescription: "The app the hostname routes to. Changing it rewrites the mapping in place.",
				Required:            true,
				Validators:          []validator.String{dnsLabel()},
			},
			"domains_namespace_id": schema.StringAttribute{
				MarkdownDescription: "The ID of the `DOMAINS` KV namespace the edge Worker reads. Changing it moves the mapping to that namespace in place (see the route data migration in the README): a key the new namespace already holds with the same revision is adopted without a write; the custom hostname is untouched.",
				Required:            true,
				Validators:          []validator.String{hexID()},
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "The mapping's status: `active` routes the host; `provisioning` and `disabled` make the edge answer 503. Defaults to `active`.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(string(route.StatusActive)),
				Validators: []validator.String{stringvalidator.OneOf(
					string(route.StatusActive), string(route.StatusProvisioning), string(route.StatusDisabled))},
			},
			"custom_origin_server": schema.StringAttribute{
				MarkdownDescription: "A custom origin for this hostname; unset uses the zone's fallback origin.",
				Optional:            true,
				Validators:          []validator.String{hostname()},
			},
			"custom_hostname_id": schema.StringAttribute{
				MarkdownDescription: "The Cloudflare for SaaS custom hostname's ID.",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"hostname_status": schema.StringAttribute{
				MarkdownDescription: "The custom hostname's status as last read (`active` once ownership is verified).",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"ssl_status": schema.StringAttribute{
				MarkdownDescription: "The certificate's status as last read (`active` once validated).",
				Computed:            true,
				PlanModifiers:       stable,
			},
			"ownership_verification": txt("The TXT record that proves the tenant owns the hostname."),
			"ssl_validation":         txt("The TXT record that validates the hostname's certificate."),
			"rev": schema.StringAttribute{
				MarkdownDescription: "The content hash of the `DOMAINS` mapping, known at plan time.",
				Computed:            true,
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true}),
		},
	}
}

func (r *customDomainResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (r *customDomainResource) store() kvStore[route.DomainMapping] {
	return kvStore[route.DomainMapping]{data: r.data, codec: mappingCodec, owner: ownerCustomDomain}
}

func (m customDomainModel) mapping() route.DomainMapping {
	return route.DomainMapping{App: m.App.ValueString(), Status: route.Status(m.Status.ValueString())}
}

func (r *customDomainResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	var plan customDomainModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if resp.Diagnostics.Append(r.data.checkProbeKey()...); resp.Diagnostics.HasError() {
		return
	}
	if r.data.ZoneID == "" {
		resp.Diagnostics.Append(missingZoneDiag(path.Root("zone_id")))
		return
	}
	if !plan.Hostname.IsUnknown() {
		if _, isPlatform := route.PlatformApp(plan.Hostname.ValueString(), r.data.PlatformDomain); isPlatform {
			resp.Diagnostics.AddAttributeError(path.Root("hostname"), "Hostname Under the Platform Domain",
				"The hostname "+quote(plan.Hostname.ValueString())+" is under the platform domain "+quote(r.data.PlatformDomain)+
					", whose hosts name their app themselves. Use a kamuidash_tenant_app for it, or a tenant's own domain here.")
			return
		}
	}
	if !req.State.Raw.IsNull() {
		var id types.String
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("custom_hostname_id"), &id)...)
		if id.ValueString() == "" && !id.IsUnknown() {
			// Read found the hostname gone and the mapping still there: replace, so that the
			// mapping goes, the hostname is created and validated again, and the mapping is
			// written once it is active, as for a new domain.
			for _, attr := range []string{"custom_hostname_id", "hostname_status", "ssl_status"} {
				resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attr), types.StringUnknown())...)
			}
			for _, attr := range []string{"ownership_verification", "ssl_validation"} {
				resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attr), types.ObjectUnknown(txtRecordType))...)
			}
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("custom_hostname_id"))
			resp.Diagnostics.AddWarning("Custom Hostname Deleted Outside Terraform",
				"The zone no longer has the custom hostname "+quote(plan.Hostname.ValueString())+"; its DOMAINS mapping is still "+
					"there. This plan replaces the resource: the mapping is deleted, the hostname created again (its ownership and "+
					"certificate validated anew, publish the new TXT records), then the mapping written once it is active.")
		}
	}
	rev := types.StringUnknown()
	if !plan.App.IsUnknown() && !plan.Status.IsUnknown() {
		_, m, err := route.EncodeDomainMapping(plan.mapping())
		if err != nil {
			resp.Diagnostics.AddError("Invalid Domain Mapping", err.Error())
			return
		}
		rev = types.StringValue(m.Rev)
	}
	if !req.State.Raw.IsNull() && filterPending(ctx, req.Private) {
		rev = types.StringUnknown() // the update rebuilds the name filter (filterPendingKey)
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("rev"), rev)...)
}

func (r *customDomainResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan customDomainModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	host, ns := plan.Hostname.ValueString(), plan.DomainsNamespaceID.ValueString()
	importHint := "terraform import <address> " + host

	// Refuse before creating anything: an existing mapping or hostname is imported, not taken over.
	// Both are looked up in this process's shared listings (see kvStore.create), not read one by one.
	_, found, diags := r.store().ownerOf(ctx, ns, host, true)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	if found {
		resp.Diagnostics.AddAttributeError(path.Root("hostname"), "Domain Mapping Already Exists",
			"The DOMAINS namespace already maps "+quote(host)+". Nothing was changed. To manage it here, import it: "+importHint)
		return
	}
	if _, found, err := r.data.findCustomHostname(ctx, host); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Look Up Custom Hostname", "Looking up "+quote(host), err))
		return
	} else if found {
		resp.Diagnostics.AddAttributeError(path.Root("hostname"), "Custom Hostname Already Exists",
			"The zone already has the custom hostname "+quote(host)+". Nothing was changed. To manage it here, import it: "+importHint)
		return
	}

	created, err := r.data.Client.CreateCustomHostname(ctx, r.data.ZoneID, host, plan.CustomOriginServer.ValueString())
	if err != nil {
		// Read afresh, not from the shared listing, and only with the origin asked for.
		stored, made := createdWithoutAnswer(ctx, err, func(ctx context.Context) (*kdcf.CustomHostname, bool, error) {
			h, found, err := r.data.Client.FindCustomHostname(ctx, r.data.ZoneID, host)
			return h, found && h.CustomOriginServer == plan.CustomOriginServer.ValueString(), err
		})
		if !made {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Create Custom Hostname", "Creating custom hostname "+quote(host), err))
			return
		}
		resp.Diagnostics.Append(createdAnywayWarning("Custom Hostname", "custom hostname "+quote(host), err))
		created = stored
	}
	r.data.notedHostname(created)
	tflog.Info(ctx, "Created custom hostname; waiting for it to become active", map[string]any{"hostname": host, "id": created.ID})

	// Save what exists now, so a failed wait leaves the hostname in state (tainted) instead of
	// orphaned in the zone.
	plan.ID = types.StringValue(host)
	plan.Rev = types.StringValue("")
	plan.setHostname(created)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)

	createTimeout, diags := plan.Timeouts.Create(ctx, defaultHostnameActivation)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	active, diags := r.waitActive(ctx, created, createTimeout)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	plan.setHostname(active)

	// A new mapping needs no purge (see kvStore.create).
	m, diags := r.store().put(ctx, ns, host, plan.mapping(), "", true)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		// Tainted, the domain would be replaced: its validated hostname deleted. Untainted, the
		// next refresh finds the mapping missing and the next apply writes it alone.
		resp.Diagnostics.AddError("Created Custom Domain Is Tainted",
			"The custom hostname "+quote(host)+" is created and active, but its DOMAINS mapping was not written, so Terraform "+
				"marks the domain tainted: the next apply would replace it, deleting the validated hostname and creating one whose "+
				"ownership and certificate the tenant validates anew. To keep the hostname, run `terraform untaint <address>`: "+
				"the next apply then writes the missing mapping alone.")
		return
	}
	plan.Rev = types.StringValue(m.Rev)
	resp.Diagnostics.Append(noteFilterPending(ctx, resp.Private, diags)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(verifiedCreate(r.data.verifyPropagation(ctx, host, m.Rev, m.Status == route.StatusActive), "custom domain")...)
}

// waitActive polls the hostname until it and its certificate are active, logging progress, or
// until timeout passes.
func (r *customDomainResource) waitActive(ctx context.Context, h *kdcf.CustomHostname, timeout time.Duration) (*kdcf.CustomHostname, diag.Diagnostics) {
	var diags diag.Diagnostics
	outer := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start, pause := time.Now(), newPollBackoff(r.pollInterval, r.maxPollInterval)
	for !h.Active() {
		tflog.Info(ctx, "Waiting for custom hostname to become active", map[string]any{
			"hostname": h.Hostname, "hostname_status": h.Status, "ssl_status": h.SSL.Status,
			"elapsed":     time.Since(start).Round(time.Second).String(),
			"publish_txt": h.OwnershipVerification.Name,
		})
		if !pause.sleep(ctx) {
			if outer.Err() != nil {
				diags.Append(waitInterruptedDiag("the custom hostname "+quote(h.Hostname)+" to become active", time.Since(start),
					"The hostname is created (hostname "+h.Status+", certificate "+h.SSL.Status+") and kept in state, but Terraform marks "+
						"the domain tainted, and applying again as it is would replace it: this hostname deleted and another created, whose "+
						"records differ from those being published. To keep it, run `terraform untaint <address>`; the next apply then "+
						"writes its mapping once it is active."))
				return h, diags
			}
			diags.AddError("Custom Hostname Not Active",
				"The custom hostname "+quote(h.Hostname)+" was created but did not become active within "+timeout.String()+
					" (hostname "+h.Status+", certificate "+h.SSL.Status+"). Publish the TXT records shown in ownership_verification "+
					"and ssl_validation at the tenant's DNS provider. Terraform now marks the domain tainted, and applying again as it is "+
					"would replace it: this hostname deleted and another created, whose records differ from those being published. To keep "+
					"it, run `terraform untaint <address>`: the hostname becomes active once its records are published, and the next apply "+
					"writes its mapping. Or raise timeouts.create. "+strings.Join(h.VerificationErrors, "; "))
			return h, diags
		}
		next, found, err := r.data.pollCustomHostname(ctx, h.ID)
		switch {
		case err != nil && ctx.Err() != nil:
			continue // the deadline passed mid-request; report it above
		case err != nil:
			diags.Append(apiErrorDiag("Unable to Read Custom Hostname", "Checking custom hostname "+quote(h.Hostname), err))
			return h, diags
		case !found:
			diags.AddError("Custom Hostname Disappeared", "The custom hostname "+quote(h.Hostname)+" was deleted while the provider waited for it.")
			return h, diags
		}
		h = next
	}
	tflog.Info(ctx, "Custom hostname is active", map[string]any{"hostname": h.Hostname, "elapsed": time.Since(start).Round(time.Second).String()})
	return h, diags
}

func (m *customDomainModel) setHostname(h *kdcf.CustomHostname) {
	m.CustomHostnameID = types.StringValue(h.ID)
	m.HostnameStatus = types.StringValue(h.Status)
	m.SSLStatus = types.StringValue(h.SSL.Status)
	m.OwnershipVerification = txtRecord(h.OwnershipVerification.Name, h.OwnershipVerification.Value)
	m.SSLValidation = types.ObjectNull(txtRecordType)
	if len(h.SSL.ValidationRecords) > 0 {
		m.SSLValidation = txtRecord(h.SSL.ValidationRecords[0].TXTName, h.SSL.ValidationRecords[0].TXTValue)
	}
	if h.CustomOriginServer != "" {
		m.CustomOriginServer = types.StringValue(h.CustomOriginServer)
	} else {
		m.CustomOriginServer = types.StringNull()
	}
}

func (r *customDomainResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state customDomainModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var h *kdcf.CustomHostname
	found := false
	if id := state.CustomHostnameID.ValueString(); id != "" {
		var err error
		if h, found, err = r.data.customHostname(ctx, id); err != nil {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Read Custom Hostname", "Reading custom hostname "+quote(state.Hostname.ValueString()), err))
			return
		}
	}
	if !found {
		// The hostname is gone (deleted outside Terraform), or an import found only the
		// mapping. While the mapping is there the resource stays, without a hostname, and the
		// next plan replaces it (ModifyPlan): removed from state, its create would be refused
		// by the mapping it left behind, and an import would find no hostname to import.
		host := state.Hostname.ValueString()
		if state.DomainsNamespaceID.IsNull() {
			ns, mapped, diags := r.lookUpMappingNamespace(ctx, host)
			if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
				return
			}
			if !mapped {
				resp.State.RemoveResource(ctx)
				return
			}
			state.DomainsNamespaceID = types.StringValue(ns)
		}
		mapped, diags := r.refreshMapping(ctx, &state, host, resp.Private)
		if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
			return
		}
		if !mapped {
			tflog.Warn(ctx, "Custom hostname and its mapping are gone; removing it from state", map[string]any{"hostname": host})
			resp.State.RemoveResource(ctx)
			return
		}
		tflog.Warn(ctx, "Custom hostname is gone but its mapping remains; the next plan replaces it", map[string]any{"hostname": host})
		state.clearHostname()
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	state.setHostname(h)
	state.ID = types.StringValue(h.Hostname)
	state.Hostname = types.StringValue(h.Hostname)

	if state.DomainsNamespaceID.IsNull() {
		// An import by hostname alone: find the namespace that maps it.
		ns, mapped, diags := r.lookUpMappingNamespace(ctx, h.Hostname)
		if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
			return
		}
		if !mapped {
			resp.Diagnostics.AddError("Domain Mapping Not Found",
				"The custom hostname "+quote(h.Hostname)+" exists, but no KV namespace in the account maps it to an app. "+
					"Import it as <domains_namespace_id>/<hostname> to name the DOMAINS namespace; the next apply then writes the mapping.")
			return
		}
		state.DomainsNamespaceID = types.StringValue(ns)
	}
	_, diags := r.refreshMapping(ctx, &state, h.Hostname, resp.Private)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// refreshMapping reads host's mapping in state's namespace into state (app, status, rev) and
// reports whether there is one. A missing or broken one leaves a rev that matches no plan, so
// that the next apply rewrites it.
func (r *customDomainResource) refreshMapping(ctx context.Context, state *customDomainModel, host string, private privateSetter) (bool, diag.Diagnostics) {
	doc, found, unchanged, diags := r.store().refresh(ctx, state.DomainsNamespaceID.ValueString(), host, state.Rev.ValueString())
	if diags.HasError() {
		return false, diags
	}
	if found {
		diags.Append(noteOwnerSeen(ctx, private, doc.Owner, time.Now())...)
	}
	switch {
	case unchanged:
		// The listing shows the revision state has: the mapping is what state says.
	case !found || !doc.Valid:
		state.Rev = types.StringValue(unreadableRev)
	default:
		state.App = types.StringValue(doc.Doc.App)
		state.Status = types.StringValue(string(doc.Doc.Status))
		state.Rev = types.StringValue(doc.Doc.Rev)
	}
	return found, diags
}

// clearHostname empties what state says of a custom hostname that no longer exists: an empty
// custom_hostname_id is what ModifyPlan replaces the resource for.
func (m *customDomainModel) clearHostname() {
	m.CustomHostnameID = types.StringValue("")
	m.HostnameStatus = types.StringValue("")
	m.SSLStatus = types.StringValue("")
	m.OwnershipVerification = types.ObjectNull(txtRecordType)
	m.SSLValidation = types.ObjectNull(txtRecordType)
}

// lookUpMappingNamespace returns the KV namespace of the account whose key host decodes as a
// domain mapping, and whether there is one.
func (r *customDomainResource) lookUpMappingNamespace(ctx context.Context, host string) (string, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	namespace := ""
	err := r.data.Client.KVEachNamespace(ctx, r.data.AccountID, func(ns kv.Namespace) (bool, error) {
		doc, found, d := r.store().get(ctx, ns.ID, host)
		if diags.Append(d...); d.HasError() {
			return false, nil
		}
		if found && doc.Valid {
			namespace = ns.ID
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		diags.Append(apiErrorDiag("Unable to List KV Namespaces", "Looking for the DOMAINS mapping of "+quote(host), err))
	}
	return namespace, namespace != "", diags
}

func (r *customDomainResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state customDomainModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	host := state.Hostname.ValueString()
	if !plan.CustomOriginServer.Equal(state.CustomOriginServer) {
		h, err := r.data.Client.SetCustomOriginServer(ctx, r.data.ZoneID, state.CustomHostnameID.ValueString(), plan.CustomOriginServer.ValueString())
		if err != nil {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Update Custom Hostname", "Changing the custom origin of "+quote(host), err))
			return
		}
		r.data.notedHostname(h)
		plan.setHostname(h)
	}
	m, diags := r.store().change(ctx, state.DomainsNamespaceID.ValueString(), plan.DomainsNamespaceID.ValueString(), host, plan.mapping(), host, req.Private)
	if filterPending(ctx, req.Private) && !diags.HasError() {
		// An earlier write left the name filter without the host; this update is planned to
		// rebuild it (ModifyPlan).
		diags.Append(r.store().filterChanged(ctx, plan.DomainsNamespaceID.ValueString(), host, false)...)
	}
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	plan.Rev = types.StringValue(m.Rev)
	resp.Diagnostics.Append(noteFilterPending(ctx, resp.Private, diags)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(r.data.verifyPropagation(ctx, host, m.Rev, m.Status == route.StatusActive)...)
}

func (r *customDomainResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state customDomainModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	host := state.Hostname.ValueString()
	// The mapping goes first: the edge stops routing the host before its certificate goes away.
	resp.Diagnostics.Append(r.store().delete(ctx, state.DomainsNamespaceID.ValueString(), host, host, "")...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state.CustomHostnameID.ValueString() == "" {
		return // the hostname is already gone (see Read)
	}
	r.data.forgotHostname(state.CustomHostnameID.ValueString())
	if err := r.data.Client.DeleteCustomHostname(ctx, r.data.ZoneID, state.CustomHostnameID.ValueString()); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Delete Custom Hostname", "Deleting custom hostname "+quote(host), err))
	}
}

// ImportState takes "<hostname>" or "<domains_namespace_id>/<hostname>".
func (r *customDomainResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ns, host, hasNS := strings.Cut(req.ID, "/")
	if !hasNS {
		ns, host = "", req.ID
	}
	host, err := route.NormalizeHost(host)
	if err != nil || (hasNS && !isHexID(ns)) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import a custom domain by its hostname (www.shop.example) or as <domains_namespace_id>/<hostname>; got "+quote(req.ID)+".")
		return
	}
	if r.data == nil || r.data.ZoneID == "" {
		resp.Diagnostics.Append(missingZoneDiag(path.Root("zone_id")))
		return
	}
	h, found, err := r.data.Client.FindCustomHostname(ctx, r.data.ZoneID, host)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Look Up Custom Hostname", "Looking up "+quote(host), err))
		return
	}
	id := ""
	if found {
		id = h.ID
	} else {
		// A hostname deleted outside Terraform leaves its mapping, which refuses a create: the
		// mapping alone is imported, and the next plan replaces the resource (see Read).
		if !hasNS {
			var mapped bool
			var diags diag.Diagnostics
			ns, mapped, diags = r.lookUpMappingNamespace(ctx, host)
			if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
				return
			}
			hasNS = mapped
		} else {
			doc, mapped, diags := r.store().get(ctx, ns, host)
			if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
				return
			}
			hasNS = mapped && doc.Valid
		}
		if !hasNS {
			resp.Diagnostics.AddError("Custom Hostname Not Found",
				"The zone has no custom hostname "+quote(host)+", and no DOMAINS mapping of it was found (in the namespace the ID "+
					"names, or else in any of the account's): nothing to import.")
			return
		}
		resp.Diagnostics.AddWarning("Custom Hostname Not Found",
			"The zone has no custom hostname "+quote(host)+"; its DOMAINS mapping was imported alone. "+
				"The next plan replaces the resource, which creates the hostname again.")
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), host)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("hostname"), host)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("custom_hostname_id"), id)...)
	if hasNS {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("domains_namespace_id"), ns)...)
	}
}
