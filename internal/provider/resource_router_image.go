package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/bundle"
)

var (
	_ resource.ResourceWithConfigure   = (*routerImageResource)(nil)
	_ resource.ResourceWithImportState = (*routerImageResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*routerImageResource)(nil)
)

// NewRouterImageResource returns the kamuidash_router_image resource: the router built from the
// sources embedded in the provider, packaged as a multi-platform OCI image and pushed by digest.
func NewRouterImageResource() resource.Resource {
	return &routerImageResource{}
}

type routerImageResource struct {
	data *providerData
}

type routerImageModel struct {
	ID         types.String `tfsdk:"id"`
	Repository types.String `tfsdk:"repository"`
	Digest     types.String `tfsdk:"digest"`
	ImageRef   types.String `tfsdk:"image_ref"`
	Platforms  types.List   `tfsdk:"platforms"`
	Pushed     types.Bool   `tfsdk:"pushed"`
}

func (r *routerImageResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_router_image"
}

func (r *routerImageResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The router as a container image. The provider builds the router from the Go sources embedded in " +
			"the provider binary with the local Go toolchain (the same hermetic, reproducible build as `kamuidash_edge_worker`) " +
			"for " + platformList() + ", packages the binaries as a multi-platform OCI image index (no base image and no shell; " +
			"the entrypoint is `" + bundle.RouterImageEntrypoint + "`, run as the numeric non-root user `" + bundle.RouterImageUser +
			"` so that `runAsNonRoot` admits it; every timestamp is the Unix epoch and the layers are uncompressed) and pushes it " +
			"to `repository`. The digest is known at plan time: the same router sources and Go toolchain give the same digest, " +
			"and so an empty plan, also across provider upgrades. Deploy `image_ref`, which names the image by digest. " +
			"Registry credentials come from the Docker configuration (`docker login`, credential helpers, `$DOCKER_CONFIG`); " +
			"registries on loopback addresses (`localhost`, `127.0.0.1`) are reached over plain HTTP. An image deleted from the " +
			"registry outside Terraform shows as `pushed` going from `false` to `true` in the plan, and the next apply pushes " +
			"it again. Destroying the resource only removes it from the state: the image stays in the registry, because running " +
			"pods pin its digest and many registries forbid or delay deletion; expire old images with the registry's own " +
			"retention policy. Import by `<repository>@sha256:<digest>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The same as `image_ref`.",
				Computed:            true,
			},
			"repository": schema.StringAttribute{
				MarkdownDescription: "The OCI repository to push to, without tag or digest, for example " +
					"`registry.example.com/team/kamuidash-router`. A name without a registry host means Docker Hub. " +
					"Changing it pushes the image to the new repository (and leaves it in the old one).",
				Required:      true,
				Validators:    []validator.String{ociRepository()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"digest": schema.StringAttribute{
				MarkdownDescription: "The digest of the image index (`sha256:` and 64 hexadecimal digits), known at plan time: " +
					"a new value means a new router build.",
				Computed: true,
			},
			"image_ref": schema.StringAttribute{
				MarkdownDescription: "The image by digest, `<repository>@<digest>`: what a Deployment should run, since a digest, " +
					"unlike a tag, cannot be moved to other content.",
				Computed: true,
			},
			"platforms": schema.ListAttribute{
				MarkdownDescription: "The platforms in the image index, `os/architecture`, in index order.",
				Computed:            true,
				ElementType:         types.StringType,
			},
			"pushed": schema.BoolAttribute{
				MarkdownDescription: "Whether the registry holds the image: `false` after a refresh found it gone, which the next " +
					"apply repairs by pushing it again.",
				Computed: true,
			},
		},
	}
}

func (r *routerImageResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func platformList() string {
	names := make([]string, len(bundle.RouterPlatforms))
	for i, p := range bundle.RouterPlatforms {
		names[i] = "`" + p.String() + "`"
	}
	return strings.Join(names, " and ")
}

func ociRepository() validator.String {
	return stringCheck{
		ok: func(s string) bool {
			_, err := name.NewRepository(s)
			return err == nil
		},
		rule: "an OCI repository without tag or digest, in lower case, such as registry.example.com/team/kamuidash-router",
	}
}

// image builds the router (an artifact-cache hit unless the sources or the toolchain changed)
// and packages it; the packaging is in memory and takes milliseconds.
func (r *routerImageResource) image(ctx context.Context) (*bundle.RouterImage, diag.Diagnostics) {
	var diags diag.Diagnostics
	start := time.Now()
	router, err := r.data.Bundles.Router(ctx)
	if err != nil {
		// No source_dir: the router is always built from the embedded sources.
		diags.Append(bundleBuildDiag("Router", "the router", path.Empty(), err))
		return nil, diags
	}
	img, err := bundle.NewRouterImage(router)
	if err != nil {
		diags.AddError("Unable to Package Router Image", "Packaging the built router as an OCI image failed. This is a bug in "+
			"the provider; please report it.\n\nError: "+err.Error())
		return nil, diags
	}
	tflog.Debug(ctx, "Built router image", map[string]any{"digest": img.Digest.String(), "router_sha256": router.SHA256,
		"duration_ms": time.Since(start).Milliseconds()})
	return img, diags
}

func (r *routerImageResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	var plan routerImageModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	img, diags := r.image(ctx)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	// Everything but the reference is known even while the repository is not.
	plan.Digest = types.StringValue(img.Digest.String())
	plan.Platforms = routerPlatforms()
	plan.Pushed = types.BoolValue(true)
	plan.ImageRef, plan.ID = types.StringUnknown(), types.StringUnknown()
	if !plan.Repository.IsUnknown() {
		plan.ImageRef = types.StringValue(imageRef(plan.Repository.ValueString(), img.Digest.String()))
		plan.ID = plan.ImageRef
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// imageRef names the image by digest in the repository exactly as configured: an import by the
// reference then reads back the configured spelling, not the registry's canonical one
// ("index.docker.io/…" for a Docker Hub name), and plans no replacement.
func imageRef(repository, digest string) string {
	return repository + "@" + digest
}

func routerPlatforms() types.List {
	elems := make([]attr.Value, len(bundle.RouterPlatforms))
	for i, p := range bundle.RouterPlatforms {
		elems[i] = types.StringValue(p.String())
	}
	return types.ListValueMust(types.StringType, elems)
}

// registryResponseTimeout bounds how long the registry may take to start answering a request
// (once the request, blob included, is sent). A variable for the tests.
var registryResponseTimeout = 60 * time.Second

// registryOptions authenticate with the Docker configuration's credentials for the registry
// (docker login, credential helpers), anonymously when it has none. go-containerregistry's
// default transport waits for an answer forever, and Terraform's context has no deadline, so a
// registry that never answers would hang the plan; registryTransport bounds the wait.
func (r *routerImageResource) registryOptions(ctx context.Context) []remote.Option {
	return []remote.Option{
		remote.WithContext(ctx),
		remote.WithTransport(registryTransport()),
		remote.WithAuthFromKeychain(boundedKeychain{authn.DefaultKeychain}),
		remote.WithUserAgent("terraform-provider-kamuidash/" + r.data.Version),
	}
}

// registryCredentialsTimeout bounds how long the Docker configuration's credential helper may
// take to hand over the credentials. A variable for the tests.
var registryCredentialsTimeout = 60 * time.Second

// boundedKeychain gives up on a credential helper that does not answer within
// registryCredentialsTimeout: go-containerregistry runs the helper with no deadline and without
// looking at the context, so a helper waiting on a locked keyring or a login prompt no one sees
// would hang the plan for good. The abandoned helper ends on its own.
type boundedKeychain struct{ keychain authn.Keychain }

func (k boundedKeychain) Resolve(target authn.Resource) (authn.Authenticator, error) {
	type result struct {
		auth authn.Authenticator
		err  error
	}
	done := make(chan result, 1)
	go func() {
		auth, err := k.keychain.Resolve(target)
		done <- result{auth, err}
	}()
	select {
	case r := <-done:
		return r.auth, r.err
	case <-time.After(registryCredentialsTimeout):
		return nil, fmt.Errorf("the Docker configuration's credential helper for %s did not answer within %s",
			target.RegistryStr(), registryCredentialsTimeout)
	}
}

// registryTransport is go-containerregistry's default transport (proxy from the environment,
// its dial and TLS timeouts) with a bound on the wait for each response. It bounds no upload:
// the wait starts once the request is sent.
func registryTransport() http.RoundTripper {
	base, ok := remote.DefaultTransport.(*http.Transport)
	if !ok {
		return remote.DefaultTransport
	}
	t := base.Clone()
	t.ResponseHeaderTimeout = registryResponseTimeout
	return t
}

// push builds the image (a cache hit after the plan) and pushes it; blobs and platform
// manifests the registry already holds are not uploaded again.
func (r *routerImageResource) push(ctx context.Context, m *routerImageModel) diag.Diagnostics {
	img, diags := r.image(ctx)
	if diags.HasError() {
		return diags
	}
	if got := img.Digest.String(); got != m.Digest.ValueString() {
		diags.AddError("Router Changed Since the Plan",
			"The router built now has digest "+got+", but the plan has "+m.Digest.ValueString()+": the Go toolchain or the "+
				"provider changed between plan and apply. Nothing was pushed; plan again.")
		return diags
	}
	repo, err := name.NewRepository(m.Repository.ValueString())
	if err != nil { // the validator has already accepted it
		diags.AddAttributeError(path.Root("repository"), "Invalid Repository", err.Error())
		return diags
	}
	start := time.Now()
	tflog.Info(ctx, "Pushing router image", map[string]any{"repository": repo.String(), "digest": img.Digest.String()})
	if _, err := img.Push(ctx, repo, r.registryOptions(ctx)...); err != nil {
		diags.Append(registryErrorDiag("Unable to Push Router Image", "Pushing the router image to "+repo.String(), repo, err))
		return diags
	}
	tflog.Info(ctx, "Pushed router image", map[string]any{"image_ref": m.ImageRef.ValueString(),
		"duration_ms": time.Since(start).Milliseconds()})
	m.Pushed = types.BoolValue(true)
	return diags
}

func (r *routerImageResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.Diagnostics.Append(r.pushPlan(ctx, req.Plan, &resp.State)...)
}

// pushPlan pushes what the plan names and saves it as the state.
func (r *routerImageResource) pushPlan(ctx context.Context, planned tfsdk.Plan, state *tfsdk.State) diag.Diagnostics {
	var plan routerImageModel
	diags := planned.Get(ctx, &plan)
	if diags.HasError() {
		return diags
	}
	if diags.Append(r.push(ctx, &plan)...); diags.HasError() {
		return diags
	}
	return append(diags, state.Set(ctx, &plan)...)
}

// Read asks the registry whether it still holds the image (a HEAD of the digest). An image
// deleted outside Terraform stays in the state with pushed = false, not removed: the image is
// defined by the sources, not by what is in the registry, so the repair is a push of the very
// same digest, which the plan shows as `pushed: false -> true` next to an unchanged image_ref
// (resources that deploy it see no change at all). Removing it would plan a create that looks
// like a first deployment.
func (r *routerImageResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state routerImageModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	repo, err := name.NewRepository(state.Repository.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("repository"), "Invalid Repository in State",
			"The state's repository "+quote(state.Repository.ValueString())+" is not an OCI repository: "+err.Error())
		return
	}
	ref := repo.Digest(state.Digest.ValueString())
	_, err = remote.Head(ref, r.registryOptions(ctx)...)
	switch {
	case isManifestUnknown(err):
		tflog.Warn(ctx, "Router image is gone from the registry; the next apply pushes it again",
			map[string]any{"image_ref": state.ImageRef.ValueString()})
		state.Pushed = types.BoolValue(false)
	case err != nil:
		resp.Diagnostics.Append(registryErrorDiag("Unable to Read Router Image", "Looking up "+ref.String(), repo, err))
		return
	default:
		state.Pushed = types.BoolValue(true)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update pushes, as Create does: a new build or an image gone from the registry, either way
// what the plan names.
func (r *routerImageResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.Append(r.pushPlan(ctx, req.Plan, &resp.State)...)
}

// Delete leaves the image in the registry (see the schema description): pods running it pin its
// digest, a node that pulls it again must find it, and many registries refuse deletes.
func (r *routerImageResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state routerImageModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	tflog.Info(ctx, "Removing router image from state; the image stays in the registry",
		map[string]any{"image_ref": state.ImageRef.ValueString()})
}

// ImportState takes "<repository>@sha256:<digest>", checks that the registry holds an image
// index there, and reads its platforms.
func (r *routerImageResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	base, _, _ := strings.Cut(req.ID, "@")
	repo, repoErr := name.NewRepository(base)
	ref, refErr := name.NewDigest(req.ID)
	if repoErr != nil || refErr != nil {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import a router image as <repository>@sha256:<digest>, for example "+
				"registry.example.com/team/kamuidash-router@sha256:"+strings.Repeat("0", 64)+" (its image_ref); got "+quote(req.ID)+".")
		return
	}
	desc, err := remote.Get(ref, r.registryOptions(ctx)...)
	if isManifestUnknown(err) {
		resp.Diagnostics.AddError("Router Image Not Found",
			"The registry "+repo.RegistryStr()+" has no image "+ref.DigestStr()+" in "+repo.RepositoryStr()+
				". Check the reference; to push the image instead, leave out the import and apply.")
		return
	}
	if err != nil {
		resp.Diagnostics.Append(registryErrorDiag("Unable to Import Router Image", "Looking up "+req.ID, repo, err))
		return
	}
	if !desc.MediaType.IsIndex() {
		resp.Diagnostics.AddError("Not a Multi-Platform Image",
			req.ID+" is a single-platform image ("+string(desc.MediaType)+"), not the image index this resource pushes. "+
				"Import an image index, or leave out the import and apply to push one.")
		return
	}
	manifest, err := v1.ParseIndexManifest(bytes.NewReader(desc.Manifest))
	if err != nil {
		resp.Diagnostics.AddError("Unable to Import Router Image", "The registry "+repo.RegistryStr()+" returned an image "+
			"index for "+req.ID+" that does not parse.\n\nError: "+err.Error())
		return
	}
	var platforms []attr.Value
	for _, m := range manifest.Manifests {
		if m.Platform != nil {
			platforms = append(platforms, types.StringValue(m.Platform.OS+"/"+m.Platform.Architecture))
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &routerImageModel{
		ID:         types.StringValue(req.ID),
		Repository: types.StringValue(base),
		Digest:     types.StringValue(ref.DigestStr()),
		ImageRef:   types.StringValue(req.ID),
		Platforms:  types.ListValueMust(types.StringType, platforms),
		Pushed:     types.BoolValue(true),
	})...)
}

// isManifestUnknown reports whether err is the registry's answer for an image it does not hold:
// 404 (a HEAD has no body to say more), MANIFEST_UNKNOWN, or NAME_UNKNOWN for a repository that
// no longer exists.
func isManifestUnknown(err error) bool {
	var terr *transport.Error
	if !errors.As(err, &terr) {
		return false
	}
	if terr.StatusCode == http.StatusNotFound {
		return true
	}
	for _, d := range terr.Errors {
		if d.Code == transport.ManifestUnknownErrorCode || d.Code == transport.NameUnknownErrorCode {
			return true
		}
	}
	return false
}

// registryErrorDiag reports a failed registry call: what failed and at which registry, how to
// fix it, then go-containerregistry's error (method, URL, status, the registry's error codes;
// never a header, so no credential or token reaches the output).
func registryErrorDiag(summary, what string, repo name.Repository, err error) diag.Diagnostic {
	registry := repo.RegistryStr()
	detail := what + " failed at the registry " + registry + "."
	var terr *transport.Error
	status := 0
	if errors.As(err, &terr) {
		status = terr.StatusCode
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		detail += " The registry refused the credentials, or there were none: log in with `docker login " + registry +
			"` (or configure a credential helper in the Docker configuration, $DOCKER_CONFIG/config.json) as an identity " +
			"that may push to " + repo.RepositoryStr() + "."
	case status == http.StatusTooManyRequests || status >= 500:
		detail += " The registry is overloaded or failing; run the command again later."
	case status == 0:
		// No HTTP answer at all: DNS, connection, TLS, or a credential helper that failed.
		detail += " Check that the registry's name is right and that it is reachable from here."
	}
	return diag.NewErrorDiagnostic(summary, detail+"\n\nError: "+err.Error())
}
