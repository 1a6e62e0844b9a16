package cfapi

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"mime"
	"net/http"
	"strings"
)

// s3MetaPrefix starts S3's user-metadata headers; the rest of the name is the metadata key.
const s3MetaPrefix = "x-amz-meta-"

// s3PutObject stores the verified body under the key, replacing any object there, and
// reports the change so the Workers' R2 bindings serve it before the client hears back.
func (s *Server) s3PutObject(w http.ResponseWriter, r *http.Request, t s3Target) *s3Error {
	content, err := readS3Payload(w, r)
	if err != nil {
		return err
	}
	contentType := r.Header.Get("Content-Type")
	if _, _, parseErr := mime.ParseMediaType(contentType); contentType == "" || parseErr != nil {
		contentType = "application/octet-stream" // as the REST upload and R2 do
	}
	var metadata map[string]string
	for name, values := range r.Header {
		if key, ok := strings.CutPrefix(strings.ToLower(name), s3MetaPrefix); ok && key != "" {
			if metadata == nil {
				metadata = map[string]string{}
			}
			metadata[key] = strings.Join(values, ",")
		}
	}
	sum := md5.Sum(content)
	obj := &R2Object{Content: content, ContentType: contentType, ETag: hex.EncodeToString(sum[:]), Uploaded: s.now(), CustomMetadata: metadata}

	s.mu.Lock()
	b, err := s.s3Bucket(t.bucket)
	var notify func()
	if err == nil {
		b.Objects[t.key] = obj
		if err = s.s3Save(); err == nil {
			notify = s.notifyR2(R2Event{Bucket: t.bucket, Key: t.key, Object: obj.clone()})
		}
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if notify != nil {
		notify()
	}
	w.Header().Set("ETag", `"`+obj.ETag+`"`)
	w.WriteHeader(http.StatusOK)
	return nil
}

// s3GetObject answers GetObject and HeadObject. http.ServeContent serves HEAD, a single
// Range, If-None-Match, If-Match and If-(Un)Modified-Since from the object's ETag and upload
// time. Stored objects are replaced, never modified, so the bytes are read outside the lock.
func (s *Server) s3GetObject(w http.ResponseWriter, r *http.Request, t s3Target) *s3Error {
	s.mu.Lock()
	b, err := s.s3Bucket(t.bucket)
	var obj *R2Object
	if err == nil {
		obj = b.Objects[t.key]
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if obj == nil {
		return errS3NoSuchKey
	}
	h := w.Header()
	h.Set("Content-Type", obj.ContentType)
	h.Set("ETag", `"`+obj.ETag+`"`)
	for key, value := range obj.CustomMetadata {
		h.Set(s3MetaPrefix+key, value)
	}
	http.ServeContent(w, r, "", obj.Uploaded, bytes.NewReader(obj.Content))
	return nil
}

// s3DeleteObject removes the key; a missing key is not an error, as on S3 and R2.
func (s *Server) s3DeleteObject(w http.ResponseWriter, r *http.Request, t s3Target) *s3Error {
	s.mu.Lock()
	b, err := s.s3Bucket(t.bucket)
	var notify func()
	if err == nil {
		if _, exists := b.Objects[t.key]; exists {
			delete(b.Objects, t.key)
			err = s.s3Save()
			notify = s.notifyR2(R2Event{Bucket: t.bucket, Key: t.key, Deleted: true})
		}
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if notify != nil {
		notify()
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
