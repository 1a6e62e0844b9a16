package localedge

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/workers"
)

// TestLocalEdge_BrokenUploadKeepsServing uploads a script workerd refuses next to a good one:
// the good one's new version loads, the broken one keeps serving its previous version, and
// the log names it.
func TestLocalEdge_BrokenUploadKeepsServing(t *testing.T) {
	requireRuntime(t)
	stateDir := t.TempDir()
	edge := startEdge(t, stateDir)
	api := edge.client()
	ctx := context.Background()
	acct := cloudflare.F(edge.env["KAMUIDASH_ACCOUNT_ID"])
	upload := func(name, js string) {
		ct, body := workerUpload(t, map[string]any{"main_module": "worker.mjs", "compatibility_date": "2025-01-01"},
			workerPart{"worker.mjs", "application/javascript+module", []byte(js)})
		_, err := api.Workers.Scripts.Update(ctx, name, workers.ScriptUpdateParams{AccountID: acct}, option.WithRequestBody(ct, body))
		must(t, "upload "+name, err)
	}
	upload("a", `export default { fetch() { return new Response("a1"); } };`)
	upload("b", `export default { fetch() { return new Response("b1"); } };`)
	for _, p := range []string{"a.kamui.test/*", "b.kamui.test/*"} {
		_, err := api.Workers.Routes.New(ctx, workers.RouteNewParams{ZoneID: cloudflare.F(edge.env["KAMUIDASH_ZONE_ID"]), Pattern: cloudflare.F(p), Script: cloudflare.F(p[:1])})
		must(t, "route", err)
	}
	edge.eventually(t, "a serves", "a.kamui.test", "/", func(s int, b string) bool { return b == "a1" })
	upload("a", `export default { fetch() { return new Response("a2") ; `) // syntax error
	upload("b", `export default { fetch() { return new Response("b2"); } };`)
	edge.eventually(t, "b's new version serves", "b.kamui.test", "/", func(s int, b string) bool { return b == "b2" })
	if s, b := edge.get(t, "a.kamui.test", "/"); b != "a1" {
		t.Errorf("a after a broken upload: HTTP %d %q, want the last good version", s, b)
	}
	if logs := edge.stderr.String(); !strings.Contains(logs, "workerd refused uploaded Workers") || !strings.Contains(logs, "scripts=a ") {
		t.Errorf("the refused upload is not logged by name:\n%s", logs)
	}

	// A restart with the broken script stored: it has no previous version to fall back on,
	// so its host gets the fixed 500 while the others serve.
	edge.shutdown(t)
	again := startEdge(t, stateDir)
	if s, b := again.get(t, "b.kamui.test", "/"); b != "b2" {
		t.Errorf("b after a restart with a broken a stored: HTTP %d %q", s, b)
	}
	if s, b := again.get(t, "a.kamui.test", "/"); s != http.StatusInternalServerError || !strings.Contains(b, "Worker not running") {
		t.Errorf("a after a restart: HTTP %d %q, want the fixed 500", s, b)
	}
}
