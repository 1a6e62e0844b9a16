package provider

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

var (
	_ resource.ResourceWithConfigure   = (*tenantAppResource)(nil)
	_ resource.ResourceWithImportState = (*tenantAppResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*tenantAppResource)(nil)
)

// NewTenantAppResource returns the kamuidash_tenant_app resource: an app's identity and
// cluster placement, published as its dynamic route record.
func NewTenantAppResource() resource.Resource {
	return &tenantAppResource{}
}

type tenantAppResource struct {
	data *providerData
}

type tenantAppModel struct {
	ID                types.String         `tfsdk:"id"`
	Name              types.String         `tfsdk:"name"`
	RoutesNamespaceID types.String         `tfsdk:"routes_namespace_id"`
	Origin            types.String         `tfsdk:"origin"`
	Namespace         types.String         `tfsdk:"namespace"`
	Service           types.String         `tfsdk:"service"`
	Port              types.Int64          `tfsdk:"port"`
	Timeout           timetypes.GoDuration `tfsdk:"timeout"`
	Status            types.String         `tfsdk:"status"`
	PlatformHostname  types.String         `tfsdk:"platform_hostname"`
	Rev               types.String         `tfsdk:"rev"`
}

const defaultUpstreamTimeout = "30s"

func (r *tenantAppResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tenant_app"
}

func (r *tenantAppResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A tenant app: its name, where it runs in the cluster, and its status. The provider publishes it " +
			"as the app's dynamic route record in the `ROUTES` namespace (key = app name) and purges the edge's cached route " +
			"for the app's platform host. Moving an app is an in-place update of its placement.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`<routes_namespace_id>/<name>`, the form `terraform import` takes.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The app's name, a DNS label; the app is served at `<name>.<platform_domain>`. Changing it replaces the app.",
				Required:            true,
				Validators:          []validator.String{dnsLabel(), notReservedAppName()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"routes_namespace_id": schema.StringAttribute{
				MarkdownDescription: "The ID of the `ROUTES` KV namespace the edge Worker reads. Changing it moves the record to that namespace in place (see the route data migration in the README): a key the new namespace already holds with the same revision is adopted without a write.",
				Required:            true,
				Validators:          []validator.String{hexID()},
			},
			"origin": schema.StringAttribute{
				MarkdownDescription: "The tunnel's origin hostname that the Worker forwards the app's dynamic requests to.",
				Required:            true,
				Validators:          []validator.String{hostname()},
			},
			"namespace": schema.StringAttribute{
				MarkdownDescription: "The Kubernetes namespace of the app's service.",
				Required:            true,
				Validators:          []validator.String{dnsLabel()},
			},
			"service": schema.StringAttribute{
				MarkdownDescription: "The Kubernetes service that receives the app's requests from the router.",
				Required:            true,
				Validators:          []validator.String{dnsLabel()},
			},
			"port": schema.Int64Attribute{
				MarkdownDescription: "The service port.",
				Required:            true,
				Validators:          []validator.Int64{int64validator.Between(1, 65535)},
			},
			"timeout": durationWithDefault("How long the edge waits for the app's response headers, as a Go duration between 100ms and 90s.",
				defaultUpstreamTimeout, upstreamTimeout()),
			"status": schema.StringAttribute{
				MarkdownDescription: "`active` routes the app; `provisioning` and `disabled` make the edge answer 503. Defaults to `active`.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(string(route.StatusActive)),
				Validators: []validator.String{stringvalidator.OneOf(
					string(route.StatusActive), string(route.StatusProvisioning), string(route.StatusDisabled))},
			},
			"platform_hostname": schema.StringAttribute{
				MarkdownDescription: "The platform host that serves the app, `<name>.<platform_domain>`; null without a platform domain, and when that name would be longer than the 253 bytes a DNS name may have (the plan warns).",
				Computed:            true,
			},
			"rev": schema.StringAttribute{
				MarkdownDescription: "The content hash of the published route record. It is known at plan time and changes exactly when the record does.",
				Computed:            true,
			},
		},
	}
}

func (r *tenantAppResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// record builds the route record the model describes; ok is false while any input is unknown.
func (m tenantAppModel) record() (rec route.Record, ok bool) {
	for _, v := range []interface{ IsUnknown() bool }{m.Name, m.Origin, m.Namespace, m.Service, m.Port, m.Timeout, m.Status} {
		if v.IsUnknown() {
			return route.Record{}, false
		}
	}
	timeout, _ := m.Timeout.ValueGoDuration()
	return route.Record{
		App:    m.Name.ValueString(),
		Status: route.Status(m.Status.ValueString()),
		Kind:   route.KindDynamic,
		Dynamic: &route.Dynamic{
			Origin:    m.Origin.ValueString(),
			Upstream:  route.Upstream{Namespace: m.Namespace.ValueString(), Service: m.Service.ValueString(), Port: int(m.Port.ValueInt64())}.String(),
			TimeoutMS: int(timeout.Milliseconds()),
		},
	}, true
}

// fromRecord sets the model from a stored record; a tenant app describes only a dynamic record.
func (m *tenantAppModel) fromRecord(rec route.Record) bool {
	if rec.Kind != route.KindDynamic {
		return false
	}
	up, err := route.ParseUpstream(rec.Dynamic.Upstream)
	if err != nil { // DecodeRecord validated it; kept for safety
		return false
	}
	m.Status = types.StringValue(string(rec.Status))
	m.Origin = types.StringValue(rec.Dynamic.Origin)
	m.Namespace = types.StringValue(up.Namespace)
	m.Service = types.StringValue(up.Service)
	m.Port = types.Int64Value(int64(up.Port))
	// Read back as Go prints it; the framework keeps the state's spelling of the same duration.
	m.Timeout = timetypes.NewGoDurationValue(time.Duration(rec.Dynamic.TimeoutMS) * time.Millisecond)
	m.Rev = types.StringValue(rec.Rev)
	return true
}

// ModifyPlan computes rev and platform_hostname at plan time, so the plan shows exactly
// whether the published record changes.
func (r *tenantAppResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return // destroy, or the provider is not configured yet
	}
	var plan tenantAppModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if resp.Diagnostics.Append(r.data.checkProbeKey()...); resp.Diagnostics.HasError() {
		return
	}
	if !plan.RoutesNamespaceID.IsUnknown() && !plan.Name.IsUnknown() {
		plan.ID = types.StringValue(plan.RoutesNamespaceID.ValueString() + "/" + plan.Name.ValueString())
	}
	plan.PlatformHostname = types.StringNull()
	if !plan.Name.IsUnknown() {
		plan.PlatformHostname = optionalString(r.data.platformHost(plan.Name.ValueString()))
		if resp.Diagnostics.Append(r.data.platformHostDiags(plan.Name.ValueString(), path.Root("name"))...); resp.Diagnostics.HasError() {
			return
		}
	}
	if !plan.Namespace.IsUnknown() {
		var applied types.String
		if !req.State.Raw.IsNull() {
			resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("namespace"), &applied)...)
		}
		ns := plan.Namespace.ValueString()
		if resp.Diagnostics.Append(r.data.upstreamNamespaceDiags(ns, applied.ValueString() == ns, path.Root("namespace"))...); resp.Diagnostics.HasError() {
			return
		}
	}
	plan.Rev = types.StringUnknown()
	if rec, ok := plan.record(); ok {
		_, enc, err := route.EncodeRecord(rec)
		if err != nil {
			resp.Diagnostics.AddError("Invalid Tenant App", "The app's route record breaks the contract: "+err.Error())
			return
		}
		plan.Rev = types.StringValue(enc.Rev)
	}
	plan.Rev = r.records().planRev(ctx, req, plan.Rev)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// records is the route record's lifecycle, shared with kamuidash_route_record.
func (r *tenantAppResource) records() routeRecordCRUD[tenantAppModel] {
	return routeRecordCRUD[tenantAppModel]{
		data: r.data, owner: ownerTenantApp, keyAttr: "name", what: "tenant app",
		fields: func(m *tenantAppModel) recordFields {
			return recordFields{ID: &m.ID, NamespaceID: &m.RoutesNamespaceID, Key: &m.Name, Rev: &m.Rev}
		},
		record:     tenantAppModel.record,
		fromRecord: (*tenantAppModel).fromRecord,
		refreshed: func(m *tenantAppModel) {
			m.PlatformHostname = optionalString(r.data.platformHost(m.Name.ValueString()))
		},
	}
}

func (r *tenantAppResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.records().Create(ctx, req, resp)
}

func (r *tenantAppResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.records().Read(ctx, req, resp)
}

func (r *tenantAppResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.records().Update(ctx, req, resp)
}

func (r *tenantAppResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.records().Delete(ctx, req, resp)
}

// ImportState takes "<routes_namespace_id>/<name>".
func (r *tenantAppResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.records().ImportState(ctx, req, resp)
}

func upstreamTimeout() validator.String {
	return durationCheck(
		func(d time.Duration) bool {
			return d%time.Millisecond == 0 &&
				d >= route.MinUpstreamTimeoutMS*time.Millisecond && d <= route.MaxUpstreamTimeoutMS*time.Millisecond
		},
		"a duration between "+strconv.Itoa(route.MinUpstreamTimeoutMS)+"ms and "+
			strconv.Itoa(route.MaxUpstreamTimeoutMS/1000)+"s in whole milliseconds, such as 30s",
	)
}

func notReservedAppName() validator.String {
	return stringCheck{
		ok:   func(s string) bool { return !route.IsReservedAppName(s) },
		rule: "free for tenants: " + strings.Join(route.ReservedAppNames, ", ") + " are reserved by the platform",
	}
}
