package cfapi

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

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
	if r.ContentLength > kvBulkRequestMax {
		return nil, nil, nil, errBadRequest(fmt.Sprintf("the request is %d bytes; a bulk write may be at most %d", r.ContentLength, kvBulkRequestMax))
	}
	r.Body = http.MaxBytesReader(nil, r.Body, kvBulkRequestMax)
	if err := decodeJSON(r, &items); err != nil {
		return nil, nil, nil, err
	}
	if len(items) > kvBulkMax {
		return nil, nil, nil, errBadRequest(fmt.Sprintf("at most %d pairs per bulk write", kvBulkMax))
	}
	// Validate everything first: a malformed bulk write is refused whole. Only the KVBulk
	// fault makes some keys unsuccessful.
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
		if len(value) > kvValueMax {
			return nil, nil, nil, errKVValueTooLarge(it.Key)
		}
		entries[i] = &KVEntry{Value: value, Metadata: meta, Expiration: exp}
	}
	keys := make([]string, len(items))
	for i, it := range items {
		keys[i] = it.Key
	}
	failed := s.bulkFailures(r, keys)
	events := make([]KVEvent, 0, len(items))
	for i, it := range items {
		if failed[it.Key] {
			continue
		}
		ns.Entries[it.Key] = entries[i]
		events = append(events, KVEvent{NamespaceID: ns.ID, Key: it.Key, Entry: entries[i].clone(), WrittenAt: s.now()})
	}
	if err := s.save(fileKV); err != nil {
		return nil, nil, nil, err
	}
	return bulkResult(keys, failed), nil, s.notifyKV(events), nil
}

// bulkFailures asks the KVBulk fault which keys of this bulk call fail, and logs it.
func (s *Server) bulkFailures(r *http.Request, keys []string) map[string]bool {
	failed := s.faults.bulkFailures(keys)
	if len(failed) > 0 {
		s.log.Info("cfapi: injecting a partial bulk KV failure", "method", r.Method, "path", r.URL.Path,
			"keys", len(keys), "unsuccessful", len(failed))
	}
	return failed
}

// bulkResult is the answer of a bulk write or delete of keys of which failed were not
// applied; a key sent twice and failed is listed once.
func bulkResult(keys []string, failed map[string]bool) kvBulkResult {
	res := kvBulkResult{UnsuccessfulKeys: []string{}}
	listed := map[string]bool{}
	for _, k := range keys {
		switch {
		case !failed[k]:
			res.SuccessfulKeyCount++
		case !listed[k]:
			listed[k] = true
			res.UnsuccessfulKeys = append(res.UnsuccessfulKeys, k)
		}
	}
	return res
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
	for _, key := range keys {
		if err := validateKVKey(key); err != nil {
			return nil, nil, nil, err
		}
	}
	failed := s.bulkFailures(r, keys)
	events := make([]KVEvent, 0, len(keys))
	for _, key := range keys {
		if failed[key] {
			continue
		}
		delete(ns.Entries, key)
		events = append(events, KVEvent{NamespaceID: ns.ID, Key: key, Deleted: true, WrittenAt: s.now()})
	}
	if err := s.save(fileKV); err != nil {
		return nil, nil, nil, err
	}
	return bulkResult(keys, failed), nil, s.notifyKV(events), nil
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
