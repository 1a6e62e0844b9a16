package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// A registry that takes the connection and never answers (a stuck proxy in front of it) must
// fail the refresh, as a cluster that does not answer does, instead of hanging the plan until
// the CI job is killed.
func TestRouterImage_RegistryThatNeverAnswersTimesOut(t *testing.T) {
	stuck := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-stuck }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stuck) })
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	saved := registryResponseTimeout
	registryResponseTimeout = 200 * time.Millisecond
	t.Cleanup(func() { registryResponseTimeout = saved })

	done := headImage(t, strings.TrimPrefix(srv.URL, "http://"))
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the lookup succeeded against a registry that never answers")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the registry lookup still waits after 30s: a stuck registry hangs the plan")
	}
}

// A Docker credential helper that never answers (waiting on a locked keyring or a login
// prompt no one sees) must fail the refresh too: go-containerregistry runs the helper with no
// deadline and without looking at the context.
func TestRouterImage_CredentialHelperThatNeverAnswersTimesOut(t *testing.T) {
	host := newTestRegistry(t, nil)
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "docker-credential-stuck"), []byte("#!/bin/sh\nsleep 5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	config := fmt.Sprintf(`{"credHelpers": {%q: "stuck"}}`, host)
	if err := os.WriteFile(filepath.Join(os.Getenv("DOCKER_CONFIG"), "config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	saved := registryCredentialsTimeout
	registryCredentialsTimeout = 200 * time.Millisecond
	t.Cleanup(func() { registryCredentialsTimeout = saved })

	done := headImage(t, host)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "credential helper") {
			t.Fatalf("err = %v, want the stuck credential helper named", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the registry lookup still waits on the credential helper after 3s: a stuck helper hangs the plan")
	}
}

// headImage looks an image up in the registry at host as the resource does, and hands the
// lookup's error over once it ends: a caller waits for it only as long as it likes.
func headImage(t *testing.T, host string) <-chan error {
	t.Helper()
	ref, err := name.NewDigest(host + "/kamuidash/router@sha256:" + strings.Repeat("0", 64))
	if err != nil {
		t.Fatal(err)
	}
	r := &routerImageResource{data: &providerData{Version: "test"}}
	done := make(chan error, 1)
	go func() {
		_, err := remote.Head(ref, r.registryOptions(context.Background())...)
		done <- err
	}()
	return done
}
