// Package provider is the KamuiDash Terraform provider: its configuration and one file pair per
// resource and data source type.
package provider

import (
	"context"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/providervalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/bundle"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

var _ provider.ProviderWithConfigValidators = (*kamuidashProvider)(nil)

// Environment variables the provider falls back to when an attribute is not set.
const (
	EnvAPIToken       = "CLOUDFLARE_API_TOKEN"
	EnvAccountID      = "KAMUIDASH_ACCOUNT_ID"
	EnvZoneID         = "KAMUIDASH_ZONE_ID"
	EnvZoneName       = "KAMUIDASH_ZONE_NAME"
	EnvAPIBaseURL     = "KAMUIDASH_API_BASE_URL"
	EnvPlatformDomain = "KAMUIDASH_PLATFORM_DOMAIN"
	EnvEnvironment    = "KAMUIDASH_ENVIRONMENT"
	EnvEdgeURL        = "KAMUIDASH_EDGE_URL"
	EnvProbeKey       = "KAMUIDASH_PROBE_KEY"
	// EnvTenantNamespacePrefix is tenant_namespace_prefix's fallback: the router's --namespace-prefix.
	EnvTenantNamespacePrefix = "KAMUIDASH_TENANT_NAMESPACE_PREFIX"
	// EnvVerifyPropagation is verify_propagation's fallback: true or false.
	EnvVerifyPropagation = "KAMUIDASH_VERIFY_PROPAGATION"
	// EnvPropagationWait is propagation_wait's fallback: a duration.
	EnvPropagationWait = "KAMUIDASH_PROPAGATION_WAIT"

	// R2's S3-compatible API: the key pair and the account's endpoint. With them, static-site
	// objects travel over S3 and spend none of the REST rate limit.
	EnvR2S3Endpoint      = "KAMUIDASH_R2_S3_ENDPOINT"
	EnvR2AccessKeyID     = "KAMUIDASH_R2_ACCESS_KEY_ID"
	EnvR2SecretAccessKey = "KAMUIDASH_R2_SECRET_ACCESS_KEY"

	// EnvAPIRequestsPerFiveMinutes paces the provider's API calls for an account whose limit
	// is not Cloudflare's default of 1,200 per five minutes (and for benchmarks).
	EnvAPIRequestsPerFiveMinutes = "KAMUIDASH_API_REQUESTS_PER_FIVE_MINUTES"
)

// providerSettings are the provider block's attributes with their environment fallbacks, in
// the order Configure reports them. Tests clear exactly these variables.
var providerSettings = []struct {
	attr, env string
	required  bool
}{
	{"api_token", EnvAPIToken, true},
	{"account_id", EnvAccountID, true},
	{"zone_id", EnvZoneID, false},
	{"zone_name", EnvZoneName, false},
	{"api_base_url", EnvAPIBaseURL, false},
	{"platform_domain", EnvPlatformDomain, false},
	{"environment", EnvEnvironment, false},
	{"edge_url", EnvEdgeURL, false},
	{"probe_key", EnvProbeKey, false},
	{"tenant_namespace_prefix", EnvTenantNamespacePrefix, false},
	{"propagation_wait", EnvPropagationWait, false},
	{"r2_s3_endpoint", EnvR2S3Endpoint, false},
	{"r2_access_key_id", EnvR2AccessKeyID, false},
	{"r2_secret_access_key", EnvR2SecretAccessKey, false},
}

// New returns the provider factory for the given release version ("dev" for local builds).
// sources holds the bundled Worker and router sources (worker-src/ and internal/route/ at their
// repository paths): the binary's embedded copy, or a checkout in tests.
func New(version string, sources fs.FS) func() provider.Provider {
	// One builder per process: its artifact cache and toolchain identity are shared by every
	// resource and every provider instance.
	bundles := &bundle.Builder{Sources: sources}
	return func() provider.Provider {
		return &kamuidashProvider{version: version, bundles: bundles}
	}
}

type kamuidashProvider struct {
	version string
	bundles *bundle.Builder
}

// providerEnvironment is every environment variable Configure reads: the settings' fallbacks
// and the tuning knobs.
func providerEnvironment() []string {
	envs := []string{EnvAPIEconomy, EnvAPIRequestsPerFiveMinutes, EnvVerifyPropagation}
	for _, s := range providerSettings {
		envs = append(envs, s.env)
	}
	return envs
}

// providerModel is the provider block.
type providerModel struct {
	APIToken       types.String `tfsdk:"api_token"`
	AccountID      types.String `tfsdk:"account_id"`
	ZoneID         types.String `tfsdk:"zone_id"`
	ZoneName       types.String `tfsdk:"zone_name"`
	APIBaseURL     types.String `tfsdk:"api_base_url"`
	PlatformDomain types.String `tfsdk:"platform_domain"`
	Environment    types.String `tfsdk:"environment"`
	EdgeURL        types.String `tfsdk:"edge_url"`
	ProbeKey       types.String `tfsdk:"probe_key"`
	// TenantNamespacePrefix is the router's allowed namespace prefix (tenantnamespace.go).
	TenantNamespacePrefix types.String `tfsdk:"tenant_namespace_prefix"`
	// VerifyPropagation is a bool, so it is resolved apart from the string settings.
	VerifyPropagation types.Bool       `tfsdk:"verify_propagation"`
	PropagationWait   types.String     `tfsdk:"propagation_wait"`
	R2S3Endpoint      types.String     `tfsdk:"r2_s3_endpoint"`
	R2AccessKeyID     types.String     `tfsdk:"r2_access_key_id"`
	R2SecretKey       types.String     `tfsdk:"r2_secret_access_key"`
	Kubernetes        *kubernetesModel `tfsdk:"kubernetes"`
}

// values maps each attribute of providerSettings to its value in the block.
func (m providerModel) values() map[string]types.String {
	return map[string]types.String{
		"api_token": m.APIToken, "account_id": m.AccountID, "zone_id": m.ZoneID, "zone_name": m.ZoneName, "api_base_url": m.APIBaseURL,
		"platform_domain": m.PlatformDomain, "environment": m.Environment, "edge_url": m.EdgeURL, "probe_key": m.ProbeKey,
		"tenant_namespace_prefix": m.TenantNamespacePrefix, "propagation_wait": m.PropagationWait, "r2_s3_endpoint": m.R2S3Endpoint, "r2_access_key_id": m.R2AccessKeyID,
		"r2_secret_access_key": m.R2SecretKey,
	}
}

// providerData is what Configure hands to every resource and data source: the resolved
// settings and the one shared API client.
type providerData struct {
	Client         *cloudflare.Client
	AccountID      string
	ZoneID         string // zone_id, or the ID zone_name resolved to; "" when neither is set
	APIBaseURL     string
	PlatformDomain string
	Environment    string
	// EdgeURL is where propagation probes go ("" means https://<host>).
	EdgeURL string
	// ProbeKey signs propagation probes (nil: verify_propagation cannot be used).
	ProbeKey []byte
	// TenantNamespacePrefix is the prefix the router requires of every upstream namespace
	// ("": not checked at plan; tenantnamespace.go).
	TenantNamespacePrefix string
	// VerifyPropagation makes every write of a route record or domain mapping wait until the
	// edge serves it (propagation.go), for up to PropagationWait.
	VerifyPropagation bool
	PropagationWait   time.Duration
	// Economy makes resources share listings and bulk calls (see kvaccess.go); off only with
	// KAMUIDASH_API_ECONOMY=off.
	Economy bool
	Version string
	// Bundles builds the embedded Worker and router sources.
	Bundles *bundle.Builder
	// Kube is the router cluster's client, for the cluster-side resources.
	Kube *kubeConnection
	// siteClaims are the static sites this process has started to create (resource_static_site.go).
	siteClaims siteClaims
	// workerClaims are the edge Worker scripts this process has started to create, keyed by
	// ("", script name) (resource_edge_worker.go).
	workerClaims siteClaims
}

// ConfigValidators refuses, at validation, a provider block that names the zone both ways.
// Configure checks the environment variables the same way, since validation does not see them.
func (p *kamuidashProvider) ConfigValidators(context.Context) []provider.ConfigValidator {
	return []provider.ConfigValidator{
		providervalidator.Conflicting(path.MatchRoot("zone_id"), path.MatchRoot("zone_name")),
	}
}

func (p *kamuidashProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "kamuidash"
	resp.Version = p.version
}

func (p *kamuidashProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The KamuiDash provider builds and operates the edge of the KamuiDash platform: " +
			"the gateway Worker, the routing data in Workers KV, custom hostnames, the tunnel and the router's " +
			"network policy. Point `api_base_url` at a local edge to run everything without a Cloudflare account.",
		Attributes: map[string]schema.Attribute{
			"api_token": schema.StringAttribute{
				MarkdownDescription: "The Cloudflare API token the provider authenticates with. " +
					"It may also be set with the `" + EnvAPIToken + "` environment variable, which keeps it out of configuration files.",
				Optional:  true,
				Sensitive: true,
			},
			"account_id": schema.StringAttribute{
				MarkdownDescription: "The Cloudflare account that owns the Worker, the KV namespaces and the tunnel. " +
					"It may also be set with the `" + EnvAccountID + "` environment variable.",
				Optional:   true,
				Validators: []validator.String{hexID()},
			},
			"zone_id": schema.StringAttribute{
				MarkdownDescription: "The ID of the Cloudflare zone of the platform domain, which holds the Worker routes, the custom " +
					"hostnames and the DNS records. Set it or `zone_name`, not both; resources that work on the zone need one of " +
					"them. It may also be set with the `" + EnvZoneID + "` environment variable.",
				Optional:   true,
				Validators: []validator.String{hexID()},
			},
			"zone_name": schema.StringAttribute{
				MarkdownDescription: "The name of that zone (for example `kamui.app`), instead of `zone_id`: the provider looks its ID " +
					"up once, when it is configured, among the account's (`account_id`) active zones, and fails when no active zone " +
					"of that name is there, or more than one is (then set `zone_id`). Case and a trailing dot do not matter. It may " +
					"also be set with the `" + EnvZoneName + "` environment variable. Either attribute in the provider block takes " +
					"precedence over both environment variables, so a `zone_name` here wins over a `" + EnvZoneID + "` a local " +
					"edge's env file exports.",
				Optional:   true,
				Validators: []validator.String{zoneName()},
			},
			"api_base_url": schema.StringAttribute{
				MarkdownDescription: "The base URL of the Cloudflare API, ending in `/client/v4`. It defaults to Cloudflare's own " +
					"API; set it to a local edge's URL to work on one machine. It may also be set with the `" + EnvAPIBaseURL +
					"` environment variable.",
				Optional: true,
			},
			"platform_domain": schema.StringAttribute{
				MarkdownDescription: "The platform's own domain (for example `kamui.app`): every app is served at " +
					"`<app>.<platform_domain>`. It may also be set with the `" + EnvPlatformDomain + "` environment variable.",
				Optional:   true,
				Validators: []validator.String{hostname()},
			},
			"environment": schema.StringAttribute{
				MarkdownDescription: "The name of the environment this configuration manages (for example `dev` or `prod`), " +
					"a DNS label. It may also be set with the `" + EnvEnvironment + "` environment variable.",
				Optional:   true,
				Validators: []validator.String{dnsLabel()},
			},
			"edge_url": schema.StringAttribute{
				MarkdownDescription: "Where `verify_propagation` sends its probes and the request that proves a new route, " +
					"with the public host in the `Host` header: a local edge's edge URL, for example. By default each host is " +
					"requested directly (`https://<host>`). It may also be set with the `" + EnvEdgeURL + "` environment variable, " +
					"which the local edge's env file exports.",
				Optional:   true,
				Validators: []validator.String{stringCheck{rule: "an http or https URL without a path or credentials", ok: isEdgeURL, hide: hasUserInfo}},
			},
			"probe_key": schema.StringAttribute{
				MarkdownDescription: "The key that signs `verify_propagation`'s probes: 64 hexadecimal characters derived from the " +
					"edge Worker's signing secret (`terraform-provider-kamuidash probe-key < signing-secret-file` prints it). The " +
					"Worker answers only probes signed with it; holding it signs no request. Needed only with " +
					"`verify_propagation`; after rotating the signing secret, set the key of the new one. It may also be set with " +
					"the `" + EnvProbeKey + "` environment variable, which a local edge's env file exports.",
				Optional:  true,
				Sensitive: true,
			},
			"tenant_namespace_prefix": schema.StringAttribute{
				MarkdownDescription: "The prefix the router requires of every upstream namespace: the router's `--namespace-prefix` " +
					"(modules/cluster-ingress `router.tenant_namespace_prefix`, `tenant-` by default). When it is set, a plan that points " +
					"an app (`kamuidash_tenant_app`, or a dynamic `kamuidash_route_record`) at a namespace outside it fails, instead of " +
					"the router refusing every request for that app with 403 after apply; an app already applied that way gets a " +
					"warning. Unset, nothing is checked. It may also be set with the `" + EnvTenantNamespacePrefix + "` environment " +
					"variable, which a local edge's env file exports.",
				Optional:   true,
				Validators: []validator.String{namespacePrefix()},
			},
			"verify_propagation": schema.BoolAttribute{
				MarkdownDescription: "Wait after every write of a route record (`kamuidash_tenant_app`, `kamuidash_route_record`) or " +
					"a domain mapping (`kamuidash_custom_domain`) until the edge serves it for its host (asked with a probe the " +
					"Worker answers after resolving the host as a real request would, signed with `probe_key`; a mapping counts " +
					"only once the app it names has a route record there too, as visitors get 404 before), then send one " +
					"real request through the new route. Probes go to `edge_url`, or to `https://<host>`. Waits up to " +
					"`propagation_wait` per write. Defaults to `false`: apply returns once the data is written, and the edge picks it up within the " +
					"Worker's freshness budget. It is a provider setting because it changes how the provider waits, not what it " +
					"manages: a plan never differs because of it, after an import included. It may also be set with the `" +
					EnvVerifyPropagation + "` environment variable (`true` or `false`).",
				Optional: true,
			},
			"propagation_wait": schema.StringAttribute{
				MarkdownDescription: "How long `verify_propagation` waits for the edge to serve each write, a duration between " +
					propagationWaitRule + ". Defaults to `" + defaultPropagationWait.String() + "`. A changed route can take up to the " +
					"edge Worker's `freshness_budget` to reach every edge, so a budget longer than the wait needs a longer wait. It " +
					"may also be set with the `" + EnvPropagationWait + "` environment variable.",
				Optional:   true,
				Validators: []validator.String{stringCheck{rule: "a duration between " + propagationWaitRule, ok: isPropagationWait}},
			},
			"r2_s3_endpoint": schema.StringAttribute{
				MarkdownDescription: "The account's R2 S3-compatible endpoint (an https URL; a local edge's is http). With it and an R2 " +
					"access key pair, `kamuidash_static_site` uploads, lists and deletes its objects through R2's S3 API, which does not " +
					"count against the account's API rate limit; without them, through the REST API. It may also be set with the `" +
					EnvR2S3Endpoint + "` environment variable, which a local edge's env file exports.",
				Optional: true,
			},
			"r2_access_key_id": schema.StringAttribute{
				MarkdownDescription: "The access key ID of an R2 API token with object read and write on the static bucket. Set with " +
					"`r2_s3_endpoint` and `r2_secret_access_key`, or the `" + EnvR2AccessKeyID + "` environment variable.",
				Optional: true,
			},
			"r2_secret_access_key": schema.StringAttribute{
				MarkdownDescription: "The secret of that R2 access key. It may also be set with the `" + EnvR2SecretAccessKey +
					"` environment variable, which keeps it out of configuration files.",
				Optional:  true,
				Sensitive: true,
			},
		},
		Blocks: map[string]schema.Block{"kubernetes": kubernetesBlock()},
	}
}

// setting is one provider attribute with its environment fallback.
type setting struct {
	attr     string
	env      string
	value    types.String
	required bool
	resolved string
}

func (p *kamuidashProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var config providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}

	values := config.values()
	settings := make([]*setting, len(providerSettings))
	for i, ps := range providerSettings {
		settings[i] = &setting{attr: ps.attr, env: ps.env, value: values[ps.attr], required: ps.required}
	}

	// 1. Unknown values: the provider cannot be configured from a value known only after apply.
	for _, s := range settings {
		if s.value.IsUnknown() {
			resp.Diagnostics.Append(unknownSettingDiag(path.Root(s.attr), s.env))
		}
	}
	if config.VerifyPropagation.IsUnknown() {
		resp.Diagnostics.Append(unknownSettingDiag(path.Root("verify_propagation"), EnvVerifyPropagation))
	}
	if resp.Diagnostics.HasError() {
		return
	}

	// 2. Environment fallback, 3. missing checks (every missing one reported at once).
	resolved := map[string]string{}
	for _, s := range settings {
		s.resolved = s.value.ValueString()
		if s.value.IsNull() {
			s.resolved = os.Getenv(s.env)
		}
		if s.required && s.resolved == "" {
			resp.Diagnostics.Append(missingSettingDiag(path.Root(s.attr), s.env))
		}
		resolved[s.attr] = s.resolved
	}
	token, accountID, baseURL, platformDomain, environment := resolved["api_token"], resolved["account_id"],
		resolved["api_base_url"], resolved["platform_domain"], resolved["environment"]
	zoneID, zoneName, zoneDiags := zoneSetting(config)
	resp.Diagnostics.Append(zoneDiags...)

	// Values from the environment skip the schema validators, so check them here too.
	if baseURL == "" {
		baseURL = cloudflare.DefaultBaseURL
	} else if err := cloudflare.ValidateBaseURL(baseURL); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("api_base_url"), "Invalid API Base URL",
			// The value is not echoed: a mistyped URL may carry credentials.
			"The API base URL is not usable: "+err.Error()+". Set api_base_url or "+EnvAPIBaseURL+" to the API's URL ending in /client/v4.")
	}
	var probeKey []byte
	if v := resolved["probe_key"]; v != "" {
		var err error
		if probeKey, err = route.DecodeProbeKey(v); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("probe_key"), "Invalid Probe Key",
				// Not echoed: it is a secret.
				"The probe_key value (from the provider block or "+EnvProbeKey+") is not usable: "+err.Error()+
					". Derive it from the edge Worker's signing secret with `terraform-provider-kamuidash probe-key < signing-secret-file`.")
		}
	}
	for _, check := range []struct {
		attr, env, value string
		ok               func(string) bool
		rule             string
	}{
		{"account_id", EnvAccountID, accountID, isHexID, "a 32-character hexadecimal Cloudflare ID"},
		{"zone_id", EnvZoneID, zoneID, isHexID, "a 32-character hexadecimal Cloudflare ID"},
		{"platform_domain", EnvPlatformDomain, platformDomain, isNormalHostname, "a lower-case DNS name such as kamui.app"},
		{"environment", EnvEnvironment, environment, isDNSLabel, "a DNS label such as dev or prod"},
		{"tenant_namespace_prefix", EnvTenantNamespacePrefix, resolved["tenant_namespace_prefix"], isNamespacePrefix, namespacePrefixRule},
		{"propagation_wait", EnvPropagationWait, resolved["propagation_wait"], isPropagationWait, "a duration between " + propagationWaitRule},
	} {
		if check.value != "" && !check.ok(check.value) {
			resp.Diagnostics.AddAttributeError(path.Root(check.attr), "Invalid Provider Setting",
				"The "+check.attr+" value "+quote(check.value)+" (from the provider block or "+check.env+") is not "+check.rule+".")
		}
	}
	edgeURL := strings.TrimSuffix(resolved["edge_url"], "/")
	if edgeURL != "" && !isEdgeURL(edgeURL) {
		resp.Diagnostics.AddAttributeError(path.Root("edge_url"), "Invalid Provider Setting",
			"The edge_url value (from the provider block or "+EnvEdgeURL+") must be an http or https URL without a path, "+
				"such as http://127.0.0.1:8788 for a local edge.")
	}
	verify := config.VerifyPropagation.ValueBool()
	if v := os.Getenv(EnvVerifyPropagation); config.VerifyPropagation.IsNull() && v != "" {
		var err error
		if verify, err = strconv.ParseBool(v); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("verify_propagation"), "Invalid Provider Setting",
				EnvVerifyPropagation+" is "+quote(v)+"; set it to true or false, or leave it unset.")
		}
	}
	r2S3, r2Diags := r2S3Settings(resolved)
	resp.Diagnostics.Append(r2Diags...)
	if resp.Diagnostics.HasError() {
		return
	}

	// Tuning knobs, from the environment only: they are about the account and the run, not the
	// configuration.
	economy := true
	switch v := os.Getenv(EnvAPIEconomy); v {
	case "", "on":
	case "off":
		economy = false
	default:
		resp.Diagnostics.AddError("Invalid "+EnvAPIEconomy, EnvAPIEconomy+" is "+quote(v)+"; set it to off (one call per resource) or leave it unset.")
	}
	perFiveMinutes := 0
	if v := os.Getenv(EnvAPIRequestsPerFiveMinutes); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			resp.Diagnostics.AddError("Invalid "+EnvAPIRequestsPerFiveMinutes, EnvAPIRequestsPerFiveMinutes+" is "+quote(v)+
				"; set it to the account's API requests per five minutes (Cloudflare's default is "+
				strconv.Itoa(cloudflare.DefaultRequestsPerFiveMinutes)+"), or leave it unset.")
		}
		perFiveMinutes = n
	}
	if resp.Diagnostics.HasError() {
		return
	}

	// 4. Build the client once; every resource shares it and its rate limit. A zone given by
	// name is looked up with it, once, before any resource asks for the zone.
	client, err := cloudflare.New(cloudflare.Config{
		APIToken:               token,
		BaseURL:                baseURL,
		UserAgent:              "terraform-provider-kamuidash/" + p.version + " (terraform " + req.TerraformVersion + ")",
		RequestsPerFiveMinutes: perFiveMinutes,
		R2S3:                   r2S3,
	})
	if err != nil {
		resp.Diagnostics.AddError("Unable to Create Cloudflare API Client",
			"The provider could not set up its API client. Check the provider settings. Error: "+err.Error())
		return
	}
	ctx = tflog.SetField(ctx, "api_base_url", cloudflare.RedactedURL(baseURL))
	if zoneName != "" {
		var diags diag.Diagnostics
		zoneID, diags = lookupZone(ctx, client, accountID, zoneName)
		if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
			return
		}
	}
	tflog.Debug(ctx, "Configured KamuiDash provider", map[string]any{"account_id": accountID, "zone_id": zoneID, "environment": environment})
	if !economy {
		client.NameFilters = cloudflare.NewNameFilters(client, false)
	}

	data := &providerData{
		Client:                client,
		AccountID:             accountID,
		ZoneID:                zoneID,
		APIBaseURL:            baseURL,
		PlatformDomain:        platformDomain,
		Environment:           environment,
		EdgeURL:               edgeURL,
		ProbeKey:              probeKey,
		TenantNamespacePrefix: resolved["tenant_namespace_prefix"],
		VerifyPropagation:     verify,
		PropagationWait:       parsePropagationWait(resolved["propagation_wait"]),
		Economy:               economy,
		Version:               p.version,
		Bundles:               p.bundles,
		Kube:                  newKubeConnection(config.Kubernetes),
	}
	resp.DataSourceData = data
	resp.ResourceData = data
}

func (p *kamuidashProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewKVNamespaceResource,
		NewTenantAppResource,
		NewRouteRecordResource,
		NewCustomDomainResource,
		NewTunnelResource,
		NewEdgeWorkerResource,
		NewStaticSiteResource,
		NewRouterNetworkPolicyResource,
		NewRouterImageResource,
		NewFallbackOriginResource,
	}
}

func (p *kamuidashProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewPlatformDataSource,
		NewRouteRecordsDataSource,
		NewCustomDomainDataSource,
	}
}

// quote returns s in double quotes, shortened so that a diagnostic stays readable.
func quote(s string) string {
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return `"` + s + `"`
}

func hexID() validator.String {
	return stringvalidator.RegexMatches(hexIDPattern, "must be a 32-character hexadecimal Cloudflare ID")
}

// configuredData extracts what Configure produced for a resource or data source. It returns nil
// before the provider is configured (validation runs first), which the framework allows.
func configuredData(raw any, diags *diag.Diagnostics) *providerData {
	if raw == nil {
		return nil
	}
	data, ok := raw.(*providerData)
	if !ok {
		diags.Append(unexpectedProviderDataDiag())
	}
	return data
}

// r2S3Settings checks the R2 S3 settings: all three or none (objects then go through the REST
// API). Values are not echoed: the key pair is a credential, and an endpoint may carry one.
func r2S3Settings(resolved map[string]string) (*cloudflare.R2S3Config, diag.Diagnostics) {
	var diags diag.Diagnostics
	endpoint, keyID, secret := resolved["r2_s3_endpoint"], resolved["r2_access_key_id"], resolved["r2_secret_access_key"]
	if endpoint == "" && keyID == "" && secret == "" {
		return nil, diags
	}
	for _, s := range []struct{ attr, env, value string }{
		{"r2_s3_endpoint", EnvR2S3Endpoint, endpoint},
		{"r2_access_key_id", EnvR2AccessKeyID, keyID},
		{"r2_secret_access_key", EnvR2SecretAccessKey, secret},
	} {
		if s.value == "" {
			diags.AddAttributeError(path.Root(s.attr), "Incomplete R2 S3 Settings",
				"r2_s3_endpoint, r2_access_key_id and r2_secret_access_key go together, and "+s.attr+" (or "+s.env+") is not set. "+
					"Set all three to send static-site objects through R2's S3 API, or none to use the REST API.")
		}
	}
	if u, err := url.Parse(endpoint); endpoint != "" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "") {
		diags.AddAttributeError(path.Root("r2_s3_endpoint"), "Invalid Provider Setting",
			"The r2_s3_endpoint value (from the provider block or "+EnvR2S3Endpoint+") must be an http or https URL without "+
				"credentials or a query: the account's R2 S3 endpoint, or a local edge's KAMUIDASH_R2_S3_ENDPOINT.")
	}
	if diags.HasError() {
		return nil, diags
	}
	return &cloudflare.R2S3Config{Endpoint: endpoint, AccessKeyID: keyID, SecretAccessKey: secret}, diags
}
