package provider

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/bundle"
)

const routerImageAddr = "kamuidash_router_image.router"

// newTestRegistry serves go-containerregistry's in-process registry on a loopback port, with wrap
// (when not nil) in front of it, and returns its host:port. Loopback registries are reached over
// plain http with no setting, which is what the tests rely on. The Docker configuration is an
// empty directory of the test's own, so the developer's credentials never take part.
func newTestRegistry(t *testing.T, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	var h = registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	return strings.TrimPrefix(srv.URL, "http://")
}

func routerImageConfig(edge *testEdge, repository string) string {
	return edge.providerBlock() + fmt.Sprintf(`
resource "kamuidash_router_image" "router" {
  repository = %q
}
`, repository)
}

// expectedRouterImage is the image the provider must compute: the same sources, built by a
// builder of the test's own (a hit in the shared artifact cache once either has built).
func expectedRouterImage(t *testing.T) *bundle.RouterImage {
	t.Helper()
	r, err := (&bundle.Builder{Sources: testSources}).Router(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	img, err := bundle.NewRouterImage(r)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func mustDigest(t *testing.T, ref string) name.Digest {
	t.Helper()
	d, err := name.NewDigest(ref)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// pulledRouterImage pulls ref back and checks what a cluster depends on: an index of both
// platforms, each running the router as the non-root user.
func pulledRouterImage(ref name.Digest) error {
	idx, err := remote.Index(ref)
	if err != nil {
		return fmt.Errorf("pulling %s: %w", ref, err)
	}
	manifest, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	var platforms []string
	for _, m := range manifest.Manifests {
		img, err := idx.Image(m.Digest)
		if err != nil {
			return err
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			return err
		}
		platforms = append(platforms, cfg.OS+"/"+cfg.Architecture)
		if cfg.Config.User != "65532:65532" || strings.Join(cfg.Config.Entrypoint, " ") != "/kamuidash-router" {
			return fmt.Errorf("%s/%s: user %q entrypoint %q", cfg.OS, cfg.Architecture, cfg.Config.User, cfg.Config.Entrypoint)
		}
	}
	if got := strings.Join(platforms, " "); got != "linux/amd64 linux/arm64" {
		return fmt.Errorf("pulled platforms %s, want linux/amd64 linux/arm64", got)
	}
	return nil
}

func TestAccRouterImage_Lifecycle(t *testing.T) {
	edge := newTestEdge(t)
	host := newTestRegistry(t, nil)
	want := expectedRouterImage(t)
	repo, moved := host+"/kamuidash/router", host+"/platform/router"
	ref, movedRef := mustDigest(t, repo+"@"+want.Digest.String()), mustDigest(t, moved+"@"+want.Digest.String())
	platforms := knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("linux/amd64"), knownvalue.StringExact("linux/arm64")})

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		// Destroy leaves the image where running pods can still pull it, in both repositories.
		CheckDestroy: func(*terraform.State) error {
			for _, r := range []name.Digest{ref, movedRef} {
				if _, err := remote.Head(r); err != nil {
					return fmt.Errorf("%s is gone after destroy: %w", r, err)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: routerImageConfig(edge, repo),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					// The digest and the reference are in the plan, before anything is pushed.
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(routerImageAddr, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(routerImageAddr, tfjsonpath.New("digest"), knownvalue.StringExact(want.Digest.String())),
						plancheck.ExpectKnownValue(routerImageAddr, tfjsonpath.New("image_ref"), knownvalue.StringExact(ref.String())),
						plancheck.ExpectKnownValue(routerImageAddr, tfjsonpath.New("platforms"), platforms),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(routerImageAddr, tfjsonpath.New("id"), knownvalue.StringExact(ref.String())),
					statecheck.ExpectKnownValue(routerImageAddr, tfjsonpath.New("pushed"), knownvalue.Bool(true)),
				},
				Check: func(*terraform.State) error { return pulledRouterImage(ref) },
			},
			{
				// Same sources and toolchain: the same digest, nothing to do.
				Config: routerImageConfig(edge, repo),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// The image deleted behind Terraform's back: the refresh notices, the plan pushes
				// the same digest again, and the reference deployments use stays as it was.
				PreConfig: func() {
					if err := remote.Delete(ref); err != nil {
						t.Fatal(err)
					}
					if _, err := remote.Head(ref); !isManifestUnknown(err) {
						t.Fatalf("%s still there after the delete (%v)", ref, err)
					}
				},
				Config: routerImageConfig(edge, repo),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(routerImageAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(routerImageAddr, tfjsonpath.New("pushed"), knownvalue.Bool(true)),
						plancheck.ExpectKnownValue(routerImageAddr, tfjsonpath.New("image_ref"), knownvalue.StringExact(ref.String())),
					},
				},
				Check: func(*terraform.State) error { return pulledRouterImage(ref) },
			},
			{
				// Another repository is another push (and the old one keeps its copy).
				Config: routerImageConfig(edge, moved),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(routerImageAddr, plancheck.ResourceActionReplace),
						plancheck.ExpectKnownValue(routerImageAddr, tfjsonpath.New("image_ref"), knownvalue.StringExact(movedRef.String())),
					},
				},
				Check: func(*terraform.State) error { return pulledRouterImage(movedRef) },
			},
			{
				ResourceName:      routerImageAddr,
				ImportState:       true,
				ImportStateVerify: true,
			},
		},
	})
}

// Credentials come from the Docker configuration, as `docker login` writes them; refused ones
// are a diagnostic that names the registry and says how to log in, and the password shows up in
// no log line and no error.
func TestAccRouterImage_DockerConfigCredentials(t *testing.T) {
	edge := newTestEdge(t)
	const user, password = "ci", "registry-password-must-never-be-printed"
	host := newTestRegistry(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != user || p != password {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	login := func(pass string) func() {
		return func() {
			auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
			config := fmt.Sprintf(`{"auths": {%q: {"auth": %q}}}`, host, auth)
			if err := os.WriteFile(filepath.Join(os.Getenv("DOCKER_CONFIG"), "config.json"), []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	logDir := t.TempDir()
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(logDir, "%s.log"))
	t.Setenv("TF_ACC_LOG", "TRACE")
	t.Setenv("TF_LOG", "TRACE")
	repo := host + "/kamuidash/router"

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:   login("wrong-password"),
				Config:      routerImageConfig(edge, repo),
				ExpectError: regexp.MustCompile(`(?s)Unable to Push Router Image.*` + regexp.QuoteMeta(host) + `.*docker\s+login`),
			},
			{
				PreConfig: login(password),
				Config:    routerImageConfig(edge, repo),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(routerImageAddr, tfjsonpath.New("pushed"), knownvalue.Bool(true)),
				},
			},
		},
	})

	logs, err := filepath.Glob(filepath.Join(logDir, "*.log"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no logs were written (%v): the check below would pass vacuously", err)
	}
	secrets := []string{password, base64.StdEncoding.EncodeToString([]byte(user + ":" + password))}
	sawPush := false
	for _, f := range logs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sawPush = sawPush || strings.Contains(string(b), "Pushed router image")
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("%s contains the registry credentials", filepath.Base(f))
			}
		}
	}
	if !sawPush {
		t.Error("no log holds the provider's push: the logs checked are not the provider's")
	}
}

func TestAccRouterImage_ValidatedAtPlan(t *testing.T) {
	edge := newTestEdge(t)
	for _, repo := range []string{"registry.example.com/team/router:latest", "Registry.example.com/Team/Router", "registry.example.com/team/router@sha256:" + strings.Repeat("0", 64)} {
		t.Run(repo, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      routerImageConfig(edge, repo),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Value.*OCI\s+repository\s+without\s+tag\s+or\s+digest`),
				}},
			})
		})
	}
}

func TestAccRouterImage_MissingToolchainIsAPlanDiagnostic(t *testing.T) {
	edge := newTestEdge(t)
	t.Setenv(bundle.GoEnvVar, "/nonexistent/go")
	t.Setenv("PATH", "/nonexistent")
	resource.Test(t, resource.TestCase{
		// A provider of its own: the shared one's builder may have found the toolchain already
		// and remembers it.
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"kamuidash": providerserver.NewProtocol6WithError(New("test", testSources)()),
		},
		Steps: []resource.TestStep{{
			Config:      routerImageConfig(edge, "registry.example.com/team/router"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Go Toolchain Not Found.*install Go`),
		}},
	})
}

func TestAccRouterImage_ImportChecksTheRegistry(t *testing.T) {
	edge := newTestEdge(t)
	host := newTestRegistry(t, nil)
	repo := host + "/kamuidash/router"
	for name, tc := range map[string]struct{ id, want string }{
		"not a digest reference": {repo + ":latest", `Invalid Import ID`},
		"not in the registry":    {repo + "@sha256:" + strings.Repeat("0", 64), `(?s)Router Image Not Found.*` + regexp.QuoteMeta(host)},
	} {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:        routerImageConfig(edge, repo),
					ResourceName:  routerImageAddr,
					ImportState:   true,
					ImportStateId: tc.id,
					ExpectError:   regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}

func TestRouterImage_RegistryErrors(t *testing.T) {
	repo, err := name.NewRepository("registry.example.com/team/router")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		err     error
		missing bool
		detail  string
	}{
		{&transport.Error{StatusCode: http.StatusNotFound}, true, ""},
		{&transport.Error{StatusCode: http.StatusNotFound, Errors: []transport.Diagnostic{{Code: transport.ManifestUnknownErrorCode}}}, true, ""},
		{&transport.Error{StatusCode: http.StatusBadRequest, Errors: []transport.Diagnostic{{Code: transport.NameUnknownErrorCode}}}, true, ""},
		{&transport.Error{StatusCode: http.StatusUnauthorized}, false, "docker login registry.example.com"},
		{&transport.Error{StatusCode: http.StatusForbidden}, false, "may push to team/router"},
		{&transport.Error{StatusCode: http.StatusServiceUnavailable}, false, "run the command again later"},
		{fmt.Errorf("wrapped: %w", errors.New("dial tcp: connection refused")), false, "reachable from here"},
	} {
		if got := isManifestUnknown(tc.err); got != tc.missing {
			t.Errorf("isManifestUnknown(%v) = %v, want %v", tc.err, got, tc.missing)
		}
		if tc.missing {
			continue
		}
		d := registryErrorDiag("Unable to Read Router Image", "Looking up the image", repo, tc.err)
		if !strings.Contains(d.Detail(), "at the registry registry.example.com") || !strings.Contains(d.Detail(), tc.detail) {
			t.Errorf("diagnostic for %v:\n%s\nwant the registry named and %q", tc.err, d.Detail(), tc.detail)
		}
	}
}
