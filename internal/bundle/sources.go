package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// SourceRoots are the repository-relative trees the provider must embed: everything the
// Worker and the router compile lives under them.
var SourceRoots = []string{"worker-src", "internal/route"}

// sourceFile is one file copied into the synthetic module.
type sourceFile struct {
	path    string // slash-separated, relative to the repository root
	content []byte
}

// readSources collects the files under roots that a build needs, sorted by path. Test files,
// testdata and the directories the go command itself ignores (., _ prefixes, node_modules)
// are skipped, so editing a test never changes an artifact's cache key. The one exception is
// the router's dependency tree (RouterDepsDir): all of it is read, since its generator copies
// only what the build needs (sources, assembly, embedded files, licenses) and its manifest.
func readSources(fsys fs.FS, roots []string) ([]sourceFile, error) {
	var files []sourceFile
	for _, root := range roots {
		err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			inDeps := p == RouterDepsDir || strings.HasPrefix(p, RouterDepsDir+"/")
			if d.IsDir() {
				if p != root && !inDeps && skippedDir(name) {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !(inDeps || neededFile(name)) {
				return nil
			}
			content, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			files = append(files, sourceFile{path: path.Clean(p), content: content})
			return nil
		})
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("bundle: the sources have no %s/ tree (embed %s): %w",
				root, strings.Join(SourceRoots, " "), err)
		}
		if err != nil {
			return nil, fmt.Errorf("bundle: reading sources: %w", err)
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return files, nil
}

func skippedDir(name string) bool {
	return name == "testdata" || name == "node_modules" ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

func neededFile(name string) bool {
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return false
	}
	switch path.Ext(name) {
	case ".go":
		return !strings.HasSuffix(name, "_test.go")
	case ".mjs", ".js":
		return true
	}
	return false
}

// sourceFileAt returns the content of the source at p.
func sourceFileAt(files []sourceFile, p string) ([]byte, bool) {
	i := sort.Search(len(files), func(i int) bool { return files[i].path >= p })
	if i < len(files) && files[i].path == p {
		return files[i].content, true
	}
	return nil, false
}
