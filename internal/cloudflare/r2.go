package cloudflare

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/r2"
)

// R2Object is one object of a listing.
type R2Object struct {
	Key         string
	ETag        string // hex MD5 for single-request uploads
	Size        int64
	ContentType string
}

// R2BucketExists says whether the account has the bucket.
func (c *Client) R2BucketExists(ctx context.Context, accountID, bucket string) (bool, error) {
	_, err := c.R2.Buckets.Get(ctx, bucket, r2.BucketGetParams{AccountID: cf.F(accountID)})
	if isStatus(err, http.StatusNotFound) {
		return false, nil
	}
	return err == nil, err
}

// R2EnsureBucket creates the bucket unless it exists. created says whether this call made it.
func (c *Client) R2EnsureBucket(ctx context.Context, accountID, bucket string) (created bool, err error) {
	if exists, err := c.R2BucketExists(ctx, accountID, bucket); err != nil || exists {
		return false, err
	}
	_, err = c.R2.Buckets.New(ctx, r2.BucketNewParams{AccountID: cf.F(accountID), Name: cf.F(bucket)})
	if isStatus(err, http.StatusConflict) {
		return false, nil // created concurrently by someone else: it exists, which is all we need
	}
	return err == nil, err
}

// R2PutObject uploads one object of size bytes with its content type, streaming body.
//
// body is an io.ReadSeeker because of the retrying transport: go-retryablehttp rewinds a
// seekable body for each attempt, but reads any other body whole into memory first. The
// request declares its Content-Length, so it is not sent chunked, an empty one included.
func (c *Client) R2PutObject(ctx context.Context, accountID, bucket, key string, body io.ReadSeeker, size int64, contentType string) error {
	return c.R2PutObjectSHA256(ctx, accountID, bucket, key, body, size, contentType, "")
}

// R2PutObjectSHA256 is R2PutObject for content whose SHA-256 is known (hex; "" for none). Over
// the S3 API the store checks it (x-amz-checksum-sha256) and refuses other bytes, keeping what
// the key held; the REST upload has no such check, so a caller that needs the guarantee also
// checks what it sent (see staticsite.Content).
func (c *Client) R2PutObjectSHA256(ctx context.Context, accountID, bucket, key string, body io.ReadSeeker, size int64, contentType, sha256Hex string) error {
	if c.r2s3 != nil {
		return c.r2s3.put(ctx, bucket, key, body, size, contentType, sha256Hex)
	}
	_, err := c.R2.Buckets.Objects.Upload(ctx, bucket, objectKeyPath(key), seekBody{body},
		r2.BucketObjectUploadParams{AccountID: cf.F(accountID)},
		// Upload sends application/octet-stream; R2 stores the request's Content-Type as the
		// object's, which the Worker serves.
		option.WithHeader("Content-Type", contentType),
		// cloudflare-go knows the length of a *bytes.Reader only.
		option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			req.ContentLength = size
			if size == 0 {
				// Go's client takes a non-nil body with ContentLength 0 for one of unknown
				// length and sends it chunked; http.NoBody is the empty body it declares.
				req.Body, req.GetBody = http.NoBody, func() (io.ReadCloser, error) { return http.NoBody, nil }
			}
			return next(req)
		}))
	return err
}

// seekBody hands cloudflare-go a body it passes through as it is (an io.ReadCloser) and that
// the retrying transport can rewind (an io.Seeker). Closing is the caller's: the transport
// closes a request body after each attempt, and a retry must still read the file.
type seekBody struct{ io.ReadSeeker }

func (seekBody) Close() error { return nil }

// R2GetObject reads one small object whole (a site manifest), refusing one larger than limit
// bytes. A missing object is found=false.
func (c *Client) R2GetObject(ctx context.Context, accountID, bucket, key string, limit int64) (body []byte, found bool, err error) {
	if c.r2s3 != nil {
		return c.r2s3.get(ctx, bucket, key, limit)
	}
	res, err := c.R2.Buckets.Objects.Get(ctx, bucket, objectKeyPath(key), r2.BucketObjectGetParams{AccountID: cf.F(accountID)})
	if isStatus(err, http.StatusNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = res.Body.Close() }() // what was read is complete or refused; closing adds nothing
	body, err = readLimited(res.Body, limit, key)
	return body, err == nil, err
}

// readLimited reads r whole unless it is longer than limit bytes.
func readLimited(r io.Reader, limit int64, key string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("object %q is larger than %d bytes", key, limit)
	}
	return b, err
}

// R2DeleteObject deletes one object; a missing object is not an error.
func (c *Client) R2DeleteObject(ctx context.Context, accountID, bucket, key string) error {
	if c.r2s3 != nil {
		return c.r2s3.delete(ctx, bucket, key)
	}
	_, err := c.R2.Buckets.Objects.Delete(ctx, bucket, objectKeyPath(key), r2.BucketObjectDeleteParams{AccountID: cf.F(accountID)})
	if isStatus(err, http.StatusNotFound) {
		return nil
	}
	return err
}

// R2DeleteObjects deletes the keys, missing ones included: through the S3 API in batches of
// 1,000 (DeleteObjects), through the REST API one call per key (it has no batch).
func (c *Client) R2DeleteObjects(ctx context.Context, accountID, bucket string, keys []string) error {
	if c.r2s3 != nil {
		return c.r2s3.deleteMany(ctx, bucket, keys)
	}
	for _, k := range keys {
		if err := c.R2DeleteObject(ctx, accountID, bucket, k); err != nil {
			return err
		}
	}
	return nil
}

// R2ListObjects lists every object under prefix, following the cursor. A missing bucket is
// reported as found=false.
func (c *Client) R2ListObjects(ctx context.Context, accountID, bucket, prefix string) (objects []R2Object, found bool, err error) {
	if c.r2s3 != nil {
		return c.r2s3.list(ctx, bucket, prefix)
	}
	pager := c.R2.Buckets.Objects.ListAutoPaging(ctx, bucket, r2.BucketObjectListParams{
		AccountID: cf.F(accountID),
		Prefix:    cf.F(prefix),
		// The API's largest page (its default is 20): a site's refresh costs one listing.
		PerPage: cf.F(int64(1000)),
	})
	for pager.Next() {
		o := pager.Current()
		objects = append(objects, R2Object{Key: o.Key, ETag: o.Etag, Size: o.Size, ContentType: o.HTTPMetadata.ContentType})
	}
	if err := pager.Err(); err != nil {
		if isStatus(err, http.StatusNotFound) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return objects, true, nil
}

// objectKeyPath escapes a key for the URL path: cloudflare-go inserts it verbatim, and a key
// with "?", "#" or "%" would otherwise change the request. Slashes are escaped too, so the key
// stays one path segment.
func objectKeyPath(key string) string { return url.PathEscape(key) }
