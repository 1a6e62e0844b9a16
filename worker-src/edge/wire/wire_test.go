package wire

import (
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge"
)

var hdr = edge.Header{{Name: "Accept", Value: "text/html"}, {Name: "Set-Cookie", Value: "a=1"}, {Name: "Set-Cookie", Value: "b=2"}}

// The bytes worker.mjs reads, pinned: the shim is not generated from this package, so a
// change here that the shim does not make too must fail before it reaches workerd.
func TestAnswersKeepTheShimsLayout(t *testing.T) {
	lines := []string{`{"msg":"edge.request"}`}
	for _, c := range []struct {
		name string
		got  func() ([]byte, error)
		want string
	}{
		{"lookups", func() ([]byte, error) {
			return Lookups(nil, 7, lines, "https://c/k", "", "", edge.NamedRead{}, edge.NamedRead{})
		}, "L|7|1|{\"msg\":\"edge.request\"}|https://c/k||||||0||||0|"},
		{"object read", func() ([]byte, error) {
			return Lookups(nil, 6, nil, "", "", "sites/a/objects/e1", edge.NamedRead{}, edge.NamedRead{})
		}, "L|6|0|||sites/a/objects/e1||||0||||0|"},
		{"kv read", func() ([]byte, error) {
			return Lookups(nil, 5, nil, "", "", "", edge.NamedRead{Kind: edge.ReadKV, Binding: "ROUTES", Key: "shop", Param: 30}, edge.NamedRead{})
		}, "L|5|0||||K|ROUTES|shop|30||||0|"},
		{"manifest read", func() ([]byte, error) {
			return Lookups(nil, 4, nil, "", "", "", edge.NamedRead{Kind: edge.ReadText, Binding: "STATIC", Key: "sites/a/m/v1.json", Param: 4 << 20}, edge.NamedRead{})
		}, "L|4|0||||T|STATIC|sites/a/m/v1.json|4194304||||0|"},
		{"record read with the manifest read ahead", func() ([]byte, error) {
			return Lookups(nil, 3, nil, "", "", "sites/a/objects/e1", edge.NamedRead{Kind: edge.ReadKV, Binding: "ROUTES", Key: "a", Param: 36},
				edge.NamedRead{Kind: edge.ReadText, Binding: "STATIC", Key: "sites/a/m/v1.json", Param: 4 << 20})
		}, "L|3|0|||sites/a/objects/e1|K|ROUTES|a|36|T|STATIC|sites/a/m/v1.json|4194304|"},
		{"run", func() ([]byte, error) { return Run(nil, 8, nil) }, "W|8|0|"},
		{"lost", func() ([]byte, error) { return Lost(nil, 9, nil) }, "X|9|0|"},
		{"edits", func() ([]byte, error) {
			return Edits(nil, 3, nil, edge.Edits{Del: []string{"Kamui-Context"}, Set: edge.Header{{Name: "X-Request-Id", Value: "r"}}})
		}, "E|3|0|1|Kamui-Context|1|X-Request-Id|r|"},
		{"forward", func() ([]byte, error) {
			return Plan(nil, 4, nil, edge.Plan{Forward: &edge.Forward{Method: "GET", URL: "https://o/", Timeout: 1500 * time.Millisecond,
				WebSocket: true, Header: edge.Header{{Name: "Host", Value: "o"}}}})
		}, "F|4|0|GET|https://o/|1500|1|1|Host|o|0|"},
		{"respond", func() ([]byte, error) {
			return Plan(nil, 0, nil, edge.Plan{Status: 206, Body: heldBody{}, Range: &edge.ByteRange{Offset: 2, Length: 3},
				Header: edge.Header{{Name: "ETag", Value: `"x"`}}, Store: &edge.Store{Key: "https://c/s", Header: edge.Header{{Name: "M", Value: "1"}}},
				CachePuts: []edge.CachePut{{Key: "https://r/k", Entry: edge.Entry{Status: 200, Header: edge.Header{{Name: "K", Value: "v"}}, Body: edge.TextBody("{}")}}}})
		}, "R|0|0|206|O||2|3|1|ETag|\"x\"|https://c/s|1|M|1|1|"},
		{"puts", func() ([]byte, error) {
			return Puts(nil, []string{"l"}, []edge.CachePut{{Key: "https://r/k", Entry: edge.Entry{Status: 200, Header: edge.Header{{Name: "K", Value: "v"}}, Body: edge.TextBody("{}")}}})
		}, "P|0|1|l|1|https://r/k|200|1|K|v|{}|"},
		{"respond text", func() ([]byte, error) {
			return Plan(nil, 0, nil, edge.Plan{Status: 404, Body: edge.TextBody("Not found.")})
		}, "R|0|0|404|T|Not found.|||0||0|0|"},
		{"respond cached", func() ([]byte, error) { return Plan(nil, 0, nil, edge.Plan{Status: 200, Body: CachedBody{}}) }, "R|0|0|200|C||||0||0|0|"},
		{"respond none", func() ([]byte, error) { return Plan(nil, 0, nil, edge.Plan{Status: 304}) }, "R|0|0|304|N||||0||0|0|"},
	} {
		b, err := c.got()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := strings.ReplaceAll(string(b), "\x00", "|"); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestPlanRoundTrip(t *testing.T) {
	puts := []edge.CachePut{{Key: "https://r/a", Entry: edge.Entry{Status: 200, Header: hdr, Body: edge.TextBody(`{"v":1}`)}}}
	for name, p := range map[string]edge.Plan{
		"forward":   {Forward: &edge.Forward{Method: "POST", URL: "https://o/x?y", Header: hdr, Timeout: 30 * time.Second}, CachePuts: puts},
		"websocket": {Forward: &edge.Forward{Method: "GET", URL: "https://o/ws", Timeout: time.Second, WebSocket: true}},
		"text":      {Status: 503, Header: hdr, Body: edge.TextBody("Service unavailable.\nRequest ID: r\n")},
		"range":     {Status: 206, Header: hdr, Body: CachedBody{}, Range: &edge.ByteRange{Offset: 0, Length: 1}},
		"store":     {Status: 200, Header: hdr, Body: heldBody{}, Store: &edge.Store{Key: "https://c/k", Header: hdr}, CachePuts: puts},
		"head":      {Status: 200, Header: hdr},
	} {
		b, err := Plan(nil, 5, []string{"one", "two"}, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		a := readAnswer(t, b)
		got := a.plan()
		a.done(t)
		// The entries stay with the adapter: the answer counts them (Puts carries them).
		waiting := len(p.CachePuts)
		p.CachePuts = nil
		if a.token != 5 || !reflect.DeepEqual(a.lines, []string{"one", "two"}) || !reflect.DeepEqual(got, p) || a.waiting != waiting {
			t.Errorf("%s: token %d lines %q waiting %d (want %d)\n got %+v\nwant %+v", name, a.token, a.lines, a.waiting, waiting, got, p)
		}
	}
	b, err := Puts(nil, nil, puts)
	if err != nil {
		t.Fatal(err)
	}
	a := readAnswer(t, b)
	got := a.puts()
	a.done(t)
	if !reflect.DeepEqual(got, puts) {
		t.Errorf("puts:\n got %+v\nwant %+v", got, puts)
	}
}

func TestEncoderRefusesNUL(t *testing.T) {
	if _, err := Plan(nil, 1, nil, edge.Plan{Status: 200, Header: edge.Header{{Name: "X", Value: "a\x00b"}}}); err == nil {
		t.Error("a header value with a NUL was encoded")
	}
	if _, err := Lookups(nil, 1, []string{"line\x00"}, "", "", "", edge.NamedRead{}, edge.NamedRead{}); err == nil {
		t.Error("a log line with a NUL was encoded")
	}
	if _, err := Lookups(nil, 1, nil, "", "", "", edge.NamedRead{Kind: edge.ReadKV, Binding: "ROUTES", Key: "a\x00b"}, edge.NamedRead{}); err == nil {
		t.Error("a read key with a NUL was encoded")
	}
}

func TestDecodeRequest(t *testing.T) {
	want := &edge.Request{ID: "d2c0", Method: "GET", URL: "https://shop.kamui.test/a?b", Header: hdr}
	got, err := DecodeRequest(requestMessage(want))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v", got, err)
	}
	got, err = DecodeRequest(requestMessage(&edge.Request{ID: "i", Method: "HEAD", URL: "https://h/"}))
	if err != nil || got.Header != nil || got.URL != "https://h/" {
		t.Errorf("no headers: %+v, %v", got, err)
	}
}

func TestDecodeLookups(t *testing.T) {
	hit := &edge.Lookup{Found: true, Entry: edge.Entry{Status: 200, Header: hdr, Body: CachedBody{}}}
	failed := &edge.Lookup{Err: errors.New("match: boom")}
	object := &edge.ObjectRead{Found: true, Object: edge.Object{Header: edge.Header{{Name: "Content-Type", Value: "text/css"},
		{Name: "ETag", Value: `"e1"`}, {Name: "Content-Length", Value: "12"}}, Body: ReadObject{}}}
	for _, want := range []Reads{{}, {Content: hit}, {Route: hit}, {Content: &edge.Lookup{}, Route: failed}, {Content: failed, Route: &edge.Lookup{}},
		{Object: object}, {Object: &edge.ObjectRead{}}, {Object: &edge.ObjectRead{Err: errors.New("get: boom")}},
		{Read: &edge.TextRead{Found: true, Text: `{"v":1,"app":"shop"}`}}, {Read: &edge.TextRead{Found: true}},
		{Read: &edge.TextRead{}}, {Read: &edge.TextRead{Err: errors.New("KV GET failed: 500")}},
		{Ahead: &edge.TextRead{Found: true, Text: `{"files":{}}`}}, {Ahead: &edge.TextRead{Err: errors.New("get: boom")}},
		{Read: &edge.TextRead{Found: true, Text: "r"}, Ahead: &edge.TextRead{}},
		{Content: hit, Route: failed, Object: object, Read: &edge.TextRead{Found: true, Text: "x"}, Ahead: &edge.TextRead{Found: true, Text: "y"}}} {
		got, err := DecodeLookups(lookupsMessage(want))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: got %+v, %v", want, got, err)
		}
	}
	// A value holding a NUL cannot cross; it comes as the text NUL, which no JSON decoder takes.
	if got, err := DecodeLookups(message("", "", "", "N", "")); err != nil || got.Read == nil || !got.Read.Found || got.Read.Text != "\x00" {
		t.Errorf("a read holding a NUL: %+v, %v", got.Read, err)
	}
	// The object's body stays in JS: a plan with it answers BodyObject.
	if b, err := Plan(nil, 1, nil, edge.Plan{Status: 200, Body: object.Object.Body}); err != nil || !strings.Contains(string(b), "\x00O\x00") {
		t.Errorf("plan with the read object's body: %q, %v", b, err)
	}
	if l, err := DecodeLookup(message(lookupFields(hit)...)); err != nil || !reflect.DeepEqual(&l, hit) {
		t.Errorf("match hit: %+v, %v", l, err)
	}
	if l, err := DecodeLookup(message("M")); err != nil || l.Found || l.Err != nil {
		t.Errorf("match miss: %+v, %v", l, err)
	}
}

func TestDecodeRemember(t *testing.T) {
	hit := &edge.Lookup{Found: true, Entry: edge.Entry{Status: 200, Header: hdr, Body: CachedBody{}}}
	for _, want := range []Remember{
		{Key: "https://kamui-internal.kamui.test/route/v1/docs.kamui.test", Lookup: *hit},
		{Key: "https://kamui-internal.kamui.test/route/v1/x.example"},
		{Key: "k", Lookup: edge.Lookup{Err: errors.New("match: boom")}},
	} {
		got, err := DecodeRemember(rememberMessage(want))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, %v; want %+v", got, err, want)
		}
	}
}

func TestDecodeUpstream(t *testing.T) {
	for _, want := range []Upstream{
		{Outcome: UpstreamOK, Status: 101, Names: edge.Header{{Name: "upgrade"}, {Name: "set-cookie"}, {Name: "set-cookie"}}},
		{Outcome: UpstreamTimeout, Detail: "upstream fetch failed: AbortError"},
		{Outcome: UpstreamError, Detail: "upstream fetch failed: TypeError"},
	} {
		got, err := DecodeUpstream(upstreamMessage(want))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, %v; want %+v", got, err, want)
		}
	}
}

func TestDecodeObjectHeader(t *testing.T) {
	h, err := DecodeObjectHeader(message("text/css", `"abc"`, "", "12"))
	want := edge.Header{{Name: "Content-Type", Value: "text/css"}, {Name: "ETag", Value: `"abc"`}, {Name: "Content-Length", Value: "12"}}
	if err != nil || !reflect.DeepEqual(h, want) {
		t.Errorf("got %+v, %v", h, err)
	}
}

// A message the decoders do not expect is an error, never a guess or a panic: the adapter
// then answers AnswerLost and worker.mjs fails closed.
func TestDecodersRefuseMalformedMessages(t *testing.T) {
	for name, msg := range map[string][]byte{
		"empty":              nil,
		"no final NUL":       []byte("id\x00GET\x00https://h/\x000"),
		"short":              message("id", "GET"),
		"count not a number": message("id", "GET", "https://h/", "x"),
		"negative count":     message("id", "GET", "https://h/", "-1"),
		"count too large":    message("id", "GET", "https://h/", "1000000000", "a", "b"),
		"trailing field":     message("id", "GET", "https://h/", "0", "extra"),
	} {
		if _, err := DecodeRequest(msg); err == nil {
			t.Errorf("request, %s: accepted", name)
		}
	}
	for name, msg := range map[string][]byte{
		"unknown kind": message("Q", ""),
		"one lookup":   message("M"),
		"two":          message("M", "M"),
		"hit status":   message("H", "ok", "0", "", ""),
		"six":          message("M", "M", "M", "M", "M", "M"),
		"short object": message("", "", "H", "text/html", `"e1"`),
		"object kind":  message("", "", "Q"),
		"no read":      message("", "", ""),
		"read kind":    message("", "", "", "Q"),
		"short read":   message("", "", "", "H"),
		"read error":   message("", "", "", "E"),
		"no ahead":     message("", "", "", "M"),
		"ahead kind":   message("", "", "", "", "Q"),
		"short ahead":  message("", "", "", "", "H"),
		"after ahead":  message("", "", "", "M", "M", ""),
	} {
		if _, err := DecodeLookups(msg); err == nil {
			t.Errorf("lookups, %s: accepted", name)
		}
	}
	for name, msg := range map[string][]byte{
		"no lookup":    message("k"),
		"unknown kind": message("k", "Q"),
		"trailing":     message("k", "M", "M"),
	} {
		if _, err := DecodeRemember(msg); err == nil {
			t.Errorf("remember, %s: accepted", name)
		}
	}
	for name, msg := range map[string][]byte{
		"unknown outcome": message("maybe", "200", "", "0"),
		"status":          message("ok", "", "", "0"),
		"names":           message("ok", "200", "", "2", "a"),
	} {
		if _, err := DecodeUpstream(msg); err == nil {
			t.Errorf("upstream, %s: accepted", name)
		}
	}
	if _, err := DecodeObjectHeader(message("a", "b", "c")); err == nil {
		t.Error("object header of three fields: accepted")
	}
}

func TestPending(t *testing.T) {
	var p Pending
	a, b := &Exchange{}, &Exchange{}
	ta, tb := p.Keep(a), p.Keep(b)
	if ta <= 0 || tb == ta || a.Token != ta || b.Token != tb {
		t.Fatalf("tokens %d %d (%d %d)", ta, tb, a.Token, b.Token)
	}
	if p.Take(tb) != b || p.Take(tb) != nil {
		t.Error("a token is taken once")
	}
	p.Put(b)
	if p.Take(tb) != b {
		t.Error("Put keeps an exchange again under its token")
	}
	if p.Take(0) != nil || p.Take(-ta) != nil || p.Take(ta+1) != nil {
		t.Error("a token never given found an exchange")
	}
	// With more than PendingSlots pending at once, an older exchange gives way: its token is
	// refused, the newer ones are found.
	kept := []*Exchange{a}
	for i := 0; i < PendingSlots; i++ {
		x := &Exchange{}
		p.Keep(x)
		kept = append(kept, x)
	}
	found := 0
	for i, x := range kept {
		y := p.Take(x.Token)
		switch {
		case y == x:
			found++
		case y != nil:
			t.Errorf("token %d found another exchange", x.Token)
		case i == len(kept)-1:
			t.Error("the newest exchange is not found")
		}
	}
	if found != PendingSlots {
		t.Errorf("%d of %d exchanges found, want the table's %d", found, len(kept), PendingSlots)
	}
}

// TestPendingKeepsALongRequest: an exchange waiting long (a long poll's upstream fetch) is
// still found after many more requests than PendingSlots came and went meanwhile; only
// PendingSlots exchanges pending at once reuse a slot.
func TestPendingKeepsALongRequest(t *testing.T) {
	var p Pending
	long := &Exchange{}
	tl := p.Keep(long)
	for i := 0; i < 3*PendingSlots; i++ {
		x := &Exchange{}
		if p.Take(p.Keep(x)) != x {
			t.Fatalf("request %d lost its exchange", i)
		}
	}
	if p.Take(tl) != long {
		t.Error("a request still pending lost its exchange to requests that had finished")
	}
}

// TestPendingCountsWhatItKeeps: Kept counts the exchanges kept, a slot taken over by a
// newer token once, and a token taken twice or never kept not at all.
func TestPendingCountsWhatItKeeps(t *testing.T) {
	var p Pending
	a, b := &Exchange{}, &Exchange{}
	ta, tb := p.Keep(a), p.Keep(b)
	p.Take(ta)
	p.Put(a) // kept again under its token
	if n := p.Kept(); n != 2 {
		t.Errorf("Kept = %d with two exchanges kept", n)
	}
	p.Take(ta)
	p.Take(ta)
	p.Take(tb + 1)
	if n := p.Kept(); n != 1 {
		t.Errorf("Kept = %d after one exchange was taken (twice) and a token never kept was asked for", n)
	}
	for range PendingSlots {
		p.Keep(&Exchange{})
	}
	if n := p.Kept(); n != PendingSlots {
		t.Errorf("Kept = %d with the table full; want %d", n, PendingSlots)
	}
}

func TestPendingTokensWrap(t *testing.T) {
	p := Pending{next: maxToken - 1}
	x, y := &Exchange{}, &Exchange{}
	if tx, ty := p.Keep(x), p.Keep(y); tx != maxToken || ty != 1 {
		t.Errorf("tokens after %d: %d, %d", maxToken-1, tx, ty)
	}
	if p.Take(maxToken) != x || p.Take(1) != y {
		t.Error("wrapped tokens lost their exchanges")
	}
}

// The adapter decodes from its one input buffer, which the next call overwrites: nothing a
// decoder returns may share its bytes.
func TestDecodedFieldsOutliveTheMessage(t *testing.T) {
	msg := requestMessage(browserRequest)
	req, err := DecodeRequest(msg)
	if err != nil {
		t.Fatal(err)
	}
	lmsg := lookupsMessage(contentHit)
	reads, err := DecodeLookups(lmsg)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{msg, lmsg} {
		for i := range b {
			b[i] = 'x'
		}
	}
	if !reflect.DeepEqual(req, browserRequest) {
		t.Errorf("request changed with its message: %+v", req)
	}
	if !reflect.DeepEqual(reads, contentHit) {
		t.Errorf("lookups changed with their message: %+v", reads)
	}
}

// What the core keeps past a request comes from its URL (the host, in the memo, for minutes
// and for thousands of hosts): the URL must not keep the rest of the request's head, cookies
// and all, alive with it.
func TestDecodedURLDoesNotKeepTheRequestHead(t *testing.T) {
	const requests, cookieBytes = 200, 64 << 10
	big := &edge.Request{ID: "i", Method: "GET", URL: "https://shop.kamui.test/",
		Header: edge.Header{{Name: "Cookie", Value: strings.Repeat("c", cookieBytes)}}}
	msg := requestMessage(big)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := make([]string, 0, requests)
	for range requests {
		req, err := DecodeRequest(msg)
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, req.URL)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	// Pinned heads would hold requests × cookieBytes (12.5 MiB); the URLs alone a few KiB.
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > requests*cookieBytes/4 {
		t.Errorf("keeping %d decoded URLs keeps %d bytes alive", len(kept), grown)
	}
	runtime.KeepAlive(kept)
}

// Unlocked sees the table's lock held, and leaves it as it found it.
func TestPendingUnlocked(t *testing.T) {
	var p Pending
	if !p.Unlocked() {
		t.Fatal("a new table's lock is held")
	}
	p.mu.Lock()
	if p.Unlocked() {
		t.Error("held: Unlocked says it is not")
	}
	p.mu.Unlock()
	if !p.Unlocked() {
		t.Error("released: Unlocked says it is held")
	}
	p.Keep(&Exchange{}) // the lock is free: this would block otherwise
}
