package cfapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/option"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
)

// startServer runs a Server on a loopback httptest listener over dir.
func startServer(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	if cfg.StateDir == "" {
		cfg.StateDir = t.TempDir()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return srv, ts
}

// newClient is the provider's real client pointed at baseURL (a server root, no API prefix).
func newClient(baseURL, token string, retries int) *cloudflare.Client {
	return cloudflare.NewClient(
		option.WithBaseURL(baseURL+APIPrefix+"/"),
		option.WithAPIToken(token),
		option.WithMaxRetries(retries),
	)
}

// createNamespace creates a KV namespace titled title through api and returns its id.
func createNamespace(t *testing.T, api *cloudflare.Client, accountID, title string) string {
	t.Helper()
	ns, err := api.KV.Namespaces.New(context.Background(), kv.NamespaceNewParams{AccountID: cloudflare.F(accountID), Title: cloudflare.F(title)})
	must(t, "create namespace", err)
	return ns.ID
}

// workerPart is one module of a Worker upload.
type workerPart struct {
	name, contentType string
	content           []byte
}

// workerUpload builds the multipart body the provider sends: a "metadata" JSON part and one
// part per module named by its file name. cloudflare-go's own encoder sends dotted metadata
// fields and "files.N" parts, which is why the provider builds the body itself.
func workerUpload(t *testing.T, metadata map[string]any, parts ...workerPart) (contentType string, body []byte) {
	t.Helper()
	modules := make([]kdcf.WorkerModule, len(parts))
	for i, p := range parts {
		modules[i] = kdcf.WorkerModule{Name: p.name, MIMEType: p.contentType, Content: p.content}
	}
	contentType, body, err := kdcf.EncodeWorkerUpload(metadata, modules)
	if err != nil {
		t.Fatal(err)
	}
	return contentType, body
}

// rawRequest sends a request without cloudflare-go and decodes the envelope.
func rawRequest(t *testing.T, method, url, token string, body io.Reader) (*http.Response, envelopeForTest) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ := io.ReadAll(resp.Body)
	var env envelopeForTest
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatalf("%s %s: answer is not a JSON envelope: %v: %s", method, url, err, data)
	}
	return resp, env
}

type envelopeForTest struct {
	Success  bool              `json:"success"`
	Errors   []apiMessage      `json:"errors"`
	Messages []apiMessage      `json:"messages"`
	Result   json.RawMessage   `json:"result"`
	Info     map[string]any    `json:"result_info"`
	Extra    map[string]string `json:"-"`
}

func (e envelopeForTest) firstCode() int {
	if len(e.Errors) == 0 {
		return 0
	}
	return e.Errors[0].Code
}
