package route

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// A content-addressed static site lives under one prefix in the static bucket:
//
//	<prefix>objects/<sha256>              one object per distinct content, shared by every version
//	<prefix>manifests/<version>.json      one manifest per version: path → object, type, size
//	<prefix>manifests/<version>/<i>.json  shard i of a large version's manifest
//
// A version is immutable: its manifest is written once, after every object (and shard) it
// names, and never rewritten, so a reader may hold a manifest as long as it likes. An edit
// uploads the objects no kept version has yet and a new manifest; a rollback points the route
// record at a kept manifest again and uploads nothing.
//
// A version of more than SiteShardFiles files is split (SplitSiteManifest): its manifest names
// only how many shards hold its files, and each path is in the shard SiteShard picks. The
// Worker's runtime is one thread per isolate, and decoding a manifest holds every request of
// the isolate, every tenant's, until it is done: a 20,000-file manifest took seconds. A
// shard is at most MaxSiteShardFiles files, so no read of a site costs more than that, and a
// request reads only the shard of its path.

// SiteManifestVersion is the only manifest format version this code reads and writes.
const SiteManifestVersion = 1

// MaxSiteManifestBytes bounds a manifest (or shard) the Worker reads into memory. A shard
// is far below it; the bound is as large as it is for the whole manifests of large sites
// written before shards existed (20,000 files with paths of about 250 bytes), which the
// Worker still reads.
const MaxSiteManifestBytes = 8 << 20

const (
	// SiteShardFiles is the most files a version's manifest holds itself; a larger version
	// is split into about one shard per SiteShardFiles files.
	SiteShardFiles = 256
	// MaxSiteShardFiles is the most files a shard may hold: SplitSiteManifest adds shards
	// until none holds more, and DecodeSiteShard refuses a shard that does.
	MaxSiteShardFiles = 2 * SiteShardFiles
	// MaxSiteShards bounds a manifest's shard count.
	MaxSiteShards = 4096
)

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

// SiteManifest is one version of a content-addressed site, or one shard of it.
type SiteManifest struct {
	V int `json:"v"`
	// Files maps a path relative to the site root ("assets/app.js") to its file. A split
	// version's manifest has none: its files are in its shards.
	Files map[string]SiteFile `json:"files,omitempty"`
	// Shards is, in a split version's manifest, the number of its shards (2 to
	// MaxSiteShards); 0 everywhere else.
	Shards int `json:"shards,omitempty"`
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

// SiteShardKey is the key of shard i of the version's manifest under manifestKey
// ("…/manifests/<version>/<i>.json").
func SiteShardKey(manifestKey string, i int) string {
	return strings.TrimSuffix(manifestKey, ".json") + "/" + strconv.Itoa(i) + ".json"
}

// SiteShard is the shard, of shards, that holds path in the version's manifest under
// manifestKey. The key seeds the hash: a site's paths cannot be chosen to crowd one shard
// without changing its version, and so the key, with them.
func SiteShard(manifestKey, path string, shards int) int {
	if shards <= 1 {
		return 0
	}
	return int(mix64(fnv1a(fnv1a(0, manifestKey), path)) % uint64(shards))
}

// SplitSiteManifest returns what the version m is uploaded as under manifestKey: m itself
// (and no shards) when it has at most SiteShardFiles files; otherwise a manifest naming the
// shard count, and the shards, shard i at SiteShardKey(manifestKey, i). It starts from one
// shard per SiteShardFiles files and doubles the count until no shard holds more than
// MaxSiteShardFiles, MaxSiteShards being the last count it tries (doubling may pass it). m is
// not validated (EncodeSiteManifest does that, piece by piece).
func SplitSiteManifest(manifestKey string, m SiteManifest) (SiteManifest, []SiteManifest, error) {
	if len(m.Files) <= SiteShardFiles {
		return m, nil, nil
	}
	first := min((len(m.Files)+SiteShardFiles-1)/SiteShardFiles, MaxSiteShards)
	for n, last := first, false; !last; n = min(2*n, MaxSiteShards) {
		last = n == MaxSiteShards
		shards := make([]SiteManifest, n)
		largest := 0
		for p, f := range m.Files {
			s := &shards[SiteShard(manifestKey, p, n)]
			if s.Files == nil {
				s.Files = map[string]SiteFile{}
			}
			s.Files[p] = f
			largest = max(largest, len(s.Files))
		}
		if largest <= MaxSiteShardFiles {
			return SiteManifest{V: m.V, Shards: n}, shards, nil
		}
	}
	return SiteManifest{}, nil, fieldErr("files", ErrInvalidField,
		"cannot be split into "+strconv.Itoa(MaxSiteShards)+" shards of at most "+strconv.Itoa(MaxSiteShardFiles)+" files")
}

// SiteETag is the strong ETag of a content object: its hash, quoted.
func SiteETag(object string) string { return `"` + object + `"` }

// EncodeSiteManifest validates m as a version's manifest (its files, or a shard count), sets
// V and returns its canonical JSON (encoding/json sorts map keys, so the same files always
// give the same bytes).
func EncodeSiteManifest(m SiteManifest) ([]byte, error) {
	m.V = SiteManifestVersion
	if err := m.validate(); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// EncodeSiteShard validates m as shard i of shards of the version's manifest under
// manifestKey (DecodeSiteShard's rules), sets V and returns its canonical JSON.
func EncodeSiteShard(m SiteManifest, manifestKey string, i, shards int) ([]byte, error) {
	m.V = SiteManifestVersion
	if err := m.validateShard(manifestKey, i, shards); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// DecodeSiteManifest strictly parses a version's manifest, with the rules of DecodeRecord:
// unknown or duplicated fields, a field name in another case, another version and any invalid
// file are errors, and so are both files and shards, or neither. As for a record, the token
// scan for duplicated and mis-cased keys runs only when b is not exactly the manifest's
// canonical encoding (what EncodeSiteManifest writes, and so every manifest the provider
// uploads): the encoder never repeats a key. In the Worker that scan cost more than the decode
// itself.
func DecodeSiteManifest(b []byte) (SiteManifest, error) {
	return decodeSiteManifest(b, SiteManifest.validate)
}

// DecodeSiteShard strictly parses shard i of shards of the version's manifest under
// manifestKey, as DecodeSiteManifest parses a manifest: a shard holds no shard count, at most
// MaxSiteShardFiles files and only paths SiteShard puts in it (none, possibly).
func DecodeSiteShard(b []byte, manifestKey string, i, shards int) (SiteManifest, error) {
	return decodeSiteManifest(b, func(m SiteManifest) error { return m.validateShard(manifestKey, i, shards) })
}

func decodeSiteManifest(b []byte, validate func(SiteManifest) error) (SiteManifest, error) {
	if len(b) > MaxSiteManifestBytes {
		return SiteManifest{}, fieldErr("", ErrMalformed, "larger than "+strconv.Itoa(MaxSiteManifestBytes)+" bytes")
	}
	// Leniently first, as decodeContent does: a canonical manifest (every one the provider
	// uploads) has nothing the strict decoding below refuses.
	var m SiteManifest
	if json.Unmarshal(b, &m) == nil && m.V == SiteManifestVersion && validate(m) == nil && m.encodes(b) {
		return m, nil
	}
	m = SiteManifest{}
	err := decodeFields(b, &m)
	if err == nil && m.V != SiteManifestVersion {
		err = fieldErr("v", ErrUnknownVersion, "got "+strconv.Itoa(m.V))
	}
	if err == nil {
		err = validate(m)
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

// validate checks m as a version's manifest: its files, or the count of the shards that
// hold them.
func (m SiteManifest) validate() error {
	switch {
	case m.Shards != 0 && len(m.Files) != 0:
		return fieldErr("shards", ErrInvalidField, "a manifest with files has no shards")
	case m.Shards != 0 && (m.Shards < 2 || m.Shards > MaxSiteShards):
		return fieldErr("shards", ErrInvalidField, "must be 2 to "+strconv.Itoa(MaxSiteShards))
	case m.Shards != 0:
		return nil
	case len(m.Files) == 0:
		return fieldErr("files", ErrMissingDelivery, "a site has at least one file")
	}
	return m.validateFiles(func(string) bool { return true })
}

// validateShard checks m as shard i of shards of the manifest under manifestKey.
func (m SiteManifest) validateShard(manifestKey string, i, shards int) error {
	switch {
	case m.Shards != 0:
		return fieldErr("shards", ErrInvalidField, "a shard has no shards")
	case len(m.Files) > MaxSiteShardFiles:
		return fieldErr("files", ErrInvalidField, "a shard holds at most "+strconv.Itoa(MaxSiteShardFiles)+" files")
	}
	return m.validateFiles(func(p string) bool { return SiteShard(manifestKey, p, shards) == i })
}

// validateFiles reports the first invalid file in path order, so that the same manifest
// always gets the same error, whatever order the map is walked in; a path is invalid where
// belongs says it is not in this manifest.
func (m SiteManifest) validateFiles(belongs func(string) bool) error {
	var first error
	firstPath := ""
	for p, f := range m.Files {
		if first != nil && p >= firstPath {
			continue
		}
		if err := validateSiteFile(p, f, belongs); err != nil {
			first, firstPath = err, p
		}
	}
	return first
}

// validateSiteFile checks one file of a manifest; the field's name is spelled out only for an
// error, not for each of a large site's files.
func validateSiteFile(p string, f SiteFile, belongs func(string) bool) error {
	var part, why string
	switch {
	case !ValidSitePath(p):
		why = "must be a relative path"
	case !belongs(p):
		why = "belongs to another shard"
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
