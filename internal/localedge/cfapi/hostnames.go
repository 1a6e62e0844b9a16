package cfapi

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
)

const codeDuplicateHostname = 1406

func (s *Server) registerHostnameRoutes() {
	const hostnames = APIPrefix + "/zones/{zone_id}/custom_hostnames"
	s.mux.HandleFunc("GET "+hostnames, s.handleJSON(s.listHostnames))
	s.mux.HandleFunc("POST "+hostnames, s.handleJSON(s.createHostname))
	s.mux.HandleFunc("GET "+hostnames+"/{custom_hostname_id}", s.handleJSON(s.getHostname))
	s.mux.HandleFunc("PATCH "+hostnames+"/{custom_hostname_id}", s.handleJSON(s.editHostname))
	s.mux.HandleFunc("DELETE "+hostnames+"/{custom_hostname_id}", s.handleJSON(s.deleteHostname))
}

// CustomHostnameStatus is a custom hostname with its derived status, as the runtime sees it.
type CustomHostnameStatus struct {
	CustomHostname
	// Status is "pending" or "active" (the hostname's status).
	Status string
	// SSLStatus is "pending_validation" or "active".
	SSLStatus string
}

// validated reports whether the hostname has passed validation by now: its ownership TXT
// record (or its certificate's DCV TXT record) is published on the zone, or the
// Config.AutoValidate delay has passed since creation.
func (s *Server) validated(h *CustomHostname) bool {
	if h.ValidatedAt != nil {
		return true
	}
	if s.hasTXT(h.VerificationName, h.VerificationValue) || s.hasTXT(dcvName(h.Hostname), h.VerificationValue) {
		return true
	}
	return s.cfg.AutoValidate > 0 && !s.now().Before(h.CreatedAt.Add(s.cfg.AutoValidate))
}

func dcvName(hostname string) string { return "_acme-challenge." + strings.TrimPrefix(hostname, "*.") }

// refreshValidation records the first successful validation, so an active hostname stays
// active when its TXT record is later removed (Cloudflare keeps the issued certificate).
// It reports whether anything changed; callers hold s.mu and persist.
func (s *Server) refreshValidation() bool {
	changed := false
	for _, h := range s.zone.CustomHostnames {
		if h.ValidatedAt == nil && s.validated(h) {
			at := s.now().UTC()
			h.ValidatedAt = &at
			changed = true
		}
	}
	return changed
}

// hostnameStatus derives the statuses. The certificate is active once validated; the hostname
// needs the zone's fallback origin active as well, as on Cloudflare, whose hostname
// validation fails with "Zone does not have a fallback origin set." until it is, and whose
// edge answers such a hostname with error 1016 (edge.go in the local edge does too).
func (s *Server) hostnameStatus(h *CustomHostname) CustomHostnameStatus {
	st := CustomHostnameStatus{CustomHostname: h.clone(), Status: "pending", SSLStatus: "pending_validation"}
	if s.validated(h) {
		st.SSLStatus = "active"
		if s.fallbackActive() {
			st.Status = "active"
		}
	}
	return st
}

// Cloudflare's verification errors of a pending hostname.
const (
	verifyNoCNAME          = "custom hostname does not CNAME to this zone."
	verifyNoFallbackOrigin = "Zone does not have a fallback origin set."
)

// verificationErrors says why a hostname is still pending.
func (s *Server) verificationErrors(h *CustomHostname) []string {
	var errs []string
	if !s.validated(h) {
		errs = append(errs, verifyNoCNAME)
	}
	if !s.fallbackActive() {
		errs = append(errs, verifyNoFallbackOrigin)
	}
	return errs
}

// clone deep-copies h so a copy handed to a hook shares nothing with the state.
func (h *CustomHostname) clone() CustomHostname {
	c := *h
	c.CustomMetadata = maps.Clone(h.CustomMetadata)
	c.SSL.Settings = bytes.Clone(h.SSL.Settings)
	if h.ValidatedAt != nil {
		at := *h.ValidatedAt
		c.ValidatedAt = &at
	}
	return c
}

// hostnameView is the API shape of a custom hostname.
func (s *Server) hostnameView(h *CustomHostname) map[string]any {
	st := s.hostnameStatus(h)
	ssl := map[string]any{
		"id":       h.SSL.ID,
		"type":     h.SSL.Type,
		"method":   h.SSL.Method,
		"status":   st.SSLStatus,
		"wildcard": h.SSL.Wildcard,
		"bundle_method": func() string {
			if h.SSL.BundleMethod == "" {
				return "ubiquitous"
			}
			return h.SSL.BundleMethod
		}(),
	}
	if h.SSL.CertificateAuthority != "" {
		ssl["certificate_authority"] = h.SSL.CertificateAuthority
	}
	if len(h.SSL.Settings) > 0 {
		ssl["settings"] = h.SSL.Settings
	}
	if st.SSLStatus == "active" {
		ssl["hosts"] = []string{h.Hostname}
		ssl["issuer"] = "KamuiDash local edge"
	} else {
		ssl["validation_records"] = []map[string]string{{
			"status": "pending", "txt_name": dcvName(h.Hostname), "txt_value": h.VerificationValue,
		}}
	}
	v := map[string]any{
		"id":         h.ID,
		"hostname":   h.Hostname,
		"status":     st.Status,
		"ssl":        ssl,
		"created_at": h.CreatedAt,
		"ownership_verification": map[string]string{
			"type": "txt", "name": h.VerificationName, "value": h.VerificationValue,
		},
		"ownership_verification_http": map[string]string{
			"http_url":  "http://" + h.Hostname + "/.well-known/cf-custom-hostname-challenge/" + h.ID,
			"http_body": h.VerificationValue,
		},
	}
	if h.CustomOriginServer != "" {
		v["custom_origin_server"] = h.CustomOriginServer
	}
	if h.CustomOriginSNI != "" {
		v["custom_origin_sni"] = h.CustomOriginSNI
	}
	if len(h.CustomMetadata) > 0 {
		v["custom_metadata"] = h.CustomMetadata
	}
	if st.Status == "pending" {
		v["verification_errors"] = s.verificationErrors(h)
	}
	return v
}

func (s *Server) sortedHostnames() []*CustomHostname {
	out := make([]*CustomHostname, 0, len(s.zone.CustomHostnames))
	for _, h := range s.zone.CustomHostnames {
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b *CustomHostname) int { return strings.Compare(a.Hostname, b.Hostname) })
	return out
}

func (s *Server) hostnameStatuses() []CustomHostnameStatus {
	out := []CustomHostnameStatus{}
	for _, h := range s.sortedHostnames() {
		out = append(out, s.hostnameStatus(h))
	}
	return out
}

func (s *Server) notifyHostnames() func() {
	hook := s.hooks.CustomHostnamesChanged
	if hook == nil {
		return nil
	}
	list := s.hostnameStatuses()
	return func() { hook(list) }
}

// scheduleAutoValidation reports the activation Config.AutoValidate will cause, so the
// runtime need not poll.
func (s *Server) scheduleAutoValidation(h *CustomHostname) {
	if s.cfg.AutoValidate <= 0 || s.hooks.CustomHostnamesChanged == nil {
		return
	}
	s.after(s.cfg.AutoValidate, func() {
		s.mu.Lock()
		_, exists := s.zone.CustomHostnames[h.ID]
		var notify func()
		if exists && s.refreshValidation() {
			_ = s.save(fileZone)
			notify = s.notifyHostnames()
		}
		s.mu.Unlock()
		if notify != nil {
			notify()
		}
	})
}

type hostnameBody struct {
	Hostname           *string            `json:"hostname"`
	CustomOriginServer *string            `json:"custom_origin_server"`
	CustomOriginSNI    *string            `json:"custom_origin_sni"`
	CustomMetadata     *map[string]string `json:"custom_metadata"`
	SSL                *struct {
		Method               string          `json:"method"`
		Type                 string          `json:"type"`
		BundleMethod         string          `json:"bundle_method"`
		CertificateAuthority string          `json:"certificate_authority"`
		Wildcard             bool            `json:"wildcard"`
		Settings             json.RawMessage `json:"settings"`
	} `json:"ssl"`
}

func (b hostnameBody) applyTo(h *CustomHostname) {
	if b.CustomOriginServer != nil {
		h.CustomOriginServer = *b.CustomOriginServer
	}
	if b.CustomOriginSNI != nil {
		h.CustomOriginSNI = *b.CustomOriginSNI
	}
	if b.CustomMetadata != nil {
		h.CustomMetadata = *b.CustomMetadata
	}
	if b.SSL != nil {
		h.SSL.Method, h.SSL.Type = b.SSL.Method, b.SSL.Type
		h.SSL.BundleMethod, h.SSL.CertificateAuthority = b.SSL.BundleMethod, b.SSL.CertificateAuthority
		h.SSL.Wildcard, h.SSL.Settings = b.SSL.Wildcard, b.SSL.Settings
	}
	if h.SSL.Method == "" {
		h.SSL.Method = "txt"
	}
	if h.SSL.Type == "" {
		h.SSL.Type = "dv"
	}
}

func (s *Server) customHostname(r *http.Request) (*CustomHostname, error) {
	id := r.PathValue("custom_hostname_id")
	h, ok := s.zone.CustomHostnames[id]
	if !ok {
		return nil, &apiError{Status: http.StatusNotFound, Code: 1436, Message: "The custom hostname was not found."}
	}
	return h, nil
}

func (s *Server) createHostname(r *http.Request) (any, any, func(), error) {
	var body hostnameBody
	if err := decodeJSON(r, &body); err != nil {
		return nil, nil, nil, err
	}
	if body.Hostname == nil || strings.TrimSpace(*body.Hostname) == "" {
		return nil, nil, nil, errBadRequest("hostname is required")
	}
	hostname := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(*body.Hostname), "."))
	if len(hostname) > 255 { // tls-certificates-and-hostnames_hostname_post: maxLength 255
		return nil, nil, nil, errBadRequest("hostname is longer than 255 bytes")
	}
	for _, other := range s.zone.CustomHostnames {
		if other.Hostname == hostname {
			return nil, nil, nil, errConflictCode(codeDuplicateHostname, "Duplicate custom hostname found.")
		}
	}
	h := &CustomHostname{
		ID:                newID(),
		Hostname:          hostname,
		VerificationName:  "_cf-custom-hostname." + strings.TrimPrefix(hostname, "*."),
		VerificationValue: newUUID(),
		CreatedAt:         s.now().UTC(),
		SSL:               HostnameSSL{ID: newUUID()},
	}
	body.applyTo(h)
	s.zone.CustomHostnames[h.ID] = h
	s.refreshValidation()
	if err := s.save(fileZone); err != nil {
		return nil, nil, nil, err
	}
	s.scheduleAutoValidation(h)
	return s.hostnameView(h), nil, s.notifyHostnames(), nil
}

func (s *Server) getHostname(r *http.Request) (any, any, func(), error) {
	h, err := s.customHostname(r)
	if err != nil {
		return nil, nil, nil, err
	}
	return s.hostnameView(h), nil, nil, nil
}

func (s *Server) listHostnames(r *http.Request) (any, any, func(), error) {
	q := r.URL.Query()
	exact := q.Get("hostname")
	if exact == "" {
		exact = q.Get("hostname.exact")
	}
	exact = strings.ToLower(exact)
	prefix, contains := strings.ToLower(q.Get("hostname.startsWith")), strings.ToLower(q.Get("hostname.contain"))
	id, sslStatus, status := q.Get("id"), q.Get("ssl_status"), q.Get("hostname_status")
	var views []map[string]any
	for _, h := range s.sortedHostnames() {
		st := s.hostnameStatus(h)
		switch {
		case exact != "" && h.Hostname != exact,
			prefix != "" && !strings.HasPrefix(h.Hostname, prefix),
			contains != "" && !strings.Contains(h.Hostname, contains),
			id != "" && h.ID != id,
			sslStatus != "" && st.SSLStatus != sslStatus,
			status != "" && st.Status != status:
			continue
		}
		views = append(views, s.hostnameView(h))
	}
	page, info, err := paginate(r, nonNil(views), 20, 1000)
	return page, info, nil, err
}

func (s *Server) editHostname(r *http.Request) (any, any, func(), error) {
	h, err := s.customHostname(r)
	if err != nil {
		return nil, nil, nil, err
	}
	var body hostnameBody
	if err := decodeJSON(r, &body); err != nil {
		return nil, nil, nil, err
	}
	if body.Hostname != nil && !strings.EqualFold(*body.Hostname, h.Hostname) {
		return nil, nil, nil, errBadRequest("the hostname of a custom hostname cannot be changed; create a new one")
	}
	body.applyTo(h)
	if err := s.save(fileZone); err != nil {
		return nil, nil, nil, err
	}
	return s.hostnameView(h), nil, s.notifyHostnames(), nil
}

func (s *Server) deleteHostname(r *http.Request) (any, any, func(), error) {
	h, err := s.customHostname(r)
	if err != nil {
		return nil, nil, nil, err
	}
	delete(s.zone.CustomHostnames, h.ID)
	if err := s.save(fileZone); err != nil {
		return nil, nil, nil, err
	}
	return map[string]string{"id": h.ID}, nil, s.notifyHostnames(), nil
}
