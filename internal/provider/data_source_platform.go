package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

var _ datasource.DataSourceWithConfigure = (*platformDataSource)(nil)

// NewPlatformDataSource returns the kamuidash_platform data source: the provider's resolved
// configuration, so modules can derive hostnames and show which edge they talk to.
func NewPlatformDataSource() datasource.DataSource {
	return &platformDataSource{}
}

type platformDataSource struct {
	data *providerData
}

type platformDataSourceModel struct {
	AccountID            types.String `tfsdk:"account_id"`
	ZoneID               types.String `tfsdk:"zone_id"`
	APIBaseURL           types.String `tfsdk:"api_base_url"`
	PlatformDomain       types.String `tfsdk:"platform_domain"`
	Environment          types.String `tfsdk:"environment"`
	ProviderVersion      types.String `tfsdk:"provider_version"`
	InternalHost         types.String `tfsdk:"internal_host"`
	DefaultFreshnessSecs types.Int64  `tfsdk:"default_freshness_budget_seconds"`
}

func (d *platformDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_platform"
}

func (d *platformDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads the provider's resolved configuration (after environment-variable fallbacks), " +
			"so that modules can derive platform hostnames and operators can see which API and account a run uses. " +
			"The API token is never exposed.",
		Attributes: map[string]schema.Attribute{
			"account_id":       computed("The Cloudflare account the provider manages."),
			"zone_id":          computed("The ID of the Cloudflare zone of the platform domain (the provider's `zone_id`, or the ID its `zone_name` resolved to), or null when none is configured."),
			"api_base_url":     computed("The base URL of the API the provider talks to."),
			"platform_domain":  computed("The platform's own domain, or null when none is configured."),
			"environment":      computed("The environment name, or null when none is configured."),
			"provider_version": computed("The version of the provider binary that read this data source."),
			"internal_host": computed("The platform-managed host under which the edge keeps its internal cache keys; " +
				"it never serves public traffic. Null when no platform domain is configured."),
			"default_freshness_budget_seconds": schema.Int64Attribute{
				MarkdownDescription: "The freshness budget, in seconds, that the edge Worker uses when none is set: " +
					"the worst-case time from a routing change to every edge serving it.",
				Computed: true,
			},
		},
	}
}

func (d *platformDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (d *platformDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	state := platformDataSourceModel{
		AccountID:            types.StringValue(d.data.AccountID),
		ZoneID:               optionalString(d.data.ZoneID),
		APIBaseURL:           types.StringValue(strings.TrimSuffix(d.data.APIBaseURL, "/")),
		PlatformDomain:       optionalString(d.data.PlatformDomain),
		Environment:          optionalString(d.data.Environment),
		ProviderVersion:      types.StringValue(d.data.Version),
		InternalHost:         types.StringNull(),
		DefaultFreshnessSecs: types.Int64Value(int64(route.DefaultFreshnessBudget.Seconds())),
	}
	if d.data.PlatformDomain != "" {
		state.InternalHost = types.StringValue(route.InternalHostLabel + "." + d.data.PlatformDomain)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// optionalString maps Go's empty string to a null attribute.
func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
