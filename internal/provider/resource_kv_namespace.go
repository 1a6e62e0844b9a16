package provider

import (
	"context"
	"strings"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

var (
	_ resource.ResourceWithConfigure   = (*kvNamespaceResource)(nil)
	_ resource.ResourceWithImportState = (*kvNamespaceResource)(nil)
)

// NewKVNamespaceResource returns the kamuidash_kv_namespace resource: one Workers KV namespace.
func NewKVNamespaceResource() resource.Resource {
	return &kvNamespaceResource{}
}

type kvNamespaceResource struct {
	data *providerData
}

type kvNamespaceModel struct {
	ID    types.String `tfsdk:"id"`
	Title types.String `tfsdk:"title"`
}

func (r *kvNamespaceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kv_namespace"
}

func (r *kvNamespaceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Workers KV namespace, such as the `ROUTES` and `DOMAINS` namespaces the edge Worker reads. " +
			"Renaming a namespace is an in-place update; its data stays.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The namespace's ID, assigned by Cloudflare. Import an existing namespace by this ID or by its title.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"title": schema.StringAttribute{
				MarkdownDescription: "The namespace's title, unique within the account (for example `kamuidash-dev-routes`).",
				Required:            true,
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 512),
				},
			},
		},
	}
}

func (r *kvNamespaceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (r *kvNamespaceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan kvNamespaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	title := plan.Title.ValueString()
	alreadyExists := func(existing string, err error) {
		if existing == "" {
			existing = quote(title) // its title imports it as well
		}
		detail := "A KV namespace titled " + quote(title) + " already exists in this account. " +
			"To manage it with Terraform, import it: terraform import <address> " + existing + ". Nothing was changed."
		if err != nil {
			detail += "\n\nError: " + err.Error()
		}
		resp.Diagnostics.AddAttributeError(path.Root("title"), "KV Namespace Already Exists", detail)
	}
	// Looked up first, so that a namespace found after a create whose answer was lost is known
	// to be that create's (createdWithoutAnswer).
	if existing, found, err := r.data.Client.FindKVNamespace(ctx, r.data.AccountID, title); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Look Up KV Namespace", "Looking for a KV namespace titled "+quote(title), err))
		return
	} else if found {
		alreadyExists(existing, nil)
		return
	}
	ns, err := r.data.Client.KV.Namespaces.New(ctx, kv.NamespaceNewParams{
		AccountID: cf.F(r.data.AccountID),
		Title:     cf.F(title),
	})
	var id string
	switch {
	case err == nil:
		id = ns.ID
	case isConflict(err) || strings.Contains(err.Error(), "already exists"):
		alreadyExists("", err) // created meanwhile, outside this apply
		return
	default:
		var made bool
		id, made = createdWithoutAnswer(ctx, err, func(ctx context.Context) (string, bool, error) {
			return r.data.Client.FindKVNamespace(ctx, r.data.AccountID, title)
		})
		if !made {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Create KV Namespace", "Creating KV namespace "+quote(title), err))
			return
		}
		resp.Diagnostics.Append(createdAnywayWarning("KV Namespace", "KV namespace "+quote(title), err))
	}
	tflog.Info(ctx, "Created KV namespace", map[string]any{"id": id, "title": title})
	plan.ID = types.StringValue(id)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *kvNamespaceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state kvNamespaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, err := r.data.Client.KV.Namespaces.Get(ctx, state.ID.ValueString(), kv.NamespaceGetParams{
		AccountID: cf.F(r.data.AccountID),
	})
	if isNotFound(err) {
		tflog.Warn(ctx, "KV namespace is gone; removing it from state", map[string]any{"id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read KV Namespace", "Reading KV namespace "+state.ID.ValueString(), err))
		return
	}
	state.Title = types.StringValue(ns.Title)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *kvNamespaceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state kvNamespaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, err := r.data.Client.KV.Namespaces.Update(ctx, state.ID.ValueString(), kv.NamespaceUpdateParams{
		AccountID: cf.F(r.data.AccountID),
		Title:     cf.F(plan.Title.ValueString()),
	})
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Rename KV Namespace", "Renaming KV namespace "+state.ID.ValueString(), err))
		return
	}
	plan.ID = state.ID
	if ns != nil && ns.Title != "" {
		plan.Title = types.StringValue(ns.Title)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *kvNamespaceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state kvNamespaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	_, err := r.data.Client.KV.Namespaces.Delete(ctx, state.ID.ValueString(), kv.NamespaceDeleteParams{
		AccountID: cf.F(r.data.AccountID),
	})
	if err != nil && !isNotFound(err) {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Delete KV Namespace", "Deleting KV namespace "+state.ID.ValueString(), err))
	}
}

// ImportState takes a namespace's ID or its title (what the configuration holds).
func (r *kvNamespaceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	find := func(ctx context.Context, title string) (string, bool, error) {
		return r.data.Client.FindKVNamespace(ctx, r.data.AccountID, title)
	}
	importIDOrName(ctx, req, resp, isHexID, find, importedByName{what: "KV namespace", title: "KV Namespace", name: "title",
		named: "titled", where: "the dashboard and wrangler kv namespace list"})
}
