package cfapi

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

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
