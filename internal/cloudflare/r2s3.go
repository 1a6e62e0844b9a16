package cloudflare

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// R2S3Config is an R2 access key pair and the account's S3-compatible endpoint. With it, the
// object traffic of static sites (uploads, listings, deletes) goes through R2's S3 API, which
// does not count against the account's REST rate limit; without it, through the REST API.
type R2S3Config struct {
	Endpoint        string // e.g. the local edge's KAMUIDASH_R2_S3_ENDPOINT
	AccessKeyID     string
	SecretAccessKey string // never logged
	// Transport sends the requests; default a pooled transport. Tests inject one.
	Transport http.RoundTripper
}

// r2S3 is the S3 client of one account's R2.
type r2S3 struct{ c *s3.Client }

func newR2S3(cfg R2S3Config) *r2S3 {
	opts := s3.Options{
		BaseEndpoint: aws.String(strings.TrimSuffix(cfg.Endpoint, "/")),
		Region:       "auto", // R2's only region
		Credentials:  credentials.NewStaticCredentialsProvider(cfg.AccessKeyID, cfg.SecretAccessKey, ""),
		UsePathStyle: true,
		// Checksums only where an operation requires one (DeleteObjects): the SDK's default
		// sends aws-chunked bodies with trailing checksums, which buys nothing over the
		// Content-MD5-free single PUT R2 documents, and costs a full extra read of each file.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		RetryMaxAttempts:           4,
	}
	if cfg.Transport != nil {
		opts.HTTPClient = &http.Client{Transport: cfg.Transport}
	}
	return &r2S3{c: s3.New(opts)}
}

func (s *r2S3) put(ctx context.Context, bucket, key string, body io.ReadSeeker, size int64, contentType, sha256Hex string) error {
	in := &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Body: body,
		ContentLength: aws.Int64(size), ContentType: aws.String(contentType),
	}
	if sha256Hex != "" {
		sum, err := hex.DecodeString(sha256Hex)
		if err != nil || len(sum) != sha256.Size {
			return fmt.Errorf("uploading %s: %q is not a SHA-256", key, sha256Hex)
		}
		// Given, the checksum is sent as it is (no extra read of the body to compute one).
		in.ChecksumSHA256 = aws.String(base64.StdEncoding.EncodeToString(sum))
	}
	_, err := s.c.PutObject(ctx, in)
	return err
}

func (s *r2S3) get(ctx context.Context, bucket, key string, limit int64) ([]byte, bool, error) {
	out, err := s.c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	var noKey *s3types.NoSuchKey
	var apiErr smithy.APIError
	if errors.As(err, &noKey) || errors.As(err, &apiErr) && apiErr.ErrorCode() == "NoSuchKey" {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = out.Body.Close() }() // what was read is complete or refused; closing adds nothing
	b, err := readLimited(out.Body, limit, key)
	return b, err == nil, err
}

func (s *r2S3) delete(ctx context.Context, bucket, key string) error {
	_, err := s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	return err // S3 answers a missing key with success
}

// s3DeleteBatch is DeleteObjects' largest batch.
const s3DeleteBatch = 1000

func (s *r2S3) deleteMany(ctx context.Context, bucket string, keys []string) error {
	for len(keys) > 0 {
		n := min(len(keys), s3DeleteBatch)
		ids := make([]s3types.ObjectIdentifier, n)
		for i, k := range keys[:n] {
			ids[i] = s3types.ObjectIdentifier{Key: aws.String(k)}
		}
		out, err := s.c.DeleteObjects(ctx, &s3.DeleteObjectsInput{
			Bucket: aws.String(bucket),
			Delete: &s3types.Delete{Objects: ids, Quiet: aws.Bool(true)},
		})
		if err != nil {
			return err
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("deleting %q: %s (%s), and %d more keys failed", aws.ToString(e.Key), aws.ToString(e.Message), aws.ToString(e.Code), len(out.Errors)-1)
		}
		keys = keys[n:]
	}
	return nil
}

// list lists every object under prefix, 1,000 a page. A missing bucket is found=false.
func (s *r2S3) list(ctx context.Context, bucket, prefix string) (objects []R2Object, found bool, err error) {
	pages := s3.NewListObjectsV2Paginator(s.c, &s3.ListObjectsV2Input{
		Bucket: aws.String(bucket), Prefix: aws.String(prefix), MaxKeys: aws.Int32(1000),
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			var noBucket *s3types.NoSuchBucket
			var apiErr smithy.APIError
			if errors.As(err, &noBucket) || errors.As(err, &apiErr) && apiErr.ErrorCode() == "NoSuchBucket" {
				return nil, false, nil
			}
			return nil, false, err
		}
		for _, o := range page.Contents {
			// ListObjectsV2 carries no content type; the listing's callers compare ETags.
			objects = append(objects, R2Object{Key: aws.ToString(o.Key), ETag: strings.Trim(aws.ToString(o.ETag), `"`), Size: aws.ToInt64(o.Size)})
		}
	}
	return objects, true, nil
}
