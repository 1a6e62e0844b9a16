package localedge

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// EnvLocalRegistry is the local registry's host:port, where a configuration pushes the router
// image (kamuidash_router_image's repository <registry>/kamuidash/router).
const EnvLocalRegistry = "KAMUIDASH_LOCAL_REGISTRY"

// clusterEnv is what the env file says about the cluster side: the registry, the API server's
// kubeconfig (with --kube-assets), and the namespace prefix the local edge's router requires
// (with --router), which the provider checks apps against at plan (tenant_namespace_prefix).
type clusterEnv struct{ registry, kubeconfig, namespacePrefix string }

// envFile is what a user pastes (or sources) to point the provider at the local edge, as
// export lines in a fixed order. It holds the API token, the signing secret and the R2 S3
// secret access key, so it is written 0600. The S3 endpoint is the API listener's address
// with cfapi.S3Prefix: the AWS SDK keeps a path in its BaseEndpoint, so one listener serves
// both APIs. KUBECONFIG (with --kube-assets) is what the provider's kubernetes block falls back to.
func envFile(id cfapi.Identity, apiURL, edgeURL, signingSecret string, cluster clusterEnv) []byte {
	var b strings.Builder
	lines := [][2]string{
		{"CLOUDFLARE_API_TOKEN", id.APIToken},
		{"KAMUIDASH_API_BASE_URL", apiURL + cfapi.APIPrefix},
		{"KAMUIDASH_ACCOUNT_ID", id.AccountID},
		{"KAMUIDASH_ZONE_ID", id.ZoneID},
		{"KAMUIDASH_PLATFORM_DOMAIN", id.ZoneName},
		{"KAMUIDASH_EDGE_URL", edgeURL},
		{"KAMUIDASH_PROBE_KEY", route.EncodeProbeKey(route.ProbeKey([]byte(signingSecret)))},
		{envLocalSigningSecret, signingSecret},
		{"KAMUIDASH_R2_S3_ENDPOINT", apiURL + cfapi.S3Prefix},
		{"KAMUIDASH_R2_ACCESS_KEY_ID", id.R2AccessKeyID},
		{"KAMUIDASH_R2_SECRET_ACCESS_KEY", id.R2SecretAccessKey},
		{EnvLocalRegistry, cluster.registry},
	}
	if cluster.namespacePrefix != "" {
		lines = append(lines, [2]string{"KAMUIDASH_TENANT_NAMESPACE_PREFIX", cluster.namespacePrefix})
	}
	if cluster.kubeconfig != "" {
		lines = append(lines, [2]string{"KUBECONFIG", cluster.kubeconfig})
	}
	for _, kv := range lines {
		b.WriteString("export " + kv[0] + "=" + shellQuote(kv[1]) + "\n")
	}
	return []byte(b.String())
}

// shellQuote leaves safe values bare (the usual case: ids, URLs, hex tokens) and
// single-quotes anything else.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeFileAtomic writes data under a temporary name in the same directory and renames it
// into place, so a script polling for the file never reads half of it. The file is readable by
// its owner only (0600): every one written holds a secret or a credential.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	// After the rename there is nothing left to remove; before it, a leftover only takes space.
	defer func() { _ = os.Remove(tmp) }()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o600)
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
