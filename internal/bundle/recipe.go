package bundle

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
)

// recipe describes one artifact: which source trees it compiles, the go builds that produce
// its binaries, and the files it copies as they are.
type recipe struct {
	name    string
	roots   []string
	targets []target
	// extras returns the files taken from the sources or the toolchain rather than compiled.
	extras func(tc *toolchainInfo, sources []sourceFile) ([]File, error)
}

// target is one go build producing one file.
type target struct {
	platform Platform
	pkg      string   // package directory relative to the module root, e.g. ./worker-src/edge/wasm
	flags    []string // build flags after "go build"
	output   string   // the artifact's file name
	mimeType string
}

func (t target) String() string { return t.pkg + " for " + t.platform.String() }

// reproducibleFlags leave nothing machine- or time-specific in a binary: no paths, no VCS
// stamp, no build id, no symbol tables.
var reproducibleFlags = []string{"-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid="}

// build returns r's artifact from the cache, or builds and caches it.
func (b *Builder) build(ctx context.Context, r recipe) (*Artifact, error) {
	if b.Sources == nil {
		return nil, errors.New("bundle: Builder.Sources is not set")
	}
	cacheDir, err := b.cacheDir()
	if err != nil {
		return nil, err
	}
	tc, err := b.toolchainInfo(ctx)
	if err != nil {
		return nil, err
	}
	sources, err := readSources(b.Sources, r.roots)
	if err != nil {
		return nil, err
	}
	mod, err := newSyntheticModule(sources)
	if err != nil {
		return nil, err
	}
	extras, err := r.extras(tc, sources)
	if err != nil {
		return nil, err
	}
	key := inputKey(r, tc, sources, mod.goMod, extras)
	cache := artifactCache{dir: cacheDir}
	if a := cache.load(key); a != nil {
		a.GoVersion = tc.version
		return a, nil
	}
	// Made before the compile: the go command would report an unusable GOCACHE as a failed build
	// (the provider says "fix the sources"), and an unusable artifact cache only after building.
	for _, dir := range []string{cache.dir, b.goCacheDir(cacheDir)} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("bundle: the build cache is not usable: %w; make %s writable, or point the "+
				"user cache directory (XDG_CACHE_HOME, else HOME) at a writable one", err, dir)
		}
	}
	compiled, err := b.compile(ctx, tc, cacheDir, mod, r.targets)
	if err != nil {
		return nil, err
	}
	a := newArtifact(append(compiled, extras...))
	a.GoVersion = tc.version
	if err := cache.store(key, a); err != nil {
		return nil, err
	}
	return a, nil
}

// inputKey hashes everything that determines r's bytes: the recipe (targets, flags, the
// pinned environment), the synthetic go.mod, the toolchain version, every source path and
// content (the router's dependency tree and its manifest among them, from which vendor/ and
// vendor/modules.txt are derived), and the copied files. Each field is length-prefixed so
// that no two different inputs can produce the same byte stream.
func inputKey(r recipe, tc *toolchainInfo, sources []sourceFile, goMod []byte, extras []File) string {
	h := sha256.New()
	field := func(s string) { writeField(h, []byte(s)) }
	field("kamuidash-bundle-key-v2")
	field(r.name)
	field(tc.version)
	writeField(h, goMod)
	for _, kv := range pinnedEnv {
		field(kv)
	}
	for _, t := range r.targets {
		field(t.platform.String())
		field(t.pkg)
		field(t.output)
		field(t.mimeType)
		for _, f := range t.flags {
			field(f)
		}
	}
	for _, s := range sources {
		field(s.path)
		writeField(h, s.content)
	}
	for _, f := range extras {
		field(f.Name)
		field(f.MIMEType)
		writeField(h, f.Content)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeField(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// compile writes the synthetic module into a temporary directory and runs each target's build.
func (b *Builder) compile(ctx context.Context, tc *toolchainInfo, cacheDir string, mod *syntheticModule, targets []target) ([]File, error) {
	dir, err := os.MkdirTemp("", "kamuidash-bundle-")
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary module: a leftover only takes space
	if err := mod.write(dir); err != nil {
		return nil, err
	}
	outDir := filepath.Join(dir, ".out") // the go command ignores dot directories
	files := make([]File, 0, len(targets))
	for _, t := range targets {
		outPath := filepath.Join(outDir, t.output)
		args := append([]string{"build"}, t.flags...)
		args = append(args, "-o", outPath, t.pkg)
		out, err := b.run(ctx, Invocation{
			Go:   tc.goCmd,
			Args: args,
			Dir:  dir,
			Env:  buildEnv(t.platform, b.goCacheDir(cacheDir), cacheDir),
		})
		if err != nil {
			return nil, &BuildError{Target: t.String(), Output: trimOutput(out), Err: err}
		}
		content, err := os.ReadFile(outPath)
		if err != nil {
			return nil, fmt.Errorf("bundle: building %s: no output: %w", t, err)
		}
		files = append(files, File{Name: t.output, MIMEType: t.mimeType, Content: content})
	}
	return files, nil
}
