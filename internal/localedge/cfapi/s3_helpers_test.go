package cfapi

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// s3Fixture is a Server on loopback with one bucket, its log captured.
type s3Fixture struct {
	srv    *Server
	ts     *httptest.Server
	id     Identity
	log    *syncBuffer
	events *eventLog
	// payloadHashes has the X-Amz-Content-Sha256 of every PUT received, so a test knows
	// which upload encoding the SDK chose.
	payloadHashes *eventLogOf[string]
}

// eventLogOf is a list appended to concurrently.
type eventLogOf[T any] struct {
	mu    sync.Mutex
	items []T
}

func (l *eventLogOf[T]) add(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append(l.items, v)
}

func (l *eventLogOf[T]) all() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]T(nil), l.items...)
}

// eventLog records the R2Changed hook's events.
type eventLog struct {
	mu     sync.Mutex
	events []R2Event
}

func (l *eventLog) add(e R2Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *eventLog) all() []R2Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]R2Event(nil), l.events...)
}

const s3TestBucket = "site-bucket"

// newS3Fixture starts the server, over TLS when tls is set (the AWS SDK sends aws-chunked
// uploads with trailing checksums only over TLS), and creates s3TestBucket through REST.
func newS3Fixture(t *testing.T, tls bool) *s3Fixture {
	t.Helper()
	f := &s3Fixture{log: &syncBuffer{}, events: &eventLog{}, payloadHashes: &eventLogOf[string]{}}
	srv, err := New(Config{StateDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(f.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Hooks: Hooks{R2Changed: f.events.add}})
	if err != nil {
		t.Fatal(err)
	}
	f.srv, f.id = srv, srv.Identity()
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && isS3Path(r.URL.Path) {
			f.payloadHashes.add(r.Header.Get("X-Amz-Content-Sha256"))
		}
		srv.ServeHTTP(w, r)
	})
	if tls {
		f.ts = httptest.NewTLSServer(handler)
	} else {
		f.ts = httptest.NewServer(handler)
	}
	t.Cleanup(f.ts.Close)
	resp, _ := rawRequestTLS(t, f.ts.Client(), http.MethodPost, f.ts.URL+APIPrefix+"/accounts/"+f.id.AccountID+"/r2/buckets", f.id.APIToken,
		`{"name":"`+s3TestBucket+`"}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("creating the bucket through REST: %d", resp.StatusCode)
	}
	return f
}

// rawRequestTLS is rawRequest with the test server's own client (which trusts its TLS cert).
func rawRequestTLS(t *testing.T, client *http.Client, method, url, token, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	return resp, out.Bytes()
}

// client is the AWS SDK's S3 client configured as an R2 uploader would be: path-style,
// region "auto", the endpoint with S3Prefix, and the checksum mode config.LoadDefaultConfig
// gives (s3.New alone leaves it unset, which computes none); opts adjust it.
func (f *s3Fixture) client(keyID, secret string, opts ...func(*s3.Options)) *s3.Client {
	return s3.New(s3.Options{
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenSupported,
		Region:                     "auto",
		BaseEndpoint:               aws.String(f.ts.URL + S3Prefix),
		UsePathStyle:               true,
		Credentials:                credentials.NewStaticCredentialsProvider(keyID, secret, ""),
		HTTPClient:                 f.ts.Client(),
		Retryer:                    aws.NopRetryer{},
	}, opts...)
}

func (f *s3Fixture) goodClient(opts ...func(*s3.Options)) *s3.Client {
	return f.client(f.id.R2AccessKeyID, f.id.R2SecretAccessKey, opts...)
}

// whenRequired is the checksum mode the issue suggests for R2: checksums only where S3
// requires them (DeleteObjects), so uploads are plain bodies.
func whenRequired(o *s3.Options) {
	o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
}

// errorCode returns the S3 error code of err ("" if err is not an S3 API error).
func errorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

// httpStatus returns the HTTP status of an SDK error (0 if it has none).
func httpStatus(err error) int {
	var respErr interface{ HTTPStatusCode() int }
	if errors.As(err, &respErr) {
		return respErr.HTTPStatusCode()
	}
	return 0
}

var bg = context.Background()
