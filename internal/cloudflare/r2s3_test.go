package cloudflare

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// With an R2 key pair, a site's objects are uploaded, listed and deleted through R2's S3 API:
// the same objects the REST API and the Worker see, and not one call from the REST budget.
func TestR2Objects_GoThroughS3WhenAKeyPairIsSet(t *testing.T) {
	srv, err := cfapi.New(cfapi.Config{StateDir: t.TempDir(), KVPropagationDelay: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	id := srv.Identity()
	c := newTestClient(t, hs.URL, func(cfg *Config) {
		cfg.APIToken = id.APIToken
		cfg.R2S3 = &R2S3Config{Endpoint: hs.URL + cfapi.S3Prefix, AccessKeyID: id.R2AccessKeyID, SecretAccessKey: id.R2SecretAccessKey}
	})
	ctx := context.Background()
	if _, err := c.R2EnsureBucket(ctx, id.AccountID, "static"); err != nil {
		t.Fatal(err)
	}
	srv.ResetCalls()

	files := map[string]string{"sites/a/v1/index.html": "<p>home</p>", "sites/a/v1/docs/odd name?.html": "<p>odd</p>", "sites/b/v1/index.html": "b"}
	for key, body := range files {
		if err := c.R2PutObject(ctx, id.AccountID, "static", key, strings.NewReader(body), int64(len(body)), "text/html; charset=utf-8"); err != nil {
			t.Fatalf("put %s: %v", key, err)
		}
	}
	objects, found, err := c.R2ListObjects(ctx, id.AccountID, "static", "sites/a/")
	if err != nil || !found || len(objects) != 2 {
		t.Fatalf("list sites/a/ = %+v (found %v, %v), want its 2 objects", objects, found, err)
	}
	for _, o := range objects {
		sum := md5.Sum([]byte(files[o.Key]))
		if o.ETag != hex.EncodeToString(sum[:]) || o.Size != int64(len(files[o.Key])) {
			t.Errorf("%s listed with ETag %q size %d, want the content's MD5 and length", o.Key, o.ETag, o.Size)
		}
	}
	if err := c.R2DeleteObject(ctx, id.AccountID, "static", "sites/a/v1/index.html"); err != nil {
		t.Fatal(err)
	}
	if err := c.R2DeleteObject(ctx, id.AccountID, "static", "sites/a/v1/index.html"); err != nil {
		t.Errorf("deleting a missing object: %v, want success", err)
	}
	if _, found, err := c.R2ListObjects(ctx, id.AccountID, "no-such-bucket", ""); err != nil || found {
		t.Errorf("listing a missing bucket: found %v, %v; want not found, no error", found, err)
	}

	st := srv.Calls()
	if st.REST.Calls != 0 || st.ObjectStorage.Calls != 0 || st.S3.Calls == 0 {
		t.Errorf("calls: REST %d, REST object storage %d, S3 %d; want every object call through S3", st.REST.Calls, st.ObjectStorage.Calls, st.S3.Calls)
	}
	// The REST API sees what S3 wrote.
	c.r2s3 = nil
	rest, _, err := c.R2ListObjects(ctx, id.AccountID, "static", "sites/")
	if err != nil || len(rest) != 2 {
		t.Fatalf("REST listing after the S3 writes = %+v (%v), want the 2 objects left", rest, err)
	}
}
