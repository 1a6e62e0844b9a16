package cfapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
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

func cloneBinding(b Binding) Binding { return deepCopyJSON(b) }

// deepCopyJSON copies a value made of decoded JSON (maps, slices, scalars) through a JSON
// round trip, so nested maps are not shared.
func deepCopyJSON[T any](v T) T {
	data, _ := json.Marshal(v)
	var c T
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
