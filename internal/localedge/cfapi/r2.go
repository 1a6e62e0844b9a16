package cfapi

import (
	"crypto/md5"
	"encoding/hex"
	"io"
	"maps"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// R2 error codes as Cloudflare's R2 API answers them, so a client's handling of a missing
// bucket or object sees what it would see in production.
const (
	codeR2NoSuchBucket   = 10006
	codeR2NoSuchKey      = 10007
	codeR2BucketExists   = 10004
	codeR2BucketNotEmpty = 10008
	codeR2InvalidName    = 10005
)

const (
	// Objects per listing page: the REST API's default and maximum (its OpenAPI description;
	// the S3 API's ListObjectsV2 pages by 1,000). A site of 30 files takes two default pages.
	r2ListDefault = 20
	r2ListMax     = 1000
	// r2MaxObjectBytes bounds one upload through this API: the provider's largest static site
	// file (staticsite.MaxFileBytes), and maxBodyBytes. Cloudflare's single-request limit is
	// far larger (4.995 GiB); the local edge keeps objects in a JSON file, so it stays below.
	r2MaxObjectBytes = 128 << 20
)

// r2BucketName is Cloudflare's rule for bucket names: 3–63 lower-case letters, digits and
// hyphens, not starting or ending with a hyphen.
var r2BucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$`)

func (s *Server) registerR2Routes() {
	const buckets = APIPrefix + "/accounts/{account_id}/r2/buckets"
	s.mux.HandleFunc("GET "+buckets, s.handleJSON(s.listR2Buckets))
	s.mux.HandleFunc("POST "+buckets, s.handleJSON(s.createR2Bucket))
	s.mux.HandleFunc("GET "+buckets+"/{bucket_name}", s.handleJSON(s.getR2Bucket))
	s.mux.HandleFunc("DELETE "+buckets+"/{bucket_name}", s.handleJSON(s.deleteR2Bucket))
	s.mux.HandleFunc("GET "+buckets+"/{bucket_name}/objects", s.handleJSON(s.listR2Objects))
	// Object keys contain slashes; clients may send them raw or percent-encoded.
	s.mux.HandleFunc("PUT "+buckets+"/{bucket_name}/objects/{object_key...}", s.handleJSON(s.putR2Object))
	s.mux.HandleFunc("GET "+buckets+"/{bucket_name}/objects/{object_key...}", s.handleRaw(s.getR2Object))
	s.mux.HandleFunc("DELETE "+buckets+"/{bucket_name}/objects/{object_key...}", s.handleJSON(s.deleteR2Object))
}

// r2BucketView is the API shape of a bucket.
type r2BucketView struct {
	Name         string `json:"name"`
	CreationDate string `json:"creation_date"`
	Location     string `json:"location"`
	StorageClass string `json:"storage_class"`
	Jurisdiction string `json:"jurisdiction"`
}

func (b *R2Bucket) view() r2BucketView {
	return r2BucketView{Name: b.Name, CreationDate: b.CreatedAt.UTC().Format(time.RFC3339), Location: "enam",
		StorageClass: "Standard", Jurisdiction: "default"}
}

func (s *Server) bucket(r *http.Request) (*R2Bucket, error) {
	name := r.PathValue("bucket_name")
	b, ok := s.r2.Buckets[name]
	if !ok {
		return nil, &apiError{Status: http.StatusNotFound, Code: codeR2NoSuchBucket, Message: "The specified bucket does not exist."}
	}
	return b, nil
}

func (s *Server) listR2Buckets(r *http.Request) (any, any, func(), error) {
	contains := r.URL.Query().Get("name_contains")
	views := []r2BucketView{}
	for _, name := range slices.Sorted(maps.Keys(s.r2.Buckets)) {
		if strings.Contains(name, contains) {
			views = append(views, s.r2.Buckets[name].view())
		}
	}
	return map[string]any{"buckets": views}, map[string]any{"cursor": "", "per_page": len(views)}, nil, nil
}

func (s *Server) createR2Bucket(r *http.Request) (any, any, func(), error) {
	var body struct {
		Name         string `json:"name"`
		LocationHint string `json:"locationHint"`
		StorageClass string `json:"storageClass"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return nil, nil, nil, err
	}
	if !r2BucketName.MatchString(body.Name) {
		return nil, nil, nil, &apiError{Status: http.StatusBadRequest, Code: codeR2InvalidName,
			Message: "The specified bucket name is not valid: use 3–63 lower-case letters, digits and hyphens."}
	}
	if _, exists := s.r2.Buckets[body.Name]; exists {
		return nil, nil, nil, &apiError{Status: http.StatusConflict, Code: codeR2BucketExists,
			Message: "The bucket you tried to create already exists, and you own it."}
	}
	b := &R2Bucket{Name: body.Name, CreatedAt: s.now(), Objects: map[string]*R2Object{}}
	s.r2.Buckets[b.Name] = b
	if err := s.save(fileR2); err != nil {
		return nil, nil, nil, err
	}
	return b.view(), nil, nil, nil
}

func (s *Server) getR2Bucket(r *http.Request) (any, any, func(), error) {
	b, err := s.bucket(r)
	if err != nil {
		return nil, nil, nil, err
	}
	return b.view(), nil, nil, nil
}

func (s *Server) deleteR2Bucket(r *http.Request) (any, any, func(), error) {
	b, err := s.bucket(r)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(b.Objects) > 0 {
		return nil, nil, nil, &apiError{Status: http.StatusConflict, Code: codeR2BucketNotEmpty,
			Message: "The bucket you tried to delete is not empty."}
	}
	delete(s.r2.Buckets, b.Name)
	return map[string]any{}, nil, nil, s.save(fileR2)
}

// r2ObjectView is the API shape of an object in a listing.
type r2ObjectView struct {
	Key            string            `json:"key"`
	ETag           string            `json:"etag"`
	Size           int               `json:"size"`
	LastModified   string            `json:"last_modified"`
	StorageClass   string            `json:"storage_class"`
	HTTPMetadata   map[string]string `json:"http_metadata"`
	CustomMetadata map[string]string `json:"custom_metadata"`
}

func (o *R2Object) view(key string) r2ObjectView {
	md := map[string]string{}
	if o.ContentType != "" {
		md["contentType"] = o.ContentType
	}
	custom := map[string]string{}
	maps.Copy(custom, o.CustomMetadata)
	return r2ObjectView{Key: key, ETag: o.ETag, Size: len(o.Content), LastModified: o.Uploaded.UTC().Format(time.RFC3339Nano),
		StorageClass: "Standard", HTTPMetadata: md, CustomMetadata: custom}
}

// listR2Objects lists keys in order, filtered by prefix, with an opaque cursor (the last key
// of the page) and delimiter grouping into "delimited" prefixes.
func (s *Server) listR2Objects(r *http.Request) (any, any, func(), error) {
	b, err := s.bucket(r)
	if err != nil {
		return nil, nil, nil, err
	}
	q := r.URL.Query()
	prefix, delimiter := q.Get("prefix"), q.Get("delimiter")
	perPage := r2ListDefault
	if v := q.Get("per_page"); v != "" {
		n, convErr := strconv.Atoi(v)
		if convErr != nil || n < 1 {
			return nil, nil, nil, errBadRequest("per_page must be a positive integer")
		}
		perPage = min(n, r2ListMax)
	}
	after := q.Get("cursor")
	if after == "" {
		after = q.Get("start_after")
	}
	objects := []r2ObjectView{}
	delimited := []string{}
	seenGroup := map[string]bool{}
	truncated := false
	last := ""
	for _, key := range slices.Sorted(maps.Keys(b.Objects)) {
		if !strings.HasPrefix(key, prefix) || (after != "" && key <= after) {
			continue
		}
		if len(objects)+len(delimited) == perPage {
			truncated = true
			break
		}
		last = key
		if delimiter != "" {
			if i := strings.Index(key[len(prefix):], delimiter); i >= 0 {
				group := key[:len(prefix)+i+len(delimiter)]
				if !seenGroup[group] {
					seenGroup[group] = true
					delimited = append(delimited, group)
				}
				continue
			}
		}
		objects = append(objects, b.Objects[key].view(key))
	}
	cursor := ""
	if truncated {
		cursor = last
	}
	info := map[string]any{"cursor": cursor, "is_truncated": truncated, "per_page": perPage, "delimited": delimited}
	return objects, info, nil, nil
}

// putR2Object stores the request body under the key; the request's Content-Type becomes the
// object's content type (a client that sends none gets application/octet-stream, as on R2).
func (s *Server) putR2Object(r *http.Request) (any, any, func(), error) {
	b, err := s.bucket(r)
	if err != nil {
		return nil, nil, nil, err
	}
	key := r.PathValue("object_key")
	if key == "" {
		return nil, nil, nil, errBadRequest("the object key is empty")
	}
	body, err := io.ReadAll(r.Body) // handleJSON has read it already, within maxBodyBytes
	if err != nil {
		return nil, nil, nil, err
	}
	if len(body) > r2MaxObjectBytes {
		return nil, nil, nil, &apiError{Status: http.StatusRequestEntityTooLarge, Code: codeBadRequest,
			Message: "the object is larger than the local edge's " + strconv.Itoa(r2MaxObjectBytes) + " bytes"}
	}
	contentType := r.Header.Get("Content-Type")
	if _, _, parseErr := mime.ParseMediaType(contentType); contentType == "" || parseErr != nil {
		contentType = "application/octet-stream"
	}
	sum := md5.Sum(body)
	obj := &R2Object{Content: body, ContentType: contentType, ETag: hex.EncodeToString(sum[:]), Uploaded: s.now()}
	b.Objects[key] = obj
	if err := s.save(fileR2); err != nil {
		return nil, nil, nil, err
	}
	result := map[string]any{"key": key, "etag": obj.ETag, "size": strconv.Itoa(len(body)),
		"uploaded": obj.Uploaded.UTC().Format(time.RFC3339Nano), "storage_class": "Standard", "version": obj.ETag}
	return result, nil, s.notifyR2(R2Event{Bucket: b.Name, Key: key, Object: obj.clone()}), nil
}

// getR2Object answers the object's bytes and ETag. The API declares every download as
// application/octet-stream; the stored media type is reported by the listing's http_metadata
// (and served by the Worker's R2 binding).
func (s *Server) getR2Object(w http.ResponseWriter, r *http.Request) error {
	b, err := s.bucket(r)
	if err != nil {
		return err
	}
	obj, ok := b.Objects[r.PathValue("object_key")]
	if !ok {
		return &apiError{Status: http.StatusNotFound, Code: codeR2NoSuchKey, Message: "The specified key does not exist."}
	}
	etag := `"` + obj.ETag + `"`
	if inm := r.Header.Get("If-None-Match"); inm != "" && (inm == etag || inm == obj.ETag) {
		w.Header().Set("ETag", etag)
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Length", strconv.Itoa(len(obj.Content)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(obj.Content)
	return nil
}

func (s *Server) deleteR2Object(r *http.Request) (any, any, func(), error) {
	b, err := s.bucket(r)
	if err != nil {
		return nil, nil, nil, err
	}
	key := r.PathValue("object_key")
	// Deleting a missing key succeeds on R2 too.
	if _, ok := b.Objects[key]; !ok {
		return map[string]any{"key": key}, nil, nil, nil
	}
	delete(b.Objects, key)
	if err := s.save(fileR2); err != nil {
		return nil, nil, nil, err
	}
	return map[string]any{"key": key}, nil, s.notifyR2(R2Event{Bucket: b.Name, Key: key, Deleted: true}), nil
}

// notifyR2 returns the function that reports an object change to Hooks.R2Changed. R2 is
// strongly consistent, so there is no propagation delay.
func (s *Server) notifyR2(ev R2Event) func() {
	hook := s.hooks.R2Changed
	if hook == nil {
		return nil
	}
	return func() { hook(ev) }
}

func (o *R2Object) clone() *R2Object {
	c := *o
	c.Content = slices.Clone(o.Content)
	c.CustomMetadata = maps.Clone(o.CustomMetadata)
	return &c
}
