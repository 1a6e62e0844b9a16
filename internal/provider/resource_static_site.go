package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"golang.org/x/sync/errgroup"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/staticsite"
)

var (
	_ resource.ResourceWithConfigure   = (*staticSiteResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*staticSiteResource)(nil)
	_ resource.ResourceWithImportState = (*staticSiteResource)(nil)
)

// NewStaticSiteResource returns the kamuidash_static_site resource: a directory of static
// files uploaded to R2 as content-addressed objects with a manifest per version, for a static
// route record to serve.
func NewStaticSiteResource() resource.Resource {
	return &staticSiteResource{}
}

type staticSiteResource struct {
	data *providerData
	// now is the clock a version's retirement is stamped and aged with; nil means time.Now.
	// Tests inject one to age a retiring version past route.MaxFreshnessBudget.
	now func() time.Time
}

func (r *staticSiteResource) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

type staticSiteModel struct {
	ID             types.String `tfsdk:"id"`
	Name           types.String `tfsdk:"name"`
	Bucket         types.String `tfsdk:"bucket"`
	SourceDir      types.String `tfsdk:"source_dir"`
	RetainVersions types.Int64  `tfsdk:"retain_versions"`
	Version        types.String `tfsdk:"version"`
	Prefix         types.String `tfsdk:"prefix"`
	Manifest       types.String `tfsdk:"manifest"`
	Versions       types.List   `tfsdk:"versions"`
	Files          types.Map    `tfsdk:"files"`
	Retiring       types.Map    `tfsdk:"retiring_versions"`
}

var r2BucketPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$`)

// defaultRetainVersions keeps the current version and two before it for a rollback.
const defaultRetainVersions = 3

// missingObject is the value files shows for a path whose object a refresh did not find: any
// value but a hash, so the plan shows the path changing and the apply uploads it again.
const missingObject = "missing"

func (r *staticSiteResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_static_site"
}

func (r *staticSiteResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A static site: the files of a directory uploaded to the R2 bucket the edge Worker serves from, content-addressed. " +
			"Each distinct content is one object, `sites/<name>/objects/<sha256>`, shared by every version; each version is one manifest, " +
			"`sites/<name>/manifests/<version>.json`, naming the object, content type and size of every path; a version of more than " + strconv.Itoa(route.SiteShardFiles) + " files " +
			"is split, its manifest naming only how many shards, `sites/<name>/manifests/<version>/<i>.json`, hold its paths, so that the edge reads " +
			"only the shard of the path it serves. The version and the file list " +
			"are computed from the files at plan time, so the plan shows exactly which paths change, and an apply uploads only the objects " +
			"the site does not hold yet, then the shards, then the manifest; a `kamuidash_route_record` pointing its `static.manifest` at the new manifest " +
			"moves once they are all in place. The last `retain_versions` versions are kept (a rollback is a record change to one of them). " +
			"A version that leaves that window is retiring (`retiring_versions`): the edge may serve it until every cache has let the old record go, " +
			"so it and its objects are deleted by the first apply after it has been retiring longer than the longest freshness budget (one hour). The bucket is created when missing and never deleted. " +
			"Hidden files and directories (a leading `.`) are not uploaded, except the files of the site root's `.well-known/` directory " +
			"(`security.txt`, `apple-app-site-association`, `assetlinks.json`).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The site's identity, `<bucket>/<name>`. Import an existing site by this value (or `<bucket>/<name>/<version>` when it holds several versions).",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "The site's name, a DNS label (for example the app's name); everything of the site lives under `sites/<name>/`. Changing it replaces the site.",
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
					"hidden files and directories are skipped (the root's `.well-known/` directory excepted, not the hidden files in it), a symbolic link is uploaded under its own path only if it points at a file inside the directory, " +
					"and names the edge cannot serve (invalid UTF-8, control characters, backslashes, over 1,024 bytes) fail the plan. " +
					"A name with accents or voiced kana is served in both its Unicode spellings, composed (NFC) and decomposed (NFD), since a browser sends " +
					"whichever its link or its user wrote; two files whose names are one name in two spellings fail the plan.",
				Required:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"retain_versions": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How many versions to keep, the current one included, so that a route record can roll back to them. Defaults to %d.", defaultRetainVersions),
				Optional:            true,
				Computed:            true,
				Default:             int64default.StaticInt64(defaultRetainVersions),
				Validators:          []validator.Int64{int64validator.Between(1, 100)},
			},
			"version": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("The first %d hex digits of the SHA-256 over every file's path, content type and content: the same files give the same version on every machine.", staticsite.VersionLength),
				Computed:            true,
			},
			"prefix": schema.StringAttribute{
				MarkdownDescription: "The site's object-key prefix, `sites/<name>/`: the value for a static route record's `prefix`.",
				Computed:            true,
			},
			"manifest": schema.StringAttribute{
				MarkdownDescription: "The key of this version's manifest, `sites/<name>/manifests/<version>.json`: the value for a static route record's `manifest`. It is uploaded after the version's objects and shards.",
				Computed:            true,
			},
			"versions": schema.ListAttribute{
				MarkdownDescription: "The kept versions, newest first (the current one first). Each one's manifest is `sites/<name>/manifests/<version>.json` (and its shards, if it is split, `sites/<name>/manifests/<version>/<i>.json`).",
				ElementType:         types.StringType,
				Computed:            true,
			},
			"files": schema.MapAttribute{
				MarkdownDescription: "The site's files: path relative to the site root → the hex SHA-256 of its content (its object's name). " +
					"A path is shown composed (NFC), as Terraform keeps every string, whichever spelling the file has. " +
					"An edit shows the paths that change; an object deleted from the bucket behind Terraform's back shows as `" + missingObject + "` and is uploaded again.",
				ElementType: types.StringType,
				Computed:    true,
			},
			"retiring_versions": schema.MapAttribute{
				MarkdownDescription: "The versions that have left the window of `retain_versions` but are still in the bucket: version → the time (RFC 3339) it left " +
					"(or, for a version in the bucket this resource did not know, such as one left by an import or an earlier release, the time an apply first found it). " +
					"A route record still pointing at such a version keeps being served by the edge for up to its freshness budget after it moves, so a retiring " +
					"version's manifest and objects stay until it has been retiring longer than the longest budget (one hour); the first apply after that deletes them. " +
					"An apply that returns to a retiring version takes it back into the window.",
				ElementType: types.StringType,
				Computed:    true,
			},
		},
	}
}

func (r *staticSiteResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan reads source_dir so the plan carries the version, manifest, kept versions and file
// list: an edit shows as an update of exactly the changed paths, and the same files plan
// nothing.
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
	if err == nil {
		// Every piece of the manifest must be one the Worker reads; the split needs the name.
		_, err = manifest.Pieces(plan.Name.ValueString())
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("source_dir"), "Unusable Static Site Directory",
			"The static site "+quote(plan.Name.ValueString())+" cannot be read from "+quote(plan.SourceDir.ValueString())+". "+
				"Point source_dir at the directory of the built site (regular files, or links to files inside it).\n\nError: "+err.Error())
		return
	}
	var kept []string
	var state staticSiteModel
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		kept = stringList(ctx, state.Versions, &resp.Diagnostics)
	}
	r.setFromManifest(&plan, manifest, &resp.Diagnostics)
	if plan.RetainVersions.IsUnknown() {
		plan.Versions = types.ListUnknown(types.StringType)
	} else {
		plan.Versions = listValue(keptVersions(manifest.Version, kept, plan.RetainVersions.ValueInt64()), &resp.Diagnostics)
	}
	if plan.Bucket.IsUnknown() {
		plan.ID = types.StringUnknown()
	}
	// When a version retires, and when one has retired long enough to go, is known at apply
	// time only; an apply that changes nothing else leaves them as they are.
	plan.Retiring = types.MapUnknown(types.StringType)
	if !req.State.Raw.IsNull() && !r.changes(plan, state) {
		plan.Retiring = state.Retiring
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// changes says whether the plan updates the site at all.
func (r *staticSiteResource) changes(plan, state staticSiteModel) bool {
	return !plan.Version.Equal(state.Version) || !plan.Files.Equal(state.Files) || !plan.Versions.Equal(state.Versions) ||
		!plan.RetainVersions.Equal(state.RetainVersions) || !plan.SourceDir.Equal(state.SourceDir) || !plan.Prefix.Equal(state.Prefix)
}

// keptVersions is the window after current becomes the newest version: current, then the
// versions kept before it, at most retain in all.
func keptVersions(current string, before []string, retain int64) []string {
	out := []string{current}
	for _, v := range before {
		if int64(len(out)) == retain {
			break
		}
		if v != current {
			out = append(out, v)
		}
	}
	return out
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
		// A bucket is only ever found or made here, never deleted: one there now is usable,
		// whoever made it.
		if _, made := createdWithoutAnswer(ctx, err, func(ctx context.Context) (bool, bool, error) {
			exists, err := r.data.Client.R2BucketExists(ctx, r.data.AccountID, bucket)
			return exists, exists, err
		}); !made {
			resp.Diagnostics.Append(apiErrorDiag("Unable to Create Static Site", "Finding or creating R2 bucket "+quote(bucket), err))
			return
		}
		resp.Diagnostics.Append(createdAnywayWarning("R2 Bucket", "R2 bucket "+quote(bucket), err))
	}
	if created {
		tflog.Info(ctx, "Created R2 bucket", map[string]any{"bucket": bucket})
	}
	// Two resources of one configuration naming the same site would both find the prefix empty
	// and both own it, each one's prune then deleting the other's objects: the first to get here
	// claims it for this process.
	release, claimed := r.data.siteClaims.claim(bucket, name)
	if !claimed {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Static Site Already Exists",
			fmt.Sprintf("Another kamuidash_static_site of this configuration creates the site %q in bucket %q too; "+
				"a site has one resource. Nothing was uploaded.", name, bucket))
		return
	}
	defer func() {
		if resp.Diagnostics.HasError() {
			release() // nothing of it stayed: another attempt may create it
		}
	}()
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
	touched, shards, err := r.publish(ctx, bucket, name, manifest, nil, false)
	if err != nil {
		if cleanupErr := r.takeBack(ctx, bucket, name, touched); cleanupErr != nil {
			resp.Diagnostics.AddWarning("Objects of the Failed Upload Left Behind",
				fmt.Sprintf("Deleting what the failed upload stored under %q in bucket %q failed: %s. "+
					"Delete the objects under that prefix before the next apply, or import them as the site.",
					staticsite.SitePrefix(name), bucket, cleanupErr))
		}
		resp.Diagnostics.Append(apiErrorDiag("Unable to Upload Static Site", "Uploading site "+quote(name)+" to bucket "+quote(bucket), err))
		return
	}
	r.setFromManifest(&plan, manifest, &resp.Diagnostics)
	setPublishedShards(ctx, resp.Private, manifest.Version, shards, &resp.Diagnostics)
	plan.Versions = listValue([]string{manifest.Version}, &resp.Diagnostics)
	plan.Retiring = mapValue(nil, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read lists the site once and compares it with the state: a path whose object is gone shows
// as missing, a current version whose manifest or a shard of it is gone is published again, a
// kept version whose manifest is gone leaves the window, and a site with no object left is
// gone.
func (r *staticSiteResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state staticSiteModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name, bucket := state.Name.ValueString(), state.Bucket.ValueString()
	site := staticsite.SitePrefix(name)
	listing, found, err := r.data.Client.R2ListObjects(ctx, r.data.AccountID, bucket, site)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Read Static Site", "Listing "+quote(site)+" in bucket "+quote(bucket), err))
		return
	}
	if !found || len(listing) == 0 {
		tflog.Warn(ctx, "Static site is gone; removing it from state", map[string]any{"bucket": bucket, "prefix": site})
		resp.State.RemoveResource(ctx)
		return
	}
	if state.Prefix.ValueString() != site {
		// A site uploaded by an earlier release, one prefix per version: the next apply
		// uploads it content-addressed (its files' values differ), keeping the old version
		// for the records that still point at it.
		return
	}
	present := make(map[string]bool, len(listing))
	var manifestBytes int64
	for _, o := range listing {
		present[o.Key] = true
		if o.Key == staticsite.ManifestKey(name, state.Version.ValueString()) {
			manifestBytes = o.Size
		}
	}
	var kept []string
	for _, v := range stringList(ctx, state.Versions, &resp.Diagnostics) {
		if present[staticsite.ManifestKey(name, v)] {
			kept = append(kept, v)
		}
	}
	state.Versions = listValue(kept, &resp.Diagnostics)
	// A retiring version deleted behind Terraform's back has nothing left to wait for.
	inBucket := map[string]bool{}
	for _, o := range listing {
		inBucket[versionOfKey(name, o.Key)] = true
	}
	retiring := map[string]string{}
	resp.Diagnostics.Append(elementsOf(ctx, state.Retiring, &retiring)...)
	for v := range retiring {
		if !inBucket[v] {
			delete(retiring, v)
		}
	}
	state.Retiring = mapValue(retiring, &resp.Diagnostics)

	files := map[string]string{}
	resp.Diagnostics.Append(state.Files.ElementsAs(ctx, &files, false)...)
	current := state.Version.ValueString()
	switch {
	case !present[staticsite.ManifestKey(name, current)]:
		// The version served is gone: every path must be published again.
		files = map[string]string{}
	case len(files) == 0:
		// Just imported: the manifest tells the files.
		files = map[string]string{}
		m, ok := r.fetchManifest(ctx, bucket, name, current, &resp.Diagnostics)
		if !ok {
			return
		}
		for p, f := range m.Files {
			files[staticsite.NameKey(p)] = f.Object // another spelling of a path is the same file
		}
		setPublishedShards(ctx, resp.Private, current, m.Shards, &resp.Diagnostics)
	default:
		shards := publishedShardsOf(ctx, req.Private, current, &resp.Diagnostics)
		if !shardsPresent(name, current, files, shards, present, manifestBytes, &resp.Diagnostics) {
			// The edge cannot serve the paths of a missing shard: publish the version again.
			files = map[string]string{}
		}
	}
	for p, sha := range files {
		if !present[staticsite.ObjectKey(name, sha)] {
			files[p] = missingObject
		}
	}
	state.Files = mapValue(files, &resp.Diagnostics)
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
	// The current version's objects are in place (the refresh saw each one), and so are those
	// of the other versions the bucket still holds: an edit reverting to an older version's
	// content finds its object in one listing of the site's objects (a page per 1,000, not a
	// call per object) and uploads only what is missing. Sending such an object again would
	// overwrite what other versions name, and over the REST API a file changing during that
	// upload would have it deleted.
	held := map[string]string{}
	if state.Prefix.ValueString() == staticsite.SitePrefix(name) {
		resp.Diagnostics.Append(state.Files.ElementsAs(ctx, &held, false)...)
	}
	have := make(map[string]bool, len(held))
	for _, sha := range held {
		have[sha] = true
	}
	stored, _, err := r.data.Client.R2ListObjects(ctx, r.data.AccountID, bucket, route.SiteObjectsPrefix(staticsite.SitePrefix(name)))
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to List Static Site Objects", "Listing the objects site "+quote(name)+
			" holds in bucket "+quote(bucket)+" (nothing was uploaded)", err))
		return
	}
	for _, o := range stored {
		have[strings.TrimPrefix(o.Key, route.SiteObjectsPrefix(staticsite.SitePrefix(name)))] = true
	}
	// The same version (an import taking its source_dir, an object put back) has its manifest
	// and, when split, every shard already: the refresh found them, or it would have cleared
	// the files (shardsPresent).
	published := manifest.Version == state.Version.ValueString() && len(held) > 0
	before := stringList(ctx, state.Versions, &resp.Diagnostics)
	_, shards, err := r.publish(ctx, bucket, name, manifest, have, published)
	if err != nil {
		// What was uploaded stays: a kept version may share it, and the next prune takes
		// whatever no kept version names. The record still points at the old version.
		resp.Diagnostics.Append(apiErrorDiag("Unable to Upload Static Site", "Uploading version "+manifest.Version+" of site "+quote(name)+
			" to bucket "+quote(bucket)+" (no manifest was written, so the version served is unchanged)", err))
		return
	}
	kept := keptVersions(manifest.Version, before, plan.RetainVersions.ValueInt64())
	// A version leaving the window is not deleted now: the route record moves to the new one
	// after this apply, and the edge keeps serving the old record for up to its freshness
	// budget after that. It retires, and goes once it has been retiring longer than any budget.
	retiring := map[string]string{}
	resp.Diagnostics.Append(elementsOf(ctx, state.Retiring, &retiring)...)
	now := r.clock()
	for _, v := range before {
		if _, ok := retiring[v]; !ok && !slices.Contains(kept, v) {
			retiring[v] = now.UTC().Format(time.RFC3339)
		}
	}
	for _, v := range kept {
		delete(retiring, v) // taken back into the window
	}
	dropped := slices.ContainsFunc(before, func(v string) bool { return !slices.Contains(kept, v) })
	if dropped || len(retiring) > 0 {
		pruned, err := r.prune(ctx, bucket, name, manifest, kept, retiring, now)
		if err != nil {
			resp.Diagnostics.AddWarning("Old Static Site Versions Left Behind",
				"The new version was uploaded, but deleting the versions that retired from the window of retain_versions failed; they only use storage. "+
					"The next update tries again.\n\nError: "+err.Error())
		} else {
			retiring = pruned
		}
	}
	r.setFromManifest(&plan, manifest, &resp.Diagnostics)
	setPublishedShards(ctx, resp.Private, manifest.Version, shards, &resp.Diagnostics)
	plan.Versions = listValue(kept, &resp.Diagnostics)
	plan.Retiring = mapValue(retiring, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *staticSiteResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state staticSiteModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	bucket, site := state.Bucket.ValueString(), staticsite.SitePrefix(state.Name.ValueString())
	listing, _, err := r.data.Client.R2ListObjects(ctx, r.data.AccountID, bucket, site)
	if err == nil {
		err = r.data.Client.R2DeleteObjects(ctx, r.data.AccountID, bucket, keysOf(listing))
	}
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Delete Static Site", "Deleting the objects under "+quote(site)+" in bucket "+quote(bucket), err))
	}
}

// ImportState takes `<bucket>/<name>` for a site with one version, or `<bucket>/<name>/<version>`
// to say which version is current; source_dir comes from the configuration at the next apply.
func (r *staticSiteResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	parts := strings.Split(req.ID, "/")
	if len(parts) < 2 || len(parts) > 3 || !r2BucketPattern.MatchString(parts[0]) || !isDNSLabel(parts[1]) {
		resp.Diagnostics.AddError("Invalid Import ID",
			"A static site is imported as <bucket>/<name> (or <bucket>/<name>/<version>), for example kamuidash-static/docs; got "+quote(req.ID)+".")
		return
	}
	bucket, name := parts[0], parts[1]
	manifests := route.SiteManifestsPrefix(staticsite.SitePrefix(name))
	listing, found, err := r.data.Client.R2ListObjects(ctx, r.data.AccountID, bucket, manifests)
	if err != nil {
		resp.Diagnostics.Append(apiErrorDiag("Unable to Import Static Site", "Listing "+quote(manifests)+" in bucket "+quote(bucket), err))
		return
	}
	var versions []string
	for _, o := range listing {
		if v, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, manifests), ".json"); ok && !strings.Contains(v, "/") {
			versions = append(versions, v)
		}
	}
	var version string
	switch {
	case len(parts) == 3 && slices.Contains(versions, parts[2]):
		version = parts[2]
	case len(parts) == 2 && len(versions) == 1:
		version = versions[0]
	default:
		resp.Diagnostics.AddError("Cannot Import Static Site", importVersionsProblem(bucket, name, parts, versions, found))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), bucket+"/"+name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("bucket"), bucket)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("retain_versions"), int64(defaultRetainVersions))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("version"), version)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("prefix"), staticsite.SitePrefix(name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("manifest"), staticsite.ManifestKey(name, version))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("versions"), []string{version})...)
	// The bucket's other versions retire from the first apply that finds them.
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("retiring_versions"), map[string]string{})...)
}

func importVersionsProblem(bucket, name string, parts, versions []string, found bool) string {
	where := fmt.Sprintf("under %q in bucket %q", route.SiteManifestsPrefix(staticsite.SitePrefix(name)), bucket)
	switch {
	case !found:
		return fmt.Sprintf("The bucket %q does not exist.", bucket)
	case len(versions) == 0:
		return "No site version was found " + where + ". Sites uploaded by an earlier release (one prefix per version) cannot be imported: " +
			"create the site afresh with a new name, or delete the old objects first."
	case len(parts) == 3:
		return fmt.Sprintf("The version %q is not %s; found %s.", parts[2], where, strings.Join(versions, ", "))
	default:
		return fmt.Sprintf("%d versions were found %s (%s): say which one is current with the import ID %s/%s/<version>.",
			len(versions), where, strings.Join(versions, ", "), bucket, name)
	}
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

// takeBackPauses are the waits, after a failed create's delete, before each look for an
// upload that the store wrote after that delete.
var takeBackPauses = []time.Duration{250 * time.Millisecond, time.Second}

// takeBack deletes every key a failed create started an upload for. Nothing else can share
// them: the prefix was empty when the create began, and this process claimed the site. An
// upload abandoned in flight (the user interrupted, or another upload failed and the rest were
// cancelled) got no answer, and the store may still write it after the delete meant for it:
// after each pause, the keys of touched that the listing shows are deleted again.
func (r *staticSiteResource) takeBack(ctx context.Context, bucket, name string, touched []string) error {
	ctx, cancel := cleanupContext(ctx)
	defer cancel()
	ours := make(map[string]bool, len(touched))
	for _, k := range touched {
		ours[k] = true
	}
	drop := touched
	for round := 0; ; round++ {
		if len(drop) > 0 {
			if err := r.data.Client.R2DeleteObjects(ctx, r.data.AccountID, bucket, drop); err != nil {
				return err
			}
		}
		if round == len(takeBackPauses) {
			return nil
		}
		select {
		case <-time.After(takeBackPauses[round]):
		case <-ctx.Done():
			return ctx.Err()
		}
		listing, _, err := r.data.Client.R2ListObjects(ctx, r.data.AccountID, bucket, staticsite.SitePrefix(name))
		if err != nil {
			return err
		}
		drop = nil
		for _, o := range listing {
			if ours[o.Key] {
				drop = append(drop, o.Key)
			}
		}
		if len(drop) > 0 {
			tflog.Info(ctx, "Deleting uploads the store wrote after the failed create's delete", map[string]any{"objects": len(drop)})
		}
	}
}

// cleanupTimeout bounds the deletes that take back what a failed apply stored.
const cleanupTimeout = time.Minute

// cleanupContext is ctx without its cancellation, bounded by cleanupTimeout: the deletes that
// take back a failed upload must run when the failure is the cancellation itself (Terraform
// cancels the request when the user interrupts the apply, the errgroup when another upload
// failed), or what was stored stays and the next create finds the prefix taken.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// uploadProgressEvery is how often an upload logs its progress.
const uploadProgressEvery = 50

// uploadConcurrency bounds the objects of one site in flight at once: a site of thousands of
// small files is bound by round trips, not bandwidth. S3 calls are outside the REST budget;
// REST object calls still go through the client's rate limiter.
const uploadConcurrency = 8

// siteClaims are the sites (bucket and name) a process has started to create. The bucket's
// listing cannot stop two creates of one site (R2 has no lock, and both find the prefix
// empty); within one process, which serves every resource of one configuration, this does.
// Two applies of different configurations creating one site are not caught.
type siteClaims struct {
	mu    sync.Mutex
	sites map[[2]string]bool
}

// claim takes bucket/name for a create; false when it is taken. release gives it back, for a
// create that failed and left nothing.
func (c *siteClaims) claim(bucket, name string) (release func(), ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := [2]string{bucket, name}
	if c.sites[k] {
		return nil, false
	}
	if c.sites == nil {
		c.sites = map[[2]string]bool{}
	}
	c.sites[k] = true
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.sites, k)
	}, true
}

// publish uploads the objects of m that have does not name, then the version's manifest
// unless it is published already: a split version's shards first, its manifest last, so that
// a record pointing at the manifest never names an object or a shard that is not there yet,
// and a manifest in the bucket always has every shard (the edge may read it the moment it
// exists). have must name every object the bucket holds for the site, so that only an
// object this call stored can be found wrong and deleted (uploadFile), never one another
// version names. touched lists every key an upload was started for, shards and manifest
// included, for a caller that must take them back: an upload that failed may still have been
// stored (an error answered after the write), and a key left behind would make the next
// create refuse the prefix. shards is how many shards the version is published in (0: its
// manifest alone), for the private state (setPublishedShards).
func (r *staticSiteResource) publish(ctx context.Context, bucket, name string, m *staticsite.Manifest, have map[string]bool, published bool) (touched []string, shards int, err error) {
	var pieces []staticsite.Piece
	if published {
		shards = m.ShardCount(name)
	} else {
		// Before any upload: a manifest that cannot be written must not leave objects behind.
		if pieces, err = m.Pieces(name); err != nil {
			return nil, 0, err
		}
		shards = len(pieces) - 1
	}
	var mu sync.Mutex
	touch := func(key string) {
		mu.Lock()
		defer mu.Unlock()
		touched = append(touched, key)
	}
	if err := r.uploadObjects(ctx, bucket, name, m, have, touch); err != nil {
		return touched, shards, err
	}
	if published {
		return touched, shards, nil
	}
	shardPieces, manifest := pieces[:len(pieces)-1], pieces[len(pieces)-1]
	if err := r.uploadPieces(ctx, bucket, shardPieces, touch); err != nil {
		return touched, shards, err
	}
	return touched, shards, r.uploadPieces(ctx, bucket, []staticsite.Piece{manifest}, touch)
}

// uploadObjects uploads the objects of m that have does not name, uploadConcurrency at once,
// calling touch with each key before its upload starts.
func (r *staticSiteResource) uploadObjects(ctx context.Context, bucket, name string, m *staticsite.Manifest, have map[string]bool, touch func(string)) error {
	var send []staticsite.File
	for _, f := range m.Objects() {
		if !have[f.SHA256] {
			send = append(send, f)
		}
	}
	tflog.Info(ctx, "Uploading static site", map[string]any{"bucket": bucket, "site": name, "version": m.Version,
		"paths": len(m.Files), "objects_to_upload": len(send)})
	var mu sync.Mutex
	uploaded := 0
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(uploadConcurrency)
	for _, f := range send {
		g.Go(func() error {
			key := staticsite.ObjectKey(name, f.SHA256)
			touch(key)
			if err := r.uploadFile(gctx, bucket, key, f); err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			if uploaded++; uploaded%uploadProgressEvery == 0 {
				tflog.Info(ctx, "Static site upload progress", map[string]any{"uploaded": uploaded, "objects": len(send)})
			}
			return nil
		})
	}
	return g.Wait()
}

// uploadPieces uploads pieces of a version's manifest, uploadConcurrency at once, calling
// touch with each key before its upload starts; it returns when all are stored or one failed.
func (r *staticSiteResource) uploadPieces(ctx context.Context, bucket string, pieces []staticsite.Piece, touch func(string)) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(uploadConcurrency)
	for _, p := range pieces {
		g.Go(func() error {
			touch(p.Key)
			if err := r.data.Client.R2PutObject(gctx, r.data.AccountID, bucket, p.Key, bytes.NewReader(p.Body), int64(len(p.Body)), "application/json"); err != nil {
				return fmt.Errorf("uploading the manifest piece %s: %w", p.Key, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// uploadFile streams one file to R2 under key: a large file costs upload time, not memory.
// The object's content type is the first path's; the Worker serves each path's own from the
// manifest.
//
// The key is the content's SHA-256, so an object must never hold other bytes: a file rewritten
// in place during the apply (a build still running, an editor saving) would be served under the
// old content's hash and ETag by every version that names it. Over the S3 API the store checks
// the checksum and refuses other bytes; the REST upload has no such check, so what was sent is
// hashed as it goes (staticsite.Content), and an object found to hold other bytes is deleted:
// a missing object shows in the next refresh and is uploaded again, a wrong one would not.
func (r *staticSiteResource) uploadFile(ctx context.Context, bucket, key string, f staticsite.File) error {
	content, err := f.Open()
	if err != nil {
		return err // names the file already
	}
	defer func() { _ = content.Close() }() // only read: closing it cannot lose anything
	if err := r.data.Client.R2PutObjectSHA256(ctx, r.data.AccountID, bucket, key, content, f.Size, f.ContentType, f.SHA256); err != nil {
		if changed := content.Changed(); changed != nil {
			return fmt.Errorf("%w (the store refused it: %w)", changed, err)
		}
		return fmt.Errorf("uploading %s: %w", f.Path, err)
	}
	if changed := content.Verify(); changed != nil {
		cleanupCtx, cancel := cleanupContext(ctx)
		defer cancel()
		if err := r.data.Client.R2DeleteObjects(cleanupCtx, r.data.AccountID, bucket, []string{key}); err != nil {
			return fmt.Errorf("%w; deleting the object it left (%s) failed too: %w", changed, key, err)
		}
		return changed
	}
	return nil
}

// prune deletes everything under the site that neither a kept version nor a version still
// retiring needs: the manifests of versions retiring longer than route.MaxFreshnessBudget (the
// longest any edge cache can still serve a record naming them), what an earlier release left
// (one prefix per version) on the same terms, and the objects no remaining manifest names. A
// version in the bucket that retiring does not know (an import, an earlier release) starts
// retiring now: the provider cannot tell whether a record still names it. It deletes nothing
// unless it could read every remaining manifest, so an object is never taken from a version
// that may be served. It returns the versions still retiring.
func (r *staticSiteResource) prune(ctx context.Context, bucket, name string, current *staticsite.Manifest, kept []string, retiring map[string]string, now time.Time) (map[string]string, error) {
	listing, _, err := r.data.Client.R2ListObjects(ctx, r.data.AccountID, bucket, staticsite.SitePrefix(name))
	if err != nil {
		return nil, err
	}
	// present: anything of the version is in the bucket; manifests: its manifest is, so that
	// it is whole (a manifest is written after its shards); legacy: an earlier release's prefix.
	present, manifests, legacy := map[string]bool{}, map[string]bool{}, map[string]bool{}
	left := make(map[string]string, len(retiring))
	for v, since := range retiring {
		left[v] = since
	}
	for _, o := range listing {
		v := versionOfKey(name, o.Key)
		if v == "" {
			continue
		}
		present[v] = true
		manifests[v] = manifests[v] || o.Key == staticsite.ManifestKey(name, v)
		legacy[v] = legacy[v] || !strings.HasPrefix(o.Key, route.SiteManifestsPrefix(staticsite.SitePrefix(name)))
		if _, known := left[v]; !known && !slices.Contains(kept, v) {
			left[v] = now.UTC().Format(time.RFC3339)
		}
	}
	keepVersion := map[string]bool{}
	keepObject := map[string]bool{}
	for _, f := range current.Files {
		keepObject[staticsite.ObjectKey(name, f.SHA256)] = true
	}
	holdObjectsOf := func(v, why string) error {
		var diags diag.Diagnostics
		m, ok := r.fetchManifest(ctx, bucket, name, v, &diags)
		if !ok {
			return fmt.Errorf("reading the %s version %s: %s", why, v, diagSummary(diags))
		}
		for _, f := range m.Files {
			keepObject[staticsite.ObjectKey(name, f.Object)] = true
		}
		return nil
	}
	for _, v := range kept {
		keepVersion[v] = true
		if v == current.Version || legacy[v] && !manifests[v] {
			continue // uploaded now, or an earlier release's prefix, which holds its own files
		}
		if err := holdObjectsOf(v, "kept"); err != nil {
			return nil, err
		}
	}
	for v, since := range left {
		if !present[v] {
			delete(left, v) // gone already
			continue
		}
		t, err := time.Parse(time.RFC3339, since)
		if err != nil {
			// Not a time this provider wrote: start the wait again rather than guess.
			left[v] = now.UTC().Format(time.RFC3339)
		} else if now.Sub(t) > route.MaxFreshnessBudget {
			delete(left, v)
			continue
		}
		keepVersion[v] = true
		if manifests[v] {
			if err := holdObjectsOf(v, "retiring"); err != nil {
				return nil, err
			}
		}
	}
	drop := dropOrder(name, listing, keepVersion, keepObject)
	tflog.Info(ctx, "Pruning static site", map[string]any{"bucket": bucket, "site": name, "kept_versions": len(kept),
		"retiring_versions": len(left), "deleting": len(drop)})
	if err := r.data.Client.R2DeleteObjects(ctx, r.data.AccountID, bucket, drop); err != nil {
		return nil, err
	}
	return left, nil
}

// dropOrder lists the keys of listing that neither a version of keepVersion nor keepObject
// holds, in the order they are deleted. Manifests first, then shards (and an earlier
// release's files), then objects: a manifest left behind by a failed delete never names a
// missing shard or object, and a shard left behind is named by no manifest.
func dropOrder(name string, listing []kdcf.R2Object, keepVersion, keepObject map[string]bool) []string {
	var manifests, shards, objects []string
	for _, o := range listing {
		switch v := versionOfKey(name, o.Key); {
		case v != "" && !keepVersion[v] && o.Key == staticsite.ManifestKey(name, v):
			manifests = append(manifests, o.Key)
		case v != "" && !keepVersion[v]:
			shards = append(shards, o.Key)
		case v == "" && !keepObject[o.Key]:
			objects = append(objects, o.Key)
		}
	}
	return slices.Concat(manifests, shards, objects)
}

// maxSplitManifestBytes is more than the manifest of a split version takes
// (`{"v":1,"shards":4096}`), and less than any manifest that lists its files.
const maxSplitManifestBytes = 64

// shardsPresent reports whether the version Read finds the manifest of is published as this
// release publishes it: split, with every shard in the bucket (present: the site's listing;
// manifestBytes: its manifest's size there), when it has more than route.SiteShardFiles
// files (files: its paths, from the state). A missing shard is part of the site the edge
// cannot serve, and the next apply must publish the version again rather than take its
// manifest for a version published whole. So must a large version an earlier release wrote in
// one manifest: the edge still reads it, but decoding it holds the isolate, every tenant's
// requests, for the whole decode (hundreds of milliseconds for 20,000 files); the next apply
// writes its shards and then its manifest again, split (the same files: an isolate holding
// the old one serves the same answers), and uploads no object. Nothing is read: the shards a
// version has follow from its paths (route.SplitSiteManifest), and a manifest that lists its
// files is larger than any that names a shard count.
//
// shards is how many shards this release published the version in (publishedShardsOf); -1
// when the state is older than that count, and the split is then worked out from the state's
// paths (exact for the manifests releases before it wrote, which served each file under its
// own spelling alone, as long as that spelling was NFC).
func shardsPresent(name, version string, files map[string]string, shards int, present map[string]bool, manifestBytes int64, diags *diag.Diagnostics) bool {
	key := staticsite.ManifestKey(name, version)
	if shards >= 0 {
		for i := range shards {
			if !present[route.SiteShardKey(key, i)] {
				return false
			}
		}
		return true
	}
	if len(files) <= route.SiteShardFiles {
		return true
	}
	if manifestBytes > maxSplitManifestBytes {
		diags.AddWarning("Static Site Published Again, Split",
			"The manifest "+quote(key)+" of the current version of site "+quote(name)+" lists all its "+strconv.Itoa(len(files))+
				" files in one object, as releases before manifests were split wrote it. The edge Worker reads it, but decoding it holds every "+
				"request of the isolate reading it until it is done. The next apply writes the version's shards and its manifest again, split; "+
				"no file is uploaded again, and the files do not change.")
		return false
	}
	paths := route.SiteManifest{Files: make(map[string]route.SiteFile, len(files))}
	for p := range files {
		paths.Files[p] = route.SiteFile{}
	}
	root, _, err := route.SplitSiteManifest(key, paths)
	if err != nil {
		return false // not a version this release publishes: publish it again, and say why then
	}
	for i := range root.Shards {
		if !present[route.SiteShardKey(key, i)] {
			return false
		}
	}
	return true
}

// publishedShardsKey is a static site's private state: the version this release last
// published or imported and the number of shards its manifest is split into (0: one manifest).
// The refresh checks each shard is in the bucket from it, reading nothing; the split cannot be
// worked out from the state's paths, which hold one spelling of each file's name (NFC:
// Terraform normalises every string) where the manifest serves every spelling.
const publishedShardsKey = "published_shards"

type publishedShards struct {
	Version string `json:"version"`
	Shards  int    `json:"shards"`
}

// setPublishedShards records in private state that version was published in shards shards.
func setPublishedShards(ctx context.Context, private privateSetter, version string, shards int, diags *diag.Diagnostics) {
	b, _ := json.Marshal(publishedShards{Version: version, Shards: shards}) // a string and an int always encode
	diags.Append(private.SetKey(ctx, publishedShardsKey, b)...)
}

// publishedShardsOf is the shard count recorded for version; -1 when none is (a state from an
// earlier release, or a version published by another).
func publishedShardsOf(ctx context.Context, private privateGetter, version string, diags *diag.Diagnostics) int {
	b, d := private.GetKey(ctx, publishedShardsKey)
	diags.Append(d...)
	var p publishedShards
	if len(b) == 0 || json.Unmarshal(b, &p) != nil || p.Version != version || p.Shards < 0 {
		return -1
	}
	return p.Shards
}

// versionOfKey is the version a key of the site belongs to: its manifest's or shard's, or for
// what an earlier release left, its prefix's; "" for a content-addressed object, which belongs to
// every version naming it.
func versionOfKey(name, key string) string {
	rest := strings.TrimPrefix(key, staticsite.SitePrefix(name))
	if strings.HasPrefix(rest, "objects/") {
		return ""
	}
	if m, ok := strings.CutPrefix(rest, "manifests/"); ok {
		// <version>.json, or a shard's <version>/<i>.json
		v, _, _ := strings.Cut(strings.TrimSuffix(m, ".json"), "/")
		return v
	}
	v, _, _ := strings.Cut(rest, "/")
	return v
}

// fetchManifest reads and checks one version's manifest and, when it is split, each of its
// shards, as the edge reads them: the result holds every file of the version, and how many
// shards they were read from. A missing or unreadable shard is an error naming its key.
func (r *staticSiteResource) fetchManifest(ctx context.Context, bucket, name, version string, diags *diag.Diagnostics) (route.SiteManifest, bool) {
	key := staticsite.ManifestKey(name, version)
	m, problem := r.fetchManifestPiece(ctx, bucket, key, "manifest", route.DecodeSiteManifest)
	if problem != nil {
		diags.Append(problem)
		return route.SiteManifest{}, false
	}
	if m.Shards == 0 {
		return m, true
	}
	shards := make([]route.SiteManifest, m.Shards)
	problems := make([]diag.Diagnostic, m.Shards)
	var g errgroup.Group
	g.SetLimit(uploadConcurrency)
	for i := range shards {
		g.Go(func() error {
			shards[i], problems[i] = r.fetchManifestPiece(ctx, bucket, route.SiteShardKey(key, i), "manifest shard",
				func(b []byte) (route.SiteManifest, error) { return route.DecodeSiteShard(b, key, i, m.Shards) })
			return nil
		})
	}
	_ = g.Wait() // each shard's problem is in problems
	files := map[string]route.SiteFile{}
	for i, shard := range shards {
		if problems[i] != nil {
			diags.Append(problems[i])
			return route.SiteManifest{}, false
		}
		maps.Copy(files, shard.Files)
	}
	return route.SiteManifest{V: m.V, Files: files, Shards: m.Shards}, true
}

// fetchManifestPiece reads the manifest or shard (what) under key and decodes it.
func (r *staticSiteResource) fetchManifestPiece(ctx context.Context, bucket, key, what string, decode func([]byte) (route.SiteManifest, error)) (route.SiteManifest, diag.Diagnostic) {
	body, found, err := r.data.Client.R2GetObject(ctx, r.data.AccountID, bucket, key, route.MaxSiteManifestBytes)
	if err != nil {
		return route.SiteManifest{}, apiErrorDiag("Unable to Read Static Site", "Reading the "+what+" "+quote(key)+" in bucket "+quote(bucket), err)
	}
	if !found {
		return route.SiteManifest{}, diag.NewErrorDiagnostic("Unable to Read Static Site", "The "+what+" "+quote(key)+" is not in bucket "+quote(bucket)+".")
	}
	m, err := decode(body)
	if err != nil {
		return route.SiteManifest{}, diag.NewErrorDiagnostic("Unable to Read Static Site", "The "+what+" "+quote(key)+" in bucket "+quote(bucket)+
			" is not a site "+what+" this provider reads: "+err.Error())
	}
	return m, nil
}

func (r *staticSiteResource) setFromManifest(m *staticSiteModel, manifest *staticsite.Manifest, diags *diag.Diagnostics) {
	name := m.Name.ValueString()
	m.ID = types.StringValue(m.Bucket.ValueString() + "/" + name)
	m.Version = types.StringValue(manifest.Version)
	m.Prefix = types.StringValue(staticsite.SitePrefix(name))
	m.Manifest = types.StringValue(staticsite.ManifestKey(name, manifest.Version))
	m.Files = mapValue(manifest.FileObjects(), diags)
}

func keysOf(objects []kdcf.R2Object) []string {
	keys := make([]string, len(objects))
	for i, o := range objects {
		keys[i] = o.Key
	}
	return keys
}

func stringList(ctx context.Context, l types.List, diags *diag.Diagnostics) []string {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var out []string
	diags.Append(l.ElementsAs(ctx, &out, false)...)
	return out
}

// elementsOf reads a string map that may be null (a state written before the attribute
// existed) or unknown into out.
func elementsOf(ctx context.Context, m types.Map, out *map[string]string) diag.Diagnostics {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	return m.ElementsAs(ctx, out, false)
}

func listValue(values []string, diags *diag.Diagnostics) types.List {
	elems := make([]attr.Value, len(values))
	for i, v := range values {
		elems[i] = types.StringValue(v)
	}
	l, d := types.ListValue(types.StringType, elems)
	diags.Append(d...)
	return l
}

func mapValue(values map[string]string, diags *diag.Diagnostics) types.Map {
	elems := make(map[string]attr.Value, len(values))
	for k, v := range values {
		elems[k] = types.StringValue(v)
	}
	m, d := types.MapValue(types.StringType, elems)
	diags.Append(d...)
	return m
}

// diagSummary joins the summaries and details of error diagnostics, for an error message.
func diagSummary(diags diag.Diagnostics) string {
	var parts []string
	for _, d := range diags.Errors() {
		parts = append(parts, d.Summary()+": "+d.Detail())
	}
	return strings.Join(parts, "; ")
}
