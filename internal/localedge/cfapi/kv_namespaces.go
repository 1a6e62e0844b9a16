package cfapi

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

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
	if err := s.checkKVTitle(body.Title, ""); err != nil {
		return nil, nil, nil, err
	}
	ns := &KVNamespace{ID: newID(), Title: body.Title, Entries: map[string]*KVEntry{}}
	s.kv.Namespaces[ns.ID] = ns
	if err := s.save(fileKV); err != nil {
		return nil, nil, nil, err
	}
	return ns.view(), nil, nil, nil
}

// checkKVTitle refuses a title a create or rename may not give the namespace self (""
// for a create): empty, longer than workers-kv_namespace_title's 512 characters, or another
// namespace's. A rename is held to uniqueness as a create is, or the account would end with two
// namespaces of one title, which Cloudflare never holds.
func (s *Server) checkKVTitle(title, self string) error {
	if strings.TrimSpace(title) == "" {
		return errBadRequest("title is required")
	}
	if utf8.RuneCountInString(title) > kvTitleMax {
		return errBadRequest(fmt.Sprintf("title is longer than %d characters", kvTitleMax))
	}
	for _, ns := range s.kv.Namespaces {
		if ns.Title == title && ns.ID != self {
			return errConflict("a namespace with this account ID and title already exists")
		}
	}
	return nil
}

// kvTitleMax is workers-kv_namespace_title's maxLength.
const kvTitleMax = 512

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
	if err := s.checkKVTitle(body.Title, ns.ID); err != nil {
		return nil, nil, nil, err
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
