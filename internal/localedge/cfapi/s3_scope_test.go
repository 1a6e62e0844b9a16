package cfapi

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// TestS3AnswersNotImplementedOutsideTheSubset checks that operations the endpoint does not
// emulate are refused by name (501 NotImplemented), never served as a look-alike: a
// CopyObject is not a PutObject, a multipart upload is not an object write.
func TestS3AnswersNotImplementedOutsideTheSubset(t *testing.T) {
	f := newS3Fixture(t, false)
	c := f.goodClient()
	_, copyErr := c.CopyObject(bg, &s3.CopyObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String("copy"), CopySource: aws.String(s3TestBucket + "/src")})
	_, multipartErr := c.CreateMultipartUpload(bg, &s3.CreateMultipartUploadInput{Bucket: aws.String(s3TestBucket), Key: aws.String("big")})
	_, aclErr := c.GetObjectAcl(bg, &s3.GetObjectAclInput{Bucket: aws.String(s3TestBucket), Key: aws.String("k")})
	for name, err := range map[string]error{"CopyObject": copyErr, "CreateMultipartUpload": multipartErr, "GetObjectAcl": aclErr} {
		if errorCode(err) != "NotImplemented" || httpStatus(err) != http.StatusNotImplemented {
			t.Errorf("%s: %v, want 501 NotImplemented", name, err)
		}
	}
	if n := len(f.srv.r2.Buckets[s3TestBucket].Objects); n != 0 {
		t.Errorf("%d objects stored by unimplemented operations", n)
	}
	if !strings.Contains(f.log.String(), "S3 operation not implemented") {
		t.Error("the unimplemented operations are not logged")
	}
}

// TestS3CreateBucket: R2 allows bucket creation over S3; the bucket is the REST API's, and
// creating it again is BucketAlreadyOwnedByYou.
func TestS3CreateBucket(t *testing.T) {
	f := newS3Fixture(t, false)
	c := f.goodClient()
	if _, err := c.CreateBucket(bg, &s3.CreateBucketInput{Bucket: aws.String("second-bucket")}); err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	if !slices.ContainsFunc(f.srv.R2Buckets(), func(b R2Bucket) bool { return b.Name == "second-bucket" }) {
		t.Error("the bucket created over S3 is not in the API's state")
	}
	_, err := c.CreateBucket(bg, &s3.CreateBucketInput{Bucket: aws.String("second-bucket")})
	if _, ok := errors.AsType[*types.BucketAlreadyOwnedByYou](err); !ok {
		t.Errorf("second CreateBucket: %v, want BucketAlreadyOwnedByYou", err)
	}
	if _, err := c.CreateBucket(bg, &s3.CreateBucketInput{Bucket: aws.String("Bad_Name")}); errorCode(err) != "InvalidBucketName" {
		t.Errorf("CreateBucket Bad_Name: %v, want InvalidBucketName", err)
	}
}

// TestS3KeyPairPersists: the key pair is made once per state dir and kept across restarts,
// and a state dir from before the S3 endpoint gets one without losing its identity.
func TestS3KeyPairPersists(t *testing.T) {
	dir := t.TempDir()
	old := `{"account_id":"acc","zone_id":"zone","zone_name":"kamui.test","api_token":"tok"}`
	if err := os.WriteFile(filepath.Join(dir, fileIdentity), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	first, err := New(Config{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	id := first.Identity()
	if id.AccountID != "acc" || id.APIToken != "tok" || len(id.R2AccessKeyID) != 32 || len(id.R2SecretAccessKey) != 64 {
		t.Fatalf("identity after upgrade = account %q token %q, key id of %d and secret of %d characters; want the old identity and a 32/64-hex key pair",
			id.AccountID, id.APIToken, len(id.R2AccessKeyID), len(id.R2SecretAccessKey))
	}
	second, err := New(Config{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if second.Identity() != id {
		t.Error("the key pair changed across a restart")
	}
}
