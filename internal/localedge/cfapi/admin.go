package cfapi

import (
	"fmt"
	"net/http"
)

// serveAdmin serves the local edge's own endpoints under AdminPrefix (the caller has checked
// the API token):
//
//	/faults  GET the active FaultSpec; POST or PUT one (JSON) to replace it; DELETE clears it
//	/calls   GET the CallStats; DELETE resets them and answers what they held until then
//
// Answers use the API's envelope. Admin requests are not API calls: they are never counted,
// rate limited or faulted.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case AdminPrefix + "/faults":
		s.serveFaults(w, r)
	case AdminPrefix + "/calls":
		switch r.Method {
		case http.MethodGet:
			writeResult(w, s.Calls(), nil)
		case http.MethodDelete:
			writeResult(w, s.ResetCalls(), nil)
		default:
			writeError(w, &apiError{Status: http.StatusMethodNotAllowed, Code: codeMethodNotAllow,
				Message: fmt.Sprintf("local edge does not implement %s %s", r.Method, r.URL.Path)})
		}
	default:
		s.unimplemented(w, r)
	}
}
