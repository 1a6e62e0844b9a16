package bundle

import (
	"context"
	"fmt"
	"slices"
)

// RouterPlatforms are the platforms the router is built for.
var RouterPlatforms = []Platform{{OS: "linux", Arch: "amd64"}, {OS: "linux", Arch: "arm64"}}

// Router holds the router's static binaries, one file per platform named by RouterBinaryName.
type Router struct {
	*Artifact
}

// RouterBinaryName is the file name of the router binary for p.
func RouterBinaryName(p Platform) string {
	return "kamuidash-router-" + p.OS + "-" + p.Arch
}

// Binary returns the router binary for p.
func (r *Router) Binary(p Platform) ([]byte, error) {
	f, ok := r.File(RouterBinaryName(p))
	if !ok {
		return nil, fmt.Errorf("bundle: no router binary for %s", p)
	}
	return f.Content, nil
}

var routerRecipe = func() recipe {
	r := recipe{
		name:   "router",
		roots:  []string{"worker-src/router", "internal/route"},
		extras: func(*toolchainInfo, []sourceFile) ([]File, error) { return nil, nil },
	}
	for _, p := range RouterPlatforms {
		r.targets = append(r.targets, target{
			platform: p,
			pkg:      "./worker-src/router/cmd/kamuidash-router",
			// The third-party packages come from the dependency tree as vendor/ only.
			flags:    append(slices.Clone(reproducibleFlags), "-mod=vendor"),
			output:   RouterBinaryName(p),
			mimeType: MIMEExecutable,
		})
	}
	return r
}()

// Router returns the router's static linux binaries built from b.Sources, from the cache when
// the inputs are unchanged.
func (b *Builder) Router(ctx context.Context) (*Router, error) {
	a, err := b.build(ctx, routerRecipe)
	if err != nil {
		return nil, err
	}
	return &Router{Artifact: a}, nil
}
