package guard_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The official Cloudflare and Kubernetes providers cannot run in these tests: there is no
// registry to install them from, and they need their services (the Cloudflare API, a
// Kubernetes API server) to refresh. The guard does not need them, though: it reads the actions
// the CLI computes for each resource type. So the tests register stand-in providers with the
// same provider names and resource type names, whose objects live only in Terraform state. The
// CLI plans creates, in-place updates and deletes for them exactly as it does for any provider.

// standInProvider is a provider named name that offers resources of the given types and
// data sources of the given types.
type standInProvider struct {
	name        string
	resources   []string
	dataSources []string
}

var _ provider.Provider = (*standInProvider)(nil)

func (p *standInProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = p.name
}

func (p *standInProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (p *standInProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *standInProvider) Resources(context.Context) []func() resource.Resource {
	out := make([]func() resource.Resource, len(p.resources))
	for i, typ := range p.resources {
		out[i] = func() resource.Resource { return &standInResource{typ: typ} }
	}
	return out
}

func (p *standInProvider) DataSources(context.Context) []func() datasource.DataSource {
	out := make([]func() datasource.DataSource, len(p.dataSources))
	for i, typ := range p.dataSources {
		out[i] = func() datasource.DataSource { return &standInDataSource{typ: typ} }
	}
	return out
}

// standInModel is every stand-in resource: an id, the configured content, and a revision that
// changes with the content (unknown in the plan of an update, like a real deployment id, so a
// data source reading it is deferred to apply and shows up as a read in the plan).
type standInModel struct {
	ID       types.String `tfsdk:"id"`
	Content  types.String `tfsdk:"content"`
	Revision types.String `tfsdk:"revision"`
}

type standInResource struct{ typ string }

func (r *standInResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = r.typ
}

func (r *standInResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A stand-in for " + r.typ + " whose object lives only in Terraform state.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Description:   "Derived from the content at create; stable afterwards.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"content":  schema.StringAttribute{Description: "Any text; changing it is an in-place update.", Required: true},
			"revision": schema.StringAttribute{Description: "The content's hash, known after apply.", Computed: true},
		},
	}
}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

func (r *standInResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m standInModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	m.ID = types.StringValue(r.typ + "-" + hashOf(m.Content.ValueString()))
	m.Revision = types.StringValue(hashOf(m.Content.ValueString()))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *standInResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *standInResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m standInModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	m.Revision = types.StringValue(hashOf(m.Content.ValueString()))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *standInResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// standInDataSource echoes its content; reading it changes nothing.
type standInDataSource struct{ typ string }

type standInDataModel struct {
	Content types.String `tfsdk:"content"`
}

func (d *standInDataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = d.typ
}

func (d *standInDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{
		Description: "A stand-in data source for " + d.typ + ".",
		Attributes: map[string]dschema.Attribute{
			"content": dschema.StringAttribute{Description: "Any text, echoed.", Required: true},
		},
	}
}

func (d *standInDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m standInDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
