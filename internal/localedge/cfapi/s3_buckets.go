package cfapi

import (
	"encoding/base64"
	"encoding/xml"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// s3Namespace is S3's XML namespace, on every document the endpoint answers.
const s3Namespace = "http://s3.amazonaws.com/doc/2006-03-01/"

// s3MaxKeys is ListObjectsV2's page size, its default and its maximum; also the most keys
// one DeleteObjects may name.
const s3MaxKeys = 1000

type s3ListResult struct {
	XMLName               xml.Name         `xml:"ListBucketResult"`
	Namespace             string           `xml:"xmlns,attr"`
	Name                  string           `xml:"Name"`
	Prefix                string           `xml:"Prefix"`
	Delimiter             string           `xml:"Delimiter,omitempty"`
	MaxKeys               int              `xml:"MaxKeys"`
	KeyCount              int              `xml:"KeyCount"`
	IsTruncated           bool             `xml:"IsTruncated"`
	ContinuationToken     string           `xml:"ContinuationToken,omitempty"`
	NextContinuationToken string           `xml:"NextContinuationToken,omitempty"`
	StartAfter            string           `xml:"StartAfter,omitempty"`
	Contents              []s3ListEntry    `xml:"Contents"`
	CommonPrefixes        []s3CommonPrefix `xml:"CommonPrefixes"`
}

type s3ListEntry struct {
	Key          string `xml:"Key"`
	LastModified string `xml:"LastModified"`
	ETag         string `xml:"ETag"`
	Size         int    `xml:"Size"`
	StorageClass string `xml:"StorageClass"`
}

type s3CommonPrefix struct {
	Prefix string `xml:"Prefix"`
}

// s3ListObjectsV2 lists keys in order with prefix, delimiter grouping, max-keys, start-after
// and an opaque continuation token: the last entry answered (a key or a common prefix),
// base64-encoded. Resuming after a common prefix skips every key in it.
func (s *Server) s3ListObjectsV2(w http.ResponseWriter, r *http.Request, t s3Target) *s3Error {
	q := r.URL.Query()
	res := s3ListResult{Namespace: s3Namespace, Name: t.bucket, Prefix: q.Get("prefix"), Delimiter: q.Get("delimiter"),
		MaxKeys: s3MaxKeys, StartAfter: q.Get("start-after"), ContinuationToken: q.Get("continuation-token")}
	if v := q.Get("max-keys"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return s3Errorf(http.StatusBadRequest, "InvalidArgument", "max-keys must be a non-negative integer.")
		}
		res.MaxKeys = min(n, s3MaxKeys)
	}
	after, resumedGroup := res.StartAfter, ""
	if res.ContinuationToken != "" {
		decoded, err := base64.RawURLEncoding.DecodeString(res.ContinuationToken)
		if err != nil {
			return s3Errorf(http.StatusBadRequest, "InvalidArgument", "The continuation token provided is incorrect.")
		}
		after, resumedGroup = string(decoded), string(decoded)
	}

	s.mu.Lock()
	b, err := s.s3Bucket(t.bucket)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	last := ""
	keys := slices.Sorted(maps.Keys(b.Objects))
	if res.MaxKeys == 0 {
		keys = nil // nothing asked for: an empty, complete answer rather than a token of ""
	}
	for _, key := range keys {
		if !strings.HasPrefix(key, res.Prefix) || key <= after {
			continue
		}
		group := ""
		if res.Delimiter != "" {
			if i := strings.Index(key[len(res.Prefix):], res.Delimiter); i >= 0 {
				group = key[:len(res.Prefix)+i+len(res.Delimiter)]
			}
		}
		if group != "" && (group == last || group == resumedGroup) {
			continue // a key of a common prefix already answered
		}
		if res.KeyCount == res.MaxKeys {
			res.IsTruncated = true
			break
		}
		res.KeyCount++
		if group != "" {
			res.CommonPrefixes = append(res.CommonPrefixes, s3CommonPrefix{Prefix: group})
			last = group
			continue
		}
		o := b.Objects[key]
		res.Contents = append(res.Contents, s3ListEntry{Key: key, LastModified: o.Uploaded.UTC().Format("2006-01-02T15:04:05.000Z"),
			ETag: `"` + o.ETag + `"`, Size: len(o.Content), StorageClass: "STANDARD"})
		last = key
	}
	s.mu.Unlock()
	if res.IsTruncated {
		res.NextContinuationToken = base64.RawURLEncoding.EncodeToString([]byte(last))
	}
	writeS3XML(w, res)
	return nil
}

type s3DeleteRequest struct {
	Quiet   bool `xml:"Quiet"`
	Objects []struct {
		Key string `xml:"Key"`
	} `xml:"Object"`
}

type s3DeleteResult struct {
	XMLName   xml.Name        `xml:"DeleteResult"`
	Namespace string          `xml:"xmlns,attr"`
	Deleted   []s3DeletedKey  `xml:"Deleted"`
	Errors    []s3DeleteError `xml:"Error"`
}

type s3DeletedKey struct {
	Key string `xml:"Key"`
}

type s3DeleteError struct {
	Key     string `xml:"Key"`
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

// s3DeleteObjects removes up to 1,000 keys in one request; Quiet answers only the failures
// (there are none for a key that does not exist: deleting it succeeds).
func (s *Server) s3DeleteObjects(w http.ResponseWriter, r *http.Request, t s3Target) *s3Error {
	body, err := readS3Payload(w, r)
	if err != nil {
		return err
	}
	var req s3DeleteRequest
	if xml.Unmarshal(body, &req) != nil || len(req.Objects) == 0 || len(req.Objects) > s3MaxKeys {
		return s3Errorf(http.StatusBadRequest, "MalformedXML", "The XML you provided was not well-formed or did not name 1 to 1,000 objects.")
	}
	res := s3DeleteResult{Namespace: s3Namespace}
	var notifies []func()
	s.mu.Lock()
	b, err := s.s3Bucket(t.bucket)
	if err == nil {
		changed := false
		for _, o := range req.Objects {
			if _, exists := b.Objects[o.Key]; exists {
				delete(b.Objects, o.Key)
				changed = true
				notifies = append(notifies, s.notifyR2(R2Event{Bucket: t.bucket, Key: o.Key, Deleted: true}))
			}
			if !req.Quiet {
				res.Deleted = append(res.Deleted, s3DeletedKey{Key: o.Key})
			}
		}
		if changed {
			err = s.s3Save()
		}
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	for _, notify := range notifies {
		if notify != nil {
			notify()
		}
	}
	writeS3XML(w, res)
	return nil
}

// s3HeadBucket answers 200 for an existing bucket.
func (s *Server) s3HeadBucket(w http.ResponseWriter, r *http.Request, t s3Target) *s3Error {
	s.mu.Lock()
	_, err := s.s3Bucket(t.bucket)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	w.Header().Set("X-Amz-Bucket-Region", s3Region)
	w.WriteHeader(http.StatusOK)
	return nil
}

// s3CreateBucket creates an empty bucket, as R2 allows over S3 (the location constraint in
// the body is ignored: the local edge has one location).
func (s *Server) s3CreateBucket(w http.ResponseWriter, r *http.Request, t s3Target) *s3Error {
	if _, err := readS3Payload(w, r); err != nil {
		return err
	}
	if !r2BucketName.MatchString(t.bucket) {
		return s3Errorf(http.StatusBadRequest, "InvalidBucketName", "The specified bucket name is not valid: use 3–63 lower-case letters, digits and hyphens.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, exists := s.r2.Buckets[t.bucket]; exists {
		return s3Errorf(http.StatusConflict, "BucketAlreadyOwnedByYou", "The bucket you tried to create already exists, and you own it.")
	}
	s.r2.Buckets[t.bucket] = &R2Bucket{Name: t.bucket, CreatedAt: s.now(), Objects: map[string]*R2Object{}}
	if err := s.s3Save(); err != nil {
		return err
	}
	w.Header().Set("Location", "/"+t.bucket)
	w.WriteHeader(http.StatusOK)
	return nil
}
