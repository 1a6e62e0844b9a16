package cfapi

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"
)

const codeDuplicateTunnel = 1013

func (s *Server) registerTunnelRoutes() {
	const tunnels = APIPrefix + "/accounts/{account_id}/cfd_tunnel"
	s.mux.HandleFunc("GET "+tunnels, s.handleJSON(s.listTunnels))
	s.mux.HandleFunc("POST "+tunnels, s.handleJSON(s.createTunnel))
	s.mux.HandleFunc("GET "+tunnels+"/{tunnel_id}", s.handleJSON(s.getTunnel))
	s.mux.HandleFunc("PATCH "+tunnels+"/{tunnel_id}", s.handleJSON(s.editTunnel))
	s.mux.HandleFunc("DELETE "+tunnels+"/{tunnel_id}", s.handleJSON(s.deleteTunnel))
	s.mux.HandleFunc("GET "+tunnels+"/{tunnel_id}/configurations", s.handleJSON(s.getTunnelConfig))
	s.mux.HandleFunc("PUT "+tunnels+"/{tunnel_id}/configurations", s.handleJSON(s.putTunnelConfig))
	s.mux.HandleFunc("GET "+tunnels+"/{tunnel_id}/connections", s.handleJSON(s.listTunnelConnections))
	s.mux.HandleFunc("DELETE "+tunnels+"/{tunnel_id}/connections", s.handleJSON(s.cleanupTunnelConnections))
	s.mux.HandleFunc("GET "+tunnels+"/{tunnel_id}/token", s.handleJSON(s.tunnelToken))
}

// tunnelView is the API shape of a tunnel. The secret is never part of it.
// Timestamps that do not apply are omitted: the description does not allow null for them.
func (s *Server) tunnelView(t *Tunnel, deletedAt *time.Time) map[string]any {
	v := map[string]any{
		"id":                t.ID,
		"account_tag":       s.identity.AccountID,
		"name":              t.Name,
		"created_at":        t.CreatedAt,
		"connections":       []any{},
		"conns_inactive_at": t.CreatedAt,
		"tun_type":          "cfd_tunnel",
		"status":            "inactive",
		"remote_config":     t.ConfigSrc == "cloudflare",
		"config_src":        t.ConfigSrc,
		"metadata":          map[string]any{},
	}
	if deletedAt != nil {
		v["deleted_at"] = *deletedAt
	}
	return v
}

func (s *Server) tunnel(r *http.Request) (*Tunnel, error) {
	id := r.PathValue("tunnel_id")
	t, ok := s.tunnels.Tunnels[id]
	if !ok {
		return nil, &apiError{Status: http.StatusNotFound, Code: 1003, Message: "Tunnel not found: " + id}
	}
	return t, nil
}

func (s *Server) notifyTunnel(t *Tunnel, deleted bool) func() {
	hook := s.hooks.TunnelChanged
	if hook == nil {
		return nil
	}
	ev := TunnelEvent{TunnelID: t.ID, Name: t.Name, Deleted: deleted, Config: t.Config.clone()}
	return func() { hook(ev) }
}

func (c *TunnelConfig) clone() *TunnelConfig {
	if c == nil {
		return nil
	}
	data, _ := json.Marshal(c)
	var out TunnelConfig
	_ = json.Unmarshal(data, &out)
	return &out
}

func (s *Server) createTunnel(r *http.Request) (any, any, func(), error) {
	var body struct {
		Name         string `json:"name"`
		ConfigSrc    string `json:"config_src"`
		TunnelSecret string `json:"tunnel_secret"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return nil, nil, nil, err
	}
	if strings.TrimSpace(body.Name) == "" {
		return nil, nil, nil, errBadRequest("name is required")
	}
	if err := s.nameFree(body.Name, ""); err != nil {
		return nil, nil, nil, err
	}
	secret := body.TunnelSecret
	if secret == "" {
		// Cloudflare generates a secret when none is given.
		secret = base64.StdEncoding.EncodeToString(randomBytes(32))
	} else if err := checkTunnelSecret(secret); err != nil {
		return nil, nil, nil, err
	}
	src := body.ConfigSrc
	if src == "" {
		src = "local"
	}
	if src != "local" && src != "cloudflare" {
		return nil, nil, nil, errBadRequest(`config_src must be "local" or "cloudflare"`)
	}
	t := &Tunnel{ID: newUUID(), Name: body.Name, ConfigSrc: src, Secret: secret, CreatedAt: s.now().UTC()}
	s.tunnels.Tunnels[t.ID] = t
	if err := s.save(fileTunnels); err != nil {
		return nil, nil, nil, err
	}
	return s.tunnelView(t, nil), nil, s.notifyTunnel(t, false), nil
}

// nameFree refuses a tunnel name another tunnel than self (an ID, or "" for none) has: names
// are unique in the account.
func (s *Server) nameFree(name, self string) error {
	for _, t := range s.tunnels.Tunnels {
		if t.Name == name && t.ID != self {
			return errConflictCode(codeDuplicateTunnel, "Tunnel with name already exists")
		}
	}
	return nil
}

func checkTunnelSecret(secret string) error {
	if raw, err := base64.StdEncoding.DecodeString(secret); err != nil || len(raw) < 32 {
		return errBadRequest("tunnel_secret must be base64 of at least 32 bytes")
	}
	return nil
}

// editTunnel renames a tunnel or replaces its secret (which changes its token), keeping its ID,
// configuration and routes.
func (s *Server) editTunnel(r *http.Request) (any, any, func(), error) {
	t, err := s.tunnel(r)
	if err != nil {
		return nil, nil, nil, err
	}
	var body struct {
		Name         *string `json:"name"`
		TunnelSecret *string `json:"tunnel_secret"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return nil, nil, nil, err
	}
	if body.Name != nil {
		if strings.TrimSpace(*body.Name) == "" {
			return nil, nil, nil, errBadRequest("name must not be empty")
		}
		if err := s.nameFree(*body.Name, t.ID); err != nil {
			return nil, nil, nil, err
		}
	}
	if body.TunnelSecret != nil {
		if err := checkTunnelSecret(*body.TunnelSecret); err != nil {
			return nil, nil, nil, err
		}
	}
	before := *t
	if body.Name != nil {
		t.Name = *body.Name
	}
	if body.TunnelSecret != nil {
		t.Secret = *body.TunnelSecret
	}
	if err := s.save(fileTunnels); err != nil {
		*t = before // what was not saved was not done
		return nil, nil, nil, err
	}
	return s.tunnelView(t, nil), nil, s.notifyTunnel(t, false), nil
}

func (s *Server) getTunnel(r *http.Request) (any, any, func(), error) {
	t, err := s.tunnel(r)
	if err != nil {
		return nil, nil, nil, err
	}
	return s.tunnelView(t, nil), nil, nil, nil
}

func (s *Server) listTunnels(r *http.Request) (any, any, func(), error) {
	q := r.URL.Query()
	name, uuid := q.Get("name"), q.Get("uuid")
	if q.Get("is_deleted") == "true" {
		// Deleted tunnels are not kept.
		page, info, err := paginate(r, []map[string]any{}, 20, 1000)
		return page, info, nil, err
	}
	list := make([]*Tunnel, 0, len(s.tunnels.Tunnels))
	for _, t := range s.tunnels.Tunnels {
		if (name == "" || t.Name == name) && (uuid == "" || t.ID == uuid) {
			list = append(list, t)
		}
	}
	slices.SortFunc(list, func(a, b *Tunnel) int { return strings.Compare(a.Name, b.Name) })
	views := make([]map[string]any, 0, len(list))
	for _, t := range list {
		views = append(views, s.tunnelView(t, nil))
	}
	page, info, err := paginate(r, views, 20, 1000)
	return page, info, nil, err
}

func (s *Server) deleteTunnel(r *http.Request) (any, any, func(), error) {
	t, err := s.tunnel(r)
	if err != nil {
		return nil, nil, nil, err
	}
	delete(s.tunnels.Tunnels, t.ID)
	if err := s.save(fileTunnels); err != nil {
		return nil, nil, nil, err
	}
	now := s.now().UTC()
	return s.tunnelView(t, &now), nil, s.notifyTunnel(t, true), nil
}

// tunnelConfigView is the API shape of a tunnel configuration.
func (s *Server) tunnelConfigView(t *Tunnel) map[string]any {
	v := map[string]any{
		"account_id": s.identity.AccountID,
		"tunnel_id":  t.ID,
		"source":     "cloudflare",
		"version":    0,
		"created_at": t.CreatedAt,
	}
	if t.Config != nil {
		cfg := map[string]any{"ingress": t.Config.Ingress}
		if len(t.Config.OriginRequest) > 0 {
			cfg["originRequest"] = t.Config.OriginRequest
		}
		if len(t.Config.WarpRouting) > 0 {
			cfg["warp-routing"] = t.Config.WarpRouting
		}
		v["config"] = cfg
		v["version"] = t.Config.Version
		v["created_at"] = t.Config.UpdatedAt
	}
	return v
}

func (s *Server) getTunnelConfig(r *http.Request) (any, any, func(), error) {
	t, err := s.tunnel(r)
	if err != nil {
		return nil, nil, nil, err
	}
	return s.tunnelConfigView(t), nil, nil, nil
}

// isCatchAll reports whether an ingress rule matches every request.
func (rule IngressRule) isCatchAll() bool {
	return (rule.Hostname == "" || rule.Hostname == "*") && rule.Path == ""
}

// putTunnelConfig stores a remotely managed configuration. Like cloudflared, it requires the
// last ingress rule to be a catch-all so every request has somewhere to go.
func (s *Server) putTunnelConfig(r *http.Request) (any, any, func(), error) {
	t, err := s.tunnel(r)
	if err != nil {
		return nil, nil, nil, err
	}
	var body struct {
		Config *TunnelConfig `json:"config"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return nil, nil, nil, err
	}
	if body.Config == nil || len(body.Config.Ingress) == 0 {
		return nil, nil, nil, errBadRequest("config.ingress must list at least one rule")
	}
	for i, rule := range body.Config.Ingress {
		if strings.TrimSpace(rule.Service) == "" {
			return nil, nil, nil, errBadRequest("every ingress rule needs a service")
		}
		last := i == len(body.Config.Ingress)-1
		if last && !rule.isCatchAll() {
			return nil, nil, nil, errBadRequest("the last ingress rule must be a catch-all (no hostname, no path)")
		}
	}
	prev := t.Config
	next := *body.Config
	next.Version = 1
	if prev != nil {
		next.Version = prev.Version + 1
	}
	next.UpdatedAt = s.now().UTC()
	t.Config = &next
	if err := s.save(fileTunnels); err != nil {
		return nil, nil, nil, err
	}
	return s.tunnelConfigView(t), nil, s.notifyTunnel(t, false), nil
}

func (s *Server) listTunnelConnections(r *http.Request) (any, any, func(), error) {
	if _, err := s.tunnel(r); err != nil {
		return nil, nil, nil, err
	}
	// The local edge's tunnel emulation has no cloudflared connectors.
	return []any{}, nil, nil, nil
}

func (s *Server) cleanupTunnelConnections(r *http.Request) (any, any, func(), error) {
	if _, err := s.tunnel(r); err != nil {
		return nil, nil, nil, err
	}
	return nil, nil, nil, nil
}

// tunnelToken answers the token cloudflared runs with: base64 of {"a": account, "t": tunnel,
// "s": secret}, the format Cloudflare issues.
func (s *Server) tunnelToken(r *http.Request) (any, any, func(), error) {
	t, err := s.tunnel(r)
	if err != nil {
		return nil, nil, nil, err
	}
	data, _ := json.Marshal(map[string]string{"a": s.identity.AccountID, "t": t.ID, "s": t.Secret})
	return base64.StdEncoding.EncodeToString(data), nil, nil, nil
}
