package bundle

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"golang.org/x/mod/modfile"
)

func TestDepsManifest_FormatThenParseIsTheSame(t *testing.T) {
	mods := []DepModule{
		{Path: "example.com/b", Version: "v1.0.0", Sum: "h1:bbb=", Packages: []string{"example.com/b"}},
		{Path: "example.com/a", Version: "v0.2.0", Sum: "h1:aaa=", GoVersion: "1.22.0",
			Packages: []string{"example.com/a/z", "example.com/a"}},
	}
	data := FormatDepsManifest(mods)
	got, err := ParseDepsManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []DepModule{
		{Path: "example.com/a", Version: "v0.2.0", Sum: "h1:aaa=", GoVersion: "1.22.0",
			Packages: []string{"example.com/a", "example.com/a/z"}},
		{Path: "example.com/b", Version: "v1.0.0", Sum: "h1:bbb=", Packages: []string{"example.com/b"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsed %+v\nwant   %+v", got, want)
	}
	if again := FormatDepsManifest(got); string(again) != string(data) {
		t.Errorf("formatting is not stable:\n%s\nthen\n%s", data, again)
	}
}

func TestDepsManifest_RefusesWhatItDidNotWrite(t *testing.T) {
	for name, body := range map[string]string{
		"unknown keyword":         "module example.com/a v1.0.0 h1:x=\nfile example.com/a/a.go\n",
		"package before a module": "package example.com/a\n",
		"package of another path": "module example.com/a v1.0.0 h1:x=\npackage example.com/b\n",
		"package twice":           "module example.com/a v1.0.0 h1:x=\npackage example.com/a\npackage example.com/a\n",
		"module twice":            "module example.com/a v1.0.0 h1:x=\nmodule example.com/a v1.0.0 h1:x=\n",
		"bad version":             "module example.com/a 1.0 h1:x=\n",
		"hash not h1":             "module example.com/a v1.0.0 sha256:x\n",
		"go after packages":       "module example.com/a v1.0.0 h1:x=\npackage example.com/a\ngo 1.22\n",
		"bad go version":          "module example.com/a v1.0.0 h1:x=\ngo one\n",
	} {
		if _, err := ParseDepsManifest([]byte(body)); err == nil {
			t.Errorf("%s: parsed without an error:\n%s", name, body)
		} else if !strings.Contains(err.Error(), DepsManifestName+":") {
			t.Errorf("%s: the error does not point at the manifest: %v", name, err)
		}
	}
}

// The synthetic module carries the tree as vendor/ and a go.mod and vendor/modules.txt that
// agree with each other and with the manifest (the go command refuses inconsistent vendoring).
func TestSyntheticModule_VendorsTheDependencyTree(t *testing.T) {
	sources, err := readSources(repoSources, routerRecipe.roots)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := newSyntheticModule(sources)
	if err != nil {
		t.Fatal(err)
	}
	manifest, ok := sourceFileAt(sources, RouterDepsDir+"/"+DepsManifestName)
	if !ok {
		t.Fatalf("the sources have no %s/%s", RouterDepsDir, DepsManifestName)
	}
	mods, err := ParseDepsManifest(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) == 0 {
		t.Fatal("the manifest lists no modules")
	}

	gm, err := modfile.Parse("go.mod", mod.goMod, nil)
	if err != nil {
		t.Fatal(err)
	}
	required := map[string]string{}
	for _, r := range gm.Require {
		required[r.Mod.Path] = r.Mod.Version
	}
	modulesTxt, _ := sourceFileAt(mod.files, "vendor/modules.txt")
	for _, m := range mods {
		if required[m.Path] != m.Version {
			t.Errorf("go.mod requires %s %q, the manifest says %s", m.Path, required[m.Path], m.Version)
		}
		if !strings.Contains(string(modulesTxt), "# "+m.Path+" "+m.Version+"\n## explicit") {
			t.Errorf("vendor/modules.txt does not mark %s %s explicit:\n%s", m.Path, m.Version, modulesTxt)
		}
	}
	if len(gm.Require) != len(mods) {
		t.Errorf("go.mod requires %d modules, the manifest lists %d", len(gm.Require), len(mods))
	}

	var vendored, treeFiles int
	for _, s := range mod.files {
		if strings.HasPrefix(s.path, RouterDepsDir) {
			t.Errorf("%s is in the module at its repository path; the tree belongs in vendor/", s.path)
		}
		if strings.HasPrefix(s.path, "vendor/") && s.path != "vendor/modules.txt" {
			vendored++
		}
	}
	for _, s := range sources {
		if strings.HasPrefix(s.path, RouterDepsDir+"/") {
			treeFiles++
		}
	}
	if vendored != treeFiles-1 { // the manifest itself stays behind
		t.Errorf("%d files under vendor/, want the tree's %d less the manifest", vendored, treeFiles)
	}
}

func TestSyntheticModule_RefusesATreeThatDisagreesWithItsManifest(t *testing.T) {
	manifest := FormatDepsManifest([]DepModule{{Path: "example.com/a", Version: "v1.0.0", Sum: "h1:x=",
		Packages: []string{"example.com/a", "example.com/a/sub"}}})
	for name, files := range map[string][]sourceFile{
		"a listed package without files": {
			{path: RouterDepsDir + "/" + DepsManifestName, content: manifest},
			{path: RouterDepsDir + "/example.com/a/a.go", content: []byte("package a\n")},
		},
		"files without a manifest": {
			{path: RouterDepsDir + "/example.com/a/a.go", content: []byte("package a\n")},
		},
	} {
		_, err := newSyntheticModule(files)
		if err == nil || !strings.Contains(err.Error(), "make router-deps") {
			t.Errorf("%s: err = %v, want one that says to run make router-deps", name, err)
		}
	}
}

// The cache key covers the dependency tree: editing one of its files is a new input for the
// router, and none for the Worker, which does not build with it.
func TestRouterDeps_EditChangesTheRouterKeyOnly(t *testing.T) {
	depFile := ""
	for _, p := range slices.Sorted(maps.Keys(repoSources)) {
		if strings.HasPrefix(p, RouterDepsDir+"/github.com/valyala/fasthttp/") && strings.HasSuffix(p, ".go") {
			depFile = p
			break
		}
	}
	if depFile == "" {
		t.Fatalf("no fasthttp source under %s", RouterDepsDir)
	}
	edited := repoCopy(t)
	editComment(t, edited, depFile)
	tc := &toolchainInfo{version: PinnedToolchain}
	key := func(r recipe, fsys fstest.MapFS) string {
		t.Helper()
		sources, err := readSources(fsys, r.roots)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := newSyntheticModule(sources)
		if err != nil {
			t.Fatal(err)
		}
		return inputKey(r, tc, sources, mod.goMod, nil)
	}
	if key(routerRecipe, repoSources) == key(routerRecipe, edited) {
		t.Errorf("editing %s left the router's input key unchanged", depFile)
	}
	if key(workerRecipe, repoSources) != key(workerRecipe, edited) {
		t.Errorf("editing %s changed the Worker's input key", depFile)
	}
}

// The committed tree is what go.mod, the router's imports and the module cache give today.
// Like the docs drift check, it fails until `make router-deps` has been run and committed.
func TestRouterDeps_CommittedTreeIsCurrent(t *testing.T) {
	err := CheckRouterDeps(context.Background(), filepath.Join("..", ".."))
	if errors.Is(err, ErrRouterDepsStale) && !strings.Contains(err.Error(), "make router-deps") {
		t.Errorf("the stale-tree error does not say what to run: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestCompareTrees_NamesEveryDifference(t *testing.T) {
	write := func(dir string, files map[string]string) {
		for p, content := range files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, want := t.TempDir(), t.TempDir()
	write(got, map[string]string{"same.go": "x", "a/changed.go": "old", "extra.go": "x"})
	write(want, map[string]string{"same.go": "x", "a/changed.go": "new", "b/new.go": "x"})
	diffs, err := compareTrees(got, want)
	if err != nil {
		t.Fatal(err)
	}
	wantDiffs := []string{"differs: a/changed.go", "missing: b/new.go", "not needed: extra.go"}
	if !reflect.DeepEqual(diffs, wantDiffs) {
		t.Errorf("diffs = %q, want %q", diffs, wantDiffs)
	}
	if diffs, err := compareTrees(filepath.Join(got, "absent"), want); err != nil || len(diffs) != 3 {
		t.Errorf("against a missing tree: %q, %v; want every file missing", diffs, err)
	}
}
