package cfapi

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
)

func TestAuthFailuresAnswerCloudflareErrors(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	url := ts.URL + APIPrefix + "/accounts/" + id.AccountID + "/storage/kv/namespaces"

	resp, env := rawRequest(t, http.MethodGet, url, "", nil)
	if resp.StatusCode != http.StatusUnauthorized || env.Success || env.firstCode() != codeAuthError {
		t.Errorf("missing token: HTTP %d, code %d, success %v; want 401, %d, false", resp.StatusCode, env.firstCode(), env.Success, codeAuthError)
	}
	resp, env = rawRequest(t, http.MethodGet, url, "not-the-token", nil)
	if resp.StatusCode != http.StatusForbidden || env.firstCode() != codeInvalidToken {
		t.Errorf("wrong token: HTTP %d, code %d; want 403, %d", resp.StatusCode, env.firstCode(), codeInvalidToken)
	}
	if strings.Contains(env.Errors[0].Message, id.APIToken) {
		t.Error("an auth error echoes the real token")
	}

	// The provider's client sees the same through its error type.
	_, err := newClient(ts.URL, "not-the-token", 0).KV.Namespaces.New(context.Background(),
		kv.NamespaceNewParams{AccountID: cloudflare.F(id.AccountID), Title: cloudflare.F("x")})
	wantAPIError(t, "cloudflare-go with a wrong token", err, http.StatusForbidden)

	// A valid token used for another account is out of scope.
	_, env = rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/accounts/"+strings.Repeat("0", 32)+"/storage/kv/namespaces", id.APIToken, nil)
	if env.firstCode() != codeInvalidToken {
		t.Errorf("foreign account: code %d, want %d", env.firstCode(), codeInvalidToken)
	}
	resp, _ = rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/zones/"+strings.Repeat("0", 32)+"/dns_records", id.APIToken, nil)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign zone: HTTP %d, want 403", resp.StatusCode)
	}
}

func TestUnimplementedRequestsAreErrorsAndLogged(t *testing.T) {
	var logs lockedBuffer
	srv, ts := startServer(t, Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	id := srv.Identity()

	unknown := APIPrefix + "/zones/" + id.ZoneID + "/settings/ssl"
	resp, env := rawRequest(t, http.MethodGet, ts.URL+unknown, id.APIToken, nil)
	if resp.StatusCode != http.StatusNotFound || env.Success || env.firstCode() != codeNoRoute {
		t.Errorf("unknown path: HTTP %d code %d success %v; want 404 %d false", resp.StatusCode, env.firstCode(), env.Success, codeNoRoute)
	}
	if msg := env.Errors[0].Message; !strings.Contains(msg, "GET "+unknown) {
		t.Errorf("error message %q does not name the method and path", msg)
	}

	knownPath := APIPrefix + "/accounts/" + id.AccountID + "/workers/scripts/edge/settings"
	resp, env = rawRequest(t, http.MethodPatch, ts.URL+knownPath, id.APIToken, strings.NewReader("{}"))
	if resp.StatusCode != http.StatusMethodNotAllowed || env.firstCode() != codeMethodNotAllow || !strings.Contains(env.Errors[0].Message, "PATCH "+knownPath) {
		t.Errorf("unsupported method: HTTP %d code %d %q", resp.StatusCode, env.firstCode(), env.Errors[0].Message)
	}
	for _, want := range []string{"path=" + unknown, "path=" + knownPath} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log does not record the unimplemented request %s:\n%s", want, logs.String())
		}
	}
	if strings.Contains(logs.String(), id.APIToken) {
		t.Error("the log contains the API token")
	}

	// Purge kinds other than by URL are declared unimplemented rather than faked.
	resp, env = rawRequest(t, http.MethodPost, ts.URL+APIPrefix+"/zones/"+id.ZoneID+"/purge_cache", id.APIToken, strings.NewReader(`{"purge_everything":true}`))
	if resp.StatusCode != http.StatusNotImplemented || env.Success {
		t.Errorf("purge_everything: HTTP %d success %v; want 501 false", resp.StatusCode, env.Success)
	}
}

// lockedBuffer collects log output written from request goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
