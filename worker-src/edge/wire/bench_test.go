package wire

import (
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/edge"
)

// A browser's GET as decide receives it, and the lookups message of a content hit: the two
// messages every static request decodes. Run in Wasm too (GOOS=js GOARCH=wasm go test -bench
// . -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec"), where each allocation costs more.
var (
	browserRequest = &edge.Request{ID: "9b2f6c1e-4a57-4f0e-9a41-2d7c3b8e5f10", Method: "GET",
		URL: "https://docs.kamui.test/guide/start.html?ref=nav", Header: edge.Header{
			{Name: "accept", Value: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
			{Name: "accept-encoding", Value: "gzip, deflate, br"},
			{Name: "accept-language", Value: "en-GB,en;q=0.9"},
			{Name: "cf-connecting-ip", Value: "203.0.113.7"},
			{Name: "cf-ipcountry", Value: "GB"},
			{Name: "cf-ray", Value: "8d1f2a3b4c5d6e7f-LHR"},
			{Name: "cookie", Value: "session=0123456789abcdef; theme=dark"},
			{Name: "host", Value: "docs.kamui.test"},
			{Name: "if-none-match", Value: `"e-41"`},
			{Name: "sec-fetch-mode", Value: "navigate"},
			{Name: "user-agent", Value: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"},
			{Name: "x-forwarded-proto", Value: "https"},
		}}
	contentHit = Reads{Content: &edge.Lookup{Found: true, Entry: edge.Entry{Status: 200, Body: CachedBody{}, Header: edge.Header{
		{Name: "cache-control", Value: "public, max-age=60"},
		{Name: "content-length", Value: "18234"},
		{Name: "content-type", Value: "text/html; charset=utf-8"},
		{Name: "etag", Value: `"e-41"`},
		{Name: "kamui-cache-marker", Value: "5f0c3a9e7d2b41c8"},
		{Name: "last-modified", Value: "Tue, 01 Dec 2026 10:00:00 GMT"},
	}}}}
)

func BenchmarkDecodeRequest(b *testing.B) {
	msg := requestMessage(browserRequest)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRequest(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeLookups(b *testing.B) {
	msg := lookupsMessage(contentHit)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeLookups(msg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnswer encodes a content hit's respond answer with its log line, as the adapter
// does: into the memory of the previous answer.
func BenchmarkAnswer(b *testing.B) {
	line := `{"msg":"edge.request","ts_ms":1796212800000,"request_id":"9b2f6c1e-4a57-4f0e-9a41-2d7c3b8e5f10","method":"GET","host":"docs.kamui.test","host_kind":"platform","kv_reads":0,"io_rounds":1,"content_cache":"hit","route_cache":"skip","outcome":"served","status":200,"dur_us":0,"kv_us":0}`
	p := edge.Plan{Status: 200, Body: CachedBody{}, Header: contentHit.Content.Entry.Header[:4]}
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if out, err = Plan(out, 1, []string{line}, p); err != nil {
			b.Fatal(err)
		}
	}
}
