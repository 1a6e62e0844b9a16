package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"maps"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

func routerImage(t *testing.T) (*RouterImage, *Router) {
	t.Helper()
	r, _, _ := sharedRouter(t)
	img, err := NewRouterImage(r)
	if err != nil {
		t.Fatal(err)
	}
	return img, r
}

func TestRouterImage_DeterministicDigest(t *testing.T) {
	first, _ := routerImage(t)
	// A second build of the binaries (separate artifact cache) packaged again.
	b, _ := countingBuilder(t, nil)
	r, err := b.Router(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	second, err := NewRouterImage(r)
	if err != nil {
		t.Fatal(err)
	}
	if first.Digest != second.Digest {
		t.Errorf("digest differs between builds: %s then %s", first.Digest, second.Digest)
	}
	// The same builder again: the artifact comes from the cache, and must carry everything the
	// image is made of (the toolchain label too), or a warm plan would differ from a cold one.
	cached, c := countingBuilder(t, nil)
	cached.CacheDir = b.CacheDir
	r, err = cached.Router(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := c.builds(); n != 0 {
		t.Fatalf("the cached router ran go build %d times", n)
	}
	third, err := NewRouterImage(r)
	if err != nil {
		t.Fatal(err)
	}
	if third.Digest != first.Digest || r.GoVersion == "" {
		t.Errorf("from the artifact cache: digest %s (go version %q), want %s", third.Digest, r.GoVersion, first.Digest)
	}
	t.Logf("router image: %s", first.Digest)
}

// The packaging alone, pinned: fixed stand-in binaries must give this digest on every machine,
// with every Go that builds the provider and every go-containerregistry release. A change here
// means every deployed router image would be re-pushed on a provider upgrade (a new digest, a
// rollout) with unchanged router sources, which is exactly what must not happen; change the
// golden value only together with a deliberate change of the image's layout.
func TestRouterImage_GoldenDigest(t *testing.T) {
	var files []File
	for _, p := range RouterPlatforms {
		files = append(files, File{Name: RouterBinaryName(p), MIMEType: MIMEExecutable, Content: []byte("router for " + p.String())})
	}
	a := newArtifact(files)
	a.GoVersion = "go1.26.8"
	img, err := NewRouterImage(&Router{Artifact: a})
	if err != nil {
		t.Fatal(err)
	}
	const golden = "sha256:f6bb3b6a35acb94ce57dc99e6c002804ecf3e418663dd6f179ceb1cdb343bca2"
	if got := img.Digest.String(); got != golden {
		t.Errorf("digest of the fixed binaries = %s, want %s", got, golden)
	}
}

func TestRouterImage_OneNonRootImagePerPlatform(t *testing.T) {
	img, r := routerImage(t)
	assertRouterIndex(t, img.Index, r)
}

// assertRouterIndex checks every promise of the image: platforms, user, entrypoint, times,
// and a single layer holding exactly the binary.
func assertRouterIndex(t *testing.T, idx v1.ImageIndex, r *Router) {
	t.Helper()
	manifest, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if manifest.MediaType != types.OCIImageIndex {
		t.Errorf("index media type %s, want %s", manifest.MediaType, types.OCIImageIndex)
	}
	if len(manifest.Manifests) != len(RouterPlatforms) {
		t.Fatalf("index has %d manifests, want %d", len(manifest.Manifests), len(RouterPlatforms))
	}
	for i, p := range RouterPlatforms {
		desc := manifest.Manifests[i]
		if desc.Platform == nil || desc.Platform.OS != p.OS || desc.Platform.Architecture != p.Arch {
			t.Errorf("manifest %d platform %+v, want %s", i, desc.Platform, p)
		}
		image, err := idx.Image(desc.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := image.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.OS != p.OS || cfg.Architecture != p.Arch {
			t.Errorf("%s: config platform %s/%s", p, cfg.OS, cfg.Architecture)
		}
		if cfg.Config.User != "65532:65532" {
			t.Errorf("%s: user %q, want 65532:65532", p, cfg.Config.User)
		}
		if got := strings.Join(cfg.Config.Entrypoint, " "); got != "/kamuidash-router" {
			t.Errorf("%s: entrypoint %q, want /kamuidash-router", p, got)
		}
		wantLabels := map[string]string{
			"org.opencontainers.image.title":   "kamuidash-router",
			"org.opencontainers.image.version": r.SHA256,
			"org.opencontainers.image.source":  "https://github.com/kamuidash/terraform-provider-kamuidash",
			"io.github.kamuidash.go-version":   r.GoVersion,
		}
		if !maps.Equal(cfg.Config.Labels, wantLabels) {
			t.Errorf("%s: labels %v, want %v", p, cfg.Config.Labels, wantLabels)
		}
		if !cfg.Created.Equal(imageEpoch) {
			t.Errorf("%s: created %v, want the epoch", p, cfg.Created.Time)
		}
		for _, h := range cfg.History {
			if !h.Created.Equal(imageEpoch) {
				t.Errorf("%s: history entry created %v, want the epoch", p, h.Created.Time)
			}
		}
		layers, err := image.Layers()
		if err != nil {
			t.Fatal(err)
		}
		if len(layers) != 1 {
			t.Fatalf("%s: %d layers, want 1", p, len(layers))
		}
		// Uncompressed: a gzip stream would make the digest depend on the compressor.
		if mt, err := layers[0].MediaType(); err != nil || mt != types.OCIUncompressedLayer {
			t.Errorf("%s: layer media type %s (%v), want %s", p, mt, err, types.OCIUncompressedLayer)
		}
		if d, _ := layers[0].Digest(); d != mustDiffID(t, layers[0]) {
			t.Errorf("%s: layer digest %s differs from its diff ID: the layer is compressed", p, d)
		}
		want, _ := r.Binary(p)
		assertLayerHoldsOnly(t, layers[0], "kamuidash-router", want)
	}
}

func mustDiffID(t *testing.T, layer v1.Layer) v1.Hash {
	t.Helper()
	h, err := layer.DiffID()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func assertLayerHoldsOnly(t *testing.T, layer v1.Layer, wantName string, want []byte) {
	t.Helper()
	rc, err := layer.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }() // only read: closing it cannot lose anything
	tr := tar.NewReader(rc)
	hdr, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Name != wantName || hdr.Mode != 0o755 || hdr.Uid != 0 || !hdr.ModTime.Equal(imageEpoch) {
		t.Errorf("layer entry %s mode %o uid %d time %v, want %s 755 root at the epoch",
			hdr.Name, hdr.Mode, hdr.Uid, hdr.ModTime, wantName)
	}
	got, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the layer's binary differs from the built router")
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("the layer holds more than the binary (next: %v)", err)
	}
}

func TestRouterImage_WriteLayout(t *testing.T) {
	img, r := routerImage(t)
	dir := t.TempDir()
	if err := img.WriteLayout(dir); err != nil {
		t.Fatal(err)
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	root, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := root.ImageIndex(img.Digest)
	if err != nil {
		t.Fatalf("the layout has no index %s: %v", img.Digest, err)
	}
	assertRouterIndex(t, idx, r)
}

func TestRouterImage_PushByDigestAndPullBack(t *testing.T) {
	img, r := routerImage(t)
	srv := httptest.NewServer(registry.New(registry.Logger(discardLogger())))
	defer srv.Close()
	// No name.Insecure: the name package speaks plain http to loopback registries by itself,
	// which is what lets the provider push to a local registry with no extra setting.
	repo, err := name.NewRepository(strings.TrimPrefix(srv.URL, "http://") + "/kamuidash/router")
	if err != nil {
		t.Fatal(err)
	}

	if repo.Scheme() != "http" {
		t.Fatalf("%s would be reached over %s", repo, repo.Scheme())
	}
	ref, err := img.Push(context.Background(), repo, remote.WithTransport(srv.Client().Transport))
	if err != nil {
		t.Fatal(err)
	}
	if ref.DigestStr() != img.Digest.String() {
		t.Errorf("pushed as %s, want digest %s", ref, img.Digest)
	}

	pulled, err := remote.Index(ref, remote.WithTransport(srv.Client().Transport))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := pulled.Digest(); got != img.Digest {
		t.Errorf("pulled digest %s, want %s", got, img.Digest)
	}
	assertRouterIndex(t, pulled, r)
}
