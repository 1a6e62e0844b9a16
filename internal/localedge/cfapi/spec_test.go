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
	"strings"
	"testing"
)

// contractOperations are the operations the provider's traffic uses; the contract test cuts
// Cloudflare's OpenAPI description down to them (the full description is ~12 MB and Prism
// spends minutes compiling it).
var contractOperations = map[string][]string{
	"/accounts/{account_id}/storage/kv/namespaces":                                    {"get", "post"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}":                     {"get", "put", "delete"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/keys":                {"get"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/values/{key_name}":   {"get", "put", "delete"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/metadata/{key_name}": {"get"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/bulk":                {"put", "delete"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/bulk/delete":         {"post"},
	"/accounts/{account_id}/storage/kv/namespaces/{namespace_id}/bulk/get":            {"post"},
	"/accounts/{account_id}/workers/scripts":                                          {"get"},
	"/accounts/{account_id}/workers/scripts/{script_name}":                            {"get", "put", "delete"},
	"/accounts/{account_id}/workers/scripts/{script_name}/content/v2":                 {"get"},
	"/accounts/{account_id}/workers/scripts/{script_name}/settings":                   {"get"},
	"/zones/{zone_id}/workers/routes":                                                 {"get", "post"},
	"/zones/{zone_id}/workers/routes/{route_id}":                                      {"get", "put", "delete"},
	"/zones/{zone_id}/custom_hostnames":                                               {"get", "post"},
	"/zones/{zone_id}/custom_hostnames/{custom_hostname_id}":                          {"get", "patch", "delete"},
	"/zones/{zone_id}/dns_records":                                                    {"get", "post"},
	"/zones/{zone_id}/dns_records/{dns_record_id}":                                    {"get", "put", "patch", "delete"},
	"/zones/{zone_id}/purge_cache":                                                    {"post"},
	"/accounts/{account_id}/cfd_tunnel":                                               {"get", "post"},
	"/accounts/{account_id}/cfd_tunnel/{tunnel_id}":                                   {"get", "delete"},
	"/accounts/{account_id}/cfd_tunnel/{tunnel_id}/configurations":                    {"get", "put"},
	"/accounts/{account_id}/cfd_tunnel/{tunnel_id}/connections":                       {"get", "delete"},
	"/accounts/{account_id}/cfd_tunnel/{tunnel_id}/token":                             {"get"},
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

// cutSpec keeps only contractOperations and the components they reference (transitively),
// and serves the paths under APIPrefix, the base path the client uses.
func cutSpec(t *testing.T, spec map[string]any) map[string]any {
	t.Helper()
	paths, _ := spec["paths"].(map[string]any)
	kept := map[string]any{}
	for p, methods := range contractOperations {
		item, ok := paths[p].(map[string]any)
		if !ok {
			t.Fatalf("the spec has no path %s", p)
		}
		cut := map[string]any{}
		if params, ok := item["parameters"]; ok {
			cut["parameters"] = params
		}
		for _, m := range methods {
			op, ok := item[m]
			if !ok {
				t.Fatalf("the spec has no %s %s", strings.ToUpper(m), p)
			}
			cut[m] = op
		}
		kept[APIPrefix+p] = cut
	}
	components, _ := spec["components"].(map[string]any)
	keptComponents := map[string]any{}
	var visit func(v any)
	visit = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				addRef(t, ref, components, keptComponents, visit)
			}
			for _, child := range v {
				visit(child)
			}
		case []any:
			for _, child := range v {
				visit(child)
			}
		}
	}
	visit(kept)
	if sec, ok := spec["security"]; ok {
		visit(sec)
	}
	if schemes, ok := components["securitySchemes"]; ok {
		keptComponents["securitySchemes"] = schemes
	}
	return map[string]any{
		"openapi":    spec["openapi"],
		"info":       spec["info"],
		"security":   spec["security"],
		"paths":      kept,
		"components": keptComponents,
	}
}

// addRef copies the component a local "#/components/<kind>/<name>" reference points to.
func addRef(t *testing.T, ref string, from, to map[string]any, visit func(any)) {
	kind, name, ok := strings.Cut(strings.TrimPrefix(ref, "#/components/"), "/")
	if !ok || !strings.HasPrefix(ref, "#/components/") {
		t.Fatalf("unsupported $ref %q", ref)
	}
	dst, _ := to[kind].(map[string]any)
	if dst == nil {
		dst = map[string]any{}
		to[kind] = dst
	}
	if _, seen := dst[name]; seen {
		return
	}
	src, _ := from[kind].(map[string]any)
	v, ok := src[name]
	if !ok {
		t.Fatalf("dangling $ref %q", ref)
	}
	dst[name] = v
	visit(v)
}
