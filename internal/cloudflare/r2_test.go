package cloudflare

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// received is what an object PUT delivered to the test server.
type received struct {
	size             int64
	md5              string
	contentLength    int64
	transferEncoding []string
	contentType      string
}

// objectServer answers R2 object PUTs, hashing each body as it arrives so the server holds
// none of it. failFirst answers the first attempt 503 after reading part of its body.
func objectServer(t *testing.T, failFirst bool) (*httptest.Server, func() []received) {
	t.Helper()
	var (
		mu   sync.Mutex
		got  []received
		puts int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut || !strings.Contains(r.URL.Path, "/r2/buckets/site-bucket/objects/") {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
			return
		}
		mu.Lock()
		puts++
		first := puts == 1
		mu.Unlock()
		if failFirst && first {
			_, _ = io.CopyN(io.Discard, r.Body, 10)
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		h := md5.New()
		n, err := io.Copy(h, r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, received{size: n, md5: hex.EncodeToString(h.Sum(nil)), contentLength: r.ContentLength,
			transferEncoding: r.TransferEncoding, contentType: r.Header.Get("Content-Type")})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"success":true,"errors":[],"messages":[],"result":{"key":"k"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []received {
		mu.Lock()
		defer mu.Unlock()
		return append([]received(nil), got...)
	}
}

// TestR2PutObject_StreamsALargeFile: a 100 MB file reaches the server whole, declared with
// its Content-Length (not chunked), while the client allocates a small fraction of it. The
// file is sparse, so the test costs no disk.
func TestR2PutObject_StreamsALargeFile(t *testing.T) {
	const size = 100 << 20
	p := filepath.Join(t.TempDir(), "video.mp4")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // a sparse file the upload only reads
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	srv, got := objectServer(t, false)
	c := newTestClient(t, srv.URL, nil)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err = c.R2PutObject(context.Background(), "acc", "site-bucket", "sites/docs/v1/video.mp4", f, size, "video/mp4")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("uploading %d bytes allocated %d bytes (client and test server together)", size, allocated)
	if allocated > 16<<20 {
		t.Errorf("uploading %d bytes allocated %d bytes: the body was held in memory", size, allocated)
	}

	zeros := md5.New()
	if _, err := io.CopyN(zeros, zeroReader{}, size); err != nil {
		t.Fatal(err)
	}
	want := received{size: size, md5: hex.EncodeToString(zeros.Sum(nil)), contentLength: size, contentType: "video/mp4"}
	if r := got(); len(r) != 1 || r[0].size != want.size || r[0].md5 != want.md5 || r[0].contentLength != want.contentLength ||
		len(r[0].transferEncoding) != 0 || r[0].contentType != want.contentType {
		t.Fatalf("the server received %+v, want %+v", r, want)
	}
}

// TestR2PutObject_RetriesFromTheStart: a PUT answered 503 halfway is sent again from the
// first byte: the retrying transport rewinds the file rather than sending the rest.
func TestR2PutObject_RetriesFromTheStart(t *testing.T) {
	const content = "<h1>hello, retried world</h1>"
	p := filepath.Join(t.TempDir(), "index.html")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // the upload only reads it
	srv, got := objectServer(t, true)
	c := newTestClient(t, srv.URL, nil)
	if err := c.R2PutObject(context.Background(), "acc", "site-bucket", "index.html", f, int64(len(content)), "text/html"); err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum([]byte(content))
	if r := got(); len(r) != 1 || r[0].size != int64(len(content)) || r[0].md5 != hex.EncodeToString(sum[:]) {
		t.Fatalf("after a retry the server received %+v, want the whole %d-byte file", r, len(content))
	}
}

// TestR2PutObject_EmptyFileDeclaresItsLength: an empty file is sent with Content-Length: 0.
// Go's client takes a body with a ContentLength of 0 for one of unknown length and would send
// it chunked, which an object store may refuse or store differently from a plain empty PUT.
func TestR2PutObject_EmptyFileDeclaresItsLength(t *testing.T) {
	p := filepath.Join(t.TempDir(), "empty.txt")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // the upload only reads it
	srv, got := objectServer(t, false)
	c := newTestClient(t, srv.URL, nil)
	if err := c.R2PutObject(context.Background(), "acc", "site-bucket", "empty.txt", f, 0, "text/plain"); err != nil {
		t.Fatal(err)
	}
	if r := got(); len(r) != 1 || r[0].size != 0 || r[0].contentLength != 0 || len(r[0].transferEncoding) != 0 {
		t.Fatalf("the server received %+v, want one empty body declared with Content-Length: 0, not chunked", r)
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }
