package cfapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
)

// TestContractThroughPrism drives the provider's cloudflare-go traffic through Prism in proxy
// mode, validating every request and response against Cloudflare's full OpenAPI description
// (with the few fixes contractSpecFixes documents) with violations answered as errors. The
// test fails on any violation Prism reports, whatever its severity, and if the traffic stops
// exercising one of contractOperations.
func TestContractThroughPrism(t *testing.T) {
	prism := filepath.Join(repoRoot(t), "node_modules", ".bin", "prism")
	if _, err := os.Stat(prism); errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Prism is not installed (%s missing): run npm ci at the repo root", prism)
	}

	// The rate limit is on (with room for all the traffic) so that every answer carries the
	// rate-limit headers: the description declares none of them, and Prism must still accept
	// the answers (it checks only the headers an operation declares).
	srv, ts := startServer(t, Config{SeedFallbackOrigin: "fallback", RateLimit: RateLimit{Requests: 100000, Window: 5 * time.Minute}})
	id := srv.Identity()

	spec := cloudflareSpec(t)
	servedUnderAPIPrefix(spec)
	contractSpecFixes(t, spec)
	specPath := filepath.Join(t.TempDir(), "cloudflare-openapi.json")
	data, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(specPath, data, 0o600); err != nil {
		t.Fatal(err)
	}

	port, log := startPrism(t, prism, specPath, ts.URL, freePort)

	prismURL := fmt.Sprintf("http://127.0.0.1:%d", port)
	// Prism's proxy forwards bodies as UTF-8 text, replacing bytes that are not UTF-8, so this
	// run uploads a Wasm module of valid UTF-8 (its header); the direct test asserts that
	// arbitrary module bytes round-trip exactly.
	driveProviderTraffic(t, newClient(prismURL, id.APIToken, 0), id, trafficOptions{wasm: testWorkerWasm[:8], checkUploadMetadata: func(metadata map[string]any) {
		body, _ := json.Marshal(metadata)
		req, _ := http.NewRequest(http.MethodPost, prismURL+metadataProbePath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+id.APIToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("metadata probe: %v", err)
		}
		defer func() { _ = resp.Body.Close() }()
		if resp.StatusCode != http.StatusNotFound {
			problem, _ := io.ReadAll(resp.Body)
			t.Errorf("Prism rejected the Worker upload metadata (HTTP %d): %s", resp.StatusCode, problem)
		}
	}})

	// An injected 429 must conform too (a Cloudflare failure envelope under the 4XX answer;
	// the rate limit's own 429 is the same envelope).
	must(t, "arm a 429", srv.SetFaults(FaultSpec{Status: http.StatusTooManyRequests, Count: 1}))
	_, err = newClient(prismURL, id.APIToken, 0).KV.Namespaces.List(context.Background(), kv.NamespaceListParams{AccountID: cloudflare.F(id.AccountID)})
	wantAPIError(t, "injected 429 through Prism", err, http.StatusTooManyRequests)
	var apiErr *cloudflare.Error
	if errors.As(err, &apiErr) && (apiErr.Response.Header.Get("Ratelimit") == "" || apiErr.Response.Header.Get("Ratelimit-Policy") != `"default";q=100000;w=300`) {
		t.Errorf("through Prism the answer lost the rate-limit headers: Ratelimit %q, Ratelimit-Policy %q",
			apiErr.Response.Header.Get("Ratelimit"), apiErr.Response.Header.Get("Ratelimit-Policy"))
	}

	if missing := unexercisedOperations(log.String()); len(missing) > 0 {
		t.Errorf("the traffic no longer exercises %d contract operations: %s", len(missing), strings.Join(missing, ", "))
	}
	if violations := prismViolations(log.String()); len(violations) > 0 {
		t.Errorf("Prism reported %d contract violations:\n%s", len(violations), strings.Join(violations, "\n"))
	}
}

// violationLine matches Prism's report of a request or response that breaks the description.
var violationLine = regexp.MustCompile(`(?i)violation`)

func prismViolations(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if violationLine.MatchString(line) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

// prismPortAttempts bounds how often startPrism tries a new port after losing one.
const prismPortAttempts = 5

// startPrism starts Prism's validating proxy in front of upstream and returns its port and its
// log once it listens. A port picked free can be taken by another process in the seconds Prism
// spends loading the description (go test runs packages in parallel, and CI once lost a port
// that way), so a start that fails with EADDRINUSE is retried on a new port; any other failure
// fails the test at once.
func startPrism(t *testing.T, prism, specPath, upstream string, pickPort func(*testing.T) int) (int, *syncBuffer) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		port := pickPort(t)
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.CommandContext(ctx, prism, "proxy", specPath, upstream,
			"--errors", "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--cors=false")
		log := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatalf("starting Prism: %v", err)
		}
		// Wait returns once Prism has exited and its whole output is in log.
		exited := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(exited)
		}()
		stop := func() {
			cancel()
			<-exited
		}
		switch err := waitForPrism(log, port, exited); {
		case err == nil:
			t.Cleanup(func() {
				stop()
				if t.Failed() {
					t.Logf("Prism log:\n%s", log.String())
				}
			})
			return port, log
		case errors.Is(err, errPortTaken) && attempt < prismPortAttempts:
			stop()
			t.Logf("Prism lost port %d to another process; trying another (attempt %d of %d)", port, attempt+1, prismPortAttempts)
		default:
			stop()
			t.Fatalf("%v\nPrism log:\n%s", err, log.String())
		}
	}
}

// errPortTaken is waitForPrism's answer when another process bound the port first, and
// errPrismFailed when Prism exited before listening for any other reason.
var (
	errPortTaken   = errors.New("prism: port already in use")
	errPrismFailed = errors.New("prism failed to start")
)

// waitForPrism waits until Prism listens on port (nil) or has exited (exited closed, its
// whole output in log): a failed start is told by the whole log, never by the part of it
// that had arrived when "fatal" did, since the reason comes after the usage text.
func waitForPrism(log *syncBuffer, port int, exited <-chan struct{}) error {
	deadline := time.After(2 * time.Minute)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if strings.Contains(log.String(), "Prism is listening") {
			return nil
		}
		select {
		case <-exited:
			if strings.Contains(log.String(), "EADDRINUSE") {
				return errPortTaken
			}
			return errPrismFailed
		case <-deadline:
			return fmt.Errorf("Prism did not start listening on port %d within 2 minutes", port)
		case <-tick.C:
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("a TCP listener's address is a %T", l.Addr())
	}
	// Prism takes the port only once this listener has let go of it.
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr.Port
}

// repoRoot is the directory holding go.mod, found upwards from the package directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// syncBuffer is a bytes.Buffer safe for a process writing while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// metadataProbePath is a synthetic operation added to the cut description; see
// contractSpecFixes.
const metadataProbePath = "/__contract/workers_script_metadata"

// contractSpecFixes adapts the description to what Prism can check, without weakening
// what is validated:
//
//   - Prism reads every multipart part as a string, so the Worker upload's "metadata" part
//     (declared as a JSON object with encoding application/json) always fails "must be
//     object". The part is relaxed to a string there, and the same object schema is attached
//     to a synthetic JSON operation (metadataProbePath) through which the test sends the
//     identical metadata document, so Prism still validates it in full.
//   - OpenAPI 3.0 says a required property marked writeOnly is required in requests only, and
//     one marked readOnly in responses only; Prism requires both everywhere. So a secret_text
//     binding read back without its secret (as Cloudflare answers, and as it must be) fails,
//     and so does every new ruleset rule (its version and last_updated are read-only). Every
//     schema reachable from a response of contractOperations is cloned as "<name>__response"
//     without its writeOnly required properties, and every one reachable from a request body
//     as "<name>__request" without its readOnly ones (request bodies given by reference are
//     inlined for that). This runs last, on the descriptions as the other fixes leave them.
//   - GET …/content/v2 declares its 200 answer under the media type "string", which is not a
//     media type (Prism crashes parsing it). It gets the content the sibling
//     GET …/workers/scripts/{script_name} declares for the same module download.
//   - Prism validates a multipart/form-data response without the response's boundary (it
//     passes none; 5.14.2 validator/index.js), so every multipart answer fails with "Boundary
//     parameter … is not defined". The schema of those two multipart answers (an object of
//     binary strings, which any multipart body satisfies) is dropped; Prism still checks the
//     status and media type, and the test parses the parts itself (readModules).
//   - PUT …/r2/buckets/{bucket_name}/objects/{object_key} declares a "Content-Type" header
//     parameter (the object's media type, which R2 stores and serves) but lists only
//     application/octet-stream as the body's media type. OpenAPI ignores header parameters
//     named Content-Type, so Prism refuses every other media type. The body's schema (any
//     bytes) is offered under "*/*" too; everything else about the operation is still checked.
//   - The rulesets family's failure answer (components/responses/rulesets_Failure) declares
//     its result as {"type": "string", "enum": [null]} without "nullable", so no failure can
//     conform (Cloudflare's own answers carry "result": null). It gets "nullable": true; the
//     enum still allows null only.
func contractSpecFixes(t *testing.T, spec map[string]any) {
	t.Helper()
	dig(t, spec, "components", "responses", "rulesets_Failure", "content", "application/json", "schema", "properties", "result")["nullable"] = true
	paths := dig(t, spec, "paths")
	const script = APIPrefix + "/accounts/{account_id}/workers/scripts/{script_name}"
	download := dig(t, paths, script, "get", "responses", "200")
	delete(dig(t, download, "content", "multipart/form-data"), "schema")
	dig(t, paths, script+"/content/v2", "get", "responses", "200")["content"] = download["content"]
	putObject := dig(t, paths, APIPrefix+"/accounts/{account_id}/r2/buckets/{bucket_name}/objects/{object_key}", "put", "requestBody", "content")
	putObject["*/*"] = dig(t, putObject, "application/octet-stream")
	props := dig(t, spec, "components", "requestBodies", "workers_script_upload", "content",
		"multipart/form-data", "schema", "properties")
	metadataSchema := props["metadata"]
	props["metadata"] = map[string]any{"type": "string"}
	dig(t, spec, "paths")[metadataProbePath] = map[string]any{
		"post": map[string]any{
			"operationId": "contractProbeWorkersScriptMetadata",
			"requestBody": map[string]any{
				"required": true,
				"content":  map[string]any{"application/json": map[string]any{"schema": metadataSchema}},
			},
			"responses": map[string]any{
				"404": map[string]any{"description": "the local edge has no such endpoint; only the request is of interest"},
			},
		},
	}
	relaxAccessModes(t, spec)
}

// dig walks nested objects of a decoded JSON document.
func dig(t *testing.T, v map[string]any, keys ...string) map[string]any {
	t.Helper()
	for _, k := range keys {
		next, ok := v[k].(map[string]any)
		if !ok {
			t.Fatalf("contract spec fix: no object at %q (the description changed; revisit contractSpecFixes)", k)
		}
		v = next
	}
	return v
}

// relaxAccessModes implements the readOnly/writeOnly fix described on contractSpecFixes.
func relaxAccessModes(t *testing.T, spec map[string]any) {
	t.Helper()
	schemas := dig(t, spec, "components", "schemas")
	requestBodies := dig(t, spec, "components", "requestBodies")
	paths := dig(t, spec, "paths")
	for _, side := range []struct{ field, suffix, dropped string }{
		{"responses", "__response", "writeOnly"},
		{"requestBody", "__request", "readOnly"},
	} {
		clone := accessModeCloner(schemas, requestBodies, side.suffix, side.dropped)
		for template := range contractOperations {
			for _, op := range dig(t, paths, APIPrefix+template) {
				if op, ok := op.(map[string]any); ok && op[side.field] != nil {
					op[side.field] = clone(op[side.field])
				}
			}
		}
	}
}

// accessModeCloner returns a deep copy function that drops, from every "required" list, the
// properties marked dropped ("writeOnly" or "readOnly"). A referenced schema is cloned once
// as "<name><suffix>" (which breaks reference cycles); a referenced request body is inlined.
func accessModeCloner(schemas, requestBodies map[string]any, suffix, dropped string) func(any) any {
	const schemaPrefix, bodyPrefix = "#/components/schemas/", "#/components/requestBodies/"
	var clone func(v any) any
	schemaRef := func(ref string) string {
		name, ok := strings.CutPrefix(ref, schemaPrefix)
		if !ok || strings.HasSuffix(name, "__response") || strings.HasSuffix(name, "__request") {
			return ref
		}
		if _, done := schemas[name+suffix]; !done {
			schemas[name+suffix] = map[string]any{} // placeholder breaks reference cycles
			schemas[name+suffix] = clone(schemas[name])
		}
		return schemaPrefix + name + suffix
	}
	clone = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if name, ok := strings.CutPrefix(ref, bodyPrefix); ok && requestBodies[name] != nil {
					return clone(requestBodies[name])
				}
			}
			out := make(map[string]any, len(v))
			for k, child := range v {
				out[k] = clone(child)
			}
			if ref, ok := v["$ref"].(string); ok {
				out["$ref"] = schemaRef(ref)
			}
			if d, ok := out["discriminator"].(map[string]any); ok {
				if mapping, ok := d["mapping"].(map[string]any); ok {
					for k, ref := range mapping {
						if ref, ok := ref.(string); ok {
							mapping[k] = schemaRef(ref)
						}
					}
				}
			}
			props, _ := out["properties"].(map[string]any)
			if required, ok := out["required"].([]any); ok && props != nil {
				kept := []any{}
				for _, name := range required {
					if p, _ := props[name.(string)].(map[string]any); p == nil || p[dropped] != true {
						kept = append(kept, name)
					}
				}
				out["required"] = kept
				if len(kept) == 0 {
					delete(out, "required")
				}
			}
			return out
		case []any:
			out := make([]any, len(v))
			for i, child := range v {
				out[i] = clone(child)
			}
			return out
		}
		return v
	}
	return clone
}

// Prism prints "fatal" and its usage text before the line that says why (EADDRINUSE), and a
// pipe can hand the log over in between: a port lost to another process must still be told
// apart from any other failure, from the whole log once Prism has exited. CI once failed on
// the first half alone.
func TestWaitForPrism_ReadsTheWholeLogOfAFailedStart(t *testing.T) {
	for _, c := range []struct {
		name, rest string
		want       error
	}{
		{"port taken", "listen EADDRINUSE: address already in use 127.0.0.1:45633\n", errPortTaken},
		{"another failure", "Cannot find the document\n", errPrismFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			log, exited := &syncBuffer{}, make(chan struct{})
			_, _ = log.Write([]byte("[CLI] ✖  fatal     \nprism proxy <document> <upstream>\n"))
			go func() {
				time.Sleep(300 * time.Millisecond) // well after waitForPrism first looks
				_, _ = log.Write([]byte(c.rest))
				close(exited)
			}()
			if err := waitForPrism(log, 45633, exited); !errors.Is(err, c.want) {
				t.Errorf("waitForPrism = %v, want %v", err, c.want)
			}
		})
	}
}

// TestStartPrism_TriesAnotherPortWhenItsOwnIsTaken holds the first port startPrism picks, as
// another test process once did in CI, and expects Prism to come up on the next one.
func TestStartPrism_TriesAnotherPortWhenItsOwnIsTaken(t *testing.T) {
	prism := filepath.Join(repoRoot(t), "node_modules", ".bin", "prism")
	if _, err := os.Stat(prism); errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Prism is not installed (%s missing): run npm ci at the repo root", prism)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = taken.Close() }() // held for the test's length; closing is the end of it
	takenAddr, ok := taken.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("a TCP listener's address is a %T", taken.Addr())
	}
	takenPort := takenAddr.Port

	specPath := filepath.Join(t.TempDir(), "tiny.json")
	tiny := `{"openapi":"3.0.0","info":{"title":"tiny","version":"1"},
		"paths":{"/ping":{"get":{"responses":{"200":{"description":"pong"}}}}}}`
	if err := os.WriteFile(specPath, []byte(tiny), 0o600); err != nil {
		t.Fatal(err)
	}
	picks := 0
	pick := func(t *testing.T) int {
		picks++
		if picks == 1 {
			return takenPort
		}
		return freePort(t)
	}
	port, _ := startPrism(t, prism, specPath, "http://127.0.0.1:9", pick)
	if picks != 2 || port == takenPort {
		t.Errorf("Prism started on port %d after %d picks; want the second pick, not the taken port %d", port, picks, takenPort)
	}
}
