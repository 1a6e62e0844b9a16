package cfapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	kvKeyListDefault = 1000 // Cloudflare's default and maximum keys per listing page
	kvKeyListMin     = 10
	kvMinTTLSeconds  = 60
	kvBulkMax        = 10000
	kvBulkGetMax     = 100
)

func (s *Server) registerKVRoutes() {
	const ns = APIPrefix + "/accounts/{account_id}/storage/kv/namespaces"
	s.mux.HandleFunc("GET "+ns, s.handleJSON(s.listKVNamespaces))
	s.mux.HandleFunc("POST "+ns, s.handleJSON(s.createKVNamespace))
	s.mux.HandleFunc("GET "+ns+"/{namespace_id}", s.handleJSON(s.getKVNamespace))
	s.mux.HandleFunc("PUT "+ns+"/{namespace_id}", s.handleJSON(s.renameKVNamespace))
	s.mux.HandleFunc("DELETE "+ns+"/{namespace_id}", s.handleJSON(s.deleteKVNamespace))
	s.mux.HandleFunc("GET "+ns+"/{namespace_id}/keys", s.handleJSON(s.listKVKeys))
	s.mux.HandleFunc("PUT "+ns+"/{namespace_id}/values/{key_name}", s.handleJSON(s.putKVValue))
	s.mux.HandleFunc("GET "+ns+"/{namespace_id}/values/{key_name}", s.handleRaw(s.getKVValue))
	s.mux.HandleFunc("DELETE "+ns+"/{namespace_id}/values/{key_name}", s.handleJSON(s.deleteKVValue))
	s.mux.HandleFunc("GET "+ns+"/{namespace_id}/metadata/{key_name}", s.handleJSON(s.getKVMetadata))
	s.mux.HandleFunc("PUT "+ns+"/{namespace_id}/bulk", s.handleJSON(s.bulkWriteKV))
	s.mux.HandleFunc("DELETE "+ns+"/{namespace_id}/bulk", s.handleJSON(s.bulkDeleteKV))
	s.mux.HandleFunc("POST "+ns+"/{namespace_id}/bulk/delete", s.handleJSON(s.bulkDeleteKV))
	s.mux.HandleFunc("POST "+ns+"/{namespace_id}/bulk/get", s.handleJSON(s.bulkGetKV))
}

// kvNamespaceView is the API shape of a namespace.
type kvNamespaceView struct {
	ID                  string `json:"id"`
	Title               string `json:"title"`
	SupportsURLEncoding bool   `json:"supports_url_encoding"`
}

func (ns *KVNamespace) view() kvNamespaceView {
	return kvNamespaceView{ID: ns.ID, Title: ns.Title, SupportsURLEncoding: true}
}

func (s *Server) namespace(r *http.Request) (*KVNamespace, error) {
	id := r.PathValue("namespace_id")
	ns, ok := s.kv.Namespaces[id]
	if !ok {
		return nil, errNotFound("namespace not found: " + id)
	}
	return ns, nil
}

// live reports whether the entry has not expired by now.
func (e *KVEntry) live(now time.Time) bool {
	return e.Expiration == 0 || e.Expiration > now.Unix()
}

func (s *Server) listKVNamespaces(r *http.Request) (any, any, func(), error) {
	views := make([]kvNamespaceView, 0, len(s.kv.Namespaces))
	for _, ns := range s.kv.Namespaces {
		views = append(views, ns.view())
	}
	slices.SortFunc(views, func(a, b kvNamespaceView) int { return strings.Compare(a.Title, b.Title) })
	page, info, err := paginate(r, views, 20, 1000)
	return page, info, nil, err
}

func (s *Server) createKVNamespace(r *http.Request) (any, any, func(), error) {
	var body struct {
		Title string `json:"title"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return nil, nil, nil, err
	}
	if strings.TrimSpace(body.Title) == "" {
		return nil, nil, nil, errBadRequest("title is required")
	}
	for _, ns := range s.kv.Namespaces {
		if ns.Title == body.Title {
			return nil, nil, nil, errConflict("a namespace with this account ID and title already exists")
		}
	}
	ns := &KVNamespace{ID: newID(), Title: body.Title, Entries: map[string]*KVEntry{}}
	s.kv.Namespaces[ns.ID] = ns
	if err := s.save(fileKV); err != nil {
		delete(s.kv.Namespaces, ns.ID)
		return nil, nil, nil, err
	}
	return ns.view(), nil, nil, nil
}

func (s *Server) getKVNamespace(r *http.Request) (any, any, func(), error) {
	ns, err := s.namespace(r)
	if err != nil {
		return nil, nil, nil, err
	}
	return ns.view(), nil, nil, nil
}

func (s *Server) renameKVNamespace(r *http.Request) (any, any, func(), error) {
	ns, err := s.namespace(r)
	if err != nil {
		return nil, nil, nil, err
	}
	var body struct {
		Title string `json:"title"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return nil, nil, nil, err
	}
	if strings.TrimSpace(body.Title) == "" {
		return nil, nil, nil, errBadRequest("title is required")
	}
	ns.Title = body.Title
	return ns.view(), nil, nil, s.save(fileKV)
}

func (s *Server) deleteKVNamespace(r *http.Request) (any, any, func(), error) {
	ns, err := s.namespace(r)
	if err != nil {
		return nil, nil, nil, err
	}
	delete(s.kv.Namespaces, ns.ID)
	var events []KVEvent
	for key := range ns.Entries {
		events = append(events, KVEvent{NamespaceID: ns.ID, Key: key, Deleted: true, WrittenAt: s.now()})
	}
	return map[string]any{}, nil, s.notifyKV(events), s.save(fileKV)
}

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

func (s *Server) liveEntry(r *http.Request) (*KVNamespace, *KVEntry, error) {
	ns, err := s.namespace(r)
	if err != nil {
		return nil, nil, err
	}
	entry, ok := ns.Entries[r.PathValue("key_name")]
	if !ok || !entry.live(s.now()) {
		return nil, nil, &apiError{Status: http.StatusNotFound, Code: codeKVKeyNotFound, Message: "get: 'key not found'"}
	}
	return ns, entry, nil
}

// getKVValue answers the raw value; the expiration, if any, is in the "expiration" header.
func (s *Server) getKVValue(w http.ResponseWriter, r *http.Request) error {
	_, entry, err := s.liveEntry(r)
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
	_, entry, err := s.liveEntry(r)
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

// kvKeyView is one item of a key listing.
type kvKeyView struct {
	Name       string          `json:"name"`
	Expiration int64           `json:"expiration,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
}

// listKVKeys lists live keys in byte order. The cursor is the last key of the previous page,
// encoded so clients treat it as opaque; an empty cursor means the listing is complete.
func (s *Server) listKVKeys(r *http.Request) (any, any, func(), error) {
	ns, err := s.namespace(r)
	if err != nil {
		return nil, nil, nil, err
	}
	q := r.URL.Query()
	limit := kvKeyListDefault
	if v := q.Get("limit"); v != "" {
		limit, err = strconv.Atoi(v)
		if err != nil || limit < 1 {
			return nil, nil, nil, errBadRequest("limit must be a positive integer")
		}
		limit = max(min(limit, kvKeyListDefault), kvKeyListMin)
	}
	after := ""
	if c := q.Get("cursor"); c != "" {
		raw, err := base64.RawURLEncoding.DecodeString(c)
		if err != nil {
			return nil, nil, nil, errBadRequest("invalid cursor")
		}
		after = string(raw)
	}
	prefix := q.Get("prefix")
	now := s.now()
	names := make([]string, 0, len(ns.Entries))
	for name, e := range ns.Entries {
		if strings.HasPrefix(name, prefix) && e.live(now) && (after == "" || name > after) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	cursor := ""
	if len(names) > limit {
		names = names[:limit]
		cursor = base64.RawURLEncoding.EncodeToString([]byte(names[limit-1]))
	}
	keys := make([]kvKeyView, 0, len(names))
	for _, name := range names {
		e := ns.Entries[name]
		keys = append(keys, kvKeyView{Name: name, Expiration: e.Expiration, Metadata: e.Metadata})
	}
	return keys, cursorInfo{Count: len(keys), Cursor: cursor}, nil, nil
}

type kvBulkResult struct {
	SuccessfulKeyCount int      `json:"successful_key_count"`
	UnsuccessfulKeys   []string `json:"unsuccessful_keys"`
}

func (s *Server) bulkWriteKV(r *http.Request) (any, any, func(), error) {
	ns, err := s.namespace(r)
	if err != nil {
		return nil, nil, nil, err
	}
	var items []struct {
		Key           string          `json:"key"`
		Value         string          `json:"value"`
		Base64        bool            `json:"base64"`
		Expiration    float64         `json:"expiration"`
		ExpirationTTL float64         `json:"expiration_ttl"`
		Metadata      json.RawMessage `json:"metadata"`
	}
	if err := decodeJSON(r, &items); err != nil {
		return nil, nil, nil, err
	}
	if len(items) > kvBulkMax {
		return nil, nil, nil, errBadRequest(fmt.Sprintf("at most %d pairs per bulk write", kvBulkMax))
	}
	// Validate everything first: a bulk write is all or nothing here.
	entries := make([]*KVEntry, len(items))
	for i, it := range items {
		if err := validateKVKey(it.Key); err != nil {
			return nil, nil, nil, err
		}
		exp, err := s.expirationFrom(it.Expiration, it.ExpirationTTL)
		if err != nil {
			return nil, nil, nil, err
		}
		value := []byte(it.Value)
		if it.Base64 {
			if value, err = base64.StdEncoding.DecodeString(it.Value); err != nil {
				return nil, nil, nil, errBadRequest("value of " + strconv.Quote(it.Key) + " is not valid base64")
			}
		}
		var meta json.RawMessage
		if string(it.Metadata) != "null" {
			if meta, err = normalizeKVMetadata(it.Metadata); err != nil {
				return nil, nil, nil, err
			}
		}
		entries[i] = &KVEntry{Value: value, Metadata: meta, Expiration: exp}
	}
	events := make([]KVEvent, 0, len(items))
	for i, it := range items {
		ns.Entries[it.Key] = entries[i]
		events = append(events, KVEvent{NamespaceID: ns.ID, Key: it.Key, Entry: entries[i].clone(), WrittenAt: s.now()})
	}
	if err := s.save(fileKV); err != nil {
		return nil, nil, nil, err
	}
	return kvBulkResult{SuccessfulKeyCount: len(items), UnsuccessfulKeys: []string{}}, nil, s.notifyKV(events), nil
}

func (s *Server) bulkDeleteKV(r *http.Request) (any, any, func(), error) {
	ns, err := s.namespace(r)
	if err != nil {
		return nil, nil, nil, err
	}
	var keys []string
	if err := decodeJSON(r, &keys); err != nil {
		return nil, nil, nil, err
	}
	if len(keys) > kvBulkMax {
		return nil, nil, nil, errBadRequest(fmt.Sprintf("at most %d keys per bulk delete", kvBulkMax))
	}
	events := make([]KVEvent, 0, len(keys))
	for _, key := range keys {
		delete(ns.Entries, key)
		events = append(events, KVEvent{NamespaceID: ns.ID, Key: key, Deleted: true, WrittenAt: s.now()})
	}
	if err := s.save(fileKV); err != nil {
		return nil, nil, nil, err
	}
	return kvBulkResult{SuccessfulKeyCount: len(keys), UnsuccessfulKeys: []string{}}, nil, s.notifyKV(events), nil
}

// bulkGetKV answers {"values": {key: value}} or, withMetadata, {key: {value, metadata,
// expiration}}; type "json" parses values as JSON. A missing key maps to null.
func (s *Server) bulkGetKV(r *http.Request) (any, any, func(), error) {
	ns, err := s.namespace(r)
	if err != nil {
		return nil, nil, nil, err
	}
	var body struct {
		Keys         []string `json:"keys"`
		Type         string   `json:"type"`
		WithMetadata bool     `json:"withMetadata"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return nil, nil, nil, err
	}
	if len(body.Keys) == 0 || len(body.Keys) > kvBulkGetMax {
		return nil, nil, nil, errBadRequest(fmt.Sprintf("keys must list 1 to %d keys", kvBulkGetMax))
	}
	if body.Type != "" && body.Type != "text" && body.Type != "json" {
		return nil, nil, nil, errBadRequest(`type must be "text" or "json"`)
	}
	now := s.now()
	values := map[string]any{}
	for _, key := range body.Keys {
		e, ok := ns.Entries[key]
		if !ok || !e.live(now) {
			values[key] = nil
			continue
		}
		var value any = string(e.Value)
		if body.Type == "json" {
			if !json.Valid(e.Value) {
				return nil, nil, nil, errBadRequest("value of " + strconv.Quote(key) + " is not JSON")
			}
			value = json.RawMessage(e.Value)
		}
		if !body.WithMetadata {
			values[key] = value
			continue
		}
		item := map[string]any{"value": value, "metadata": e.Metadata}
		if e.Metadata == nil {
			item["metadata"] = nil
		}
		if e.Expiration != 0 {
			item["expiration"] = e.Expiration
		}
		values[key] = item
	}
	return map[string]any{"values": values}, nil, nil, nil
}

// notifyKV returns the function that reports events to Hooks.KVChanged after the emulated
// propagation delay.
func (s *Server) notifyKV(events []KVEvent) func() {
	hook := s.hooks.KVChanged
	if hook == nil || len(events) == 0 {
		return nil
	}
	delay := s.cfg.KVPropagationDelay
	if delay == 0 {
		delay = DefaultKVPropagationDelay
	}
	return func() {
		deliver := func() {
			for _, ev := range events {
				hook(ev)
			}
		}
		if delay < 0 {
			deliver()
			return
		}
		s.after(delay, deliver)
	}
}
