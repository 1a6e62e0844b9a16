package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

var _ datasource.DataSourceWithConfigure = (*routeRecordsDataSource)(nil)

// NewRouteRecordsDataSource returns the kamuidash_route_records data source: every record of a
// ROUTES namespace, from one key listing (revisions and owners come from KV metadata, so no value
// is read).
func NewRouteRecordsDataSource() datasource.DataSource {
	return &routeRecordsDataSource{}
}

type routeRecordsDataSource struct {
	data *providerData
}

type routeRecordsModel struct {
	RoutesNamespaceID types.String          `tfsdk:"routes_namespace_id"`
	Records           []routeRecordListItem `tfsdk:"records"`
}

type routeRecordListItem struct {
	App           types.String `tfsdk:"app"`
	Rev           types.String `tfsdk:"rev"`
	Owner         types.String `tfsdk:"owner"`
	SchemaVersion types.Int64  `tfsdk:"schema_version"`
}

func (d *routeRecordsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_route_records"
}

func (d *routeRecordsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists every route record of a `ROUTES` namespace with its revision and owner, from a key listing " +
			"(KV metadata), without reading the values. Useful to compare environments or find records to import.",
		Attributes: map[string]schema.Attribute{
			"routes_namespace_id": schema.StringAttribute{
				MarkdownDescription: "The ID of the `ROUTES` KV namespace.",
				Required:            true,
				Validators:          []validator.String{hexID()},
			},
			"records": schema.ListNestedAttribute{
				MarkdownDescription: "The records, sorted by app name.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"app":            schema.StringAttribute{MarkdownDescription: "The app name (the KV key).", Computed: true},
						"rev":            schema.StringAttribute{MarkdownDescription: "The record's content hash, from its metadata; null when the writer left none.", Computed: true},
						"owner":          schema.StringAttribute{MarkdownDescription: "The resource type that wrote the record; null when unknown.", Computed: true},
						"schema_version": schema.Int64Attribute{MarkdownDescription: "The record's schema version, from its metadata; null when unknown.", Computed: true},
					},
				},
			},
		},
	}
}

func (d *routeRecordsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (d *routeRecordsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var state routeRecordsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	keys, err := d.data.Client.KVListKeys(ctx, d.data.AccountID, state.RoutesNamespaceID.ValueString())
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to List Route Records", "Listing the keys of namespace "+state.RoutesNamespaceID.ValueString(), err))
		return
	}
	state.Records = make([]routeRecordListItem, 0, len(keys))
	for _, k := range keys { // the API lists keys in lexicographic order
		if route.IsFilterKey(k.Name) {
			continue // the namespace's name filter or its companion, not a record
		}
		item := routeRecordListItem{App: types.StringValue(k.Name), Rev: types.StringNull(), Owner: types.StringNull(), SchemaVersion: types.Int64Null()}
		if meta, ok := route.DecodeMetadata(k.Metadata); ok {
			item.Rev = optionalString(meta.Rev)
			item.Owner = optionalString(meta.Owner)
			if meta.V != 0 {
				item.SchemaVersion = types.Int64Value(int64(meta.V))
			}
		}
		state.Records = append(state.Records, item)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
