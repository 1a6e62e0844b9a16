package router

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// Trailers cross the router as ReverseProxy relays them: the names the tenant announced are
// announced to the client with the head, and the fields that end the tenant's chunked body end
// the client's. fasthttp's client reads a chunked body's trailer section into the response's
// header when the stream reaches its end, and its server writes the response header's trailer
// fields after a streamed chunked body: so the relayed stream copies them across at that end,
// before the server asks for them (relayBody.Read).
//
// A trailer field is relayed when a header of that name would be (not hop-by-hop, not Kamui-*,
// no underscore); fasthttp itself refuses the names that must never be trailers (framing,
// routing, authentication, cookies), on both sides.

// relayableTrailer reports whether a trailer field of this name may reach the client.
func relayableTrailer(name []byte) bool {
	return !isHopByHop(name) && !isContextHeader(name) && !hasUnderscore(name)
}

// announceTrailers announces to the client, in dst, the names of the tenant's Trailer header
// (a comma-separated list, read before cleanResponseHeaders removed it) that may cross.
func announceTrailers(dst *fasthttp.ResponseHeader, announced []byte) {
	for name := range bytes.SplitSeq(announced, comma) {
		if name = bytes.TrimSpace(name); relayableTrailer(name) {
			_ = dst.AddTrailerBytes(name) // a name fasthttp refuses as a trailer is not announced
		}
	}
}

// copyTrailers adds the trailer fields src received after its body to dst, whose body is
// being written. The trailer section is one "name: value\r\n" line per field, as fasthttp
// stored it after checking each.
func copyTrailers(dst, src *fasthttp.ResponseHeader) {
	section := src.TrailerHeader()
	for len(section) > 0 {
		end := bytes.Index(section, crlf)
		if end <= 0 {
			return // the empty line that closes the section
		}
		line := section[:end]
		section = section[end+len(crlf):]
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			continue
		}
		name, value := line[:colon], bytes.TrimLeft(line[colon+1:], " \t")
		if !relayableTrailer(name) || dst.AddTrailerBytes(name) != nil {
			continue
		}
		dst.AddBytesKV(name, value)
	}
}

var crlf, comma = []byte("\r\n"), []byte(",")
