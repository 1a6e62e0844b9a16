package kubeaccess

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// isolate points every fallback at nothing: no KUBECONFIG, an empty home, not in a pod.
func isolate(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
}

func writeKubeconfig(t *testing.T, contexts map[string]string) string {
	t.Helper()
	var path string
	for name, host := range contexts {
		b, err := Kubeconfig(&rest.Config{Host: host, BearerToken: "token-" + name}, name)
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(t.TempDir(), name+".yaml")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func TestRESTConfig_NothingConfigured(t *testing.T) {
	isolate(t)
	_, err := Settings{}.RESTConfig()
	if !errors.Is(err, ErrNotConfigured) {
		t.Fatalf("err = %v, want ErrNotConfigured", err)
	}
}

func TestRESTConfig_HostAndToken(t *testing.T) {
	isolate(t)
	cfg, err := Settings{Host: "https://10.0.0.1:6443", Token: "secret", Insecure: true}.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://10.0.0.1:6443" || cfg.BearerToken != "secret" || !cfg.Insecure {
		t.Errorf("config %+v", cfg)
	}
	if cfg.Timeout != requestTimeout {
		t.Errorf("timeout %v, want %v", cfg.Timeout, requestTimeout)
	}
}

func TestRESTConfig_KubeconfigFallbackAndOverrides(t *testing.T) {
	isolate(t)
	path := writeKubeconfig(t, map[string]string{"dev": "https://dev.example:6443"})

	t.Setenv("KUBECONFIG", path)
	cfg, err := Settings{}.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://dev.example:6443" || cfg.BearerToken != "token-dev" {
		t.Errorf("from KUBECONFIG: host %s token %q", cfg.Host, cfg.BearerToken)
	}

	// The block's settings win over the file's, as kubectl's flags do.
	cfg, err = Settings{ConfigPath: path, Token: "override"}.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BearerToken != "override" {
		t.Errorf("token %q, want the block's", cfg.BearerToken)
	}
}

func TestRESTConfig_Errors(t *testing.T) {
	isolate(t)
	path := writeKubeconfig(t, map[string]string{"dev": "https://dev.example:6443"})
	for name, tc := range map[string]struct {
		s    Settings
		want string
	}{
		"missing explicit file": {Settings{ConfigPath: filepath.Join(t.TempDir(), "nope")}, "config_path"},
		"unknown context":       {Settings{ConfigPath: path, ConfigContext: "prod"}, `config_context "prod"`},
		"bad CA":                {Settings{Host: "https://x:6443", ClusterCACertificate: "not a pem"}, "cluster_ca_certificate"},
		"bad host":              {Settings{Host: "https://x:port/"}, `host "https://x:port/"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.s.Client()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

// A kubeconfig's exec credential plugin that never answers (a cloud CLI waiting on a login
// prompt, a stuck network call) must fail the call within requestTimeout, not hang the plan:
// client-go runs the plugin with no deadline of its own.
func TestClient_HangingExecPluginTimesOut(t *testing.T) {
	isolate(t)
	saved := requestTimeout
	requestTimeout = time.Second
	t.Cleanup(func() { requestTimeout = saved })

	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1", InsecureSkipTLSVerify: true}
	kc.AuthInfos["c"] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
		APIVersion: "client.authentication.k8s.io/v1", Command: "sleep", Args: []string{"5"},
		InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}}
	kc.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "c"}
	kc.CurrentContext = "c"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	c, err := Settings{ConfigPath: path}.Client()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the call succeeded without credentials")
		}
		t.Logf("error: %v", err)
	case <-time.After(4 * time.Second):
		t.Fatal("the call still waits on the exec plugin 4s after a 1s request timeout")
	}
}

// A kubeconfig with several contexts and no current-context is a kubeconfig all the same: the
// error must say to pick a context, not that no kubeconfig or config_path was given.
func TestRESTConfig_NoCurrentContext(t *testing.T) {
	isolate(t)
	kc := clientcmdapi.NewConfig()
	for _, name := range []string{"dev", "prod"} {
		kc.Clusters[name] = &clientcmdapi.Cluster{Server: "https://" + name + ".example:6443"}
		kc.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: "token-" + name}
		kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	check := func(how string, s Settings) {
		_, err := s.RESTConfig()
		if err == nil || errors.Is(err, ErrNotConfigured) || !strings.Contains(err.Error(), "config_context") ||
			!strings.Contains(err.Error(), "dev, prod") {
			t.Errorf("%s: err = %v, want it to ask for config_context and list the contexts", how, err)
		}
	}
	check("config_path", Settings{ConfigPath: path})
	t.Setenv("KUBECONFIG", path)
	check("KUBECONFIG", Settings{})
}
