package cfapi

import (
	"net/http"
	"strings"
)

// S3Prefix is where the S3-compatible endpoint for R2 is served, path-style: a client's
// endpoint is the server's address followed by S3Prefix (the AWS SDK keeps that path in
// BaseEndpoint), and an object is at S3Prefix/<bucket>/<key>. It serves the same buckets and
// objects as the REST API, so the Workers' R2 bindings see objects uploaded either way.
const S3Prefix = "/r2-s3"

func isS3Path(path string) bool { return path == S3Prefix || strings.HasPrefix(path, S3Prefix+"/") }

// s3Target is what an S3 request addresses. The path is split by hand rather than by a
// ServeMux pattern because the mux cleans paths, and S3 keys may contain "//" or "..".
type s3Target struct {
	bucket, key string
	action      string // the S3 operation name, e.g. "PutObject"
}

// s3Handler serves one S3 operation; an error is answered as S3's XML error.
type s3Handler func(s *Server, w http.ResponseWriter, r *http.Request, t s3Target) *s3Error

var s3Handlers = map[string]s3Handler{
	"PutObject":     (*Server).s3PutObject,
	"GetObject":     (*Server).s3GetObject,
	"HeadObject":    (*Server).s3GetObject,
	"DeleteObject":  (*Server).s3DeleteObject,
	"DeleteObjects": (*Server).s3DeleteObjects,
	"ListObjectsV2": (*Server).s3ListObjectsV2,
	"HeadBucket":    (*Server).s3HeadBucket,
	"CreateBucket":  (*Server).s3CreateBucket,
}

// serveS3 checks the request's SigV4 signature, then serves it; every request is counted
// under its operation in CallStats.S3 (neither the rate limit nor the fault injection of the
// REST API applies).
func (s *Server) serveS3(w http.ResponseWriter, r *http.Request) {
	t := parseS3Target(r)
	rec := &statusRecorder{ResponseWriter: w}
	defer func() { s.calls.record(s3OperationPrefix+t.action, callSite{}, rec.status) }()
	s.mu.Lock()
	keyID, secret := s.identity.R2AccessKeyID, s.identity.R2SecretAccessKey
	s.mu.Unlock()
	if err := verifySigV4(r, keyID, secret, s.now()); err != nil {
		// The key id is not secret and helps tell a stale env file from a bad signer.
		s.log.Warn("cfapi: S3 request refused", "operation", t.action, "code", err.Code, "path", r.URL.Path)
		writeS3Error(rec, r, err)
		return
	}
	handler, ok := s3Handlers[t.action]
	if !ok {
		s.log.Warn("cfapi: S3 operation not implemented by the local edge", "method", r.Method, "path", r.URL.Path, "query", r.URL.RawQuery)
		writeS3Error(rec, r, s3NotImplemented(t.action))
		return
	}
	if err := handler(s, rec, r, t); err != nil {
		writeS3Error(rec, r, err)
	}
}

// parseS3Target names the operation from the method, the path and the query's subresource,
// as S3 does. Anything with a subresource the endpoint does not serve (multipart uploads,
// ACLs, tagging, versions…) gets a name of its own so it is answered NotImplemented.
func parseS3Target(r *http.Request) s3Target {
	rest := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, S3Prefix), "/")
	bucket, key, _ := strings.Cut(rest, "/")
	t := s3Target{bucket: bucket, key: key}
	q := r.URL.Query()
	subresource := ""
	for name := range q {
		// x-id is the operation name the AWS SDK adds; response-* override answer headers.
		if name != "x-id" && !strings.HasPrefix(name, "response-") && !isListParameter(name) {
			subresource = name
		}
	}
	switch {
	case bucket == "":
		t.action = r.Method + " (service)"
	case key != "" && subresource == "":
		t.action = map[string]string{http.MethodPut: "PutObject", http.MethodGet: "GetObject",
			http.MethodHead: "HeadObject", http.MethodDelete: "DeleteObject"}[r.Method]
		if r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") != "" {
			t.action = "CopyObject"
		}
	case key == "" && r.Method == http.MethodGet && q.Get("list-type") == "2" && subresource == "":
		t.action = "ListObjectsV2"
	case key == "" && r.Method == http.MethodPost && subresource == "delete":
		t.action = "DeleteObjects"
	case key == "" && r.Method == http.MethodHead && subresource == "":
		t.action = "HeadBucket"
	case key == "" && r.Method == http.MethodPut && subresource == "":
		t.action = "CreateBucket"
	}
	if t.action == "" {
		t.action = r.Method + " " + map[bool]string{true: "object", false: "bucket"}[key != ""]
		if subresource != "" {
			t.action += " ?" + subresource
		}
	}
	return t
}

// isListParameter says whether a query parameter belongs to ListObjectsV2 (not a
// subresource).
func isListParameter(name string) bool {
	switch name {
	case "list-type", "prefix", "delimiter", "max-keys", "continuation-token", "start-after", "encoding-type", "fetch-owner":
		return true
	}
	return false
}

// s3Bucket returns the named bucket; callers hold s.mu.
func (s *Server) s3Bucket(name string) (*R2Bucket, *s3Error) {
	b, ok := s.r2.Buckets[name]
	if !ok {
		return nil, errS3NoSuchBucket
	}
	return b, nil
}

// s3Save persists the R2 state and reports a failure as S3's InternalError; callers hold s.mu.
func (s *Server) s3Save() *s3Error {
	if err := s.save(fileR2); err != nil {
		return s3Errorf(http.StatusInternalServerError, "InternalError", "The local edge could not persist the change.")
	}
	return nil
}
