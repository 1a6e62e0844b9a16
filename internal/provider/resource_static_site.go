package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/staticsite"
)

var (
	_ resource.ResourceWithConfigure   = (*staticSiteResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*staticSiteResource)(nil)
	_ resource.ResourceWithImportState = (*staticSiteResource)(nil)
)

// NewStaticSiteResource returns the kamuidash_static_site resource: a directory of static
// files uploaded to R2 under a content-addressed prefix, for a static route record to serve.
func NewStaticSiteResource() resource.Resource {
	return &staticSiteResource{}
}

type staticSiteResource struct {
	data *providerData
}

type staticSiteModel struct {
	ID        types.String `tfsdk:"id"`
	Name      types.String `tfsdk:"name"`
	Bucket    types.String `tfsdk:"bucket"`
	SourceDir types.String `tfsdk:"source_dir"`
	Version   types.String `tfsdk:"version"`
	Prefix    types.String `tfsdk:"prefix"`
	Files     types.Map    `tfsdk:"files"`
}

var r2BucketPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$`)

func (r *staticSiteResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_static_site"
}

func (r *staticSiteResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A static site: the files of a directory uploaded to the R2 bucket the edge Worker serves from, " +
			"under the content-addressed prefix `sites/<name>/<version>/`. The version is computed from the files at plan time, " +
			"so the plan shows when content changes and a `kamuidash_route_record` can point its `static.prefix` at the new version. " +
			"An update uploads the new version and keeps the one it replaces (records still pointing at it keep working until they " +
			"move); older versions are deleted. The bucket is created when missing and never deleted. Hidden files (a leading `.`) " +
			"are not uploaded.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The site's identity, `<bucket>/<name>`. Import an existing site by this value.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The site's name, a DNS label (for example the app's name); every version lives under `sites/<name>/`. Changing it replaces the site.",
				Required:            true,
				Validators:          []validator.String{dnsLabel()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"bucket": schema.StringAttribute{
				MarkdownDescription: "The R2 bucket to upload to: the edge Worker's `static_bucket`. Changing it replaces the site.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(r2BucketPattern, "must be a valid R2 bucket name (3–63 lower-case letters, digits and hyphens)")},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"source_dir": schema.StringAttribute{
				MarkdownDescription: "The directory holding the built site (for example `${path.module}/site`). It is read at plan time; " +
					"hidden files are skipped, a symbolic link is uploaded under its own path only if it points at a file inside the directory, " +
					"and names the edge cannot serve (invalid UTF-8, control characters, backslashes, over 1,024 bytes) fail the plan.",
				Required:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"version": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("The first %d hex digits of the SHA-256 over every file's path, content type and content: the same files give the same version on every machine.", staticsite.VersionLength),
				Computed:            true,
			},
			"prefix": schema.StringAttribute{
				MarkdownDescription: "The object-key prefix of this version, `sites/<name>/<version>/`: the value for a static route record's `prefix`.",
				Computed:            true,
			},
			"files": schema.MapAttribute{
				MarkdownDescription: "The uploaded files: path relative to the site root → the hex MD5 of its content (R2's ETag). A file changed or deleted in the bucket shows as drift.",
				ElementType:         types.StringType,
				Computed:            true,
			},
		},
	}
}

func (r *staticSiteResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan reads source_dir so the plan carries the version, prefix and file list: a content
// change shows as an update with the new prefix, and the same files plan nothing.
func (r *staticSiteResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	var plan staticSiteModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.SourceDir.IsUnknown() || plan.Name.IsUnknown() {
		return
	}
	manifest, err := staticsite.Read(plan.SourceDir.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("source_dir"), "Unusable Static Site Directory",
			"The static site "+quote(plan.Name.ValueString())+" cannot be read from "+quote(plan.SourceDir.ValueString())+". "+
				"Point source_dir at the directory of the built site (regular files, or links to files inside it).\n\nError: "+err.Error())
		return
	}
	plan.Version = types.StringValue(manifest.Version)
	plan.Prefix = types.StringValue(staticsite.Prefix(plan.Name.ValueString(), manifest.Version))
	files, diags := manifestFiles(manifest)
	resp.Diagnostics.Append(diags...)
	plan.Files = files
	if !plan.Bucket.IsUnknown() {
		plan.ID = types.StringValue(plan.Bucket.ValueString() + "/" + plan.Name.ValueString())
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func manifestFiles(m *staticsite.Manifest) (types.Map, diag.Diagnostics) {
	elems := make(map[string]attr.Value, len(m.Files))
	for _, f := range m.Files {
		elems[f.Path] = types.StringValue(f.ETag)
	}
	return types.MapValue(types.StringType, elems)
}

func (r *staticSiteResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan staticSiteModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name, bucket := plan.Name.ValueString(), plan.Bucket.ValueString()
	created, err := r.data.Client.R2EnsureBucket(ctx, r.data.AccountID, bucket)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Create Static Site", "Finding or creating R2 bucket "+quote(bucket), err))
		return
	}
	if created {
		tflog.Info(ctx, "Created R2 bucket", map[string]any{"bucket": bucket})
	}
	existing, _, err := r.data.Client.R2ListObjects(ctx, r.data.AccountID, bucket, staticsite.SitePrefix(name))
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Create Static Site", "Listing "+quote(staticsite.SitePrefix(name))+" in bucket "+quote(bucket), err))
		return
	}
	if len(existing) > 0 {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Static Site Already Exists",
			fmt.Sprintf("The bucket %q already holds %d objects under %q. To manage that site with Terraform, import it: "+
				"terraform import <address> %s/%s. Nothing was uploaded.", bucket, len(existing), staticsite.SitePrefix(name), bucket, name))
		return
	}
	manifest, ok := r.readManifest(plan, &resp.Diagnostics)
	if !ok {
		return
	}
	prefix := staticsite.Prefix(name, manifest.Version)
	if err := r.upload(ctx, bucket, prefix, manifest); err != nil {
		// Nothing half-written: take back what this apply uploaded.
		r.deleteUnder(ctx, bucket, prefix, nil)
		resp.Diagnostics.Append(apiErrorDiag("Unable to Upload Static Site", "Uploading site "+quote(name)+" to "+quote(bucket+"/"+prefix), err))
		return
	}
	r.setFromManifest(&plan, manifest, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *staticSiteResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state staticSiteModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	bucket, prefix := state.Bucket.ValueString(), state.Prefix.ValueString()
	objects, found, err := r.data.Client.R2ListObjects(ctx, r.data.AccountID, bucket, prefix)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Static Site", "Listing "+quote(prefix)+" in bucket "+quote(bucket), err))
		return
	}
	if !found || len(objects) == 0 {
		tflog.Warn(ctx, "Static site is gone; removing it from state", map[string]any{"bucket": bucket, "prefix": prefix})
		resp.State.RemoveResource(ctx)
		return
	}
	elems := make(map[string]attr.Value, len(objects))
	for _, o := range objects {
		elems[strings.TrimPrefix(o.Key, prefix)] = types.StringValue(strings.Trim(o.ETag, `"`))
	}
	files, diags := types.MapValue(types.StringType, elems)
	resp.Diagnostics.Append(diags...)
	state.Files = files
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *staticSiteResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state staticSiteModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name, bucket := plan.Name.ValueString(), plan.Bucket.ValueString()
	manifest, ok := r.readManifest(plan, &resp.Diagnostics)
	if !ok {
		return
	}
	prefix := staticsite.Prefix(name, manifest.Version)
	if err := r.upload(ctx, bucket, prefix, manifest); err != nil {
		if prefix != state.Prefix.ValueString() {
			r.deleteUnder(ctx, bucket, prefix, nil)
		}
		resp.Diagnostics.Append(apiErrorDiag("Unable to Upload Static Site", "Uploading site "+quote(name)+" to "+quote(bucket+"/"+prefix), err))
		return
	}
	// One pass over the site: keep the new version's files and the whole version it replaces
	// (records may still point at it); older versions, and files no longer in the site, go.
	want := make(map[string]bool, len(manifest.Files))
	for _, f := range manifest.Files {
		want[prefix+f.Path] = true
	}
	replaced := state.Prefix.ValueString()
	keep := func(key string) bool {
		return want[key] || (replaced != prefix && replaced != "" && strings.HasPrefix(key, replaced))
	}
	if err := r.deleteUnder(ctx, bucket, staticsite.SitePrefix(name), keep); err != nil {
		resp.Diagnostics.AddWarning("Old Static Site Files Left Behind",
			"The new version was uploaded, but deleting older versions or files no longer in the site failed; they only use storage. "+
				"The next update tries again.\n\nError: "+err.Error())
	}
	r.setFromManifest(&plan, manifest, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *staticSiteResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state staticSiteModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.deleteUnder(ctx, state.Bucket.ValueString(), staticsite.SitePrefix(state.Name.ValueString()), nil); err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Delete Static Site", "Deleting the objects under "+
			quote(staticsite.SitePrefix(state.Name.ValueString()))+" in bucket "+quote(state.Bucket.ValueString()), err))
	}
}

// ImportState takes `<bucket>/<name>` and adopts the site's only version; source_dir comes
// from the configuration at the next apply.
func (r *staticSiteResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	bucket, name, ok := strings.Cut(req.ID, "/")
	if !ok || !r2BucketPattern.MatchString(bucket) || !isDNSLabel(name) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"A static site is imported as <bucket>/<name>, for example kamuidash-static/docs; got "+quote(req.ID)+".")
		return
	}
	objects, found, err := r.data.Client.R2ListObjects(ctx, r.data.AccountID, bucket, staticsite.SitePrefix(name))
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Import Static Site", "Listing "+quote(staticsite.SitePrefix(name))+" in bucket "+quote(bucket), err))
		return
	}
	versions := map[string]bool{}
	for _, o := range objects {
		v, _, _ := strings.Cut(strings.TrimPrefix(o.Key, staticsite.SitePrefix(name)), "/")
		versions[v] = true
	}
	if !found || len(versions) != 1 {
		resp.Diagnostics.AddError("Cannot Import Static Site",
			fmt.Sprintf("Importing needs exactly one version under %q in bucket %q; found %d. "+
				"Delete the versions you do not want, or create the site afresh with a new name.", staticsite.SitePrefix(name), bucket, len(versions)))
		return
	}
	var version string
	for v := range versions {
		version = v
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("bucket"), bucket)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("version"), version)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("prefix"), staticsite.Prefix(name, version))...)
}

// readManifest reads source_dir again at apply time; the plan's version must still match, or
// the files changed between plan and apply and the plan no longer describes them.
func (r *staticSiteResource) readManifest(plan staticSiteModel, diags *diag.Diagnostics) (*staticsite.Manifest, bool) {
	manifest, err := staticsite.Read(plan.SourceDir.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("source_dir"), "Unusable Static Site Directory",
			"The static site cannot be read from "+quote(plan.SourceDir.ValueString())+".\n\nError: "+err.Error())
		return nil, false
	}
	if !plan.Version.IsUnknown() && plan.Version.ValueString() != manifest.Version {
		diags.AddAttributeError(path.Root("source_dir"), "Static Site Changed Since Plan",
			"The files in "+quote(plan.SourceDir.ValueString())+" changed after the plan was made (planned version "+
				plan.Version.ValueString()+", now "+manifest.Version+"). Run plan again so it shows what will be uploaded. Nothing was uploaded.")
		return nil, false
	}
	return manifest, true
}

// uploadProgressEvery is how often an upload logs its progress.
const uploadProgressEvery = 50

func (r *staticSiteResource) upload(ctx context.Context, bucket, prefix string, m *staticsite.Manifest) error {
	tflog.Info(ctx, "Uploading static site", map[string]any{"bucket": bucket, "prefix": prefix, "files": len(m.Files)})
	for i, f := range m.Files {
		if err := r.uploadFile(ctx, bucket, prefix, f); err != nil {
			return err
		}
		if (i+1)%uploadProgressEvery == 0 {
			tflog.Info(ctx, "Static site upload progress", map[string]any{"uploaded": i + 1, "files": len(m.Files)})
		}
	}
	return nil
}

// uploadFile streams one file to R2: a large file costs upload time, not memory.
func (r *staticSiteResource) uploadFile(ctx context.Context, bucket, prefix string, f staticsite.File) error {
	content, err := f.Open()
	if err != nil {
		return err // names the file already
	}
	defer content.Close()
	if err := r.data.Client.R2PutObject(ctx, r.data.AccountID, bucket, prefix+f.Path, content, f.Size, f.ContentType); err != nil {
		return fmt.Errorf("uploading %s: %w", f.Path, err)
	}
	return nil
}

// deleteUnder deletes every object under prefix whose key keep does not claim (nil: all).
func (r *staticSiteResource) deleteUnder(ctx context.Context, bucket, prefix string, keep func(key string) bool) error {
	objects, _, err := r.data.Client.R2ListObjects(ctx, r.data.AccountID, bucket, prefix)
	if err != nil {
		return err
	}
	for _, o := range objects {
		if keep != nil && keep(o.Key) {
			continue
		}
		if err := r.data.Client.R2DeleteObject(ctx, r.data.AccountID, bucket, o.Key); err != nil {
			return err
		}
	}
	return nil
}

func (r *staticSiteResource) setFromManifest(m *staticSiteModel, manifest *staticsite.Manifest, diags *diag.Diagnostics) {
	m.ID = types.StringValue(m.Bucket.ValueString() + "/" + m.Name.ValueString())
	m.Version = types.StringValue(manifest.Version)
	m.Prefix = types.StringValue(staticsite.Prefix(m.Name.ValueString(), manifest.Version))
	files, d := manifestFiles(manifest)
	diags.Append(d...)
	m.Files = files
}
