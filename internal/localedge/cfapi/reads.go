package cfapi

import (
	"slices"
	"strings"
)

// The read methods below give the local edge's runtime a consistent copy of the state; the
// copies may be kept and changed freely.

// Script returns a copy of the named script, secret bindings included.
func (s *Server) Script(name string) (*Script, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, ok := s.workers.Scripts[name]
	if !ok {
		return nil, false
	}
	return sc.clone(), true
}

// ScriptNames returns the uploaded scripts' names, sorted.
func (s *Server) ScriptNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.workers.Scripts))
	for n := range s.workers.Scripts {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// KVValue returns a live (unexpired) entry. It reads the stored state directly, without the
// propagation delay Hooks.KVChanged emulates.
func (s *Server) KVValue(namespaceID, key string) (*KVEntry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, ok := s.kv.Namespaces[namespaceID]
	if !ok {
		return nil, false
	}
	e, ok := ns.Entries[key]
	if !ok || !e.live(s.now()) {
		return nil, false
	}
	return e.clone(), true
}

// KVNamespaces returns every namespace with copies of its live entries.
func (s *Server) KVNamespaces() []KVNamespace {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	out := make([]KVNamespace, 0, len(s.kv.Namespaces))
	for _, ns := range s.kv.Namespaces {
		c := KVNamespace{ID: ns.ID, Title: ns.Title, Entries: map[string]*KVEntry{}}
		for k, e := range ns.Entries {
			if e.live(now) {
				c.Entries[k] = e.clone()
			}
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b KVNamespace) int { return strings.Compare(a.Title, b.Title) })
	return out
}

// Routes returns the zone's Workers routes, sorted by pattern.
func (s *Server) Routes() []Route {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sortedRoutes()
}

// CustomHostnames returns the zone's custom hostnames with their current status.
func (s *Server) CustomHostnames() []CustomHostnameStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hostnameStatuses()
}

// DNSRecords returns the zone's DNS records, sorted by name.
func (s *Server) DNSRecords() []DNSRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sortedDNSRecords()
}

// Tunnel returns a copy of a tunnel, its secret and configuration included.
func (s *Server) Tunnel(id string) (*Tunnel, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tunnels.Tunnels[id]
	if !ok {
		return nil, false
	}
	c := *t
	c.Config = t.Config.clone()
	return &c, true
}

// Purges returns the recorded purge requests, oldest first (at most the last 1000).
func (s *Server) Purges() []Purge {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Purge, len(s.purges.Purges))
	for i, p := range s.purges.Purges {
		p.Files = slices.Clone(p.Files)
		out[i] = p
	}
	return out
}

// R2Buckets returns every bucket with copies of its objects, sorted by name.
func (s *Server) R2Buckets() []R2Bucket {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]R2Bucket, 0, len(s.r2.Buckets))
	for _, b := range s.r2.Buckets {
		c := R2Bucket{Name: b.Name, CreatedAt: b.CreatedAt, Objects: map[string]*R2Object{}}
		for k, o := range b.Objects {
			c.Objects[k] = o.clone()
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b R2Bucket) int { return strings.Compare(a.Name, b.Name) })
	return out
}
