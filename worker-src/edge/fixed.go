package edge

// fixedAnswer is a response the Worker makes itself. Bodies are constants: nothing from the
// request (path, host, headers) is ever reflected, only the request id we generated.
type fixedAnswer struct {
	status int
	text   string
}

var (
	fixedBadHost        = fixedAnswer{400, "Bad request: the Host is not a valid DNS name."}
	fixedUnknownHost    = fixedAnswer{404, "Not found: no application is served at this address."}
	fixedStaticNotFound = fixedAnswer{404, "Not found."}
	fixedMethod         = fixedAnswer{405, "Method not allowed: static content answers GET and HEAD."}
	fixedRange          = fixedAnswer{416, "Range not satisfiable."}
	fixedBadConfig      = fixedAnswer{500, "Internal error: the edge is misconfigured."}
	fixedBadRecord      = fixedAnswer{502, "Bad gateway: the route for this address is invalid."}
	fixedUnreachable    = fixedAnswer{502, "Bad gateway: the application could not be reached."}
	fixedStaticError    = fixedAnswer{502, "Bad gateway: the static origin failed."}
	fixedNotActive      = fixedAnswer{503, "Service unavailable: this application is not active."}
	fixedKVError        = fixedAnswer{503, "Service unavailable: routing data could not be read. Retry shortly."}
	fixedTimeout        = fixedAnswer{504, "Gateway timeout: the application did not answer in time."}
)

func (ex *Exchange) fixed(a fixedAnswer) Plan {
	if ex.line.Delivery == "" {
		ex.line.Delivery = "fixed"
	}
	// append rather than a Header literal: a literal's array type would bring its own
	// equality function into the Wasm.
	hdr := append(make(Header, 0, 5),
		Field{"Content-Type", "text/plain; charset=utf-8"},
		Field{"Cache-Control", "no-store"},
		Field{"X-Content-Type-Options", "nosniff"},
		Field{"X-Request-Id", ex.id})
	if a.status == 503 {
		hdr = append(hdr, Field{"Retry-After", "5"})
	}
	p := Plan{Status: a.status, Header: hdr, Body: TextBody(a.text + "\nRequest ID: " + ex.id + "\n")}
	if ex.method == "HEAD" {
		p.Body = nil
	}
	return p
}
