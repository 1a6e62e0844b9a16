package cfapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"hash/crc32"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// TestS3RefusesWhatIsNotSignedByTheKeyPair checks the SigV4 gate: a wrong secret, an unknown
// key id, an unsigned request and a stale signature are refused with S3's codes, nothing is
// stored, and the secret never reaches the log.
func TestS3RefusesWhatIsNotSignedByTheKeyPair(t *testing.T) {
	f := newS3Fixture(t, false)
	put := func(c *s3.Client) error {
		_, err := c.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String("k"), Body: strings.NewReader("x")})
		return err
	}
	for _, tc := range []struct {
		name   string
		client *s3.Client
		code   string
	}{
		{"wrong secret", f.client(f.id.R2AccessKeyID, strings.Repeat("0", 64)), "SignatureDoesNotMatch"},
		{"unknown key id", f.client(strings.Repeat("a", 32), f.id.R2SecretAccessKey), "InvalidAccessKeyId"},
		{"the REST token as the secret", f.client(f.id.R2AccessKeyID, f.id.APIToken), "SignatureDoesNotMatch"},
	} {
		if err := put(tc.client); errorCode(err) != tc.code || httpStatus(err) != http.StatusForbidden {
			t.Errorf("%s: %v, want 403 %s", tc.name, err, tc.code)
		}
	}
	wrongRegion := f.goodClient(func(o *s3.Options) { o.Region = "us-east-1" })
	if err := put(wrongRegion); errorCode(err) != "AuthorizationHeaderMalformed" {
		t.Errorf("signed for us-east-1: %v, want AuthorizationHeaderMalformed (R2's region is auto)", err)
	}

	resp, err := f.ts.Client().Get(f.ts.URL + S3Prefix + "/" + s3TestBucket + "/k")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "<Code>AccessDenied</Code>") {
		t.Errorf("unsigned GET = %d %s, want 403 AccessDenied as S3 XML", resp.StatusCode, body)
	}

	// A signature 20 minutes old: the server's clock runs ahead.
	skewed, err := New(Config{StateDir: f.srv.cfg.StateDir, Logger: f.srv.log, Now: func() time.Time { return time.Now().Add(20 * time.Minute) }})
	if err != nil {
		t.Fatal(err)
	}
	f.ts.Config.Handler = skewed
	if err := put(f.goodClient()); errorCode(err) != "RequestTimeTooSkewed" || httpStatus(err) != http.StatusForbidden {
		t.Errorf("20 minutes of clock skew: %v, want 403 RequestTimeTooSkewed", err)
	}
	f.ts.Config.Handler = f.srv

	if n := len(f.srv.r2.Buckets[s3TestBucket].Objects); n != 0 {
		t.Errorf("%d objects stored by refused requests", n)
	}
	if st := f.srv.Calls(); st.S3.ByClass["4xx"] < 5 {
		t.Errorf("S3 calls = %+v, want the refusals counted as 4xx", st.S3)
	}
	logs := f.log.String()
	if !strings.Contains(logs, "S3 request refused") {
		t.Errorf("no refusal logged; the log is %q", logs)
	}
	if strings.Contains(logs, f.id.R2SecretAccessKey) {
		t.Error("the S3 secret access key appears in the log")
	}
}

// signedPut builds a PUT of body signed with the SDK's signer for the payload hash given,
// then lets tamper change the request after signing.
func signedPut(t *testing.T, f *s3Fixture, key string, body []byte, payloadHash string, tamper func(*http.Request)) *http.Response {
	return signedPutWith(t, f, key, body, payloadHash, nil, tamper)
}

// signedPutWith is signedPut with extra headers, signed too.
func signedPutWith(t *testing.T, f *s3Fixture, key string, body []byte, payloadHash string, headers map[string]string, tamper func(*http.Request)) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, f.ts.URL+S3Prefix+"/"+s3TestBucket+"/"+key, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)
	req.Header.Set("Content-Type", "text/plain")
	for name, value := range headers {
		req.Header.Set(name, value)
	}
	creds := aws.Credentials{AccessKeyID: f.id.R2AccessKeyID, SecretAccessKey: f.id.R2SecretAccessKey}
	if err := v4.NewSigner().SignHTTP(bg, creds, req, payloadHash, "s3", "auto", time.Now(), func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }); err != nil {
		t.Fatal(err)
	}
	if tamper != nil {
		tamper(req)
	}
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func s3ErrorCodeOf(t *testing.T, resp *http.Response) string {
	t.Helper()
	body, _ := io.ReadAll(resp.Body)
	_, rest, _ := strings.Cut(string(body), "<Code>")
	code, _, _ := strings.Cut(rest, "</Code>")
	return code
}

// TestS3ChecksIntegrity checks every integrity claim of an upload: the signed payload hash
// against the body, a signed header changed on the way, Content-MD5, and the SDK's CRC32 as
// a header (plain HTTP) and as an aws-chunked trailer (TLS).
func TestS3ChecksIntegrity(t *testing.T) {
	f := newS3Fixture(t, false)
	signed := []byte("the signed body")
	sum := sha256.Sum256(signed)
	hash := hex.EncodeToString(sum[:])
	if resp := signedPut(t, f, "ok", signed, hash, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("untampered signed PUT = %d %s; the test's signing is wrong", resp.StatusCode, s3ErrorCodeOf(t, resp))
	}
	tamperedBody := signedPut(t, f, "body", signed, hash, func(r *http.Request) {
		r.Body = io.NopCloser(strings.NewReader("a tampered body"))
	})
	if code := s3ErrorCodeOf(t, tamperedBody); tamperedBody.StatusCode != http.StatusBadRequest || code != "XAmzContentSHA256Mismatch" {
		t.Errorf("body changed after signing = %d %s, want 400 XAmzContentSHA256Mismatch", tamperedBody.StatusCode, code)
	}
	tamperedHeader := signedPut(t, f, "header", signed, hash, func(r *http.Request) { r.Header.Set("Content-Type", "text/html") })
	if code := s3ErrorCodeOf(t, tamperedHeader); tamperedHeader.StatusCode != http.StatusForbidden || code != "SignatureDoesNotMatch" {
		t.Errorf("signed header changed after signing = %d %s, want 403 SignatureDoesNotMatch", tamperedHeader.StatusCode, code)
	}
	tamperedPath := signedPut(t, f, "path", signed, hash, func(r *http.Request) { r.URL.Path += "-other" })
	if code := s3ErrorCodeOf(t, tamperedPath); tamperedPath.StatusCode != http.StatusForbidden || code != "SignatureDoesNotMatch" {
		t.Errorf("key changed after signing = %d %s, want 403 SignatureDoesNotMatch", tamperedPath.StatusCode, code)
	}

	wrongMD5 := base64.StdEncoding.EncodeToString(make([]byte, 16))
	for _, tls := range []bool{false, true} {
		f := newS3Fixture(t, tls)
		c := f.goodClient()
		_, err := c.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String("md5"),
			Body: strings.NewReader("payload"), ContentMD5: aws.String(wrongMD5)})
		if errorCode(err) != "BadDigest" || httpStatus(err) != http.StatusBadRequest {
			t.Errorf("tls=%v: wrong Content-MD5: %v, want 400 BadDigest", tls, err)
		}
		// The SDK sends a precomputed CRC32 as a header, over TLS too.
		_, err = c.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String("crc"),
			Body: strings.NewReader("payload"), ChecksumCRC32: aws.String("AAAAAA==")})
		if errorCode(err) != "BadDigest" || httpStatus(err) != http.StatusBadRequest {
			t.Errorf("tls=%v: wrong CRC32: %v, want 400 BadDigest", tls, err)
		}
		if n := len(f.srv.r2.Buckets[s3TestBucket].Objects); n != 0 {
			t.Errorf("tls=%v: %d objects stored by uploads that failed their checks", tls, n)
		}
	}
}

// TestS3DecodesAWSChunkedUploads sends aws-chunked bodies as the AWS SDK frames them over TLS
// (several chunks, a trailing CRC32): a correct one stores the decoded bytes, a wrong
// trailer is BadDigest, and a length other than x-amz-decoded-content-length is refused.
func TestS3DecodesAWSChunkedUploads(t *testing.T) {
	f := newS3Fixture(t, false)
	chunked := func(crc string) []byte {
		return []byte("4\r\npayl\r\n3\r\noad\r\n0\r\nx-amz-checksum-crc32:" + crc + "\r\n\r\n")
	}
	headers := func(decodedLength string) map[string]string {
		return map[string]string{"Content-Encoding": "aws-chunked", "X-Amz-Decoded-Content-Length": decodedLength, "X-Amz-Trailer": "x-amz-checksum-crc32"}
	}
	good := base64.StdEncoding.EncodeToString(crc32Of([]byte("payload")))
	if resp := signedPutWith(t, f, "chunked", chunked(good), streamingUnsignedPayloadTrailer, headers("7"), nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("aws-chunked PUT = %d %s", resp.StatusCode, s3ErrorCodeOf(t, resp))
	}
	if got := string(f.srv.r2.Buckets[s3TestBucket].Objects["chunked"].Content); got != "payload" {
		t.Errorf("stored %q, want the decoded %q", got, "payload")
	}
	for _, tc := range []struct {
		name, crc, length, code string
	}{
		{"wrong trailer", "AAAAAA==", "7", "BadDigest"},
		{"wrong decoded length", good, "8", "IncompleteBody"},
	} {
		resp := signedPutWith(t, f, "bad", chunked(tc.crc), streamingUnsignedPayloadTrailer, headers(tc.length), nil)
		if code := s3ErrorCodeOf(t, resp); resp.StatusCode != http.StatusBadRequest || code != tc.code {
			t.Errorf("%s: %d %s, want 400 %s", tc.name, resp.StatusCode, code, tc.code)
		}
	}
	if _, stored := f.srv.r2.Buckets[s3TestBucket].Objects["bad"]; stored {
		t.Error("a refused aws-chunked upload was stored")
	}
}

func crc32Of(b []byte) []byte {
	h := crc32.NewIEEE()
	h.Write(b)
	return h.Sum(nil)
}
