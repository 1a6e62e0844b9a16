package cfapi

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// authorize checks the bearer token and answers Cloudflare's error when it is missing (401,
// code 10000) or not this local edge's token (403, code 9109). The token is compared in
// constant time and never echoed or logged.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	header := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		writeError(w, &apiError{Status: http.StatusUnauthorized, Code: codeAuthError,
			Message: "Authentication error: send the local edge's API token as 'Authorization: Bearer <token>'"})
		return false
	}
	s.mu.Lock()
	want := s.identity.APIToken
	s.mu.Unlock()
	if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(want)) != 1 {
		writeError(w, &apiError{Status: http.StatusForbidden, Code: codeInvalidToken,
			Message: "Invalid access token"})
		return false
	}
	return true
}

// checkScope rejects a request addressed to an account or zone other than this local edge's,
// as Cloudflare rejects a token used outside its scope.
func (s *Server) checkScope(r *http.Request) *apiError {
	if a := r.PathValue("account_id"); a != "" && a != s.identity.AccountID {
		return &apiError{Status: http.StatusForbidden, Code: codeInvalidToken,
			Message: "Unauthorized to access requested resource: unknown account " + a}
	}
	// A zone's own details are an object lookup, not a request inside a zone: an unknown zone
	// is not found there (getZone), as any object the edge lacks.
	if z := r.PathValue("zone_id"); z != "" && z != s.identity.ZoneID && r.Pattern != "GET "+zoneDetailsRoute {
		return &apiError{Status: http.StatusForbidden, Code: codeInvalidToken,
			Message: "Unauthorized to access requested resource: unknown zone " + z}
	}
	return nil
}
