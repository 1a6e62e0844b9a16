package cfapi

import (
	"bytes"
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
	"time"
)

func (s *Server) registerWorkersRoutes() {
	const scripts = APIPrefix + "/accounts/{account_id}/workers/scripts"
	s.mux.HandleFunc("GET "+scripts, s.handleJSON(s.listScripts))
	s.mux.HandleFunc("PUT "+scripts+"/{script_name}", s.handleJSON(s.uploadScript))
	s.mux.HandleFunc("GET "+scripts+"/{script_name}", s.handleRaw(s.scriptContent))
	s.mux.HandleFunc("DELETE "+scripts+"/{script_name}", s.handleJSON(s.deleteScript))
	s.mux.HandleFunc("GET "+scripts+"/{script_name}/content/v2", s.handleRaw(s.scriptContent))
	s.mux.HandleFunc("GET "+scripts+"/{script_name}/settings", s.handleJSON(s.scriptSettings))
}

// scriptView is the API shape of a script (upload answer and list item). It has no placement
// field on purpose: cloudflare-go v7 can panic decoding an empty placement object.
type scriptView struct {
	ID                 string    `json:"id"`
	ETag               string    `json:"etag"`
	CreatedOn          time.Time `json:"created_on"`
	ModifiedOn         time.Time `json:"modified_on"`
	CompatibilityDate  string    `json:"compatibility_date,omitempty"`
	CompatibilityFlags []string  `json:"compatibility_flags"`
	Handlers           []string  `json:"handlers"`
	HasAssets          bool      `json:"has_assets"`
	HasModules         bool      `json:"has_modules"`
	Logpush            bool      `json:"logpush"`
	Tags               []string  `json:"tags"`
	UsageModel         string    `json:"usage_model"`
	StartupTimeMs      int       `json:"startup_time_ms"`
}

func (sc *Script) view() scriptView {
	return scriptView{
		ID:                 sc.Name,
		ETag:               sc.ETag,
		CreatedOn:          sc.CreatedOn,
		ModifiedOn:         sc.ModifiedOn,
		CompatibilityDate:  sc.CompatibilityDate,
		CompatibilityFlags: nonNil(sc.CompatibilityFlags),
		Handlers:           []string{"fetch"},
		HasModules:         sc.MainModule != "",
		Logpush:            sc.Logpush,
		Tags:               nonNil(sc.Tags),
		UsageModel:         sc.usageModel(),
	}
}

func (sc *Script) usageModel() string {
	if sc.UsageModel == "" {
		return "standard"
	}
	return sc.UsageModel
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

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
		if prev != nil {
			s.workers.Scripts[name] = prev
		} else {
			delete(s.workers.Scripts, name)
		}
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
		fmt.Fprintf(h, "%q %q %d\n", m.Name, m.ContentType, len(m.Content))
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

func (sc *Script) clone() *Script {
	c := *sc
	c.Modules = make([]Module, len(sc.Modules))
	for i, m := range sc.Modules {
		m.Content = bytes.Clone(m.Content)
		c.Modules[i] = m
	}
	c.Bindings = make([]Binding, len(sc.Bindings))
	for i, b := range sc.Bindings {
		c.Bindings[i] = cloneBinding(b)
	}
	c.CompatibilityFlags = slices.Clone(sc.CompatibilityFlags)
	c.Tags = slices.Clone(sc.Tags)
	c.Placement = bytes.Clone(sc.Placement)
	return &c
}

func cloneBinding(b Binding) Binding {
	// A JSON round trip deep-copies nested values (e.g. a json binding's payload).
	data, _ := json.Marshal(b)
	var c Binding
	_ = json.Unmarshal(data, &c)
	return c
}

func (s *Server) script(r *http.Request) (*Script, error) {
	name := r.PathValue("script_name")
	sc, ok := s.workers.Scripts[name]
	if !ok {
		return nil, &apiError{Status: http.StatusNotFound, Code: 10007, Message: "This Worker does not exist on your account: " + name}
	}
	return sc, nil
}

func (s *Server) listScripts(r *http.Request) (any, any, func(), error) {
	views := make([]scriptView, 0, len(s.workers.Scripts))
	for _, sc := range s.workers.Scripts {
		views = append(views, sc.view())
	}
	slices.SortFunc(views, func(a, b scriptView) int { return strings.Compare(a.ID, b.ID) })
	return views, nil, nil, nil
}

func (s *Server) deleteScript(r *http.Request) (any, any, func(), error) {
	sc, err := s.script(r)
	if err != nil {
		return nil, nil, nil, err
	}
	delete(s.workers.Scripts, sc.Name)
	if err := s.save(fileWorkers); err != nil {
		s.workers.Scripts[sc.Name] = sc
		return nil, nil, nil, err
	}
	var notify func()
	if hook := s.hooks.ScriptChanged; hook != nil {
		notify = func() { hook(ScriptEvent{Name: sc.Name, Deleted: true}) }
	}
	return nil, nil, notify, nil
}

// scriptContent answers the modules as multipart/form-data, one part per module with its
// content type, and names the entry point in CF-Entrypoint, as Cloudflare does.
func (s *Server) scriptContent(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.script(r)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, m := range sc.Modules {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, m.Name, m.Name))
		h.Set("Content-Type", m.ContentType)
		pw, err := mw.CreatePart(h)
		if err != nil {
			return err
		}
		if _, err := pw.Write(m.Content); err != nil {
			return err
		}
	}
	if err := mw.Close(); err != nil {
		return err
	}
	entry := sc.MainModule
	if entry == "" {
		entry = sc.BodyPart
	}
	w.Header().Set("Content-Type", mw.FormDataContentType())
	w.Header().Set("CF-Entrypoint", entry)
	w.Header().Set("ETag", `"`+sc.ETag+`"`)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// scriptSettingsView is the settings read-back. Secret values are never returned.
type scriptSettingsView struct {
	Bindings           []Binding `json:"bindings"`
	CompatibilityDate  string    `json:"compatibility_date,omitempty"`
	CompatibilityFlags []string  `json:"compatibility_flags"`
	Logpush            bool      `json:"logpush"`
	Tags               []string  `json:"tags"`
	TailConsumers      []any     `json:"tail_consumers"`
	UsageModel         string    `json:"usage_model"`
}

func (s *Server) scriptSettings(r *http.Request) (any, any, func(), error) {
	sc, err := s.script(r)
	if err != nil {
		return nil, nil, nil, err
	}
	bindings := make([]Binding, 0, len(sc.Bindings))
	for _, b := range sc.Bindings {
		bindings = append(bindings, redactBinding(b))
	}
	return scriptSettingsView{
		Bindings:           bindings,
		CompatibilityDate:  sc.CompatibilityDate,
		CompatibilityFlags: nonNil(sc.CompatibilityFlags),
		Logpush:            sc.Logpush,
		Tags:               nonNil(sc.Tags),
		TailConsumers:      []any{},
		UsageModel:         sc.usageModel(),
	}, nil, nil, nil
}

// redactBinding drops secret material from a binding read back through the API: Cloudflare
// returns secret_text and secret_key bindings by name and type only.
func redactBinding(b Binding) Binding {
	c := cloneBinding(b)
	switch b.Type() {
	case "secret_text":
		delete(c, "text")
	case "secret_key":
		delete(c, "key_base64")
		delete(c, "key_jwk")
	}
	return c
}
