package cfapi

import (
	"net/http"
	"strings"
	"time"
)

// A Cloudflare for SaaS zone serves custom hostnames only once its fallback origin is active:
// the zone's own hostname their traffic goes to when a hostname names no custom origin. For a
// Worker-served zone that is a proxied placeholder record, with the Worker's route in front.

// Fallback-origin statuses, as cloudflare-go v7 knows them.
const (
	FallbackInitializing       = "initializing"
	FallbackPendingDeployment  = "pending_deployment"
	FallbackActive             = "active"
	FallbackDeploymentTimedOut = "deployment_timed_out"
	FallbackPendingDeletion    = "pending_deletion"
	// FallbackDeletionTimedOut is Cloudflare's answer for a deletion that stayed pending too
	// long. The local edge removes a fallback origin at once (its DELETE answers
	// pending_deletion and the next GET 404), so it never reports this status; it is listed so
	// the set matches cloudflare-go's and clients are written against all of it.
	FallbackDeletionTimedOut = "deletion_timed_out"
)

// fallbackRecordMissing is Cloudflare's error on a fallback origin without its record (the
// API reference's own example of the errors field).
const fallbackRecordMissing = "DNS records are not setup correctly. Origin should be a proxied A/AAAA/CNAME dns record"

// fallbackDeploymentAllowance is how long a fallback origin without a proxied record stays
// pending_deployment before it times out.
const fallbackDeploymentAllowance = 10 * time.Minute

// FallbackOrigin is the zone's fallback origin; its status is derived on read.
type FallbackOrigin struct {
	Origin    string    `json:"origin"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func (s *Server) registerFallbackOriginRoutes() {
	const fallback = APIPrefix + "/zones/{zone_id}/custom_hostnames/fallback_origin"
	s.mux.HandleFunc("GET "+fallback, s.handleJSON(s.getFallbackOrigin))
	s.mux.HandleFunc("PUT "+fallback, s.handleJSON(s.putFallbackOrigin))
	s.mux.HandleFunc("DELETE "+fallback, s.handleJSON(s.deleteFallbackOrigin))
}

// fallbackStatus derives the status: initializing for the first second, then active once the
// origin is a proxied record of the zone and Config.FallbackActivation has passed since the
// last change, pending_deployment until then, and deployment_timed_out when no proxied record
// appeared within ten minutes (Cloudflare gives up, and a new PUT starts again).
func (s *Server) fallbackStatus(f *FallbackOrigin) (status string, errs []string) {
	since := s.now().Sub(f.UpdatedAt)
	switch {
	case since < time.Second:
		return FallbackInitializing, []string{}
	case !s.hasProxiedRecord(f.Origin):
		if since > fallbackDeploymentAllowance {
			return FallbackDeploymentTimedOut, []string{fallbackRecordMissing}
		}
		return FallbackPendingDeployment, []string{fallbackRecordMissing}
	case since < s.cfg.FallbackActivation:
		return FallbackPendingDeployment, []string{}
	default:
		return FallbackActive, []string{}
	}
}

// FallbackOriginActive reports whether the zone's fallback origin is active: custom hostnames
// are served only then.
func (s *Server) FallbackOriginActive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fallbackActive()
}

// fallbackActive is FallbackOriginActive for callers holding s.mu.
func (s *Server) fallbackActive() bool {
	f := s.zone.FallbackOrigin
	if f == nil {
		return false
	}
	status, _ := s.fallbackStatus(f)
	return status == FallbackActive
}

// hasProxiedRecord reports whether the zone has a proxied address or CNAME record named name
// (a full name: records are stored completed by fqdn).
func (s *Server) hasProxiedRecord(name string) bool {
	for _, rec := range s.zone.DNSRecords {
		if rec.Proxied && (rec.Type == "A" || rec.Type == "AAAA" || rec.Type == "CNAME") && rec.Name == name {
			return true
		}
	}
	return false
}

func (s *Server) fallbackView(f *FallbackOrigin, status string, errs []string) map[string]any {
	return map[string]any{
		"origin":     f.Origin,
		"status":     status,
		"errors":     errs,
		"created_at": f.CreatedAt.Format(time.RFC3339Nano),
		"updated_at": f.UpdatedAt.Format(time.RFC3339Nano),
	}
}

func errNoFallbackOrigin() *apiError {
	return &apiError{Status: http.StatusNotFound, Code: 1551, Message: "No fallback origin is set for this zone."}
}

func (s *Server) getFallbackOrigin(*http.Request) (any, any, func(), error) {
	f := s.zone.FallbackOrigin
	if f == nil {
		return nil, nil, nil, errNoFallbackOrigin()
	}
	status, errs := s.fallbackStatus(f)
	return s.fallbackView(f, status, errs), nil, nil, nil
}

func (s *Server) putFallbackOrigin(r *http.Request) (any, any, func(), error) {
	var body struct {
		Origin *string `json:"origin"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return nil, nil, nil, err
	}
	if body.Origin == nil || strings.TrimSpace(*body.Origin) == "" {
		return nil, nil, nil, errBadRequest("origin is required")
	}
	origin := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(*body.Origin), "."))
	if s.fqdn(origin) != origin { // not inside the zone: fqdn would have completed it
		return nil, nil, nil, errBadRequest("The fallback origin must be a hostname in the zone " + s.identity.ZoneName + ".")
	}
	now := s.now().UTC()
	f := s.zone.FallbackOrigin
	if f == nil {
		f = &FallbackOrigin{CreatedAt: now}
		s.zone.FallbackOrigin = f
	}
	f.Origin, f.UpdatedAt = origin, now
	if err := s.save(fileZone); err != nil {
		return nil, nil, nil, err
	}
	status, errs := s.fallbackStatus(f)
	return s.fallbackView(f, status, errs), nil, s.notifyHostnames(), nil
}

// deleteFallbackOrigin removes it at once and answers pending_deletion, as Cloudflare answers
// a deletion it has started.
func (s *Server) deleteFallbackOrigin(*http.Request) (any, any, func(), error) {
	f := s.zone.FallbackOrigin
	if f == nil {
		return nil, nil, nil, errNoFallbackOrigin()
	}
	s.zone.FallbackOrigin = nil
	if err := s.save(fileZone); err != nil {
		s.zone.FallbackOrigin = f
		return nil, nil, nil, err
	}
	return s.fallbackView(f, FallbackPendingDeletion, []string{}), nil, s.notifyHostnames(), nil
}

// seedFallbackOrigin gives a zone without a fallback origin the one Config.SeedFallbackOrigin
// names, with its proxied placeholder record (AAAA 100::, as a Worker-served zone has), set up
// long enough ago to be active at once: the zone a test about something else starts from.
// Callers hold s.mu (or are New, before serving) and persist.
func (s *Server) seedFallbackOrigin(name string) error {
	if s.zone.FallbackOrigin != nil {
		return nil
	}
	origin := s.fqdn(name) // a label or a name in the zone, completed as a record name is
	past := s.now().UTC().Add(-s.cfg.FallbackActivation - time.Second)
	if !s.hasProxiedRecord(origin) {
		id := newID()
		s.zone.DNSRecords[id] = &DNSRecord{ID: id, Type: "AAAA", Name: origin, Content: "100::", Proxied: true, TTL: 1,
			Comment: "seeded by the local edge (Config.SeedFallbackOrigin)", CreatedOn: past, ModifiedOn: past}
	}
	s.zone.FallbackOrigin = &FallbackOrigin{Origin: origin, CreatedAt: past, UpdatedAt: past}
	return saveJSON(s.path(fileZone), &s.zone)
}
