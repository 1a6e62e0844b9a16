package route

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const testObject = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func testManifest() SiteManifest {
	return SiteManifest{Files: map[string]SiteFile{
		"index.html":    {Object: testObject, Type: "text/html; charset=utf-8", Size: 4},
		"assets/app.js": {Object: strings.Repeat("a", 64), Type: "text/javascript; charset=utf-8", Size: 0},
	}}
}

func TestSiteManifestRoundTripIsCanonical(t *testing.T) {
	a, err := EncodeSiteManifest(testManifest())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := EncodeSiteManifest(testManifest())
	if string(a) != string(b) {
		t.Fatalf("two encodings of one manifest differ:\n%s\n%s", a, b)
	}
	if !strings.HasPrefix(string(a), `{"v":1,"files":{"assets/app.js":`) {
		t.Errorf("encoding = %s; want version first and paths in order", a)
	}
	m, err := DecodeSiteManifest(a)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Files["index.html"], testManifest().Files["index.html"]) || len(m.Files) != 2 {
		t.Errorf("decoded %+v", m)
	}
}

func TestSiteManifestRefusesWhatTheWorkerMustNotServe(t *testing.T) {
	cases := []struct {
		name string
		edit func(*SiteManifest)
	}{
		{"no files", func(m *SiteManifest) { m.Files = nil }},
		{"parent segment", func(m *SiteManifest) { m.Files["../x"] = SiteFile{Object: testObject, Type: "a/b"} }},
		{"absolute", func(m *SiteManifest) { m.Files["/x"] = SiteFile{Object: testObject, Type: "a/b"} }},
		{"backslash", func(m *SiteManifest) { m.Files[`a\b`] = SiteFile{Object: testObject, Type: "a/b"} }},
		{"too long", func(m *SiteManifest) {
			m.Files[strings.Repeat("a", MaxSitePathBytes+1)] = SiteFile{Object: testObject, Type: "a/b"}
		}},
		{"upper-case hash", func(m *SiteManifest) { m.Files["x"] = SiteFile{Object: strings.ToUpper(testObject), Type: "a/b"} }},
		{"short hash", func(m *SiteManifest) { m.Files["x"] = SiteFile{Object: testObject[:40], Type: "a/b"} }},
		{"header injection in type", func(m *SiteManifest) {
			m.Files["x"] = SiteFile{Object: testObject, Type: "text/html\r\nSet-Cookie: a=b"}
		}},
		{"empty type", func(m *SiteManifest) { m.Files["x"] = SiteFile{Object: testObject} }},
		{"negative size", func(m *SiteManifest) { m.Files["x"] = SiteFile{Object: testObject, Type: "a/b", Size: -1} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := testManifest()
			c.edit(&m)
			if _, err := EncodeSiteManifest(m); err == nil {
				t.Error("encoded")
			}
		})
	}
}

func TestDecodeSiteManifestIsStrict(t *testing.T) {
	good, _ := EncodeSiteManifest(testManifest())
	for name, tc := range map[string]struct {
		in   string
		want error
	}{
		"unknown field":   {strings.Replace(string(good), `"v":1`, `"v":1,"extra":true`, 1), ErrMalformed},
		"duplicated path": {strings.Replace(string(good), `{"assets/app.js":`, `{"index.html":{"object":"`+testObject+`","type":"a/b","size":1},"assets/app.js":`, 1), ErrMalformed},
		"other version":   {strings.Replace(string(good), `"v":1`, `"v":2`, 1), ErrUnknownVersion},
		"trailing data":   {string(good) + "{}", ErrMalformed},
		"too large":       {string(good) + strings.Repeat(" ", MaxSiteManifestBytes), ErrMalformed},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := DecodeSiteManifest([]byte(tc.in)); !errors.Is(err, tc.want) {
				t.Errorf("err = %v; want %v", err, tc.want)
			}
		})
	}
}

func TestSiteKeys(t *testing.T) {
	if got := SiteObjectKey("sites/docs/", testObject); got != "sites/docs/objects/"+testObject {
		t.Errorf("object key = %q", got)
	}
	if got := SiteManifestKey("sites/docs/", "3f2a"); got != "sites/docs/manifests/3f2a.json" {
		t.Errorf("manifest key = %q", got)
	}
	if SiteETag(testObject) != `"`+testObject+`"` {
		t.Error("the ETag is the quoted hash")
	}
}

// Of several invalid files the error names the first in path order, every time: a map is
// walked in a different order on each run, and a plan's error must not change between runs.
func TestSiteManifestErrorNamesTheFirstInvalidPath(t *testing.T) {
	m := SiteManifest{Files: map[string]SiteFile{}}
	for _, p := range []string{"z.txt", "b.txt", "m.txt", "a.txt", "q.txt"} {
		m.Files[p] = SiteFile{Object: "not-a-hash", Type: "text/plain"}
	}
	m.Files["0-valid.txt"] = SiteFile{Object: testObject, Type: "text/plain"}
	for range 20 {
		_, err := EncodeSiteManifest(m)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != `files["a.txt"].object` {
			t.Fatalf("err = %v; want the field files[\"a.txt\"].object", err)
		}
	}
}
