package bundle

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// modulePath is the synthetic module's path: this repository's, so that worker-src imports
// of internal/route resolve inside it.
const modulePath = "github.com/kamuidash/terraform-provider-kamuidash"

// syntheticModule is the temporary module a recipe builds in: the sources at their repository
// paths, the router's dependency tree (RouterDepsDir, when the sources carry one) as vendor/
// with the vendor/modules.txt the go command reads, and a go.mod requiring exactly the vendored
// modules. Built with -mod=vendor and GOPROXY=off, it needs nothing from any module proxy or
// module cache.
type syntheticModule struct {
	goMod []byte
	files []sourceFile // at their paths inside the module, sorted
}

// newSyntheticModule lays out sources as a module. A dependency tree that does not agree with
// its manifest is an error here, with the command that regenerates it, rather than a puzzling
// compiler message later.
func newSyntheticModule(sources []sourceFile) (*syntheticModule, error) {
	var (
		files    []sourceFile
		manifest []byte
		vendored = map[string]bool{} // directories under vendor/ that hold files
	)
	for _, s := range sources {
		rel, inDeps := strings.CutPrefix(s.path, RouterDepsDir+"/")
		switch {
		case !inDeps:
			files = append(files, s)
		case rel == DepsManifestName:
			manifest = s.content
		default:
			files = append(files, sourceFile{path: "vendor/" + rel, content: s.content})
			vendored[path.Dir(rel)] = true
		}
	}
	if manifest == nil && len(vendored) > 0 {
		return nil, fmt.Errorf("bundle: %s has no %s: run 'make router-deps'", RouterDepsDir, DepsManifestName)
	}
	mods, err := ParseDepsManifest(manifest)
	if err != nil {
		return nil, err
	}
	for _, m := range mods {
		for _, p := range m.Packages {
			if !vendored[p] {
				return nil, fmt.Errorf("bundle: %s lists package %s but the tree has no files for it: run 'make router-deps'", DepsManifestName, p)
			}
		}
	}
	goMod, err := syntheticGoMod(mods)
	if err != nil {
		return nil, err
	}
	if manifest != nil {
		files = append(files, sourceFile{path: "vendor/modules.txt", content: vendorModulesTxt(mods)})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return &syntheticModule{goMod: goMod, files: files}, nil
}

// syntheticGoMod requires the vendored modules at their versions, each explicitly, which is what
// the go command checks vendor/modules.txt against.
func syntheticGoMod(mods []DepModule) ([]byte, error) {
	f := new(modfile.File)
	if err := f.AddModuleStmt(modulePath); err != nil {
		return nil, fmt.Errorf("bundle: go.mod: %w", err)
	}
	if err := f.AddGoStmt(minGoVersion); err != nil {
		return nil, fmt.Errorf("bundle: go.mod: %w", err)
	}
	for _, m := range sortedDepModules(mods) {
		f.AddNewRequire(m.Path, m.Version, false)
	}
	f.Cleanup()
	out, err := f.Format()
	if err != nil {
		return nil, fmt.Errorf("bundle: go.mod: %w", err)
	}
	return out, nil
}

// vendorModulesTxt is vendor/modules.txt as `go mod vendor` writes it for a go 1.17+ module:
// each module "## explicit" (it is required in go.mod) with its go version, then its packages.
func vendorModulesTxt(mods []DepModule) []byte {
	var b bytes.Buffer
	for _, m := range sortedDepModules(mods) {
		fmt.Fprintf(&b, "# %s %s\n", m.Path, m.Version)
		if m.GoVersion != "" {
			fmt.Fprintf(&b, "## explicit; go %s\n", m.GoVersion)
		} else {
			b.WriteString("## explicit\n")
		}
		for _, p := range m.Packages {
			fmt.Fprintf(&b, "%s\n", p)
		}
	}
	return b.Bytes()
}

// write creates the module in dir.
func (m *syntheticModule) write(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), m.goMod, 0o644); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	for _, s := range m.files {
		p := filepath.Join(dir, filepath.FromSlash(s.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		if err := os.WriteFile(p, s.content, 0o644); err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
	}
	return nil
}
