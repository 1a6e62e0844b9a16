package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

var _ datasource.DataSourceWithConfigure = (*customDomainDataSource)(nil)

// NewCustomDomainDataSource returns the kamuidash_custom_domain data source: a custom hostname's
// status, its TXT records and, given the DOMAINS namespace, the app it maps to.
func NewCustomDomainDataSource() datasource.DataSource {
	return &customDomainDataSource{}
}

type customDomainDataSource struct {
	data *providerData
}

type customDomainDataModel struct {
	Hostname              types.String `tfsdk:"hostname"`
	DomainsNamespaceID    types.String `tfsdk:"domains_namespace_id"`
	CustomHostnameID      types.String `tfsdk:"custom_hostname_id"`
	HostnameStatus        types.String `tfsdk:"hostname_status"`
	SSLStatus             types.String `tfsdk:"ssl_status"`
	OwnershipVerification types.Object `tfsdk:"ownership_verification"`
	SSLValidation         types.Object `tfsdk:"ssl_validation"`
	App                   types.String `tfsdk:"app"`
	Status                types.String `tfsdk:"status"`
}

func (d *customDomainDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_custom_domain"
}

func (d *customDomainDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	txt := func(desc string) schema.SingleNestedAttribute {
		return schema.SingleNestedAttribute{
			MarkdownDescription: desc,
			Computed:            true,
			Attributes: map[string]schema.Attribute{
				"name":  schema.StringAttribute{MarkdownDescription: "The TXT record's name.", Computed: true},
				"value": schema.StringAttribute{MarkdownDescription: "The TXT record's value.", Computed: true},
			},
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads a custom hostname by exact name: its status, the TXT records the tenant publishes and, " +
			"when `domains_namespace_id` is given, the app its `DOMAINS` mapping routes it to.",
		Attributes: map[string]schema.Attribute{
			"hostname": schema.StringAttribute{
				MarkdownDescription: "The custom hostname to read.",
				Required:            true,
				Validators:          []validator.String{hostname()},
			},
			"domains_namespace_id": schema.StringAttribute{
				MarkdownDescription: "The `DOMAINS` KV namespace to read the mapping from; without it `app` and `status` are null.",
				Optional:            true,
				Validators:          []validator.String{hexID()},
			},
			"custom_hostname_id":     schema.StringAttribute{MarkdownDescription: "The custom hostname's ID.", Computed: true},
			"hostname_status":        schema.StringAttribute{MarkdownDescription: "The custom hostname's status.", Computed: true},
			"ssl_status":             schema.StringAttribute{MarkdownDescription: "The certificate's status.", Computed: true},
			"ownership_verification": txt("The TXT record that proves ownership."),
			"ssl_validation":         txt("The TXT record that validates the certificate."),
			"app":                    schema.StringAttribute{MarkdownDescription: "The app the mapping routes the hostname to; null without a mapping.", Computed: true},
			"status":                 schema.StringAttribute{MarkdownDescription: "The mapping's status; null without a mapping.", Computed: true},
		},
	}
}

func (d *customDomainDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (d *customDomainDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var state customDomainDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if d.data.ZoneID == "" {
		resp.Diagnostics.Append(missingZoneDiag(path.Root("zone_id")))
		return
	}
	host := state.Hostname.ValueString()
	h, found, err := d.data.Client.FindCustomHostname(ctx, d.data.ZoneID, host)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Look Up Custom Hostname", "Looking up "+quote(host), err))
		return
	}
	if !found {
		resp.Diagnostics.AddAttributeError(path.Root("hostname"), "Custom Hostname Not Found",
			"The zone has no custom hostname "+quote(host)+". Create it with a kamuidash_custom_domain resource.")
		return
	}
	var full customDomainModel
	full.setHostname(h)
	state.CustomHostnameID, state.HostnameStatus, state.SSLStatus = full.CustomHostnameID, full.HostnameStatus, full.SSLStatus
	state.OwnershipVerification, state.SSLValidation = full.OwnershipVerification, full.SSLValidation
	state.App, state.Status = types.StringNull(), types.StringNull()
	if ns := state.DomainsNamespaceID.ValueString(); ns != "" {
		store := kvStore[route.DomainMapping]{data: d.data, codec: mappingCodec}
		doc, found, diags := store.get(ctx, ns, host)
		if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
			return
		}
		if found && doc.Valid {
			state.App = types.StringValue(doc.Doc.App)
			state.Status = types.StringValue(string(doc.Doc.Status))
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
