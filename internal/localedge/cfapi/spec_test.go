package cfapi

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// contractOperations are the operations the provider's traffic must exercise through Prism;
// the contract test fails if any of them was not requested. (The server also answers the
// legacy DELETE …/bulk, which cloudflare-go v7 never sends, so it is not listed.)
var contractOperations = map[string][]string{
	"/accounts/{account_id}/storage/kv/namespaces":                                         {"get", "post"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}":                          {"get", "put", "delete"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/keys":                     {"get"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/values/{key_name}":        {"get", "put", "delete"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/metadata/{key_name}":      {"get"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/bulk":                     {"put"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/bulk/delete":              {"post"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/bulk/get":                 {"post"},
	"/accounts/{account_id}/workers/scripts":                                               {"get"},
	"/accounts/{account_id}/workers/scripts/{script_name}":                                 {"get", "put", "delete"},
	"/accounts/{account_id}/workers/scripts/{script_name}/content/v2":                      {"get"},
	"/accounts/{account_id}/workers/scripts/{script_name}/settings":                        {"get"},
	"/zones/{zone_id}/workers/routes":                                                      {"get", "post"},
	"/zones/{zone_id}/workers/routes/{route_id}":                                           {"get", "put", "delete"},
	"/zones/{zone_id}/custom_hostnames":                                                    {"get", "post"},
	"/zones/{zone_id}/custom_hostnames/{custom_hostname_id}":                               {"get", "patch", "delete"},
	"/zones/{zone_id}/custom_hostnames/fallback_origin":                                    {"get", "put", "delete"},
	"/zones/{zone_id}/dns_records":                                                         {"get", "post"},
	"/zones/{zone_id}/dns_records/{dns_record_id}":                                         {"get", "put", "patch", "delete"},
	"/zones/{zone_id}/purge_cache":                                                         {"post"},
	"/accounts/{account_id}/cfd_tunnel":                                                    {"get", "post"},
	"/accounts/{account_id}/cfd_tunnel/{tunnel_id}":                                        {"get", "patch", "delete"},
	"/accounts/{account_id}/cfd_tunnel/{tunnel_id}/configurations":                         {"get", "put"},
	"/accounts/{account_id}/cfd_tunnel/{tunnel_id}/connections":                            {"get", "delete"},
	"/accounts/{account_id}/cfd_tunnel/{tunnel_id}/token":                                  {"get"},
	"/accounts/{account_id}/r2/buckets":                                                    {"get", "post"},
	"/accounts/{account_id}/r2/buckets/{bucket_name}":                                      {"get", "delete"},
	"/accounts/{account_id}/r2/buckets/{bucket_name}/objects":                              {"get"},
	"/accounts/{account_id}/r2/buckets/{bucket_name}/objects/{object_key}":                 {"get", "put", "delete"},
	"/{accounts_or_zones}/{account_or_zone_id}/rulesets":                                   {"post"},
	"/{accounts_or_zones}/{account_or_zone_id}/rulesets/{ruleset_id}":                      {"get"},
	"/{accounts_or_zones}/{account_or_zone_id}/rulesets/{ruleset_id}/rules":                {"post"},
	"/{accounts_or_zones}/{account_or_zone_id}/rulesets/{ruleset_id}/rules/{rule_id}":      {"patch", "delete"},
	"/{accounts_or_zones}/{account_or_zone_id}/rulesets/phases/{ruleset_phase}/entrypoint": {"get"},

	// The zone itself: the provider's zone_name lookup, and the zone's details.
	"/zones":           {"get"},
	"/zones/{zone_id}": {"get"},
}

// cloudflareSpec extracts the OpenAPI description cloudflare-go carries in scripts/mock
// (base64 of gzip inside a shell variable). It is read at test time, never committed.
func cloudflareSpec(t *testing.T) map[string]any {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/cloudflare/cloudflare-go/v7").Output()
	if err != nil {
		t.Fatalf("locating the cloudflare-go module: %v", err)
	}
	script, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "scripts", "mock"))
	if err != nil {
		t.Fatalf("reading cloudflare-go scripts/mock: %v", err)
	}
	m := regexp.MustCompile(`EMBEDDED_SPEC="([A-Za-z0-9+/=]+)"`).FindSubmatch(script)
	if m == nil {
		t.Fatal("cloudflare-go scripts/mock no longer embeds EMBEDDED_SPEC; update the contract test")
	}
	gz, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatalf("decoding the embedded spec: %v", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatalf("gunzip embedded spec: %v", err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip embedded spec: %v", err)
	}
	var spec map[string]any
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatalf("parsing the embedded spec: %v", err)
	}
	return spec
}

// servedUnderAPIPrefix moves every path under APIPrefix (the description's server URL carries
// that base path, which Prism's proxy does not strip) and drops the servers list.
func servedUnderAPIPrefix(spec map[string]any) {
	paths, _ := spec["paths"].(map[string]any)
	prefixed := make(map[string]any, len(paths))
	for p, item := range paths {
		prefixed[APIPrefix+p] = item
	}
	spec["paths"] = prefixed
	delete(spec, "servers")
}

// unexercisedOperations returns the contractOperations that no request in Prism's log used,
// so the contract test cannot silently stop covering an operation.
func unexercisedOperations(prismLog string) []string {
	seen := map[string]bool{}
	for _, m := range prismRequestLine.FindAllStringSubmatch(prismLog, -1) {
		path, _, _ := strings.Cut(m[2], "?")
		seen[strings.ToLower(m[1])+" "+path] = true
	}
	var missing []string
	for template, methods := range contractOperations {
		re := regexp.MustCompile("^" + regexp.QuoteMeta(APIPrefix) + templateParam.ReplaceAllString(regexp.QuoteMeta(template), `[^/]+`) + "$")
		for _, method := range methods {
			found := false
			for req := range seen {
				m, path, _ := strings.Cut(req, " ")
				if m == method && re.MatchString(path) {
					found = true
					break
				}
			}
			if !found {
				missing = append(missing, strings.ToUpper(method)+" "+template)
			}
		}
	}
	slices.Sort(missing)
	return missing
}

var (
	prismRequestLine = regexp.MustCompile(`\[HTTP SERVER\] (\w+) (\S+) `)
	templateParam    = regexp.MustCompile(`\\\{[a-z_]+\\\}`)
)
