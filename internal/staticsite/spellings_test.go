package staticsite

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// Names spelled with escapes, so that what each test writes is visible: "é" composed (NFC)
// and decomposed (NFD), and "が" likewise.
const (
	cafeNFC = "caf\u00e9"
	cafeNFD = "cafe\u0301"
	gaNFC   = "\u304c"
	gaNFD   = "\u304b\u3099"
)

func paths(m *Manifest) map[string]File {
	out := make(map[string]File, len(m.Files))
	for _, f := range m.Files {
		out[f.Path] = f
	}
	return out
}

// A file named in one spelling is served in the other as well, as the same object: a browser
// sends whichever spelling its link or its user typed.
func TestRead_ServesANameInBothUnicodeSpellings(t *testing.T) {
	m, err := Read(writeSite(t, map[string]string{
		cafeNFD + ".html":     "menu",  // as HFS+ writes it
		gaNFC + "/index.html": "kana",  // as an editor on Linux writes it
		"assets/app.js":       "ascii", // one spelling only
		gaNFC + "/" + cafeNFD: "mixed", // each segment in its own form: both whole spellings
		"index.html":          "home",
	}))
	if err != nil {
		t.Fatal(err)
	}
	got := paths(m)
	for _, pair := range [][2]string{
		{cafeNFD + ".html", cafeNFC + ".html"},
		{gaNFC + "/index.html", gaNFD + "/index.html"},
		{gaNFC + "/" + cafeNFD, gaNFC + "/" + cafeNFC},
		{gaNFC + "/" + cafeNFD, gaNFD + "/" + cafeNFD},
	} {
		file, alias := got[pair[0]], got[pair[1]]
		if file.Path == "" || alias.Path == "" {
			t.Fatalf("%+q and %+q should both be served; the manifest has %+q", pair[0], pair[1], keys(got))
		}
		if alias.SHA256 != file.SHA256 || alias.Size != file.Size || alias.ContentType != file.ContentType {
			t.Errorf("%+q is served as %+v, not as %+q's content %+v", pair[1], alias, pair[0], file)
		}
	}
	if len(got) != 9 { // 5 files: 3 with one more spelling, the mixed one with two
		t.Errorf("the manifest has %d paths, want 9: %+q", len(got), keys(got))
	}
	if n := len(m.Objects()); n != 5 {
		t.Errorf("%d objects to upload, want 5: another spelling is the same object", n)
	}
	for p := range m.Site().Files {
		if !norm.NFC.IsNormalString(p) && !norm.NFD.IsNormalString(p) && p != gaNFC+"/"+cafeNFD {
			t.Errorf("%+q is in neither form: only canonical spellings are added", p)
		}
	}

	// The same files read again are the same version; the other spelling is part of it.
	again, err := Read(writeSite(t, map[string]string{cafeNFD + ".html": "menu", gaNFC + "/index.html": "kana",
		"assets/app.js": "ascii", gaNFC + "/" + cafeNFD: "mixed", "index.html": "home"}))
	if err != nil {
		t.Fatal(err)
	}
	if again.Version != m.Version {
		t.Errorf("the same files gave versions %s and %s", m.Version, again.Version)
	}
}

// Two files whose names are one name in two spellings are refused, naming both: a visitor may
// be sent either, and Terraform could not tell them apart in the files attribute.
func TestRead_RefusesTwoFilesOfOneNameInTwoSpellings(t *testing.T) {
	// Composed and decomposed; then two names in neither form with the same canonical forms
	// (the accents in another order; "é" composed before a dot below); then the Kelvin sign,
	// whose NFC is the ASCII "K".
	for _, pair := range [][2]string{
		{cafeNFC, cafeNFD},
		{"e\u0301\u0323.txt", "\u00e9\u0323.txt"},
		{"\u212a.txt", "K.txt"},
	} {
		if norm.NFC.String(pair[0]) != norm.NFC.String(pair[1]) || pair[0] == pair[1] {
			t.Fatalf("%+q: not one name in two spellings", pair)
		}
		_, err := Read(writeSite(t, map[string]string{pair[0]: "one", pair[1]: "two"}))
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%+q", pair[0])) || !strings.Contains(err.Error(), fmt.Sprintf("%+q", pair[1])) ||
			!strings.Contains(err.Error(), "rename one") {
			t.Errorf("%+q: error %v, want both names and what to do", pair, err)
		}
	}
}

// NFD is longer than NFC: a spelling the Worker would not serve (over MaxPathBytes) is left
// out, and the file is still served under its own name rather than the plan failing.
func TestRead_LeavesOutASpellingTooLongToServe(t *testing.T) {
	// Segments of 100 "é" (200 bytes composed, 300 decomposed), five of them and a short file
	// name: 1,000-odd bytes composed, within MaxPathBytes; half as long again decomposed.
	seg := strings.Repeat("\u00e9", 100)
	name := strings.Join([]string{seg, seg, seg, seg, seg, "x"}, "/")
	if len(name) > MaxPathBytes || len(norm.NFD.String(name)) <= MaxPathBytes {
		t.Fatalf("test path: %d bytes, %d decomposed", len(name), len(norm.NFD.String(name)))
	}
	m, err := Read(writeSite(t, map[string]string{name: "deep"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(paths(m)); len(got) != 1 || got[0] != name {
		t.Fatalf("manifest paths %+q, want the file's own name alone", got)
	}
}

// A site of ASCII names has one spelling of each: the version a provider before this change
// gave it stays, so upgrading the provider publishes nothing again.
func TestRead_ASCIISiteKeepsItsVersion(t *testing.T) {
	m, err := Read(writeSite(t, map[string]string{"index.html": "<h1>hi</h1>", "assets/app.js": "1", "assets/logo.svg": "<svg/>"}))
	if err != nil {
		t.Fatal(err)
	}
	const before = "926b205527d75b4a" // what the provider gave it before sites were served in both spellings
	if m.Version != before {
		t.Fatalf("version %s, want %s as before", m.Version, before)
	}
}

func keys(m map[string]File) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
