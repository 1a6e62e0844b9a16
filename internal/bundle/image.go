package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Router image settings. The binary is the whole image: no base, no shell, no libc (it is
// static), run as the conventional unprivileged "nonroot" ids.
const (
	RouterImageEntrypoint = "/kamuidash-router"
	RouterImageUser       = "65532:65532"
	RouterImageTitle      = "kamuidash-router"
)

// Labels of the router image's config. The version is the router artifact's SHA256, not the
// provider's release: a provider upgrade that leaves the router sources and the toolchain alone
// must leave the digest alone too, or every upgrade would re-push and roll the cluster.
const (
	LabelTitle     = "org.opencontainers.image.title"
	LabelVersion   = "org.opencontainers.image.version"
	LabelSource    = "org.opencontainers.image.source"
	LabelGoVersion = "io.github.kamuidash.go-version"

	routerImageSource = "https://" + modulePath
)

// imageEpoch is every timestamp in the image (config, history, file times), so that the
// digest depends on the binaries alone.
var imageEpoch = time.Unix(0, 0).UTC()

// RouterImage is the router as a multi-platform OCI image index.
type RouterImage struct {
	Index  v1.ImageIndex
	Digest v1.Hash
}

// NewRouterImage packages the router binaries as an OCI image index with one image per
// RouterPlatforms entry. The same binaries always give the same digest: nothing in the image
// depends on the provider binary that packages it (layers are stored uncompressed, so not even
// the gzip of the Go that built the provider matters).
func NewRouterImage(r *Router) (*RouterImage, error) {
	labels := map[string]string{
		LabelTitle:   RouterImageTitle,
		LabelVersion: r.SHA256,
		LabelSource:  routerImageSource,
	}
	if r.GoVersion != "" {
		labels[LabelGoVersion] = r.GoVersion
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range RouterPlatforms {
		binary, err := r.Binary(p)
		if err != nil {
			return nil, err
		}
		img, err := routerPlatformImage(p, binary, labels)
		if err != nil {
			return nil, fmt.Errorf("bundle: router image for %s: %w", p, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: p.OS, Architecture: p.Arch}},
		})
	}
	digest, err := idx.Digest()
	if err != nil {
		return nil, fmt.Errorf("bundle: router image index: %w", err)
	}
	return &RouterImage{Index: idx, Digest: digest}, nil
}

func routerPlatformImage(p Platform, binary []byte, labels map[string]string) (v1.Image, error) {
	layer, err := binaryLayer(binary)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{
		Architecture: p.Arch,
		OS:           p.OS,
		Created:      v1.Time{Time: imageEpoch},
		Config: v1.Config{
			Entrypoint: []string{RouterImageEntrypoint},
			User:       RouterImageUser,
			WorkingDir: "/",
			Labels:     labels,
		},
		RootFS: v1.RootFS{Type: "layers"},
	})
	if err != nil {
		return nil, err
	}
	return mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCIUncompressedLayer,
		History: v1.History{
			Created:   v1.Time{Time: imageEpoch},
			CreatedBy: "kamuidash bundle: " + RouterImageEntrypoint,
		},
	})
}

// binaryLayer is an uncompressed layer holding only the binary at RouterImageEntrypoint, owned
// by root and executable by everyone (so the non-root user can run but not replace it).
// Uncompressed because a gzip stream's bytes depend on the compressor: compress/gzip of the Go
// that built the provider could change them, and with them the digest, on a provider upgrade.
// Registries and runtimes accept the OCI uncompressed media type; the cost is a larger pull.
func binaryLayer(binary []byte) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     RouterImageEntrypoint[1:],
		Mode:     0o755,
		Size:     int64(len(binary)),
		ModTime:  imageEpoch,
		Format:   tar.FormatPAX,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(binary); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return static.NewLayer(buf.Bytes(), types.OCIUncompressedLayer), nil
}

// WriteLayout writes the image index into an OCI image layout at dir (created if needed;
// an existing layout gains the index).
func (img *RouterImage) WriteLayout(dir string) error {
	p, err := layout.FromPath(dir)
	if err != nil {
		if p, err = layout.Write(dir, empty.Index); err != nil {
			return fmt.Errorf("bundle: OCI layout %s: %w", dir, err)
		}
	}
	if err := p.AppendIndex(img.Index); err != nil {
		return fmt.Errorf("bundle: OCI layout %s: %w", dir, err)
	}
	return nil
}

// Push uploads the image index to repo and returns the reference by digest, which is what a
// deployment should name (a tag can move; a digest cannot). opts carry what varies between
// registries: authentication (remote.WithAuth, remote.WithAuthFromKeychain), the transport
// (remote.WithTransport) and so on; the context is added here.
func (img *RouterImage) Push(ctx context.Context, repo name.Repository, opts ...remote.Option) (name.Digest, error) {
	ref := repo.Digest(img.Digest.String())
	opts = append([]remote.Option{remote.WithContext(ctx)}, opts...)
	if err := remote.WriteIndex(ref, img.Index, opts...); err != nil {
		return name.Digest{}, fmt.Errorf("bundle: pushing the router image to %s: %w", repo, err)
	}
	return ref, nil
}
