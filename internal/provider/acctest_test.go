package provider

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// testEdge is a local edge API server running in the test process, so that acceptance tests
// drive the real CLI against a Cloudflare-compatible API with no account and no network.
type testEdge struct {
	*cfapi.Server
	URL string
}

func newTestEdge(t *testing.T, options ...func(*cfapi.Config)) *testEdge {
	t.Helper()
	return newTestEdgeBehind(t, nil, options...)
}

// newTestEdgeBehind is newTestEdge with wrap (when not nil) in front of the API server: a test's
// call counter or fault of its own.
func newTestEdgeBehind(t *testing.T, wrap func(http.Handler) http.Handler, options ...func(*cfapi.Config)) *testEdge {
	t.Helper()
	cfg := cfapi.Config{
		StateDir:           t.TempDir(),
		ZoneName:           "kamui.test",
		KVPropagationDelay: -1, // synchronous: tests read what they just wrote
		Logger:             slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	for _, o := range options {
		o(&cfg)
	}
	srv, err := cfapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if wrap != nil {
		h = wrap(srv)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return &testEdge{Server: srv, URL: hs.URL + cfapi.APIPrefix}
}

// providerBlockWithS3 is providerBlock with the edge's R2 S3 endpoint and key pair.
func (e *testEdge) providerBlockWithS3() string {
	id := e.Identity()
	return strings.TrimSuffix(e.providerBlock(), "}\n") + fmt.Sprintf(`  r2_s3_endpoint       = %q
  r2_access_key_id     = %q
  r2_secret_access_key = %q
}
`, strings.TrimSuffix(e.URL, cfapi.APIPrefix)+cfapi.S3Prefix, id.R2AccessKeyID, id.R2SecretAccessKey)
}

// providerBlock configures the provider for this edge.
func (e *testEdge) providerBlock() string {
	id := e.Identity()
	return fmt.Sprintf(`
provider "kamuidash" {
  api_token       = %q
  account_id      = %q
  zone_id         = %q
  api_base_url    = %q
  platform_domain = "kamui.test"
  environment     = "test"
}
`, id.APIToken, id.AccountID, id.ZoneID, e.URL)
}

// providerBlockByZoneName configures the provider for this edge with the zone given by name
// (zoneName, spelled as the test likes) instead of its ID.
func (e *testEdge) providerBlockByZoneName(zoneName string) string {
	id := e.Identity()
	return fmt.Sprintf(`
provider "kamuidash" {
  api_token       = %q
  account_id      = %q
  zone_name       = %q
  api_base_url    = %q
  platform_domain = "kamui.test"
  environment     = "test"
}
`, id.APIToken, id.AccountID, zoneName, e.URL)
}
