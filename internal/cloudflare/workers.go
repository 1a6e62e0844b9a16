package cloudflare

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/workers"
)

// WorkerModule is one module of a Worker upload; the part name is the module's file name.
type WorkerModule struct {
	Name     string
	MIMEType string // application/javascript+module or application/wasm
	Content  []byte
}

// WorkerUpload is a whole ES-module Worker: metadata and modules.
type WorkerUpload struct {
	MainModule         string           `json:"main_module"`
	CompatibilityDate  string           `json:"compatibility_date"`
	CompatibilityFlags []string         `json:"compatibility_flags,omitempty"`
	Bindings           []map[string]any `json:"bindings"`
	Modules            []WorkerModule   `json:"-"`
}

// UploadWorker uploads (creates or replaces in place) the script and returns its etag.
func (c *Client) UploadWorker(ctx context.Context, accountID, name string, up WorkerUpload) (etag string, err error) {
	contentType, body, err := EncodeWorkerUpload(up, up.Modules)
	if err != nil {
		return "", err
	}
	res, err := c.Workers.Scripts.Update(ctx, name, workers.ScriptUpdateParams{AccountID: cf.F(accountID)},
		option.WithRequestBody(contentType, body))
	if err != nil {
		return "", err
	}
	return res.Etag, nil
}

// EncodeWorkerUpload builds the multipart body of a Worker upload: a "metadata" JSON part
// (metadata marshalled as is) plus one part per module, named by the module's file name.
//
// The body is built here because cloudflare-go v7.9.0 sends metadata as dotted form fields and
// files as "files.0", which the API does not read as modules.
func EncodeWorkerUpload(metadata any, modules []WorkerModule) (contentType string, body []byte, err error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	meta, err := json.Marshal(metadata)
	if err != nil {
		return "", nil, err
	}
	if err := writePart(mw, "metadata", "blob", "application/json", meta); err != nil {
		return "", nil, err
	}
	for _, m := range modules {
		if err := writePart(mw, m.Name, m.Name, m.MIMEType, m.Content); err != nil {
			return "", nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return "", nil, err
	}
	return mw.FormDataContentType(), buf.Bytes(), nil
}

func writePart(mw *multipart.Writer, name, filename, contentType string, content []byte) error {
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, name, filename))
	h.Set("Content-Type", contentType)
	w, err := mw.CreatePart(h)
	if err != nil {
		return err
	}
	_, err = w.Write(content)
	return err
}

// WorkerSettings is what the API tells about an uploaded script's configuration. Secret
// bindings come back without their text.
type WorkerSettings struct {
	CompatibilityDate string           `json:"compatibility_date"`
	Bindings          []map[string]any `json:"bindings"`
}

// GetWorkerSettings reads a script's settings; found is false when the script does not exist.
//
// The raw envelope is decoded here rather than by cloudflare-go, whose decoder can panic on
// "placement": {} in v7.9.0.
func (c *Client) GetWorkerSettings(ctx context.Context, accountID, name string) (s *WorkerSettings, found bool, err error) {
	var env struct {
		Result WorkerSettings `json:"result"`
	}
	var raw *http.Response
	_, err = func() (res *workers.ScriptScriptAndVersionSettingGetResponse, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("decoding the settings of script %q: %v", name, p)
			}
		}()
		return c.Workers.Scripts.ScriptAndVersionSettings.Get(ctx, name,
			workers.ScriptScriptAndVersionSettingGetParams{AccountID: cf.F(accountID)},
			option.WithResponseInto(&raw), option.WithResponseBodyInto(&env))
	}()
	if isStatus(err, http.StatusNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return &env.Result, true, nil
}

// WorkerEtag returns the etag of the script's current content, from the script listing;
// found is false when the script does not exist.
func (c *Client) WorkerEtag(ctx context.Context, accountID, name string) (etag string, found bool, err error) {
	page, err := c.Workers.Scripts.List(ctx, workers.ScriptListParams{AccountID: cf.F(accountID)})
	if err != nil {
		return "", false, err
	}
	for _, s := range page.Result {
		if s.ID == name {
			return s.Etag, true, nil
		}
	}
	return "", false, nil
}

// maxDownloadedModuleBytes bounds each module WorkerModules reads: an uploaded Worker is at
// most 10 MB compressed, and a download is only ever compared with an upload.
const maxDownloadedModuleBytes = 64 << 20

// WorkerModules downloads the modules of the script's current content, in the order the API
// gives them; found is false when the script does not exist.
func (c *Client) WorkerModules(ctx context.Context, accountID, name string) (modules []WorkerModule, found bool, err error) {
	res, err := c.Workers.Scripts.Content.Get(ctx, name, workers.ScriptContentGetParams{AccountID: cf.F(accountID)})
	if isStatus(err, http.StatusNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = res.Body.Close() }() // only read
	mediaType, params, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" || params["boundary"] == "" {
		return nil, false, fmt.Errorf("the content of script %q came as %q, not multipart/form-data", name, res.Header.Get("Content-Type"))
	}
	parts := multipart.NewReader(res.Body, params["boundary"])
	for {
		part, err := parts.NextPart()
		if errors.Is(err, io.EOF) {
			return modules, true, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("reading the content of script %q: %w", name, err)
		}
		content, err := io.ReadAll(io.LimitReader(part, maxDownloadedModuleBytes+1))
		if err != nil {
			return nil, false, fmt.Errorf("reading the content of script %q: %w", name, err)
		}
		if len(content) > maxDownloadedModuleBytes {
			return nil, false, fmt.Errorf("the module %q of script %q is over %d bytes", part.FormName(), name, maxDownloadedModuleBytes)
		}
		modules = append(modules, WorkerModule{Name: part.FormName(), MIMEType: part.Header.Get("Content-Type"), Content: content})
	}
}

// DeleteWorker deletes a script; one already gone is not an error.
func (c *Client) DeleteWorker(ctx context.Context, accountID, name string) error {
	_, err := c.Workers.Scripts.Delete(ctx, name, workers.ScriptDeleteParams{AccountID: cf.F(accountID)})
	if isStatus(err, http.StatusNotFound) {
		return nil
	}
	return err
}

// WorkerRoute is a zone route that sends matching requests to a script.
type WorkerRoute struct {
	ID      string `json:"id"`
	Pattern string `json:"pattern"`
	Script  string `json:"script"`
}

// ListWorkerRoutes lists the zone's Worker routes.
func (c *Client) ListWorkerRoutes(ctx context.Context, zoneID string) ([]WorkerRoute, error) {
	page, err := c.Workers.Routes.List(ctx, workers.RouteListParams{ZoneID: cf.F(zoneID)})
	if err != nil {
		return nil, err
	}
	routes := make([]WorkerRoute, 0, len(page.Result))
	for _, r := range page.Result {
		routes = append(routes, WorkerRoute{ID: r.ID, Pattern: r.Pattern, Script: r.Script})
	}
	return routes, nil
}

// CreateWorkerRoute routes pattern to script.
func (c *Client) CreateWorkerRoute(ctx context.Context, zoneID, pattern, script string) error {
	_, err := c.Workers.Routes.New(ctx, workers.RouteNewParams{ZoneID: cf.F(zoneID), Pattern: cf.F(pattern), Script: cf.F(script)})
	return err
}

// UpdateWorkerRoute points the route id (with pattern) at script.
func (c *Client) UpdateWorkerRoute(ctx context.Context, zoneID, id, pattern, script string) error {
	_, err := c.Workers.Routes.Update(ctx, id, workers.RouteUpdateParams{ZoneID: cf.F(zoneID), Pattern: cf.F(pattern), Script: cf.F(script)})
	return err
}

// DeleteWorkerRoute deletes a route; one already gone is not an error.
func (c *Client) DeleteWorkerRoute(ctx context.Context, zoneID, id string) error {
	_, err := c.Workers.Routes.Delete(ctx, id, workers.RouteDeleteParams{ZoneID: cf.F(zoneID)})
	if isStatus(err, http.StatusNotFound) {
		return nil
	}
	return err
}
