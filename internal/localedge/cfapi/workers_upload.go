package cfapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path"
	"slices"
	"strings"
)

// scriptMetadata is the upload's "metadata" part.
type scriptMetadata struct {
	MainModule         string          `json:"main_module"`
	BodyPart           string          `json:"body_part"`
	Bindings           []Binding       `json:"bindings"`
	CompatibilityDate  string          `json:"compatibility_date"`
	CompatibilityFlags []string        `json:"compatibility_flags"`
	UsageModel         string          `json:"usage_model"`
	Logpush            bool            `json:"logpush"`
	Tags               []string        `json:"tags"`
	Placement          json.RawMessage `json:"placement"`
	// KeepBindings lists binding types to carry over from the previous version when the
	// upload does not mention them (typically secret_text, whose values reads never return).
	KeepBindings []string `json:"keep_bindings"`
}

// uploadScript stores a multipart upload: a "metadata" JSON part plus one part per module,
// named by the module's file name (a part named "files…" uses its filename instead, as
// cloudflare-go's own encoder sends it).
func (s *Server) uploadScript(r *http.Request) (any, any, func(), error) {
	name := r.PathValue("script_name")
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" || params["boundary"] == "" {
		return nil, nil, nil, errBadRequest("a Worker upload must be multipart/form-data with a metadata part")
	}
	meta, modules, err := readScriptUpload(r.Body, params["boundary"])
	if err != nil {
		return nil, nil, nil, err
	}
	if err := s.validateScript(meta, modules); err != nil {
		return nil, nil, nil, err
	}
	prev := s.workers.Scripts[name]
	bindings := meta.Bindings
	if prev != nil {
		bindings = keepBindings(prev.Bindings, bindings, meta.KeepBindings)
	}
	now := s.now().UTC()
	sc := &Script{
		Name:               name,
		MainModule:         meta.MainModule,
		BodyPart:           meta.BodyPart,
		Modules:            modules,
		Bindings:           nonNil(bindings),
		CompatibilityDate:  meta.CompatibilityDate,
		CompatibilityFlags: nonNil(meta.CompatibilityFlags),
		UsageModel:         meta.UsageModel,
		Logpush:            meta.Logpush,
		Tags:               nonNil(meta.Tags),
		Placement:          meta.Placement,
		CreatedOn:          now,
		ModifiedOn:         now,
	}
	if prev != nil {
		sc.CreatedOn = prev.CreatedOn
	}
	sc.ETag = scriptETag(sc)
	s.workers.Scripts[name] = sc
	if err := s.save(fileWorkers); err != nil {
		return nil, nil, nil, err
	}
	var notify func()
	if hook := s.hooks.ScriptChanged; hook != nil {
		ev := ScriptEvent{Name: name, Script: sc.clone()}
		notify = func() { hook(ev) }
	}
	return sc.view(), nil, notify, nil
}

func readScriptUpload(body io.Reader, boundary string) (scriptMetadata, []Module, error) {
	var (
		meta     scriptMetadata
		sawMeta  bool
		modules  []Module
		mr       = multipart.NewReader(body, boundary)
		seenName = map[string]bool{}
	)
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return meta, nil, errBadRequest("malformed multipart body: " + err.Error())
		}
		data, err := io.ReadAll(part)
		if err != nil {
			return meta, nil, errBadRequest("reading multipart part: " + err.Error())
		}
		if part.FormName() == "metadata" {
			if err := json.Unmarshal(data, &meta); err != nil {
				return meta, nil, errBadRequest("metadata part is not valid JSON: " + err.Error())
			}
			sawMeta = true
			continue
		}
		name := part.FormName()
		if strings.HasPrefix(name, "files") && part.FileName() != "" {
			name = part.FileName()
		}
		if name == "" {
			return meta, nil, errBadRequest("a module part has no name")
		}
		if seenName[name] {
			return meta, nil, errBadRequest("duplicate module " + name)
		}
		seenName[name] = true
		modules = append(modules, Module{Name: name, ContentType: moduleContentType(name, part.Header), Content: data})
	}
	if !sawMeta {
		return meta, nil, errBadRequest("the upload has no metadata part")
	}
	return meta, modules, nil
}

// moduleContentType keeps the part's declared type, falling back to the one Cloudflare infers
// from the extension.
func moduleContentType(name string, h textproto.MIMEHeader) string {
	if ct := h.Get("Content-Type"); ct != "" && ct != "application/octet-stream" {
		return ct
	}
	switch path.Ext(name) {
	case ".js", ".mjs":
		return "application/javascript+module"
	case ".cjs":
		return "application/javascript"
	case ".wasm":
		return "application/wasm"
	case ".txt":
		return "text/plain"
	}
	return "application/octet-stream"
}

func (s *Server) validateScript(meta scriptMetadata, modules []Module) error {
	has := func(n string) bool {
		return slices.ContainsFunc(modules, func(m Module) bool { return m.Name == n })
	}
	switch {
	case meta.MainModule == "" && meta.BodyPart == "":
		return errBadRequest("metadata must name main_module (ES modules) or body_part (service worker)")
	case meta.MainModule != "" && !has(meta.MainModule):
		return errBadRequest(fmt.Sprintf("main_module %q is not among the uploaded parts", meta.MainModule))
	case meta.BodyPart != "" && !has(meta.BodyPart):
		return errBadRequest(fmt.Sprintf("body_part %q is not among the uploaded parts", meta.BodyPart))
	}
	names := map[string]bool{}
	for _, b := range meta.Bindings {
		if b.Name() == "" || b.Type() == "" {
			return errBadRequest("every binding needs a name and a type")
		}
		if names[b.Name()] {
			return errBadRequest("duplicate binding name " + b.Name())
		}
		names[b.Name()] = true
		if b.Type() == "kv_namespace" {
			id, _ := b["namespace_id"].(string)
			if _, ok := s.kv.Namespaces[id]; !ok {
				return &apiError{Status: http.StatusBadRequest, Code: 10041,
					Message: fmt.Sprintf("KV namespace '%s' not found for binding %s", id, b.Name())}
			}
		}
	}
	return nil
}

// keepBindings carries over previous bindings whose type is listed in keep and whose name the
// new upload does not use.
func keepBindings(prev, next []Binding, keep []string) []Binding {
	if len(keep) == 0 {
		return next
	}
	used := map[string]bool{}
	for _, b := range next {
		used[b.Name()] = true
	}
	out := slices.Clone(next)
	for _, b := range prev {
		if slices.Contains(keep, b.Type()) && !used[b.Name()] {
			out = append(out, b)
		}
	}
	return out
}

// scriptETag hashes everything that defines the script, so an identical re-upload keeps its
// etag and any change produces a new one.
func scriptETag(sc *Script) string {
	h := sha256.New()
	for _, m := range sc.Modules {
		_, _ = fmt.Fprintf(h, "%q %q %d\n", m.Name, m.ContentType, len(m.Content)) // a hash takes every write
		h.Write(m.Content)
	}
	meta, _ := json.Marshal(struct {
		Main, Body, Date, Usage string
		Bindings                []Binding
		Flags, Tags             []string
		Logpush                 bool
	}{sc.MainModule, sc.BodyPart, sc.CompatibilityDate, sc.UsageModel, sc.Bindings, sc.CompatibilityFlags, sc.Tags, sc.Logpush})
	h.Write(meta)
	return hex.EncodeToString(h.Sum(nil))
}
