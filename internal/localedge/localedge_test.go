package localedge

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/cache"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/r2"
	"github.com/cloudflare/cloudflare-go/v7/shared"
	"github.com/cloudflare/cloudflare-go/v7/workers"
	"github.com/cloudflare/cloudflare-go/v7/zero_trust"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
)

// greeterJS reads a KV value and a plain_text var; /origin fetches the tunnel origin.
const greeterJS = `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/origin") {
      const r = await fetch("https://origin.kamui.test/hello?from=worker");
      return new Response("origin " + r.status + " " + (await r.text()));
    }
    if (url.pathname === "/cached") {
      const key = "https://shop.kamui.test/cached";
      const hit = await caches.default.match(key);
      if (hit) return new Response("hit " + (await hit.text()));
      await caches.default.put(key, new Response("stored", { headers: { "Cache-Control": "max-age=3600" } }));
      return new Response("miss");
    }
    if (url.pathname.startsWith("/static/")) {
      const obj = await env.STATIC.get(url.pathname.slice("/static/".length));
      if (!obj) return new Response("no object", { status: 404 });
      if (url.searchParams.has("meta")) return new Response(String(obj.customMetadata[url.searchParams.get("meta")]));
      return new Response(obj.body, { headers: { "Content-Type": obj.httpMetadata.contentType || "none" } });
    }
    if (url.pathname === "/elsewhere") {
      const r = await fetch("https://unrouted.kamui.test/");
      return new Response("elsewhere " + r.status);
    }
    const v = await env.HOSTS.get("greeting");
    return new Response(VERSION + " " + env.GREETING + " " + v + " host=" + url.hostname);
  },
};
`

func greeter(version string) string {
	return "const VERSION = " + fmt.Sprintf("%q", version) + ";\n" + greeterJS
}

// TestLocalEdge_WorkerKVTunnelRestart drives the local edge through cloudflare-go as the
// provider does and checks what a request to the edge gets back, with the Worker running in
// workerd: KV and vars, KV updates after propagation, a re-upload without restart, the
// tunnel's ingress, the credentials, and a restart on the same state dir.
func TestLocalEdge_WorkerKVTunnelRestart(t *testing.T) {
	requireRuntime(t)
	stateDir := t.TempDir()
	edge := startEdge(t, stateDir)
	api := edge.client()
	ctx := context.Background()
	acct := cloudflare.F(edge.env["KAMUIDASH_ACCOUNT_ID"])
	zone := cloudflare.F(edge.env["KAMUIDASH_ZONE_ID"])

	// Credentials: the env file matches the ready file, is private, and names the zone.
	envPath := filepath.Join(stateDir, "env")
	info, err := os.Stat(envPath)
	must(t, "stat env file", err)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("env file mode = %v, want 0600", info.Mode().Perm())
	}
	envBytes, err := os.ReadFile(envPath)
	must(t, "read env file", err)
	env := parseEnv(t, envBytes)
	for _, k := range []string{"CLOUDFLARE_API_TOKEN", "KAMUIDASH_API_BASE_URL", "KAMUIDASH_ACCOUNT_ID", "KAMUIDASH_ZONE_ID", "KAMUIDASH_PLATFORM_DOMAIN", "KAMUIDASH_EDGE_URL",
		"KAMUIDASH_R2_S3_ENDPOINT", "KAMUIDASH_R2_ACCESS_KEY_ID", "KAMUIDASH_R2_SECRET_ACCESS_KEY"} {
		if env[k] == "" || env[k] != edge.env[k] {
			t.Errorf("%s: env file %q, ready file %q", k, env[k], edge.env[k])
		}
	}
	if env["KAMUIDASH_PLATFORM_DOMAIN"] != "kamui.test" || !strings.HasSuffix(env["KAMUIDASH_API_BASE_URL"], "/client/v4") {
		t.Errorf("env: platform domain %q, API base %q", env["KAMUIDASH_PLATFORM_DOMAIN"], env["KAMUIDASH_API_BASE_URL"])
	}
	if !strings.Contains(edge.stdout.String(), "ready: ") {
		t.Errorf("no ready line on stdout:\n%s", edge.stdout)
	}
	if strings.Contains(edge.stderr.String(), env["CLOUDFLARE_API_TOKEN"]) {
		t.Errorf("the API token appears in the logs")
	}

	// A KV namespace with a value, a Worker binding it, and a route on the zone.
	ns, err := api.KV.Namespaces.New(ctx, kv.NamespaceNewParams{AccountID: acct, Title: cloudflare.F("hosts")})
	must(t, "create namespace", err)
	putKV := func(value string) {
		_, err := api.KV.Namespaces.Values.Update(ctx, ns.ID, "greeting", kv.NamespaceValueUpdateParams{
			AccountID: acct, Value: cloudflare.F[kv.NamespaceValueUpdateParamsValueUnion](shared.UnionString(value)),
		})
		must(t, "write KV", err)
	}
	putKV("hello")
	upload := func(version string) {
		ct, body := workerUpload(t, map[string]any{
			"main_module":        "worker.mjs",
			"compatibility_date": "2025-01-01",
			"bindings": []map[string]any{
				{"type": "kv_namespace", "name": "HOSTS", "namespace_id": ns.ID},
				{"type": "plain_text", "name": "GREETING", "text": "hi"},
				{"type": "r2_bucket", "name": "STATIC", "bucket_name": "site-bucket"},
			},
		}, workerPart{"worker.mjs", "application/javascript+module", []byte(greeter(version))})
		_, err := api.Workers.Scripts.Update(ctx, "greeter", workers.ScriptUpdateParams{AccountID: acct}, option.WithRequestBody(ct, body))
		must(t, "upload "+version, err)
	}
	upload("v1")
	_, err = api.Workers.Routes.New(ctx, workers.RouteNewParams{ZoneID: zone, Pattern: cloudflare.F("*.kamui.test/*"), Script: cloudflare.F("greeter")})
	must(t, "create route", err)

	want := "v1 hi hello host=shop.kamui.test"
	edge.eventually(t, "the uploaded Worker answers from KV", "shop.kamui.test", "/", func(s int, b string) bool { return s == 200 && b == want })

	// Hosts no route sends to a Worker get the fixed 404, never the Worker.
	for _, host := range []string{"kamui.test", "nothing.example", "shop.kamui.test.evil"} {
		if status, body := edge.get(t, host, "/"); status != http.StatusNotFound || strings.Contains(body, "hello") {
			t.Errorf("host %s: HTTP %d %q, want the fixed 404", host, status, body)
		}
	}

	// A KV update becomes visible after the propagation delay.
	putKV("bonjour")
	edge.eventually(t, "the KV update reaches the Worker", "shop.kamui.test", "/", func(s int, b string) bool {
		return s == 200 && b == "v1 hi bonjour host=shop.kamui.test"
	})

	// A re-upload takes effect without a restart.
	upload("v2")
	edge.eventually(t, "the re-uploaded Worker answers", "shop.kamui.test", "/", func(s int, b string) bool {
		return s == 200 && strings.HasPrefix(b, "v2 hi bonjour")
	})

	// R2: an object uploaded through the API is served by the Worker's binding with its
	// content type; a delete takes it away.
	_, err = api.R2.Buckets.New(ctx, r2.BucketNewParams{AccountID: acct, Name: cloudflare.F("site-bucket")})
	must(t, "create R2 bucket", err)
	putObject := func(key, body, contentType string) {
		_, err := api.R2.Buckets.Objects.Upload(ctx, "site-bucket", url.PathEscape(key), strings.NewReader(body),
			r2.BucketObjectUploadParams{AccountID: acct}, option.WithHeader("Content-Type", contentType))
		must(t, "upload "+key, err)
	}
	putObject("sites/docs/index.html", "<h1>docs</h1>", "text/html; charset=utf-8")
	putObject("sites/docs/gone.txt", "soon gone", "text/plain")
	edge.eventually(t, "the uploaded object is served", "shop.kamui.test", "/static/sites/docs/index.html", func(s int, b string) bool {
		return s == 200 && b == "<h1>docs</h1>"
	})
	if status, body := edge.get(t, "shop.kamui.test", "/static/sites/docs/gone.txt"); status != 200 || body != "soon gone" {
		t.Errorf("second object: HTTP %d %q", status, body)
	}
	_, err = api.R2.Buckets.Objects.Delete(ctx, "site-bucket", url.PathEscape("sites/docs/gone.txt"), r2.BucketObjectDeleteParams{AccountID: acct})
	must(t, "delete object", err)
	edge.eventually(t, "the deleted object is gone", "shop.kamui.test", "/static/sites/docs/gone.txt", func(s int, b string) bool {
		return s == 404 && b == "no object"
	})

	// R2 over S3, with the env file's key pair and the AWS SDK: the Worker's binding serves
	// the object too, and an S3 delete takes it away.
	s3c := s3.New(s3.Options{Region: "auto", BaseEndpoint: aws.String(env["KAMUIDASH_R2_S3_ENDPOINT"]), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(env["KAMUIDASH_R2_ACCESS_KEY_ID"], env["KAMUIDASH_R2_SECRET_ACCESS_KEY"], "")})
	_, err = s3c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("site-bucket"), Key: aws.String("sites/docs/s3.html"),
		Body: strings.NewReader("<h1>over s3</h1>"), ContentType: aws.String("text/html"), Metadata: map[string]string{"version": "7"}})
	must(t, "S3 PutObject", err)
	edge.eventually(t, "the S3 upload is served by the binding", "shop.kamui.test", "/static/sites/docs/s3.html", func(s int, b string) bool {
		return s == 200 && b == "<h1>over s3</h1>"
	})
	if status, body := edge.get(t, "shop.kamui.test", "/static/sites/docs/s3.html?meta=version"); status != 200 || body != "7" {
		t.Errorf("the binding's customMetadata.version of the S3 upload: HTTP %d %q, want 7 (x-amz-meta-version)", status, body)
	}
	_, err = s3c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("site-bucket"), Key: aws.String("sites/docs/s3.html")})
	must(t, "S3 DeleteObject", err)
	edge.eventually(t, "the S3 delete reaches the binding", "shop.kamui.test", "/static/sites/docs/s3.html", func(s int, b string) bool {
		return s == 404 && b == "no object"
	})
	if strings.Contains(edge.stderr.String(), env["KAMUIDASH_R2_SECRET_ACCESS_KEY"]) {
		t.Errorf("the R2 secret access key appears in the logs")
	}

	// The tunnel: origin.kamui.test → CNAME to the tunnel → ingress to a loopback server.
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, "from origin host=%s path=%s query=%s", r.Host, r.URL.Path, r.URL.RawQuery) // the client checks what arrives
	}))
	defer origin.Close()
	tun, err := api.ZeroTrust.Tunnels.Cloudflared.New(ctx, zero_trust.TunnelCloudflaredNewParams{
		AccountID: acct, Name: cloudflare.F("origin"), ConfigSrc: cloudflare.F(zero_trust.TunnelCloudflaredNewParamsConfigSrcCloudflare),
	})
	must(t, "create tunnel", err)
	_, err = api.ZeroTrust.Tunnels.Cloudflared.Configurations.Update(ctx, tun.ID, zero_trust.TunnelCloudflaredConfigurationUpdateParams{
		AccountID: acct,
		Config: cloudflare.F(zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfig{
			Ingress: cloudflare.F([]zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfigIngress{
				{Hostname: cloudflare.F("origin.kamui.test"), Service: cloudflare.F(origin.URL)},
				{Hostname: cloudflare.F(""), Service: cloudflare.F("http_status:404")},
			}),
		}),
	})
	must(t, "configure tunnel", err)
	for _, name := range []string{"origin", "unrouted"} {
		_, err = api.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: zone, Body: dns.CNAMERecordParam{
			Name: cloudflare.F(name), Type: cloudflare.F(dns.CNAMERecordTypeCNAME),
			Content: cloudflare.F(tun.ID + kdcf.TunnelTargetSuffix), Proxied: cloudflare.F(true), TTL: cloudflare.F(dns.TTL1),
		}})
		must(t, "create CNAME "+name, err)
	}
	if status, body := edge.get(t, "shop.kamui.test", "/origin"); status != 200 || body != "origin 200 from origin host=origin.kamui.test path=/hello query=from=worker" {
		t.Errorf("Worker fetch through the tunnel: HTTP %d %q", status, body)
	}
	// A tunnel hostname no ingress rule names falls to the catch-all http_status:404.
	if status, body := edge.get(t, "shop.kamui.test", "/elsewhere"); status != 200 || body != "elsewhere 404" {
		t.Errorf("Worker fetch to the catch-all: HTTP %d %q", status, body)
	}

	// A purge by URL drops the Worker's Cache API entry.
	edge.eventually(t, "the Worker's cache entry is stored", "shop.kamui.test", "/cached", func(s int, b string) bool { return b == "hit stored" })
	_, err = api.Cache.Purge(ctx, cache.CachePurgeParams{ZoneID: zone, Body: cache.CachePurgeParamsBodyCachePurgeSingleFile{
		Files: cloudflare.F([]string{"https://shop.kamui.test/cached"}),
	}})
	must(t, "purge by URL", err)
	edge.eventually(t, "the purged entry is gone", "shop.kamui.test", "/cached", func(s int, b string) bool { return b == "miss" })

	// A restart on the same state dir keeps the identity and the data: the Worker answers
	// with the stored KV value without any new API call.
	edge.shutdown(t)
	again := startEdge(t, stateDir)
	for _, k := range []string{"CLOUDFLARE_API_TOKEN", "KAMUIDASH_ACCOUNT_ID", "KAMUIDASH_ZONE_ID", "KAMUIDASH_PLATFORM_DOMAIN"} {
		if again.env[k] != env[k] {
			t.Errorf("%s changed across a restart", k)
		}
	}
	if status, body := again.get(t, "shop.kamui.test", "/"); status != 200 || body != "v2 hi bonjour host=shop.kamui.test" {
		t.Errorf("after a restart: HTTP %d %q", status, body)
	}
	if status, body := again.get(t, "shop.kamui.test", "/static/sites/docs/index.html"); status != 200 || body != "<h1>docs</h1>" {
		t.Errorf("R2 object after a restart: HTTP %d %q", status, body)
	}
	if status, _ := again.get(t, "shop.kamui.test", "/static/sites/docs/gone.txt"); status != 404 {
		t.Errorf("a deleted R2 object came back after a restart: HTTP %d", status)
	}
}
