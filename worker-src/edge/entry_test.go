package edge

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestRouteEntryEncodingIsJSONMarshals: a route-cache entry is written without reflection
// (appendJSON), as json.Marshal writes it when its record is compact with no <, > or & (a
// canonical record); any other record goes in as it is, and the entry still decodes to the
// same value.
func TestRouteEntryEncodingIsJSONMarshals(t *testing.T) {
	// A field added to cachedRoute must be added to appendJSON, and set in a case below.
	if n := reflect.TypeFor[cachedRoute]().NumField(); n != 8 {
		t.Fatalf("cachedRoute has %d fields; appendJSON writes 8", n)
	}
	canonical := json.RawMessage(`{"v":1,"app":"shop","status":"active","kind":"dynamic","dynamic":{"origin":"https://o.kamui.test","upstream":"tenant-shop/web:8080","timeout_ms":30000},"rev":"r1"}`)
	for name, c := range map[string]cachedRoute{
		"found":             {V: routeEntryVersion, Host: "shop.kamui.test", App: "shop", Record: canonical, ReadAt: 1700000000000, Exp: 1700000068000},
		"found by mapping":  {V: routeEntryVersion, Host: "www.example.com", App: "shop", Record: canonical, MapRev: "m-7", ReadAt: 1, Exp: 2},
		"absent":            {V: routeEntryVersion, Host: "gone.kamui.test", Absent: true, ReadAt: 5, Exp: 6},
		"absent by mapping": {V: routeEntryVersion, Host: "old.example.com", Absent: true, MapRev: "m-1"},
		"zero":              {},
		"escaped strings":   {V: -3, Host: "<a&b>\"\\\u00e9\u2028\x01", App: "\u65e5\u672c", MapRev: "\xff", ReadAt: -1, Exp: 1 << 62},
	} {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(&c)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.appendJSON(nil); !bytes.Equal(got, want) {
				t.Errorf("appendJSON\n got %s\nwant %s", got, want)
			}
		})
	}
}

// FuzzRouteEntryEncoding: whatever the entry holds (a record being any JSON value KV gave), what
// appendJSON writes is JSON that decodes to the entry.
func FuzzRouteEntryEncoding(f *testing.F) {
	f.Add("shop.kamui.test", "shop", "", `{"v":1,"app":"shop"}`, false, int64(1), int64(2))
	f.Add("gone.kamui.test", "", "m-1", "", true, int64(0), int64(-1))
	f.Add("<&>", "\u2028", "\xff\xfe", " [ 1 , \"<\" ]\n", false, int64(-9), int64(1<<40))
	f.Fuzz(func(t *testing.T, host, app, mapRev, record string, absent bool, readAt, exp int64) {
		if record != "" && !json.Valid([]byte(record)) {
			return // a record is what a strict decode accepted: valid JSON
		}
		c := cachedRoute{V: routeEntryVersion, Host: host, Absent: absent, App: app, Record: json.RawMessage(record),
			MapRev: mapRev, ReadAt: readAt, Exp: exp}
		out := c.appendJSON(nil)
		var back cachedRoute
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		want, _ := json.Marshal(&c) // decoded too, so that strings compare as encoding/json reads them
		var wantBack cachedRoute
		if err := json.Unmarshal(want, &wantBack); err != nil {
			t.Fatal(err)
		}
		if back.V != wantBack.V || back.Host != wantBack.Host || back.Absent != wantBack.Absent || back.App != wantBack.App ||
			back.MapRev != wantBack.MapRev || back.ReadAt != wantBack.ReadAt || back.Exp != wantBack.Exp ||
			!sameJSON(t, back.Record, wantBack.Record) {
			t.Fatalf("%s decodes to %+v, want %+v", out, back, wantBack)
		}
	})
}

// sameJSON says whether a and b are the same JSON value, spacing and escapes aside.
func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		t.Fatalf("records %s and %s do not decode", a, b)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}
