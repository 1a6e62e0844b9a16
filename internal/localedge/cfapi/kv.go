package cfapi

import (
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

// live reports whether the entry has not expired by now.
func (e *KVEntry) live(now time.Time) bool {
	return e.Expiration == 0 || e.Expiration > now.Unix()
}
