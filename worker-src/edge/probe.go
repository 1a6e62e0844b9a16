package edge

import "github.com/kamuidash/terraform-provider-kamuidash/internal/route"

// isProbe recognises the propagation probe (see route.ProbePath): a GET of the probe path
// for host, signed under the probe key and fresh. Anything else, however close, is an
// ordinary request of that URL; why a would-be probe was refused goes to the log line only.
func (h *Handler) isProbe(ex *Exchange, req *Request, u urlParts) (expectRev string, ok bool) {
	if req.Method != "GET" || u.path != route.ProbePath || !req.Header.Has(route.ExpectRevHeader) {
		return "", false
	}
	rev, err := route.VerifyProbe(req.Header, ex.host, h.Config.ProbeKey, h.now(), route.DefaultMaxSkew)
	if err != nil {
		ex.line.Error = "probe refused: " + err.Error()
		return "", false
	}
	return rev, true
}

// probeAnswer says whether the host resolved to the expected revision, as its route record's
// or its domain mapping's, and of a mapping whether its app has a record (visitors get 404
// when it has none). It gives out only that: never the revision, the app or the record.
func (ex *Exchange) probeAnswer(res resolution, expectRev string) Plan {
	match := route.RevMatchNone
	switch {
	case res.rec.Rev != "" && res.rec.Rev == expectRev:
		match = route.RevMatchRecord
	case res.mapRev != "" && res.mapRev == expectRev && res.kind == resAbsent:
		match = route.RevMatchMappingNoRecord
	case res.mapRev != "" && res.mapRev == expectRev:
		match = route.RevMatchMapping
	}
	ex.line.Outcome = OutcomeProbe
	ex.line.Delivery = "fixed"
	hdr := append(make(Header, 0, 3), // not a literal: see Exchange.fixed
		Field{"Cache-Control", "no-store"},
		Field{"X-Request-Id", ex.id},
		Field{route.RevMatchHeader, match})
	return Plan{Status: 204, Header: hdr}
}
