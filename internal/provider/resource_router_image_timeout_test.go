package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
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

	ref, err := name.NewDigest(strings.TrimPrefix(srv.URL, "http://") + "/kamuidash/router@sha256:" + strings.Repeat("0", 64))
	if err != nil {
		t.Fatal(err)
	}
	r := &routerImageResource{data: &providerData{Version: "test"}}
	done := make(chan error, 1)
	go func() {
		_, err := remote.Head(ref, r.registryOptions(context.Background())...)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the lookup succeeded against a registry that never answers")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the registry lookup still waits after 30s: a stuck registry hangs the plan")
	}
}
