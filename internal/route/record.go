package route

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// SchemaVersion is the only record schema version this code reads and writes. A new version is
// a migration into a new namespace (docs/ARCHITECTURE.md, "Data contracts"), never an in-place
// edit.
const SchemaVersion = 1

// Status is the lifecycle state of an app or domain mapping.
type Status string

const (
	StatusActive       Status = "active"       // routed and cached
	StatusProvisioning Status = "provisioning" // 503, never cached
	StatusDisabled     Status = "disabled"     // 503, never cached
)

func (s Status) valid() bool {
	return s == StatusActive || s == StatusProvisioning || s == StatusDisabled
}

// Kind says how an app's content is delivered.
type Kind string

const (
	KindDynamic Kind = "dynamic" // through the tunnel to the router
	KindStatic  Kind = "static"  // from the static origin (R2)
)

// Limits of a dynamic upstream timeout. The upper bound stays under the ~100 s a proxied
// request may wait for response headers at the edge.
const (
	MinUpstreamTimeoutMS = 100
	MaxUpstreamTimeoutMS = 90_000
)

// Dynamic is the delivery data of a dynamic app.
type Dynamic struct {
	_ [0]func() // not comparable, as Record

	// Origin is the tunnel's origin hostname the Worker forwards to (e.g. "origin.dev.kamui.app").
	Origin string `json:"origin"`
	// Upstream names the tenant service as "namespace/service:port"; the router resolves it.
	Upstream string `json:"upstream"`
	// TimeoutMS bounds the wait for the upstream's response headers.
	TimeoutMS int `json:"timeout_ms"`
}

// Static is the delivery data of a static app. It has two layouts, told apart by Manifest:
//
//   - content-addressed (Manifest set): Prefix is the site's root ("sites/shop/"), Manifest
//     the key of one version's manifest under it ("sites/shop/manifests/3f2a….json"), and each
//     path resolves through the manifest to an object shared by every version
//     (SiteObjectKey). What kamuidash_static_site writes.
//   - by prefix (no Manifest): Prefix is one version's own prefix ("sites/shop/3f2a…/") and a
//     path is the object key under it. The earlier layout; records written that way keep
//     being served as they are.
//
// Manifest is optional so that every record written before it existed decodes, and hashes,
// exactly as before; a Worker that predates it refuses a record that carries it (strict
// decoding), which the guard's Worker-first ordering of plans rules out (docs/ARCHITECTURE.md,
// "Change classes and the guard").
type Static struct {
	_ [0]func() // not comparable, as Record

	// Prefix is the object-key prefix in the static bucket, ending in "/".
	Prefix string `json:"prefix"`
	// Index is the object served for a directory path, e.g. "index.html".
	Index string `json:"index"`
	// NotFound is the object served with 404 for a missing path; empty means a fixed 404.
	NotFound string `json:"not_found"`
	// SPA serves Index (with 200) for paths that have no object, for client-side routers.
	SPA bool `json:"spa"`
	// Manifest is the object key of the version's manifest (see SiteManifest), under Prefix.
	Manifest string `json:"manifest,omitempty"`
}

// Record is the value under an app's key in the ROUTES namespace.
type Record struct {
	// Not comparable (nothing compares two records whole): the edge Worker's Wasm then carries
	// no equality function for it.
	_       [0]func()
	V       int      `json:"v"`
	App     string   `json:"app"`
	Status  Status   `json:"status"`
	Kind    Kind     `json:"kind"`
	Dynamic *Dynamic `json:"dynamic,omitempty"`
	Static  *Static  `json:"static,omitempty"`
	// Rev is the content hash of every other field (see ComputeRev).
	Rev string `json:"rev"`
}

// DomainMapping is the value under a normalised custom hostname in the DOMAINS namespace.
type DomainMapping struct {
	_      [0]func() // not comparable, as Record
	V      int       `json:"v"`
	App    string    `json:"app"`
	Status Status    `json:"status"`
	Rev    string    `json:"rev"`
}

// Metadata is the KV metadata stored with every record and mapping, so that a key listing tells
// the schema, revision and writer of each value without reading it.
type Metadata struct {
	V     int    `json:"v"`
	Rev   string `json:"rev"`
	Owner string `json:"owner"`
}

// EncodeRecord validates r, sets V and Rev, and returns the canonical JSON and the completed
// record. Any V or Rev given is overwritten; callers describe content, the contract stamps it.
func EncodeRecord(r Record) ([]byte, Record, error) {
	r.V = SchemaVersion
	r.Rev = ""
	if err := r.validate(); err != nil {
		return nil, Record{}, err
	}
	r.Rev = revOf(r)
	b, err := json.Marshal(r)
	return b, r, err
}

// DecodeRecord strictly parses a ROUTES value: unknown fields, a version other than
// SchemaVersion, an unknown kind or status, incomplete delivery data and a Rev that does not
// match the content are all errors (a *FieldError wrapping one of the Err* causes).
func DecodeRecord(b []byte) (Record, error) {
	var r Record
	canon, err := decodeContent(b, &r, &r.Rev, func() error {
		if r.V != SchemaVersion {
			return fieldErr("v", ErrUnknownVersion, "got "+strconv.Itoa(r.V))
		}
		return r.validate()
	})
	if err != nil {
		return Record{}, err
	}
	if r.Rev != revHash(canon) {
		return Record{}, fieldErr("rev", ErrRevMismatch, "")
	}
	return r, nil
}

func (r Record) validate() error {
	if !IsDNSLabel(r.App) {
		return fieldErr("app", ErrInvalidField, "must be a DNS label: 1-63 of a-z, 0-9, '-', not starting or ending with '-'")
	}
	if !r.Status.valid() {
		return fieldErr("status", ErrBadStatus, `must be "active", "provisioning" or "disabled"`)
	}
	switch r.Kind {
	case KindDynamic:
		if r.Dynamic == nil || r.Static != nil {
			return fieldErr("dynamic", ErrMissingDelivery, `kind "dynamic" needs "dynamic" and no "static"`)
		}
		return r.Dynamic.validate()
	case KindStatic:
		if r.Static == nil || r.Dynamic != nil {
			return fieldErr("static", ErrMissingDelivery, `kind "static" needs "static" and no "dynamic"`)
		}
		return r.Static.validate()
	default:
		return fieldErr("kind", ErrUnknownKind, `must be "dynamic" or "static"`)
	}
}

func (d *Dynamic) validate() error {
	if d.Origin == "" {
		return fieldErr("dynamic.origin", ErrMissingDelivery, "empty")
	}
	if h, err := NormalizeHost(d.Origin); err != nil || h != d.Origin {
		return fieldErr("dynamic.origin", ErrInvalidField, "must be a lower-case hostname without port")
	}
	if d.Upstream == "" {
		return fieldErr("dynamic.upstream", ErrMissingDelivery, "empty")
	}
	if _, err := ParseUpstream(d.Upstream); err != nil {
		return err
	}
	if d.TimeoutMS < MinUpstreamTimeoutMS || d.TimeoutMS > MaxUpstreamTimeoutMS {
		return fieldErr("dynamic.timeout_ms", ErrInvalidField,
			"must be between "+strconv.Itoa(MinUpstreamTimeoutMS)+" and "+strconv.Itoa(MaxUpstreamTimeoutMS))
	}
	return nil
}

func (s *Static) validate() error {
	if s.Prefix == "" || s.Index == "" {
		return fieldErr("static", ErrMissingDelivery, `"prefix" and "index" are required`)
	}
	if !validObjectPath(strings.TrimSuffix(s.Prefix, "/"), maxRecordPathBytes) || !strings.HasSuffix(s.Prefix, "/") {
		return fieldErr("static.prefix", ErrInvalidField, `must be a relative object path ending in "/"`)
	}
	if !validObjectPath(s.Index, maxRecordPathBytes) {
		return fieldErr("static.index", ErrInvalidField, "must be a relative object path")
	}
	if s.NotFound != "" && !validObjectPath(s.NotFound, maxRecordPathBytes) {
		return fieldErr("static.not_found", ErrInvalidField, "must be a relative object path")
	}
	if s.Manifest != "" && (!validObjectPath(s.Manifest, maxRecordPathBytes) || !strings.HasPrefix(s.Manifest, s.Prefix)) {
		return fieldErr("static.manifest", ErrInvalidField, `must be an object path under "prefix"`)
	}
	return nil
}

// maxRecordPathBytes bounds the object paths a record names.
const maxRecordPathBytes = 512

// validObjectPath accepts "a/b.html" of at most limit bytes: no leading slash, no empty, "."
// or ".." segments, no control characters or backslashes, so a record cannot point outside
// its prefix.
func validObjectPath(p string, limit int) bool {
	if p == "" || len(p) > limit {
		return false
	}
	// Segment by segment without a slice (strings.Split) or an iterator (SplitSeq), neither
	// of which is free in the Worker, where a manifest checks every path it holds.
	for rest := p; ; {
		seg, after, more := strings.Cut(rest, "/")
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		if !more {
			break
		}
		rest = after
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f || p[i] == '\\' {
			return false
		}
	}
	return true
}

// EncodeDomainMapping validates m, sets V and Rev, and returns the canonical JSON and the
// completed mapping.
func EncodeDomainMapping(m DomainMapping) ([]byte, DomainMapping, error) {
	m.V = SchemaVersion
	m.Rev = ""
	if err := m.validate(); err != nil {
		return nil, DomainMapping{}, err
	}
	m.Rev = revOf(m)
	b, err := json.Marshal(m)
	return b, m, err
}

// DecodeDomainMapping strictly parses a DOMAINS value, with the same rules as DecodeRecord.
func DecodeDomainMapping(b []byte) (DomainMapping, error) {
	var m DomainMapping
	canon, err := decodeContent(b, &m, &m.Rev, func() error {
		if m.V != SchemaVersion {
			return fieldErr("v", ErrUnknownVersion, "got "+strconv.Itoa(m.V))
		}
		return m.validate()
	})
	if err != nil {
		return DomainMapping{}, err
	}
	if m.Rev != revHash(canon) {
		return DomainMapping{}, fieldErr("rev", ErrRevMismatch, "")
	}
	return m, nil
}

func (m DomainMapping) validate() error {
	if !IsDNSLabel(m.App) {
		return fieldErr("app", ErrInvalidField, "must be a DNS label")
	}
	if !m.Status.valid() {
		return fieldErr("status", ErrBadStatus, `must be "active", "provisioning" or "disabled"`)
	}
	return nil
}

// EncodeMetadata returns the KV metadata JSON for a value written by owner.
func EncodeMetadata(rev, owner string) string {
	b, _ := json.Marshal(Metadata{V: SchemaVersion, Rev: rev, Owner: owner})
	return string(b)
}

// DecodeMetadata parses KV metadata leniently: a listing may carry values written by other
// tooling, and metadata only guides refresh, it is never routed on.
func DecodeMetadata(b []byte) (Metadata, bool) {
	var m Metadata
	if len(b) == 0 || json.Unmarshal(b, &m) != nil {
		return Metadata{}, false
	}
	return m, true
}

// revOf hashes the canonical encoding of v (with Rev already cleared). encoding/json writes
// struct fields in declaration order, so the encoding, and the hash, is stable.
func revOf(v any) string { return revHash(revContent(v)) }

// revContent is the canonical encoding of v with Rev cleared: what its rev hashes.
func revContent(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("route: record types always marshal: " + err.Error())
	}
	return b
}

func revHash(content []byte) string {
	sum := sha256Sum(content)
	return hex.EncodeToString(sum[:12])
}

// decodeContent strictly decodes a rev-stamped value into v, a pointer (whose Rev field is
// rev), and checks it with valid, then returns the canonical encoding of its content (Rev
// cleared, as revOf hashes it), leaving *rev as read.
//
// Every value the provider writes is canonical, and a value byte-for-byte equal to its
// canonical encoding has nothing the strict decoding refuses: no unknown, duplicated or
// mis-cased key (the encoder writes the known fields once each, spelled as declared) and
// nothing after the object. So the value is first decoded leniently (json.Unmarshal, which
// needs none of a Decoder's buffers) and, when it is valid and canonical, that is the answer:
// one decode and one encode without reflection (canonical.go), which the rev check needs
// anyway. Anything else is decoded again strictly, from zero, with the token scan for
// duplicated and mis-cased keys (badKey), exactly as before the fast path
// (FuzzDecodeRecordFastPath holds the two to the same answers).
func decodeContent(b []byte, v canonicalEncoder, rev *string, valid func() error) ([]byte, error) {
	if json.Unmarshal(b, v) == nil && valid() == nil {
		read := *rev
		*rev = ""
		canon := v.appendCanonical(make([]byte, 0, len(b)))
		*rev = read
		if isCanonical(b, canon, read) {
			return canon, nil
		}
	}
	// Not generic: in the edge Worker's Wasm each instantiation was a copy of this function.
	reflect.ValueOf(v).Elem().SetZero()
	err := decodeFields(b, v)
	if err == nil {
		err = valid()
	}
	var canon []byte
	if err == nil {
		canon = contentWithoutRev(v, rev)
	}
	if err != nil || !isCanonical(b, canon, *rev) {
		if kerr := badKey(b, reflect.TypeOf(v)); kerr != nil {
			return nil, kerr
		}
	}
	return canon, err
}

// contentWithoutRev is the canonical encoding of v with its Rev field (rev) cleared, as revOf
// hashes it; *rev is left as it was.
func contentWithoutRev(v any, rev *string) []byte {
	read := *rev
	*rev = ""
	c := revContent(v)
	*rev = read
	return c
}

// isCanonical reports whether b is content (an encoding ending in "rev":""}) with rev in
// place of the empty rev.
func isCanonical(b, content []byte, rev string) bool {
	const tail = `"}`
	if !bytes.HasSuffix(content, []byte(`"rev":"`+tail)) || len(b) != len(content)+len(rev) {
		return false
	}
	head := content[:len(content)-len(tail)]
	return bytes.HasPrefix(b, head) && string(b[len(head):len(b)-len(tail)]) == rev && bytes.HasSuffix(b, []byte(tail))
}

func decodeStrict(b []byte, v any) error {
	err := decodeFields(b, v)
	if kerr := badKey(b, reflect.TypeOf(v)); kerr != nil {
		// encoding/json keeps the last of duplicated keys silently, and matches keys to
		// fields ignoring case; a value that says two things, or says it in a way only this
		// decoder reads, is refused rather than half-believed.
		return kerr
	}
	return err
}

// decodeFields decodes the one JSON object b into v, refusing unknown fields and anything
// after the object. Duplicated keys are the callers' to refuse.
func decodeFields(b []byte, v any) error {
	if len(b) == 0 {
		return fieldErr("", ErrMalformed, "empty value")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fieldErr("", ErrMalformed, err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return fieldErr("", ErrMalformed, "trailing data after the object")
	}
	return nil
}

// badKey returns the first object key of b that a case-sensitive reader would take otherwise
// than encoding/json does, as a FieldError (ErrMalformed), or nil: a key repeated within one
// object, or, in an object decoded into a struct, a key that names one of its fields in another
// case. encoding/json matches a key to a field ignoring case ("APP", or "ſtatus" with U+017F
// for "status"), so such a key would be believed here and read as another field, or none, by
// JSON.parse, jq or a KV console; two keys that fold together name one field twice, the last
// one winning silently. t is the type b is decoded into (a pointer is followed). A key that
// names no field at all is the decoder's to refuse (DisallowUnknownFields), and a map's keys
// are data, not names: "README.md" and "readme.md" are two paths of a manifest.
func badKey(b []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		seen    map[string]bool
		isObj   bool
		wantKey bool
		fields  map[string]reflect.Type // a struct's declared names; nil for any other object
		elem    reflect.Type            // a map's values or an array's elements; nil when unknown
		next    reflect.Type            // the type of the value after the key just read
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil //nolint:nilerr // syntax errors are the real decode's to report
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				vt := t
				if top != nil {
					vt = top.elem
					if top.isObj {
						vt, top.wantKey = top.next, true
					}
				}
				for vt != nil && vt.Kind() == reflect.Pointer {
					vt = vt.Elem()
				}
				f := &frame{seen: map[string]bool{}, isObj: tok == '{', wantKey: true}
				switch {
				case vt == nil:
				case f.isObj && vt.Kind() == reflect.Struct:
					f.fields = jsonFields(vt)
				case f.isObj && vt.Kind() == reflect.Map, !f.isObj && (vt.Kind() == reflect.Slice || vt.Kind() == reflect.Array):
					f.elem = vt.Elem()
				}
				stack = append(stack, f)
			case '}', ']':
				stack = stack[:len(stack)-1]
			}
		default:
			if top == nil || !top.isObj {
				continue
			}
			if !top.wantKey {
				top.wantKey = true
				continue
			}
			k, _ := tok.(string)
			if top.seen[k] {
				return fieldErr(k, ErrMalformed, "duplicated field")
			}
			top.seen[k], top.wantKey, top.next = true, false, top.elem
			if top.fields == nil {
				continue
			}
			if ft, ok := top.fields[k]; ok {
				top.next = ft
				continue
			}
			for name := range top.fields {
				if strings.EqualFold(k, name) {
					return fieldErr(k, ErrMalformed, "names the field \""+name+"\" in another case: field names are case-sensitive")
				}
			}
		}
	}
}

// jsonFields maps the JSON names of struct type t's fields to their types, as encoding/json
// names them: the tag's name, else the field's own. The value types of this package embed no
// struct, so promoted fields are not looked for.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := make(map[string]reflect.Type, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		fields[name] = f.Type
	}
	return fields
}
