package wire

import (
	"reflect"
	"testing"
)

// FuzzDecode feeds any bytes to every decoder: none may panic, and whatever one accepts
// must come back the same after worker.mjs's encoding of it (the mirror in mirror_test.go)
// is decoded again.
func FuzzDecode(f *testing.F) {
	f.Add(message("id", "GET", "https://h/", "1", "Accept", "*/*"))
	f.Add(message("H", "200", "1", "Cache-Control", "max-age=60", ""))
	f.Add(message("E", "match: x", "M", ""))
	f.Add(message("", "", "H", "text/html", `"e1"`, "", "5", ""))
	f.Add(message("", "", "", "H", `{"v":1}`, ""))
	f.Add(message("", "", "", "H", `{"v":1}`, "H", `{"files":{}}`))
	f.Add(message("", "", "", "N", ""))
	f.Add(message("M", "", "E", "get: x"))
	f.Add(message("ok", "200", "", "2", "a", "b"))
	f.Add(message("timeout", "0", "upstream fetch failed: AbortError", "0"))
	f.Add(message("text/html", "", "", "5"))
	f.Add(message("https://kamui-internal.h/route/v1/h", "H", "200", "0"))
	f.Add([]byte("\x00\x00\x00-1\x00"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		if req, err := DecodeRequest(msg); err == nil {
			again, err := DecodeRequest(requestMessage(req))
			if err != nil || !reflect.DeepEqual(again, req) {
				t.Errorf("request %+v came back %+v, %v", req, again, err)
			}
		}
		if reads, err := DecodeLookups(msg); err == nil {
			again, err := DecodeLookups(lookupsMessage(reads))
			if err != nil || !reflect.DeepEqual(again, reads) {
				t.Errorf("lookups %+v came back %+v, %v", reads, again, err)
			}
		}
		if l, err := DecodeLookup(msg); err == nil {
			p := &l
			if !p.Found && p.Err == nil {
				p = nil // a miss and "not made" both decode to the zero lookup
			}
			if again, err := DecodeLookup(message(lookupFields(p)...)); err != nil || !reflect.DeepEqual(again, l) {
				t.Errorf("lookup %+v came back %+v, %v", l, again, err)
			}
		}
		if m, err := DecodeRemember(msg); err == nil {
			again, err := DecodeRemember(rememberMessage(m))
			if err != nil || !reflect.DeepEqual(again, m) {
				t.Errorf("remember %+v came back %+v, %v", m, again, err)
			}
		}
		if u, err := DecodeUpstream(msg); err == nil {
			again, err := DecodeUpstream(upstreamMessage(u))
			if err != nil || !reflect.DeepEqual(again, u) {
				t.Errorf("upstream %+v came back %+v, %v", u, again, err)
			}
		}
		if h, err := DecodeObjectHeader(msg); err == nil && len(h) > len(ObjectHeader) {
			t.Errorf("object header of %d fields", len(h))
		}
	})
}
