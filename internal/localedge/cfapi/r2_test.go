package cfapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/r2"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
)

// TestR2ObjectsThroughTheProvidersClient drives buckets and objects with the provider's own
// client helpers: keys with slashes and odd characters survive, content types are kept, the
// listing follows prefixes and cursors, hooks report every change, and the state persists.
func TestR2ObjectsThroughTheProvidersClient(t *testing.T) {
	var mu sync.Mutex
	var events []R2Event
	dir := t.TempDir()
	srv, ts := startServer(t, Config{StateDir: dir, Hooks: Hooks{R2Changed: func(e R2Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}}})
	id := srv.Identity()
	client, err := kdcf.New(kdcf.Config{APIToken: id.APIToken, BaseURL: ts.URL + APIPrefix + "/", UserAgent: "test", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	if err := client.R2PutObject(ctx, id.AccountID, "site-bucket", "a.txt", strings.NewReader("x"), 1, "text/plain"); err == nil {
		t.Fatal("upload into a missing bucket succeeded; R2 answers NoSuchBucket")
	}
	if _, found, err := client.R2ListObjects(ctx, id.AccountID, "site-bucket", ""); err != nil || found {
		t.Fatalf("listing a missing bucket: found=%v err=%v, want found=false and no error", found, err)
	}
	created, err := client.R2EnsureBucket(ctx, id.AccountID, "site-bucket")
	if err != nil || !created {
		t.Fatalf("R2EnsureBucket: created=%v err=%v", created, err)
	}
	if created, err := client.R2EnsureBucket(ctx, id.AccountID, "site-bucket"); err != nil || created {
		t.Fatalf("second R2EnsureBucket: created=%v err=%v, want an existing bucket left alone", created, err)
	}

	objects := map[string]string{
		"sites/docs/v1/index.html":         "<h1>docs</h1>",
		"sites/docs/v1/assets/app 1.js":    "console.log(1)",
		"sites/docs/v1/weird?name#x%y.txt": "odd",
		"sites/blog/v1/index.html":         "<h1>blog</h1>",
	}
	for key, body := range objects {
		ct := "text/html; charset=utf-8"
		if strings.HasSuffix(key, ".js") {
			ct = "text/javascript"
		}
		if err := client.R2PutObject(ctx, id.AccountID, "site-bucket", key, strings.NewReader(body), int64(len(body)), ct); err != nil {
			t.Fatalf("put %q: %v", key, err)
		}
	}

	listed, found, err := client.R2ListObjects(ctx, id.AccountID, "site-bucket", "sites/docs/")
	if err != nil || !found {
		t.Fatalf("list: found=%v err=%v", found, err)
	}
	var keys []string
	for _, o := range listed {
		keys = append(keys, o.Key)
		if o.Size != int64(len(objects[o.Key])) || len(o.ETag) != 32 {
			t.Errorf("%q: size %d etag %q, want size %d and a hex MD5", o.Key, o.Size, o.ETag, len(objects[o.Key]))
		}
	}
	want := "sites/docs/v1/assets/app 1.js,sites/docs/v1/index.html,sites/docs/v1/weird?name#x%y.txt"
	if got := strings.Join(keys, ","); got != want {
		t.Fatalf("listing under sites/docs/ = %s, want %s", got, want)
	}

	// The cursor: one object per page still yields every key once.
	pager := client.R2.Buckets.Objects.ListAutoPaging(ctx, "site-bucket", r2.BucketObjectListParams{
		AccountID: cf.F(id.AccountID), PerPage: cf.F(int64(1))})
	n := 0
	for pager.Next() {
		n++
	}
	if pager.Err() != nil || n != len(objects) {
		t.Fatalf("paging one object at a time saw %d objects (err %v), want %d", n, pager.Err(), len(objects))
	}

	resp, err := client.R2.Buckets.Objects.Get(ctx, "site-bucket", "sites%2Fdocs%2Fv1%2Findex.html", r2.BucketObjectGetParams{AccountID: cf.F(id.AccountID)})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(body) != objects["sites/docs/v1/index.html"] || resp.Header.Get("ETag") != `"`+listed[1].ETag+`"` {
		t.Fatalf("get: %q with ETag %q", body, resp.Header.Get("ETag"))
	}

	if err := client.R2DeleteObject(ctx, id.AccountID, "site-bucket", "sites/blog/v1/index.html"); err != nil {
		t.Fatal(err)
	}
	if err := client.R2DeleteObject(ctx, id.AccountID, "site-bucket", "sites/blog/v1/index.html"); err != nil {
		t.Fatalf("deleting a missing object: %v, want success as on R2", err)
	}

	// A non-empty bucket cannot be deleted.
	resp2, env := rawRequest(t, http.MethodDelete, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/r2/buckets/site-bucket", id.APIToken, nil)
	if resp2.StatusCode != http.StatusConflict || env.firstCode() != codeR2BucketNotEmpty {
		t.Fatalf("deleting a non-empty bucket: %d code %d", resp2.StatusCode, env.firstCode())
	}

	mu.Lock()
	gotEvents := len(events)
	last := events[len(events)-1]
	mu.Unlock()
	if gotEvents != len(objects)+1 || !last.Deleted || last.Key != "sites/blog/v1/index.html" {
		t.Fatalf("hooks saw %d events (last %+v), want %d puts and one delete", gotEvents, last, len(objects))
	}

	// A restart loses nothing.
	srv2, err := New(Config{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	buckets := srv2.R2Buckets()
	if len(buckets) != 1 || len(buckets[0].Objects) != len(objects)-1 {
		t.Fatalf("after restart: %+v", buckets)
	}
	if o := buckets[0].Objects["sites/docs/v1/assets/app 1.js"]; o == nil || o.ContentType != "text/javascript" || string(o.Content) != "console.log(1)" {
		t.Fatalf("after restart the object is %+v", o)
	}
}

// TestR2ObjectListingPageSizes: without per_page a listing gives the REST API's default of
// 20 objects a page, per_page is honoured up to 1,000 and clamped beyond, so a client that
// does not ask for large pages pays for the pages it would pay for on Cloudflare.
func TestR2ObjectListingPageSizes(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	client, err := kdcf.New(kdcf.Config{APIToken: id.APIToken, BaseURL: ts.URL + APIPrefix + "/", UserAgent: "test", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.R2EnsureBucket(ctx, id.AccountID, "site-bucket"); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if err := client.R2PutObject(ctx, id.AccountID, "site-bucket", fmt.Sprintf("sites/docs/v1/page-%02d.html", i), strings.NewReader("x"), 1, "text/html"); err != nil {
			t.Fatal(err)
		}
	}
	list := func(query string) (objects int, info map[string]any) {
		t.Helper()
		resp, env := rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/accounts/"+id.AccountID+"/r2/buckets/site-bucket/objects"+query, id.APIToken, nil)
		var result []json.RawMessage
		if err := json.Unmarshal(env.Result, &result); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("list %s: HTTP %d, %v", query, resp.StatusCode, err)
		}
		return len(result), env.Info
	}
	if n, info := list(""); n != 20 || info["per_page"] != float64(20) || info["is_truncated"] != true {
		t.Errorf("default page: %d objects, result_info %v; want 20, truncated", n, info)
	}
	if n, info := list("?per_page=1000"); n != 30 || info["per_page"] != float64(1000) || info["is_truncated"] != false {
		t.Errorf("per_page=1000: %d objects, result_info %v; want all 30", n, info)
	}
	if _, info := list("?per_page=5000"); info["per_page"] != float64(1000) {
		t.Errorf("per_page=5000: result_info %v; want it clamped to 1000", info)
	}
	// cloudflare-go's pager, asking no page size, follows the cursor over two default pages.
	pager := client.R2.Buckets.Objects.ListAutoPaging(ctx, "site-bucket", r2.BucketObjectListParams{AccountID: cf.F(id.AccountID)})
	n := 0
	for pager.Next() {
		n++
	}
	if pager.Err() != nil || n != 30 {
		t.Errorf("paging with the default page size saw %d objects (err %v), want 30", n, pager.Err())
	}
	st := srv.Calls()
	if got := operationCalls(st, opListObjects).Calls; got != 3+2 {
		t.Errorf("listing calls counted = %d, want 5 (three direct, two default pages for the pager)", got)
	}
}
