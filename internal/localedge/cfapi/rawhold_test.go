package cfapi

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
)

// A client that asks for a large value and then stops reading must not stall every other
// client: the value is answered outside the server's lock, as S3 GetObject answers its objects.
// (Found by attacking the local edge: the REST GET of a value wrote its 25 MiB with the lock
// held, and the provider's next call waited for the stuck reader.)
func TestRawAnswers_AStuckReaderStallsNobody(t *testing.T) {
	srv, ts := startServer(t, Config{})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ns := createNamespace(t, api, id.AccountID, "big")
	path := fmt.Sprintf("%s/accounts/%s/storage/kv/namespaces/%s/values/big", APIPrefix, id.AccountID, ns)
	if resp, env := rawRequest(t, http.MethodPut, ts.URL+path, id.APIToken, bytes.NewReader(bytes.Repeat([]byte("v"), kvValueMax))); !env.Success {
		t.Fatalf("PUT: HTTP %d %+v", resp.StatusCode, env.Errors)
	}

	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: api\r\nAuthorization: Bearer %s\r\n\r\n", path, id.APIToken); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the server is writing the answer nobody reads

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := api.KV.Namespaces.Get(ctx, ns, kv.NamespaceGetParams{AccountID: cloudflare.F(id.AccountID)}); err != nil {
		t.Fatalf("another client's call while one reader is stuck: %v", err)
	}
}
