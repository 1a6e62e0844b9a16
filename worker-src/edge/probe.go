package edge

import "github.com/kamuidash/terraform-provider-kamuidash/internal/route"

// isProbe recognises the propagation probe (see route.ProbePath): a GET of the probe path
// with an expected revision.
func isProbe(req *Request, u urlParts) (expectRev string, ok bool) {
	if req.Method != "GET" || u.path != route.ProbePath {
		return "", false
	}
	rev := req.Header.Get(route.ExpectRevHeader)
	return rev, rev != ""
}

// probeAnswer says whether the host resolved to the expected revision, as its route record's
// or its domain mapping's. It gives out only that yes or no: never the revision, the app or
// the record.
func (ex *Exchange) probeAnswer(res resolution, expectRev string) Plan {
	match := route.RevMatchNone
	switch {
	case res.rec.Rev != "" && res.rec.Rev == expectRev:
		match = route.RevMatchRecord
	case res.mapRev != "" && res.mapRev == expectRev:
		match = route.RevMatchMapping
	}
	ex.line.Outcome = "probe"
	ex.line.Delivery = "fixed"
	hdr := append(make(Header, 0, 3), // not a literal: see Exchange.fixed
		Field{"Cache-Control", "no-store"},
		Field{"X-Request-Id", ex.id},
		Field{route.RevMatchHeader, match})
	return Plan{Status: 204, Header: hdr}
}
