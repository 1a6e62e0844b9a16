package cfapi

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// TestS3RoundTripWithTheAWSSDK drives every implemented operation with the AWS SDK's own S3
// client, in both of its checksum modes and over plain HTTP and TLS: by default the SDK adds
// a CRC32 to every upload (over TLS as an aws-chunked body with a trailing checksum), and
// "when required" sends plain bodies.
func TestS3RoundTripWithTheAWSSDK(t *testing.T) {
	for _, tc := range []struct {
		name         string
		tls          bool
		opts         []func(*s3.Options)
		wantEncoding string // the X-Amz-Content-Sha256 the SDK's uploads carry
	}{
		{name: "http/default checksums", wantEncoding: "sha256"},
		{name: "http/when required", opts: []func(*s3.Options){whenRequired}, wantEncoding: "sha256"},
		{name: "tls/default checksums", tls: true, wantEncoding: streamingUnsignedPayloadTrailer},
		{name: "tls/when required", tls: true, opts: []func(*s3.Options){whenRequired}, wantEncoding: unsignedPayload},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newS3Fixture(t, tc.tls)
			c := f.goodClient(tc.opts...)
			if _, err := c.HeadBucket(bg, &s3.HeadBucketInput{Bucket: aws.String(s3TestBucket)}); err != nil {
				t.Fatalf("HeadBucket: %v", err)
			}
			if _, err := c.HeadBucket(bg, &s3.HeadBucketInput{Bucket: aws.String("no-such-bucket")}); httpStatus(err) != http.StatusNotFound {
				t.Errorf("HeadBucket of a missing bucket: %v, want 404", err)
			}

			keys := []string{"index.html", "assets/app 1.js", "assets/css/site.css", "docs/a+b.txt", "docs/weird?name#x%y.txt"}
			for i, key := range keys {
				body := []byte("content of " + key)
				sum := md5.Sum(body)
				in := &s3.PutObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String(key),
					Body: bytes.NewReader(body), ContentType: aws.String("text/plain; charset=utf-8"), Metadata: map[string]string{"source-path": key}}
				if i == 0 {
					// With a Content-MD5 the SDK adds no checksum of its own.
					in.ContentMD5 = aws.String(base64.StdEncoding.EncodeToString(sum[:]))
				}
				out, err := c.PutObject(bg, in)
				if err != nil {
					t.Fatalf("PutObject %q: %v", key, err)
				}
				if want := fmt.Sprintf("%q", fmt.Sprintf("%x", sum)); aws.ToString(out.ETag) != want {
					t.Errorf("PutObject %q ETag = %s, want %s (the quoted hex MD5)", key, aws.ToString(out.ETag), want)
				}
			}
			for _, got := range f.payloadHashes.all()[1:] {
				if tc.wantEncoding == "sha256" && len(got) != 64 || tc.wantEncoding != "sha256" && got != tc.wantEncoding {
					t.Errorf("the SDK's upload carried X-Amz-Content-Sha256 %q, want %s: this case tests another encoding than it says", got, tc.wantEncoding)
				}
			}

			got, err := c.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String("assets/app 1.js")})
			if err != nil {
				t.Fatalf("GetObject: %v", err)
			}
			body, _ := io.ReadAll(got.Body)
			_ = got.Body.Close()
			if string(body) != "content of assets/app 1.js" || aws.ToString(got.ContentType) != "text/plain; charset=utf-8" ||
				got.Metadata["source-path"] != "assets/app 1.js" {
				t.Errorf("GetObject = %q, type %q, metadata %v", body, aws.ToString(got.ContentType), got.Metadata)
			}
			ranged, err := c.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String("index.html"), Range: aws.String("bytes=0-6")})
			if err != nil {
				t.Fatalf("ranged GetObject: %v", err)
			}
			part, _ := io.ReadAll(ranged.Body)
			_ = ranged.Body.Close()
			if string(part) != "content" || aws.ToString(ranged.ContentRange) != "bytes 0-6/21" {
				t.Errorf("ranged GetObject = %q, Content-Range %q, want \"content\" and bytes 0-6/21", part, aws.ToString(ranged.ContentRange))
			}
			head, err := c.HeadObject(bg, &s3.HeadObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String("docs/a+b.txt")})
			if err != nil || aws.ToInt64(head.ContentLength) != int64(len("content of docs/a+b.txt")) || head.Metadata["source-path"] != "docs/a+b.txt" {
				t.Fatalf("HeadObject = %+v, %v", head, err)
			}
			_, err = c.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String("missing")})
			if _, ok := errors.AsType[*types.NoSuchKey](err); !ok {
				t.Errorf("GetObject of a missing key: %v, want NoSuchKey", err)
			}
			_, err = c.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String("no-such-bucket"), Key: aws.String("x")})
			if errorCode(err) != "NoSuchBucket" || httpStatus(err) != http.StatusNotFound {
				t.Errorf("GetObject in a missing bucket: %v, want 404 NoSuchBucket", err)
			}

			// Pages of two: every key once, in order, over several continuation tokens.
			var listed []string
			pages := 0
			for p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(s3TestBucket), MaxKeys: aws.Int32(2)}); p.HasMorePages(); {
				page, err := p.NextPage(bg)
				if err != nil {
					t.Fatalf("ListObjectsV2 page %d: %v", pages, err)
				}
				pages++
				for _, o := range page.Contents {
					listed = append(listed, aws.ToString(o.Key))
				}
			}
			want := slices.Sorted(slices.Values(keys))
			if !slices.Equal(listed, want) || pages != 3 {
				t.Errorf("paginated listing = %v in %d pages, want %v in 3", listed, pages, want)
			}
			// A delimiter groups, and paging resumes after a group without repeating it.
			var objects, prefixes []string
			for p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(s3TestBucket), Delimiter: aws.String("/"), MaxKeys: aws.Int32(1)}); p.HasMorePages(); {
				page, err := p.NextPage(bg)
				if err != nil {
					t.Fatalf("delimited ListObjectsV2: %v", err)
				}
				for _, o := range page.Contents {
					objects = append(objects, aws.ToString(o.Key))
				}
				for _, cp := range page.CommonPrefixes {
					prefixes = append(prefixes, aws.ToString(cp.Prefix))
				}
			}
			if !slices.Equal(objects, []string{"index.html"}) || !slices.Equal(prefixes, []string{"assets/", "docs/"}) {
				t.Errorf("delimited listing = objects %v, prefixes %v; want [index.html] and [assets/ docs/]", objects, prefixes)
			}
			none, err := c.ListObjectsV2(bg, &s3.ListObjectsV2Input{Bucket: aws.String(s3TestBucket), MaxKeys: aws.Int32(0)})
			if err != nil || len(none.Contents) != 0 || aws.ToBool(none.IsTruncated) {
				t.Errorf("max-keys=0 listing = %+v, %v; want an empty, complete answer", none, err)
			}
			prefixed, err := c.ListObjectsV2(bg, &s3.ListObjectsV2Input{Bucket: aws.String(s3TestBucket), Prefix: aws.String("assets/"), StartAfter: aws.String("assets/app 1.js")})
			if err != nil || len(prefixed.Contents) != 1 || aws.ToString(prefixed.Contents[0].Key) != "assets/css/site.css" {
				t.Errorf("prefix + start-after listing = %+v, %v; want only assets/css/site.css", prefixed, err)
			}

			if _, err := c.DeleteObject(bg, &s3.DeleteObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String("index.html")}); err != nil {
				t.Fatalf("DeleteObject: %v", err)
			}
			loud, err := c.DeleteObjects(bg, &s3.DeleteObjectsInput{Bucket: aws.String(s3TestBucket), Delete: &types.Delete{
				Objects: []types.ObjectIdentifier{{Key: aws.String("assets/app 1.js")}, {Key: aws.String("never-existed")}}}})
			if err != nil || len(loud.Deleted) != 2 || len(loud.Errors) != 0 {
				t.Fatalf("DeleteObjects = %+v, %v; want two keys reported deleted", loud, err)
			}
			quiet, err := c.DeleteObjects(bg, &s3.DeleteObjectsInput{Bucket: aws.String(s3TestBucket), Delete: &types.Delete{Quiet: aws.Bool(true),
				Objects: []types.ObjectIdentifier{{Key: aws.String("assets/css/site.css")}, {Key: aws.String("docs/a+b.txt")}}}})
			if err != nil || len(quiet.Deleted) != 0 {
				t.Fatalf("quiet DeleteObjects = %+v, %v; want nothing reported", quiet, err)
			}
			rest, err := c.ListObjectsV2(bg, &s3.ListObjectsV2Input{Bucket: aws.String(s3TestBucket)})
			if err != nil || len(rest.Contents) != 1 || aws.ToString(rest.Contents[0].Key) != "docs/weird?name#x%y.txt" {
				t.Errorf("after the deletes the listing is %+v, %v; want only docs/weird?name#x%%y.txt", rest, err)
			}
		})
	}
}

// TestS3ObjectsAreTheRESTObjects checks that both APIs serve one store: an object put
// through S3 is listed and served by REST with the same ETag and reported to the runtime
// (the Workers' R2 bindings), an object put through REST is served by S3, and the call
// accounting keeps S3 apart from the REST budget.
func TestS3ObjectsAreTheRESTObjects(t *testing.T) {
	f := newS3Fixture(t, false)
	c := f.goodClient()
	f.srv.ResetCalls()
	out, err := c.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String("sites/a/index.html"),
		Body: strings.NewReader("<h1>a</h1>"), ContentType: aws.String("text/html"), Metadata: map[string]string{"Version": "7"}})
	if err != nil {
		t.Fatal(err)
	}
	objects := f.ts.URL + APIPrefix + "/accounts/" + f.id.AccountID + "/r2/buckets/" + s3TestBucket + "/objects"
	resp, body := rawRequestTLS(t, f.ts.Client(), http.MethodGet, objects, f.id.APIToken, "")
	var listing struct {
		Result []r2ObjectView `json:"result"`
	}
	if err := json.Unmarshal(body, &listing); err != nil || resp.StatusCode != http.StatusOK || len(listing.Result) != 1 {
		t.Fatalf("REST listing: %d %s", resp.StatusCode, body)
	}
	o := listing.Result[0]
	if o.Key != "sites/a/index.html" || `"`+o.ETag+`"` != aws.ToString(out.ETag) || o.HTTPMetadata["contentType"] != "text/html" || o.CustomMetadata["version"] != "7" {
		t.Errorf("REST sees %+v; want the S3 upload's key, ETag %s, content type and metadata", o, aws.ToString(out.ETag))
	}
	resp, body = rawRequestTLS(t, f.ts.Client(), http.MethodGet, objects+"/sites/a/index.html", f.id.APIToken, "")
	if resp.StatusCode != http.StatusOK || string(body) != "<h1>a</h1>" || resp.Header.Get("ETag") != aws.ToString(out.ETag) {
		t.Errorf("REST GET = %d %q ETag %s", resp.StatusCode, body, resp.Header.Get("ETag"))
	}
	events := f.events.all()
	if len(events) != 1 || events[0].Key != "sites/a/index.html" || string(events[0].Object.Content) != "<h1>a</h1>" || events[0].Object.ContentType != "text/html" {
		t.Errorf("R2Changed events = %+v; want the S3 upload reported to the runtime", events)
	}

	req, _ := http.NewRequest(http.MethodPut, objects+"/from-rest.txt", strings.NewReader("via rest"))
	req.Header.Set("Authorization", "Bearer "+f.id.APIToken)
	req.Header.Set("Content-Type", "text/plain")
	if resp, err := f.ts.Client().Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("REST PUT: %v %v", resp, err)
	}
	got, err := c.GetObject(bg, &s3.GetObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String("from-rest.txt")})
	if err != nil {
		t.Fatal(err)
	}
	content, _ := io.ReadAll(got.Body)
	_ = got.Body.Close()
	if string(content) != "via rest" || aws.ToString(got.ContentType) != "text/plain" {
		t.Errorf("S3 GetObject of a REST upload = %q (%s)", content, aws.ToString(got.ContentType))
	}
	if _, err := c.DeleteObject(bg, &s3.DeleteObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String("sites/a/index.html")}); err != nil {
		t.Fatal(err)
	}
	if ev := f.events.all(); len(ev) != 3 || !ev[2].Deleted {
		t.Errorf("R2Changed events = %+v; want the S3 delete reported last", ev)
	}

	st := f.srv.Calls()
	if st.S3.Calls != 3 || st.S3.ByClass["2xx"] != 3 || st.ObjectStorage.Calls != 3 || st.REST.Calls != 0 {
		t.Errorf("calls: S3 %+v, object storage %+v, REST %+v; want 3 S3 calls apart from 3 REST object calls and no other REST call", st.S3, st.ObjectStorage, st.REST)
	}
	var ops []string
	for _, op := range st.Operations {
		if op.S3 {
			ops = append(ops, op.Operation)
		}
	}
	if want := []string{"S3 DeleteObject", "S3 GetObject", "S3 PutObject"}; !slices.Equal(ops, want) {
		t.Errorf("S3 operations = %v, want %v", ops, want)
	}
}
