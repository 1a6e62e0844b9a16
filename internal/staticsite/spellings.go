package staticsite

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Unicode has two spellings for many names: "é" is one code point (NFC, composed) or "e" and a
// combining accent (NFD, decomposed), and "が" is "が" or "か" and a voicing mark. A browser
// sends a path in the spelling of the link or of what was typed, without normalising it
// (WHATWG URL), and the Worker looks the path up byte for byte. File names come in whichever
// spelling made them: macOS's HFS+ and some archivers write NFD, most editors and Linux tools
// NFC, and an href dragged from macOS's Finder into an editor is NFD. So a file named in one
// spelling and linked in the other would be a 404 however the site was built.
//
// withOtherSpellings therefore serves each such file under both spellings: the manifest maps
// the other one to the same object (no second upload: Objects shares content by hash). A
// spelling longer than MaxPathBytes (NFD is longer) is left out, not refused: the file is
// still served under its own name. Only the canonical forms are used, never the compatibility
// ones (NFKC folds "ﬁ" into "fi", another name). A name in plain ASCII has one spelling, so a
// site of such names gets no new paths and keeps its version.
//
// Two files whose names are one name in two spellings are refused: a visitor could be sent
// either, and Terraform itself keeps every string in NFC (its files attribute could not tell
// the two apart; see NameKey).
func withOtherSpellings(files []File) ([]File, error) {
	byKey := make(map[string]string, len(files))
	var aliases []File
	for _, f := range files {
		key := NameKey(f.Path)
		if other, ok := byKey[key]; ok {
			return nil, fmt.Errorf("%+q and %+q are one name in two Unicode spellings (composed and decomposed); "+
				"a browser may ask for either, so rename one of them", other, f.Path)
		}
		byKey[key] = f.Path
		// A spelling can be no other file's: its NFC would be this file's key. The two may be
		// one string, for a name in neither form whose marks compose with nothing.
		composed, decomposed := key, norm.NFD.String(f.Path)
		for i, spelling := range [...]string{composed, decomposed} {
			if spelling != f.Path && len(spelling) <= MaxPathBytes && (i == 0 || spelling != composed) {
				alias := f
				alias.Path = spelling
				alias.ContentType = ContentType(spelling) // the same in practice (an ASCII extension), but a path's own
				aliases = append(aliases, alias)
			}
		}
	}
	if len(aliases) == 0 {
		return files, nil
	}
	files = append(files, aliases...)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}

// NameKey is a site path as Terraform keeps it: in NFC, the composed spelling, as Terraform
// normalises every string it holds. The files attribute is keyed by it, one entry per file
// whichever spelling the file has, so a plan compares what it read with what the state holds.
func NameKey(p string) string { return norm.NFC.String(p) }
