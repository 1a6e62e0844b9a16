package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/bundle"
	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

var (
	_ resource.ResourceWithConfigure   = (*edgeWorkerResource)(nil)
	_ resource.ResourceWithImportState = (*edgeWorkerResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*edgeWorkerResource)(nil)

	_ resource.ResourceWithUpgradeState = (*edgeWorkerResource)(nil)
)

// NewEdgeWorkerResource returns the kamuidash_edge_worker resource: the gateway Worker, built
// from the sources embedded in the provider (or a fork in source_dir), uploaded with its
// bindings and zone routes.
func NewEdgeWorkerResource() resource.Resource {
	return &edgeWorkerResource{}
}

type edgeWorkerResource struct {
	data *providerData
}

type edgeWorkerModel struct {
	ID                 types.String         `tfsdk:"id"`
	Name               types.String         `tfsdk:"name"`
	SourceDir          types.String         `tfsdk:"source_dir"`
	RoutesNamespaceID  types.String         `tfsdk:"routes_namespace_id"`
	DomainsNamespaceID types.String         `tfsdk:"domains_namespace_id"`
	StaticBucket       types.String         `tfsdk:"static_bucket"`
	FreshnessBudget    timetypes.GoDuration `tfsdk:"freshness_budget"`
	UpstreamTimeout    timetypes.GoDuration `tfsdk:"upstream_timeout"`
	LogSampleRate      types.Float64        `tfsdk:"log_sample_rate"`
	SigningSecret      types.String         `tfsdk:"signing_secret"`
	CacheMarker        types.String         `tfsdk:"cache_marker"`
	Routes             types.Set            `tfsdk:"routes"`
	ContentSHA256      types.String         `tfsdk:"content_sha256"`
	SizeBytes          types.Int64          `tfsdk:"size_bytes"`
	BuildToolchain     types.String         `tfsdk:"build_toolchain"`
	Etag               types.String         `tfsdk:"etag"`
}

// Minimum secret sizes of the Worker's bindings (route.WorkerBindings).
const (
	minSigningSecretBytes = route.MinSigningSecretBytes
	minCacheMarkerBytes   = route.MinCacheMarkerBytes
	driftedContent        = "changed outside Terraform"
)

// maxUpstreamTimeout is the default ceiling, written as Go prints it so an import reads back the
// same spelling.
const maxUpstreamTimeout = route.MaxUpstreamTimeoutMS * time.Millisecond

var scriptNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

func (r *edgeWorkerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_edge_worker"
}

func (r *edgeWorkerResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = edgeWorkerSchemaV1()
}

// edgeWorkerSchemaV1 is the schema since routes became a set: the order of zone routes means
// nothing, and as a list a reordering planned an update of the Worker.
func edgeWorkerSchemaV1() schema.Schema {
	return schema.Schema{
		Version: 1,
		MarkdownDescription: "The gateway Worker every public request enters. The provider builds it from the Go sources embedded " +
			"in the provider binary (or a fork in `source_dir`) with the local Go toolchain, hermetically and reproducibly, and " +
			"shows the artifact's `content_sha256` in the plan: the same sources give an empty plan. Every change, sources or " +
			"settings, is an in-place upload of the same script; only a new `name` replaces it. The Worker's zone routes are " +
			"managed here too.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The script name.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The script name, for example `kamuidash-edge-dev`. Changing it replaces the Worker.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(scriptNamePattern, "must be 1-63 of a-z, 0-9, '-' and '_', starting with a letter or digit")},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"source_dir": schema.StringAttribute{
				MarkdownDescription: "A checkout of a fork to build instead of the embedded sources: a directory holding `worker-src/edge` and `internal/route`.",
				Optional:            true,
			},
			"routes_namespace_id": schema.StringAttribute{
				MarkdownDescription: "The `ROUTES` KV namespace the Worker reads (app → route record).",
				Required:            true,
				Validators:          []validator.String{hexID()},
			},
			"domains_namespace_id": schema.StringAttribute{
				MarkdownDescription: "The `DOMAINS` KV namespace the Worker reads (custom hostname → app).",
				Required:            true,
				Validators:          []validator.String{hexID()},
			},
			"static_bucket": schema.StringAttribute{
				MarkdownDescription: "The R2 bucket static sites are served from (bound as `STATIC`).",
				Required:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$`), "must be a valid R2 bucket name")},
			},
			"freshness_budget": durationWithDefault("The worst-case time from a routing change to every edge serving it, a duration between "+
				route.MinFreshnessBudget.String()+" and "+route.MaxFreshnessBudget.String()+" in whole seconds. The KV, route-cache and negative-cache TTLs are derived from it.",
				route.DefaultFreshnessBudget.String(), freshnessBudget()),
			"upstream_timeout": durationWithDefault("The ceiling on any app's upstream timeout, a duration between 100ms and 90s.",
				maxUpstreamTimeout.String(), upstreamTimeout()),
			"log_sample_rate": schema.Float64Attribute{
				MarkdownDescription: "The fraction of successful requests that get a log line (errors are always logged). Defaults to `0.01`.",
				Optional:            true,
				Computed:            true,
				Default:             float64default.StaticFloat64(0.01),
				Validators:          []validator.Float64{float64validator.Between(0, 1)},
			},
			"signing_secret": schema.StringAttribute{
				MarkdownDescription: "The per-environment secret that signs the resolved context for the router (at least 32 bytes). Sensitive.",
				Required:            true,
				Sensitive:           true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(minSigningSecretBytes)},
			},
			"cache_marker": schema.StringAttribute{
				MarkdownDescription: "The private marker that content-cache entries of this deployment carry (at least 16 bytes). Sensitive.",
				Required:            true,
				Sensitive:           true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(minCacheMarkerBytes)},
			},
			"routes": schema.SetAttribute{
				MarkdownDescription: "Zone route patterns that send requests to the Worker, for example `[\"*.kamui.app/*\", \"kamui.app/*\"]`. " +
					"A set: their order means nothing, and listing them in another order plans no change.",
				Optional:    true,
				ElementType: types.StringType,
			},
			"content_sha256": schema.StringAttribute{
				MarkdownDescription: "The sha256 of the built modules (Wasm, shim, runtime glue), known at plan time: a new value means new code.",
				Computed:            true,
			},
			"size_bytes": schema.Int64Attribute{
				MarkdownDescription: "The total size of the uploaded modules, known at plan time.",
				Computed:            true,
			},
			"build_toolchain": schema.StringAttribute{
				MarkdownDescription: "The Go release the uploaded Worker was built with (for example `go1.26.8`). The provider " +
					"pins it, whatever Go is installed, so that every machine builds the same bytes; the installed go command " +
					"(Go 1.21 or newer) fetches it from the module proxy the first time. Recorded with each upload.",
				Computed: true,
			},
			"etag": schema.StringAttribute{
				MarkdownDescription: "The API's etag of the uploaded content, used to notice uploads made outside Terraform.",
				Computed:            true,
			},
		},
	}
}

// edgeWorkerSchemaV0 is the schema of state written while routes was a list: the same
// attributes otherwise. An upgrade reads old state with it, so only its types matter.
func edgeWorkerSchemaV0() schema.Schema {
	s := edgeWorkerSchemaV1()
	s.Version = 0
	s.Attributes = maps.Clone(s.Attributes)
	s.Attributes["routes"] = schema.ListAttribute{Optional: true, ElementType: types.StringType}
	return s
}

// UpgradeState carries state written before routes became a set.
func (r *edgeWorkerResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	v0 := edgeWorkerSchemaV0()
	return map[int64]resource.StateUpgrader{
		0: {PriorSchema: &v0, StateUpgrader: upgradeEdgeWorkerStateFromV0},
	}
}

// upgradeEdgeWorkerStateFromV0 turns version 0's routes list into the set of its patterns (a
// pattern listed twice is one route, as it always was in the zone); an empty list stays an
// empty set and a null one null, so a configuration that says either plans no change. Every
// other attribute is copied as it is.
func upgradeEdgeWorkerStateFromV0(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	var attrs map[string]tftypes.Value
	if err := req.State.Raw.As(&attrs); err != nil {
		resp.Diagnostics.AddError("Unable to Upgrade Edge Worker State",
			"The state written by an earlier provider version could not be read as an object: "+err.Error())
		return
	}
	var list types.List
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("routes"), &list)...)
	if resp.Diagnostics.HasError() {
		return
	}
	routes := types.SetNull(types.StringType)
	if !list.IsNull() {
		seen := map[string]bool{}
		patterns := []attr.Value{}
		for _, e := range list.Elements() {
			if p, ok := e.(types.String); ok && !seen[p.ValueString()] {
				seen[p.ValueString()] = true
				patterns = append(patterns, p)
			}
		}
		var diags diag.Diagnostics
		routes, diags = types.SetValue(types.StringType, patterns)
		if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
			return
		}
	}
	v, err := routes.ToTerraformValue(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Upgrade Edge Worker State", "The routes could not be converted to a set: "+err.Error())
		return
	}
	attrs["routes"] = v
	resp.State.Raw = tftypes.NewValue(resp.State.Schema.Type().TerraformType(ctx), attrs)
}

func (r *edgeWorkerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// builder returns the bundle builder for the model's sources.
func (r *edgeWorkerResource) builder(m edgeWorkerModel) *bundle.Builder {
	if dir := m.SourceDir.ValueString(); dir != "" {
		return &bundle.Builder{Sources: os.DirFS(dir)}
	}
	return r.data.Bundles
}

// build compiles the Worker (an artifact-cache hit when nothing changed) and reports a missing
// toolchain or a compile error as a diagnostic that says how to fix it.
func (r *edgeWorkerResource) build(ctx context.Context, m edgeWorkerModel) (*bundle.Worker, diag.Diagnostics) {
	var diags diag.Diagnostics
	start := time.Now()
	w, err := r.builder(m).Worker(ctx)
	if err != nil {
		diags.Append(bundleBuildDiag("Edge Worker", "the edge Worker", path.Root("source_dir"), err))
		return w, diags
	}
	tflog.Debug(ctx, "Built edge Worker", map[string]any{"sha256": w.SHA256, "size": w.Size, "duration_ms": time.Since(start).Milliseconds()})
	return w, diags
}

func (r *edgeWorkerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	var plan edgeWorkerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.SourceDir.IsUnknown() {
		return
	}
	if r.data.PlatformDomain == "" {
		resp.Diagnostics.Append(missingSettingDiag(path.Root("platform_domain"), EnvPlatformDomain))
		return
	}
	if r.data.ZoneID == "" && (plan.Routes.IsUnknown() || len(plan.Routes.Elements()) > 0) {
		resp.Diagnostics.Append(missingZoneDiag(path.Root("zone_id")))
		return
	}
	resp.Diagnostics.Append(r.data.propagationWaitDiags(plan.FreshnessBudget)...)
	w, diags := r.build(ctx, plan)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	plan.ContentSHA256 = types.StringValue(w.SHA256)
	plan.SizeBytes = types.Int64Value(w.Size)
	plan.BuildToolchain = types.StringValue(w.GoVersion)
	plan.Etag = types.StringUnknown()
	// The etag is stable unless something is uploaded: keep it when the plan uploads nothing,
	// and the toolchain recorded with the last upload (none for a Worker uploaded before it was
	// recorded: no plan changes for that alone).
	if !req.State.Raw.IsNull() {
		var state edgeWorkerModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if r.uploadsNothing(plan, state) {
			plan.Etag = state.Etag
			plan.BuildToolchain = state.BuildToolchain
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// uploadsNothing reports whether applying plan over state would upload the same script.
func (r *edgeWorkerResource) uploadsNothing(plan, state edgeWorkerModel) bool {
	return plan.ContentSHA256.Equal(state.ContentSHA256) &&
		plan.RoutesNamespaceID.Equal(state.RoutesNamespaceID) && plan.DomainsNamespaceID.Equal(state.DomainsNamespaceID) &&
		plan.StaticBucket.Equal(state.StaticBucket) &&
		// By duration: the Worker is given the same numbers however they are spelled.
		sameDuration(plan.FreshnessBudget, state.FreshnessBudget) && sameDuration(plan.UpstreamTimeout, state.UpstreamTimeout) &&
		// By value: a rate from configuration carries more precision than one read back.
		plan.LogSampleRate.ValueFloat64() == state.LogSampleRate.ValueFloat64() &&
		plan.SigningSecret.Equal(state.SigningSecret) && plan.CacheMarker.Equal(state.CacheMarker)
}

// upload builds (a cache hit after the plan) and uploads the Worker with its bindings.
func (r *edgeWorkerResource) upload(ctx context.Context, m *edgeWorkerModel) diag.Diagnostics {
	w, diags := r.build(ctx, *m)
	if diags.HasError() {
		return diags
	}
	up := kdcf.WorkerUpload{
		MainModule:         w.MainModule,
		CompatibilityDate:  route.WorkerCompatibilityDate,
		CompatibilityFlags: route.WorkerCompatibilityFlags(),
		Bindings:           edgeWorkerBindings(*m, r.data.PlatformDomain),
	}
	for _, f := range w.Files {
		up.Modules = append(up.Modules, kdcf.WorkerModule{Name: f.Name, MIMEType: f.MIMEType, Content: f.Content})
	}
	name := m.Name.ValueString()
	// Never the body: it is megabytes of Wasm and carries no information a log needs.
	tflog.Info(ctx, "Uploading edge Worker", map[string]any{"script": name, "sha256": w.SHA256, "size": w.Size})
	etag, err := r.data.Client.UploadWorker(ctx, r.data.AccountID, name, up)
	if err != nil {
		// A lost answer (a timeout, a proxy's error after the API stored it, the user's
		// interrupt) may hide a stored upload: a first deployment would then fail, leaving a
		// script the next apply asks to import.
		stored, landed := createdWithoutAnswer(ctx, err, func(ctx context.Context) (string, bool, error) {
			return r.holdsUpload(ctx, name, up)
		})
		if !landed {
			diags.Append(apiErrorDiag("Unable to Upload Edge Worker", "Uploading script "+quote(name), err))
			return diags
		}
		diags.AddWarning("Edge Worker Upload Stored Without an Answer",
			"The upload of script "+quote(name)+" failed ("+err.Error()+"), yet the script now holds exactly what was sent "+
				"(its modules, compatibility date and bindings): it is taken as uploaded.")
		etag = stored
	}
	m.ContentSHA256 = types.StringValue(w.SHA256)
	m.SizeBytes = types.Int64Value(w.Size)
	m.BuildToolchain = types.StringValue(w.GoVersion)
	m.Etag = types.StringValue(etag)
	return diags
}

// holdsUpload says whether the script holds exactly up, and its etag if so: the modules sent,
// the same compatibility date and bindings (a secret's text aside: the API never returns it).
// A script missing or holding anything else is not up.
func (r *edgeWorkerResource) holdsUpload(ctx context.Context, name string, up kdcf.WorkerUpload) (etag string, holds bool, err error) {
	etag, found, err := r.data.Client.WorkerEtag(ctx, r.data.AccountID, name)
	if err != nil || !found {
		return "", false, err
	}
	modules, found, err := r.data.Client.WorkerModules(ctx, r.data.AccountID, name)
	if err != nil || !found || !sameModules(modules, up.Modules) {
		return "", false, err
	}
	settings, found, err := r.data.Client.GetWorkerSettings(ctx, r.data.AccountID, name)
	if err != nil || !found || settings.CompatibilityDate != up.CompatibilityDate || !sameBindings(settings.Bindings, up.Bindings) {
		return "", false, err
	}
	return etag, true, nil
}

// sameModules says whether got holds exactly the modules of want, by name and content, in any
// order.
func sameModules(got, want []kdcf.WorkerModule) bool {
	if len(got) != len(want) {
		return false
	}
	byName := make(map[string][]byte, len(got))
	for _, m := range got {
		byName[m.Name] = m.Content
	}
	for _, m := range want {
		content, ok := byName[m.Name]
		if !ok || !bytes.Equal(content, m.Content) {
			return false
		}
	}
	return true
}

// sameBindings says whether the bindings read back (got) are those uploaded (want): the same
// names, each of the same type and, but for secrets, the same value.
func sameBindings(got, want []map[string]any) bool {
	if len(got) != len(want) {
		return false
	}
	byName := make(map[string]map[string]any, len(got))
	for _, b := range got {
		if name, ok := b["name"].(string); ok {
			byName[name] = b
		}
	}
	for _, w := range want {
		name, _ := w["name"].(string)
		g, ok := byName[name]
		if !ok || g["type"] != w["type"] {
			return false
		}
		if w["type"] == string(route.SecretTextBinding) {
			continue
		}
		kind, _ := w["type"].(string)
		field := bindingValueField(route.BindingKind(kind))
		if g[field] != w[field] {
			return false
		}
	}
	return true
}

// edgeWorkerBindings is the Worker's binding metadata for an upload: every binding of
// route.WorkerBindings, in its order, its value written in the contract's format.
func edgeWorkerBindings(m edgeWorkerModel, platformDomain string) []map[string]any {
	budget, _ := m.FreshnessBudget.ValueGoDuration()
	timeout, _ := m.UpstreamTimeout.ValueGoDuration()
	values := map[string]string{
		route.BindingRoutes:          m.RoutesNamespaceID.ValueString(),
		route.BindingDomains:         m.DomainsNamespaceID.ValueString(),
		route.BindingStatic:          m.StaticBucket.ValueString(),
		route.BindingPlatformDomain:  platformDomain,
		route.BindingFreshness:       route.FormatSecondsText(budget),
		route.BindingUpstreamTimeout: route.FormatMillisecondsText(timeout),
		route.BindingLogSampleRate:   route.FormatRateText(m.LogSampleRate.ValueFloat64()),
		route.BindingSigningSecret:   m.SigningSecret.ValueString(),
		route.BindingCacheMarker:     m.CacheMarker.ValueString(),
	}
	out := make([]map[string]any, 0, len(route.WorkerBindings))
	for _, b := range route.WorkerBindings {
		out = append(out, map[string]any{"type": string(b.Kind), "name": b.Name, bindingValueField(b.Kind): values[b.Name]})
	}
	return out
}

// bindingValueField is the upload metadata's field that carries a binding of kind k.
func bindingValueField(k route.BindingKind) string {
	switch k {
	case route.KVNamespaceBinding:
		return "namespace_id"
	case route.R2BucketBinding:
		return "bucket_name"
	}
	return "text"
}

// repointedRoutesKey is the private state key where Read records, as a JSON list, the patterns
// of this Worker's zone routes that were pointed at another script (or none) outside
// Terraform. Only those are pointed back: a pattern another script owned all along is never
// taken over.
const repointedRoutesKey = "repointed_routes"

// syncRoutes makes the zone's routes to this script exactly the configured patterns. A
// configured pattern in repair (an update's repointed routes) whose route points elsewhere is
// pointed back; any other pattern routed elsewhere is left alone, and creating it fails.
func (r *edgeWorkerResource) syncRoutes(ctx context.Context, m edgeWorkerModel, repair []string) diag.Diagnostics {
	var diags diag.Diagnostics
	var want []string
	diags.Append(m.Routes.ElementsAs(ctx, &want, false)...)
	if diags.HasError() || r.data.ZoneID == "" {
		return diags
	}
	name := m.Name.ValueString()
	existing, err := r.data.Client.ListWorkerRoutes(ctx, r.data.ZoneID)
	if err != nil {
		diags.Append(apiErrorDiag("Unable to List Worker Routes", "Listing the zone's Worker routes", err))
		return diags
	}
	have := map[string]bool{}
	for _, rt := range existing {
		if rt.Script != name {
			// A configured pattern of ours pointed elsewhere outside Terraform (another
			// script, or none): the zone allows one route per pattern, so it is pointed back.
			if slices.Contains(repair, rt.Pattern) && slices.Contains(want, rt.Pattern) && !have[rt.Pattern] {
				if err := r.data.Client.UpdateWorkerRoute(ctx, r.data.ZoneID, rt.ID, rt.Pattern, name); err != nil {
					diags.Append(apiErrorDiag("Unable to Update Worker Route", "Routing "+quote(rt.Pattern)+" back to "+quote(name), err))
					return diags
				}
				have[rt.Pattern] = true
			}
			continue
		}
		if slices.Contains(want, rt.Pattern) {
			have[rt.Pattern] = true
			continue
		}
		if err := r.data.Client.DeleteWorkerRoute(ctx, r.data.ZoneID, rt.ID); err != nil {
			diags.Append(apiErrorDiag("Unable to Delete Worker Route", "Deleting route "+quote(rt.Pattern), err))
			return diags
		}
	}
	for _, p := range want {
		if have[p] {
			continue
		}
		if err := r.data.Client.CreateWorkerRoute(ctx, r.data.ZoneID, p, name); err != nil {
			// The listing above had no route of p to this script: one now is this create's.
			if _, made := createdWithoutAnswer(ctx, err, func(ctx context.Context) (string, bool, error) {
				return r.routeTo(ctx, p, name)
			}); made {
				diags.Append(createdAnywayWarning("Worker Route", "the route "+quote(p)+" to "+quote(name), err))
				continue
			}
			diags.Append(apiErrorDiag("Unable to Create Worker Route", "Routing "+quote(p)+" to "+quote(name), err))
			return diags
		}
	}
	return diags
}

// routeTo finds the zone's route of pattern to script and returns its ID.
func (r *edgeWorkerResource) routeTo(ctx context.Context, pattern, script string) (string, bool, error) {
	routes, err := r.data.Client.ListWorkerRoutes(ctx, r.data.ZoneID)
	if err != nil {
		return "", false, err
	}
	for _, rt := range routes {
		if rt.Pattern == pattern && rt.Script == script {
			return rt.ID, true, nil
		}
	}
	return "", false, nil
}

func (r *edgeWorkerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan edgeWorkerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := plan.Name.ValueString()
	// Two resources of one configuration naming the same script are created in parallel and
	// would both find the name free, each upload then overwriting the other's: the first to
	// get here claims it for this process.
	release, claimed := r.data.workerClaims.claim("", name)
	if !claimed {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Edge Worker Already Exists",
			"Another kamuidash_edge_worker of this configuration creates the script "+quote(name)+" too; a script has one "+
				"resource. Nothing was uploaded.")
		return
	}
	uploaded := false
	defer func() {
		if !uploaded {
			release() // nothing of it stayed: another attempt may create it
		}
	}()
	if _, found, err := r.data.Client.WorkerEtag(ctx, r.data.AccountID, name); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Edge Worker", "Looking for script "+quote(name), err))
		return
	} else if found {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Edge Worker Already Exists",
			"The account already has a script named "+quote(name)+". Nothing was uploaded. To manage it here, import it: "+
				"terraform import <address> "+name)
		return
	}
	resp.Diagnostics.Append(r.upload(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	uploaded = true
	plan.ID = plan.Name
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(r.syncRoutes(ctx, plan, nil)...)
}

func (r *edgeWorkerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state edgeWorkerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.ID.ValueString()
	etag, found, err := r.data.Client.WorkerEtag(ctx, r.data.AccountID, name)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Edge Worker", "Reading script "+quote(name), err))
		return
	}
	if !found {
		tflog.Warn(ctx, "Edge Worker is gone; removing it from state", map[string]any{"script": name})
		resp.State.RemoveResource(ctx)
		return
	}
	state.Name = types.StringValue(name)
	if !state.Etag.IsNull() && state.Etag.ValueString() != etag {
		// Someone uploaded other code: a content hash that matches no build forces a re-upload.
		state.ContentSHA256 = types.StringValue(driftedContent)
	}
	state.Etag = types.StringValue(etag)

	settings, found, err := r.data.Client.GetWorkerSettings(ctx, r.data.AccountID, name)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Edge Worker Settings", "Reading the bindings of "+quote(name), err))
		return
	}
	if found {
		boundDomain := ""
		for _, b := range settings.Bindings {
			// Secret bindings come back without text; their state values are kept.
			text, _ := b["text"].(string)
			switch b["name"] {
			case route.BindingPlatformDomain:
				boundDomain = text
			case route.BindingRoutes:
				state.RoutesNamespaceID = types.StringValue(str(b[bindingValueField(route.KVNamespaceBinding)]))
			case route.BindingDomains:
				state.DomainsNamespaceID = types.StringValue(str(b[bindingValueField(route.KVNamespaceBinding)]))
			case route.BindingStatic:
				state.StaticBucket = types.StringValue(str(b[bindingValueField(route.R2BucketBinding)]))
			// Durations are read back as Go prints them; the framework keeps the state's
			// spelling of the same duration.
			case route.BindingFreshness:
				if n, err := strconv.Atoi(text); err == nil {
					state.FreshnessBudget = timetypes.NewGoDurationValue(time.Duration(n) * time.Second)
				}
			case route.BindingUpstreamTimeout:
				if n, err := strconv.Atoi(text); err == nil {
					state.UpstreamTimeout = timetypes.NewGoDurationValue(time.Duration(n) * time.Millisecond)
				}
			case route.BindingLogSampleRate:
				if f, err := strconv.ParseFloat(text, 64); err == nil {
					state.LogSampleRate = types.Float64Value(f)
				}
			}
		}
		// The PLATFORM_DOMAIN binding is the provider's platform_domain, not an attribute: a
		// Worker bound to another domain (the setting moved) must be uploaded again.
		if pd := r.data.PlatformDomain; pd != "" && boundDomain != pd {
			state.ContentSHA256 = types.StringValue("bound to platform domain " + quote(boundDomain))
		}
	}
	if r.data.ZoneID != "" {
		routes, err := r.data.Client.ListWorkerRoutes(ctx, r.data.ZoneID)
		if err != nil {
			resp.Diagnostics.Append(apiErrorDiag("Unable to List Worker Routes", "Listing the zone's Worker routes", err))
			return
		}
		// Ours until now: the patterns state had, and those already found re-pointed.
		var ours, repointed []string
		resp.Diagnostics.Append(state.Routes.ElementsAs(ctx, &ours, false)...)
		ours = append(ours, privateRoutes(ctx, req.Private, &resp.Diagnostics)...)
		patterns := []string{}
		for _, rt := range routes {
			switch {
			case rt.Script == name:
				patterns = append(patterns, rt.Pattern)
			case slices.Contains(ours, rt.Pattern):
				repointed = append(repointed, rt.Pattern)
			}
		}
		var b []byte
		if len(repointed) > 0 {
			b, _ = json.Marshal(repointed)
		}
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, repointedRoutesKey, b)...)
		// No routes stays null when the configuration sets none.
		if len(patterns) > 0 || !state.Routes.IsNull() {
			v, d := types.SetValueFrom(ctx, types.StringType, patterns)
			resp.Diagnostics.Append(d...)
			state.Routes = v
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *edgeWorkerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state edgeWorkerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID = state.ID
	if r.uploadsNothing(plan, state) {
		plan.Etag = state.Etag
	} else {
		resp.Diagnostics.Append(r.upload(ctx, &plan)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(r.syncRoutes(ctx, plan, privateRoutes(ctx, req.Private, &resp.Diagnostics))...)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, repointedRoutesKey, nil)...)
	}
}

// privateRoutes returns the patterns Read recorded as re-pointed away from this Worker.
func privateRoutes(ctx context.Context, private privateGetter, diags *diag.Diagnostics) []string {
	b, d := private.GetKey(ctx, repointedRoutesKey)
	diags.Append(d...)
	var patterns []string
	if len(b) > 0 {
		_ = json.Unmarshal(b, &patterns) // written by Read; anything else repairs nothing
	}
	return patterns
}

func (r *edgeWorkerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state edgeWorkerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state.Routes = types.SetNull(types.StringType)
	resp.Diagnostics.Append(r.syncRoutes(ctx, state, nil)...) // routes first: nothing may point at a missing script
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.data.Client.DeleteWorker(ctx, r.data.AccountID, state.ID.ValueString()); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Delete Edge Worker", "Deleting script "+quote(state.ID.ValueString()), err))
	}
}

func (r *edgeWorkerResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

func freshnessBudget() validator.String {
	return durationCheck(
		func(d time.Duration) bool {
			if d%time.Second != 0 {
				return false
			}
			_, err := route.DeriveTTLs(d)
			return err == nil
		},
		"a duration in whole seconds between "+route.MinFreshnessBudget.String()+" and "+route.MaxFreshnessBudget.String()+
			" (the KV edge cache alone holds values for "+route.MinKVCacheTTL.String()+")",
	)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
