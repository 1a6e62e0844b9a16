package route

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
)

// A content-addressed static site lives under one prefix in the static bucket:
//
//	<prefix>objects/<sha256>            one object per distinct content, shared by every version
//	<prefix>manifests/<version>.json    one manifest per version: path → object, type, size
//
// A version is immutable: its manifest is written once, after every object it names, and
// never rewritten, so a reader may hold a manifest as long as it likes. An edit uploads the
// objects no kept version has yet and a new manifest; a rollback points the route record at
// a kept manifest again and uploads nothing.

// SiteManifestVersion is the only manifest format version this code reads and writes.
const SiteManifestVersion = 1

// MaxSiteManifestBytes bounds a manifest the Worker reads into memory: 20,000 files (the
// provider's limit) fit with paths of about 250 bytes on average; the provider refuses at plan
// a site whose manifest would be larger (staticsite.Read).
const MaxSiteManifestBytes = 8 << 20

// MaxSitePathBytes is the longest path a manifest may hold, the longest path the Worker
// serves.
const MaxSitePathBytes = 1024

// ValidSitePath reports whether p is a path a site may hold and the Worker serves: relative,
// at most MaxSitePathBytes, without empty, "." or ".." segments, control characters or
// backslashes. A manifest is refused for a path that is not; the Worker refuses a request
// for one before it looks it up.
func ValidSitePath(p string) bool { return validObjectPath(p, MaxSitePathBytes) }

// SiteFile is one path of a site version.
type SiteFile struct {
	_ [0]func() // not comparable, as Record

	// Object is the lower-case hex SHA-256 of the content: the object's key under
	// <prefix>objects/ and, quoted, the ETag served for it.
	Object string `json:"object"`
	// Type is the Content-Type served for the path. It belongs to the path, not the object:
	// two paths with the same bytes may be served as different types.
	Type string `json:"type"`
	// Size is the content's length in bytes.
	Size int64 `json:"size"`
}

// SiteManifest is one version of a content-addressed site.
type SiteManifest struct {
	V int `json:"v"`
	// Files maps a path relative to the site root ("assets/app.js") to its file.
	Files map[string]SiteFile `json:"files"`
}

// SiteObjectKey is the key of a content object of the site under prefix.
func SiteObjectKey(prefix, object string) string { return prefix + "objects/" + object }

// SiteObjectsPrefix holds every content object of the site under prefix.
func SiteObjectsPrefix(prefix string) string { return prefix + "objects/" }

// SiteManifestsPrefix holds every manifest of the site under prefix.
func SiteManifestsPrefix(prefix string) string { return prefix + "manifests/" }

// SiteManifestKey is the key of one version's manifest.
func SiteManifestKey(prefix, version string) string {
	return SiteManifestsPrefix(prefix) + version + ".json"
}

// SiteETag is the strong ETag of a content object: its hash, quoted.
func SiteETag(object string) string { return `"` + object + `"` }

// EncodeSiteManifest validates m, sets V and returns its canonical JSON (encoding/json sorts
// map keys, so the same files always give the same bytes).
func EncodeSiteManifest(m SiteManifest) ([]byte, error) {
	m.V = SiteManifestVersion
	if err := m.validate(); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// DecodeSiteManifest strictly parses a manifest, with the rules of DecodeRecord: unknown or
// duplicated fields, a field name in another case, another version and any invalid file are
// errors. As for a record, the token scan for duplicated and mis-cased keys runs only when b
// is not exactly the manifest's canonical encoding (what EncodeSiteManifest writes, and so
// every manifest the provider uploads): the encoder never repeats a key. In the Worker that
// scan cost more than the decode itself.
func DecodeSiteManifest(b []byte) (SiteManifest, error) {
	if len(b) > MaxSiteManifestBytes {
		return SiteManifest{}, fieldErr("", ErrMalformed, "larger than "+strconv.Itoa(MaxSiteManifestBytes)+" bytes")
	}
	// Leniently first, as decodeContent does: a canonical manifest (every one the provider
	// uploads) has nothing the strict decoding below refuses.
	var m SiteManifest
	if json.Unmarshal(b, &m) == nil && m.V == SiteManifestVersion && m.validate() == nil && m.encodes(b) {
		return m, nil
	}
	m = SiteManifest{}
	err := decodeFields(b, &m)
	if err == nil && m.V != SiteManifestVersion {
		err = fieldErr("v", ErrUnknownVersion, "got "+strconv.Itoa(m.V))
	}
	if err == nil {
		err = m.validate()
	}
	if err != nil || !m.encodes(b) {
		if kerr := badKey(b, reflect.TypeOf(m)); kerr != nil {
			return SiteManifest{}, kerr
		}
	}
	if err != nil {
		return SiteManifest{}, err
	}
	return m, nil
}

// encodes reports whether b is m's canonical encoding.
func (m SiteManifest) encodes(b []byte) bool {
	return bytes.Equal(m.appendCanonical(make([]byte, 0, len(b))), b)
}

// validate reports the first invalid file in path order, so that the same manifest always
// gets the same error, whatever order the map is walked in.
func (m SiteManifest) validate() error {
	if len(m.Files) == 0 {
		return fieldErr("files", ErrMissingDelivery, "a site has at least one file")
	}
	var first error
	firstPath := ""
	for p, f := range m.Files {
		if first != nil && p >= firstPath {
			continue
		}
		if err := validateSiteFile(p, f); err != nil {
			first, firstPath = err, p
		}
	}
	return first
}

// validateSiteFile checks one file of a manifest; the field's name is spelled out only for an
// error, not for each of a large site's files.
func validateSiteFile(p string, f SiteFile) error {
	var part, why string
	switch {
	case !ValidSitePath(p):
		why = "must be a relative path"
	case !IsSiteObject(f.Object):
		part, why = ".object", "must be 64 lower-case hex digits"
	case !validContentType(f.Type):
		part, why = ".type", "must be 1-255 printable ASCII characters"
	case f.Size < 0:
		part, why = ".size", "must not be negative"
	default:
		return nil
	}
	return fieldErr("files["+strconv.Quote(p)+"]"+part, ErrInvalidField, why)
}

// IsSiteObject reports whether s is a content object's name: a lower-case hex SHA-256.
func IsSiteObject(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// validContentType keeps a manifest from putting anything into a response header but a
// plain media type.
func validContentType(t string) bool {
	if t == "" || len(t) > 255 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < 0x20 || t[i] > 0x7e {
			return false
		}
	}
	return true
}
