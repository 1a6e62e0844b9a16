// Package kubeaccess turns the provider's kubernetes block into a client-go client, with the
// fallbacks a client-go user expects: an explicit kubeconfig, else KUBECONFIG, else
// ~/.kube/config, else the in-cluster service account. Settings given in the block override
// the kubeconfig's cluster, credentials and context, as kubectl's flags do.
//
// Nothing here contacts the API server: building a client is cheap and never fails because
// the cluster is down, so the provider builds it once in Configure and resources that need a
// cluster report a missing or broken setting themselves, at plan time.
package kubeaccess

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Settings are the kubernetes block's attributes. Empty strings are unset.
type Settings struct {
	ConfigPath           string
	ConfigContext        string
	Host                 string
	Token                string
	ClusterCACertificate string // PEM
	Insecure             bool
}

// ErrNotConfigured means no setting, no kubeconfig and no in-cluster service account: there
// is no cluster to talk to.
var ErrNotConfigured = errors.New("no Kubernetes cluster is configured: the kubernetes block sets neither config_path nor host, " +
	"KUBECONFIG is unset, ~/.kube/config does not exist and the provider does not run in a pod")

// requestTimeout bounds every API call: the resources here make a few small calls each, and
// a cluster that does not answer within it should fail the plan, not hang it. A variable for
// the tests.
var requestTimeout = 30 * time.Second

// RESTConfig resolves s into a client-go configuration.
func (s Settings) RESTConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if s.ConfigPath != "" {
		// An explicit file must exist: falling back to another cluster silently would apply
		// the policy somewhere the operator did not name.
		rules.ExplicitPath = s.ConfigPath
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: s.ConfigContext}
	if s.Host != "" {
		overrides.ClusterInfo.Server = s.Host
	}
	if s.ClusterCACertificate != "" {
		overrides.ClusterInfo.CertificateAuthorityData = []byte(s.ClusterCACertificate)
	}
	if s.Insecure {
		overrides.ClusterInfo.InsecureSkipTLSVerify = true
	}
	if s.Token != "" {
		overrides.AuthInfo.Token = s.Token
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	switch {
	case err == nil:
	case clientcmd.IsEmptyConfig(err):
		// client-go calls a kubeconfig without a current-context empty too; saying that none
		// was found would send the operator looking for the wrong thing.
		if contexts := contextNames(rules); len(contexts) > 0 {
			return nil, fmt.Errorf("the kubeconfig (%s) has no current-context: set config_context to one of its contexts (%s)",
				describe(rules), strings.Join(contexts, ", "))
		}
		return nil, ErrNotConfigured
	case s.ConfigContext != "" && isMissingContext(rules, s.ConfigContext):
		return nil, fmt.Errorf("config_context %q is not a context of the kubeconfig (%s)", s.ConfigContext, describe(rules))
	default:
		// client-go's messages name the file and what is wrong with it, never a credential.
		return nil, fmt.Errorf("the kubeconfig (%s) is not usable: %w", describe(rules), err)
	}
	// Checked here, where it can be named: NewForConfig's error would come under the
	// certificates hint of Client.
	if _, _, err := rest.DefaultServerUrlFor(cfg); err != nil {
		return nil, fmt.Errorf("host %q (the kubernetes block's, or the kubeconfig's server) is not an API server URL: %w", cfg.Host, err)
	}
	cfg.Timeout = requestTimeout
	return cfg, nil
}

// Client builds a clientset from s.
func (s Settings) Client() (c kubernetes.Interface, err error) {
	cfg, err := s.RESTConfig()
	if err != nil {
		return nil, err
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err == nil {
		hc.Transport = contextBound{hc.Transport}
		c, err = kubernetes.NewForConfigAndClient(cfg, hc)
	}
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client (check cluster_ca_certificate and the kubeconfig's certificates): %w", err)
	}
	return c, nil
}

// contextBound returns when the request's context ends (requestTimeout at the latest) even if
// the transport it wraps does not: client-go runs a kubeconfig's exec credential plugin with no
// deadline and without looking at the context, so a plugin waiting on a login prompt or a
// stuck network call would hang the plan for good. The abandoned call ends when the plugin does.
type contextBound struct{ rt http.RoundTripper }

func (b contextBound) RoundTrip(req *http.Request) (*http.Response, error) {
	type result struct {
		resp *http.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := b.rt.RoundTrip(req)
		done <- result{resp, err}
	}()
	select {
	case r := <-done:
		return r.resp, r.err
	case <-req.Context().Done():
		go func() {
			if r := <-done; r.resp != nil {
				_ = r.resp.Body.Close()
			}
		}()
		return nil, fmt.Errorf("no answer from the API server, credentials included (a kubeconfig exec plugin may be waiting): %w", req.Context().Err())
	}
}

func isMissingContext(rules *clientcmd.ClientConfigLoadingRules, name string) bool {
	merged, err := rules.Load()
	if err != nil {
		return false
	}
	_, ok := merged.Contexts[name]
	return !ok
}

// contextNames are the kubeconfig's contexts, sorted; none when it cannot be read.
func contextNames(rules *clientcmd.ClientConfigLoadingRules) []string {
	merged, err := rules.Load()
	if err != nil {
		return nil
	}
	return slices.Sorted(maps.Keys(merged.Contexts))
}

// describe names where the kubeconfig came from, for an error message.
func describe(rules *clientcmd.ClientConfigLoadingRules) string {
	if rules.ExplicitPath != "" {
		return "config_path " + rules.ExplicitPath
	}
	if len(rules.Precedence) > 0 {
		return fmt.Sprintf("KUBECONFIG or the default %v", rules.Precedence)
	}
	return "the default kubeconfig"
}

// Kubeconfig renders cfg as a kubeconfig with one context, named name: what a test hands to
// the provider's config_path, and what an operator's tooling would write. Client certificates,
// tokens and the CA travel inline.
func Kubeconfig(cfg *rest.Config, name string) ([]byte, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.CAData,
		InsecureSkipTLSVerify:    cfg.Insecure,
	}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData,
		ClientKeyData:         cfg.KeyData,
		Token:                 cfg.BearerToken,
	}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	kc.CurrentContext = name
	return clientcmd.Write(*kc)
}
