package cfapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
)

// expirationFrom resolves Cloudflare's two ways to expire a key; expiration_ttl wins.
func (s *Server) expirationFrom(expiration, ttl float64) (int64, error) {
	if ttl != 0 {
		if ttl < kvMinTTLSeconds {
			return 0, errBadRequest(fmt.Sprintf("Invalid expiration_ttl of %v. Expiration TTL must be at least %d.", ttl, kvMinTTLSeconds))
		}
		return s.now().Unix() + int64(ttl), nil
	}
	if expiration != 0 && int64(expiration) < s.now().Unix()+kvMinTTLSeconds {
		return 0, errBadRequest(fmt.Sprintf("Invalid expiration of %v. Expiration times must be at least %d seconds in the future.", expiration, kvMinTTLSeconds))
	}
	return int64(expiration), nil
}

func queryFloat(r *http.Request, name string) (float64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, errBadRequest(name + " must be a number")
	}
	return f, nil
}

// putKVValue accepts the value either as the raw body or, with metadata, as multipart form
// fields "value" and "metadata" (a JSON document).
func (s *Server) putKVValue(r *http.Request) (any, any, func(), error) {
	ns, err := s.namespace(r)
	if err != nil {
		return nil, nil, nil, err
	}
	key := r.PathValue("key_name")
	if err := validateKVKey(key); err != nil {
		return nil, nil, nil, err
	}
	expiration, err := queryFloat(r, "expiration")
	if err != nil {
		return nil, nil, nil, err
	}
	ttl, err := queryFloat(r, "expiration_ttl")
	if err != nil {
		return nil, nil, nil, err
	}
	exp, err := s.expirationFrom(expiration, ttl)
	if err != nil {
		return nil, nil, nil, err
	}
	entry := &KVEntry{Expiration: exp}
	mediaType, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mediaType == "multipart/form-data" {
		if err := readKVMultipart(r.Body, params["boundary"], entry); err != nil {
			return nil, nil, nil, err
		}
	} else {
		entry.Value, err = io.ReadAll(r.Body)
		if err != nil {
			return nil, nil, nil, errBadRequest("reading value: " + err.Error())
		}
	}
	if len(entry.Value) > kvValueMax {
		return nil, nil, nil, errKVValueTooLarge(key)
	}
	ns.Entries[key] = entry
	if err := s.save(fileKV); err != nil {
		return nil, nil, nil, err
	}
	return map[string]any{}, nil, s.notifyKV([]KVEvent{{NamespaceID: ns.ID, Key: key, Entry: entry.clone(), WrittenAt: s.now()}}), nil
}

func readKVMultipart(body io.Reader, boundary string, entry *KVEntry) error {
	if boundary == "" {
		return errBadRequest("multipart body without boundary")
	}
	mr := multipart.NewReader(body, boundary)
	sawValue := false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return errBadRequest("malformed multipart body: " + err.Error())
		}
		data, err := io.ReadAll(part)
		if err != nil {
			return errBadRequest("reading multipart part: " + err.Error())
		}
		switch part.FormName() {
		case "value":
			entry.Value, sawValue = data, true
		case "metadata":
			meta, err := normalizeKVMetadata(data)
			if err != nil {
				return err
			}
			entry.Metadata = meta
		}
	}
	if !sawValue {
		return errBadRequest("multipart body has no 'value' part")
	}
	return nil
}

// normalizeKVMetadata checks that metadata is one JSON document and compacts it.
func normalizeKVMetadata(data []byte) (json.RawMessage, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return nil, errBadRequest("metadata must be valid JSON: " + err.Error())
	}
	return buf.Bytes(), nil
}

// KV's published limits on a value and on a bulk write's request: "a byte sequence to be
// stored, up to 25 MiB in length"; "the entire request size must be 100 megabytes or less"
// (read as 10^8 bytes, as the provider does).
const (
	kvValueMax       = 25 << 20
	kvBulkRequestMax = 100_000_000
)

func errKVValueTooLarge(key string) error {
	return errBadRequest("the value of " + strconv.Quote(key) + " is larger than 25 MiB")
}

func validateKVKey(key string) error {
	if key == "" || key == "." || key == ".." {
		return errBadRequest("Invalid key name " + strconv.Quote(key))
	}
	if len(key) > 512 {
		return errBadRequest("Key name too long: at most 512 bytes")
	}
	return nil
}

func (e *KVEntry) clone() *KVEntry {
	c := *e
	c.Value = bytes.Clone(e.Value)
	c.Metadata = bytes.Clone(e.Metadata)
	return &c
}

// liveEntry is the unexpired entry the request's namespace holds under its key_name.
func (s *Server) liveEntry(r *http.Request) (*KVEntry, error) {
	ns, err := s.namespace(r)
	if err != nil {
		return nil, err
	}
	entry, ok := ns.Entries[r.PathValue("key_name")]
	if !ok || !entry.live(s.now()) {
		return nil, &apiError{Status: http.StatusNotFound, Code: codeKVKeyNotFound, Message: "get: 'key not found'"}
	}
	return entry, nil
}

// getKVValue answers the raw value; the expiration, if any, is in the "expiration" header.
func (s *Server) getKVValue(w http.ResponseWriter, r *http.Request) error {
	entry, err := s.liveEntry(r)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if entry.Expiration != 0 {
		w.Header().Set("Expiration", strconv.FormatInt(entry.Expiration, 10))
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(entry.Value)
	return nil
}

func (s *Server) getKVMetadata(r *http.Request) (any, any, func(), error) {
	entry, err := s.liveEntry(r)
	if err != nil {
		return nil, nil, nil, err
	}
	if entry.Metadata == nil {
		return nil, nil, nil, nil
	}
	return entry.Metadata, nil, nil, nil
}

func (s *Server) deleteKVValue(r *http.Request) (any, any, func(), error) {
	ns, err := s.namespace(r)
	if err != nil {
		return nil, nil, nil, err
	}
	key := r.PathValue("key_name")
	// Deleting a missing key succeeds on Cloudflare too.
	delete(ns.Entries, key)
	if err := s.save(fileKV); err != nil {
		return nil, nil, nil, err
	}
	return map[string]any{}, nil, s.notifyKV([]KVEvent{{NamespaceID: ns.ID, Key: key, Deleted: true, WrittenAt: s.now()}}), nil
}
