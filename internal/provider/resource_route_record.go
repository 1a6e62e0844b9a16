package provider

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

var (
	_ resource.ResourceWithConfigure   = (*routeRecordResource)(nil)
	_ resource.ResourceWithImportState = (*routeRecordResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*routeRecordResource)(nil)

	_ resource.ResourceWithConfigValidators = (*routeRecordResource)(nil)
)

// NewRouteRecordResource returns the kamuidash_route_record resource: a route record written
// directly, for static sites and for records created by other tooling.
func NewRouteRecordResource() resource.Resource {
	return &routeRecordResource{}
}

type routeRecordResource struct {
	data *providerData
}

type routeRecordModel struct {
	ID                types.String       `tfsdk:"id"`
	App               types.String       `tfsdk:"app"`
	RoutesNamespaceID types.String       `tfsdk:"routes_namespace_id"`
	Status            types.String       `tfsdk:"status"`
	Dynamic           *routeDynamicModel `tfsdk:"dynamic"`
	Static            *routeStaticModel  `tfsdk:"static"`
	Rev               types.String       `tfsdk:"rev"`
}

type routeDynamicModel struct {
	Origin   types.String         `tfsdk:"origin"`
	Upstream types.String         `tfsdk:"upstream"`
	Timeout  timetypes.GoDuration `tfsdk:"timeout"`
}

type routeStaticModel struct {
	Prefix   types.String `tfsdk:"prefix"`
	Index    types.String `tfsdk:"index"`
	NotFound types.String `tfsdk:"not_found"`
	SPA      types.Bool   `tfsdk:"spa"`
	Manifest types.String `tfsdk:"manifest"`
}

func (r *routeRecordResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_route_record"
}

func (r *routeRecordResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A route record written directly to the `ROUTES` namespace: a static site, the platform apex " +
			"(`app = \"apex\"`), or a record another tool created (import it by `<routes_namespace_id>/<app>`). It shares " +
			"the key space of `kamuidash_tenant_app`; the KV metadata records which resource type owns a key, so the two " +
			"never overwrite each other. Exactly one of `dynamic` and `static` must be set.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`<routes_namespace_id>/<app>`, the form `terraform import` takes.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"app": schema.StringAttribute{
				MarkdownDescription: "The app the record routes, a DNS label (the record's KV key). `apex` serves the platform domain itself. Changing it replaces the record: the old app's key is deleted and the new one written.",
				Required:            true,
				Validators:          []validator.String{dnsLabel(), recordAppName()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"routes_namespace_id": schema.StringAttribute{
				MarkdownDescription: "The ID of the `ROUTES` KV namespace the edge Worker reads. Changing it moves the record to that namespace in place (see the route data migration in the README): a key the new namespace already holds with the same revision is adopted without a write.",
				Required:            true,
				Validators:          []validator.String{hexID()},
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "`active` routes the app; `provisioning` and `disabled` make the edge answer 503. Defaults to `active`.",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(string(route.StatusActive)),
				Validators: []validator.String{stringvalidator.OneOf(
					string(route.StatusActive), string(route.StatusProvisioning), string(route.StatusDisabled))},
			},
			"dynamic": schema.SingleNestedAttribute{
				MarkdownDescription: "Dynamic delivery: forward through the tunnel to the router.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"origin": schema.StringAttribute{
						MarkdownDescription: "The tunnel's origin hostname the Worker forwards to.",
						Required:            true,
						Validators:          []validator.String{hostname()},
					},
					"upstream": schema.StringAttribute{
						MarkdownDescription: "The tenant service, as `namespace/service:port`.",
						Required:            true,
						Validators:          []validator.String{upstreamRef()},
					},
					"timeout": durationWithDefault("How long the edge waits for response headers, a duration between 100ms and 90s.",
						defaultUpstreamTimeout, upstreamTimeout()),
				},
			},
			"static": schema.SingleNestedAttribute{
				MarkdownDescription: "Static delivery: serve objects from the static bucket.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"prefix": schema.StringAttribute{
						MarkdownDescription: "The object-key prefix of the site in the static bucket, ending in `/`: a `kamuidash_static_site`'s `prefix` " +
							"(`sites/docs/`) together with its `manifest`, or, without `manifest`, the prefix under which each path is an object of its own " +
							"(for example `sites/docs/3f2a9c/`, the layout of sites uploaded by other tooling).",
						Required:   true,
						Validators: []validator.String{objectPrefix()},
					},
					"manifest": schema.StringAttribute{
						MarkdownDescription: "The key of the site version's manifest, under `prefix`: a `kamuidash_static_site`'s `manifest`. " +
							"Each path is then served through the manifest from the site's content-addressed objects. Setting it to one of the site's kept " +
							"`versions` (`sites/<name>/manifests/<version>.json`) rolls the site back without uploading anything.",
						Optional:   true,
						Validators: []validator.String{objectPath()},
					},
					"index": schema.StringAttribute{
						MarkdownDescription: "The object served for a directory path. Defaults to `index.html`.",
						Optional:            true,
						Computed:            true,
						Default:             stringdefault.StaticString("index.html"),
						Validators:          []validator.String{objectPath()},
					},
					"not_found": schema.StringAttribute{
						MarkdownDescription: "The object served with status 404 for a missing path; unset means a fixed 404 page.",
						Optional:            true,
						Validators:          []validator.String{objectPath()},
					},
					"spa": schema.BoolAttribute{
						MarkdownDescription: "Serve `index` with status 200 for paths that have no object, for client-side routers. Defaults to false.",
						Optional:            true,
						Computed:            true,
						Default:             booldefault.StaticBool(false),
					},
				},
			},
			"rev": schema.StringAttribute{
				MarkdownDescription: "The content hash of the published record, known at plan time.",
				Computed:            true,
			},
		},
	}
}

// ConfigValidators requires exactly one delivery, reported once for the resource.
func (r *routeRecordResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("dynamic"), path.MatchRoot("static")),
	}
}

func (r *routeRecordResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// records is the route record's lifecycle, shared with kamuidash_tenant_app.
func (r *routeRecordResource) records() routeRecordCRUD[routeRecordModel] {
	return routeRecordCRUD[routeRecordModel]{
		data: r.data, owner: ownerRouteRecord, keyAttr: "app", what: "route record",
		fields: func(m *routeRecordModel) recordFields {
			return recordFields{ID: &m.ID, NamespaceID: &m.RoutesNamespaceID, Key: &m.App, Rev: &m.Rev}
		},
		record:     routeRecordModel.record,
		fromRecord: (*routeRecordModel).fromRecord,
	}
}

// record builds the route record the model describes; ok is false while any input is unknown.
func (m routeRecordModel) record() (rec route.Record, ok bool) {
	known := []interface{ IsUnknown() bool }{m.App, m.Status}
	if m.Dynamic != nil {
		known = append(known, m.Dynamic.Origin, m.Dynamic.Upstream, m.Dynamic.Timeout)
	}
	if m.Static != nil {
		known = append(known, m.Static.Prefix, m.Static.Index, m.Static.NotFound, m.Static.SPA, m.Static.Manifest)
	}
	for _, v := range known {
		if v.IsUnknown() {
			return route.Record{}, false
		}
	}
	rec = route.Record{App: m.App.ValueString(), Status: route.Status(m.Status.ValueString())}
	switch {
	case m.Dynamic != nil:
		timeout, _ := m.Dynamic.Timeout.ValueGoDuration()
		rec.Kind = route.KindDynamic
		rec.Dynamic = &route.Dynamic{
			Origin:    m.Dynamic.Origin.ValueString(),
			Upstream:  m.Dynamic.Upstream.ValueString(),
			TimeoutMS: int(timeout.Milliseconds()),
		}
	case m.Static != nil:
		rec.Kind = route.KindStatic
		rec.Static = &route.Static{
			Prefix:   m.Static.Prefix.ValueString(),
			Index:    m.Static.Index.ValueString(),
			NotFound: m.Static.NotFound.ValueString(),
			SPA:      m.Static.SPA.ValueBool(),
			Manifest: m.Static.Manifest.ValueString(),
		}
	}
	return rec, true
}

// fromRecord sets the model from a stored record. A route record describes every record.
func (m *routeRecordModel) fromRecord(rec route.Record) bool {
	m.Status = types.StringValue(string(rec.Status))
	m.Rev = types.StringValue(rec.Rev)
	m.Dynamic, m.Static = nil, nil
	switch rec.Kind {
	case route.KindDynamic:
		m.Dynamic = &routeDynamicModel{
			Origin:   types.StringValue(rec.Dynamic.Origin),
			Upstream: types.StringValue(rec.Dynamic.Upstream),
			// Read back as Go prints it; the framework keeps the state's spelling of the same duration.
			Timeout: timetypes.NewGoDurationValue(time.Duration(rec.Dynamic.TimeoutMS) * time.Millisecond),
		}
	case route.KindStatic:
		m.Static = &routeStaticModel{
			Prefix:   types.StringValue(rec.Static.Prefix),
			Index:    types.StringValue(rec.Static.Index),
			NotFound: optionalString(rec.Static.NotFound),
			SPA:      types.BoolValue(rec.Static.SPA),
			Manifest: optionalString(rec.Static.Manifest),
		}
	}
	return true
}

func (r *routeRecordResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	var plan routeRecordModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if resp.Diagnostics.Append(r.data.checkProbeKey()...); resp.Diagnostics.HasError() {
		return
	}
	if plan.Dynamic == nil && plan.Static == nil {
		return // ExactlyOneOf reports it
	}
	if !plan.App.IsUnknown() {
		if resp.Diagnostics.Append(r.data.platformHostDiags(plan.App.ValueString(), path.Root("app"))...); resp.Diagnostics.HasError() {
			return
		}
	}
	if plan.Dynamic != nil && !plan.Dynamic.Upstream.IsUnknown() {
		if up, err := route.ParseUpstream(plan.Dynamic.Upstream.ValueString()); err == nil { // else its validator reports it
			var state routeRecordModel
			var applied route.Upstream
			if !req.State.Raw.IsNull() {
				resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
			}
			if state.Dynamic != nil {
				applied, _ = route.ParseUpstream(state.Dynamic.Upstream.ValueString())
			}
			at := path.Root("dynamic").AtName("upstream")
			if resp.Diagnostics.Append(r.data.upstreamNamespaceDiags(up.Namespace, applied.Namespace == up.Namespace, at)...); resp.Diagnostics.HasError() {
				return
			}
		}
	}
	rev := types.StringUnknown()
	if rec, ok := plan.record(); ok {
		_, enc, err := route.EncodeRecord(rec)
		if err != nil {
			resp.Diagnostics.AddError("Invalid Route Record", "The record breaks the contract: "+err.Error())
			return
		}
		rev = types.StringValue(enc.Rev)
		if st := rec.Static; st != nil && st.Manifest == "" && siteRootPrefix.MatchString(st.Prefix) {
			resp.Diagnostics.AddAttributeWarning(path.Root("static").AtName("manifest"), "Static Record Without Its Manifest",
				"The prefix "+quote(st.Prefix)+" is a kamuidash_static_site's prefix, but manifest is not set: the edge would look for "+
					"each path as an object of its own under it, which a content-addressed site does not have, and answer 404. "+
					"Set manifest = kamuidash_static_site.<name>.manifest beside prefix.")
		}
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("rev"), r.records().planRev(ctx, req, rev))...)
	if !plan.RoutesNamespaceID.IsUnknown() && !plan.App.IsUnknown() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), plan.RoutesNamespaceID.ValueString()+"/"+plan.App.ValueString())...)
	}
}

func (r *routeRecordResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.records().Create(ctx, req, resp)
}

func (r *routeRecordResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.records().Read(ctx, req, resp)
}

func (r *routeRecordResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.records().Update(ctx, req, resp)
}

func (r *routeRecordResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.records().Delete(ctx, req, resp)
}

// ImportState takes "<routes_namespace_id>/<app>".
func (r *routeRecordResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.records().ImportState(ctx, req, resp)
}

// recordAppName allows the apex app (the platform's own site is a route record) but no other
// reserved name.
func recordAppName() validator.String {
	return stringCheck{
		ok: func(s string) bool { return s == route.ApexApp || !route.IsReservedAppName(s) },
		rule: "free for records: " + strings.Join(slices.DeleteFunc(slices.Clone(route.ReservedAppNames),
			func(n string) bool { return n == route.ApexApp }), ", ") + " are reserved by the platform",
	}
}

func upstreamRef() validator.String {
	return stringCheck{
		ok:   func(s string) bool { _, err := route.ParseUpstream(s); return err == nil },
		rule: "namespace/service:port with DNS-label names and a port 1-65535, such as tenant-shop/web:8080",
	}
}

// siteRootPrefix matches a kamuidash_static_site's prefix, sites/<name>/.
var siteRootPrefix = regexp.MustCompile(`^sites/[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?/$`)

// objectPrefix and objectPath apply the contract's own rules for static object keys.
func objectPrefix() validator.String {
	return stringCheck{ok: func(s string) bool { return validStatic(s, "index.html") }, rule: `a relative object path ending in "/", such as sites/docs/3f2a9c/`}
}

func objectPath() validator.String {
	return stringCheck{ok: func(s string) bool { return validStatic("p/", s) }, rule: "a relative object path such as index.html"}
}

func validStatic(prefix, index string) bool {
	_, _, err := route.EncodeRecord(route.Record{App: "a", Status: route.StatusActive, Kind: route.KindStatic,
		Static: &route.Static{Prefix: prefix, Index: index}})
	return err == nil
}
