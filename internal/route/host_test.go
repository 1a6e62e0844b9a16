package route

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalizeHost(t *testing.T) {
	long63 := strings.Repeat("a", 63)
	tests := []struct {
		in   string
		want string // "" means ErrInvalidHost
	}{
		{"shop.kamui.app", "shop.kamui.app"},
		{"Shop.Kamui.APP", "shop.kamui.app"},
		{"shop.kamui.app.", "shop.kamui.app"},
		{"shop.kamui.app:8443", "shop.kamui.app"},
		{"SHOP.kamui.app.:443", "shop.kamui.app"},
		{"xn--bcher-kva.example", "xn--bcher-kva.example"},
		{"a-b.c1.example", "a-b.c1.example"},
		{long63 + ".example", long63 + ".example"},
		{"localhost", "localhost"},
		{"", ""},
		{".", ""},
		{"..", ""},
		{"a..b", ""},
		{".a.b", ""},
		{"-a.example", ""},
		{"a-.example", ""},
		{"a_b.example", ""},
		{"a b.example", ""},
		{"ä.example", ""},
		{"shop.kamui.app:0", ""},
		{"shop.kamui.app:65536", ""},
		{"shop.kamui.app:", ""},
		{"shop.kamui.app:80:80", ""},
		{"127.0.0.1", ""},
		{"127.0.0.1:80", ""},
		{"[::1]:80", ""},
		{"[::1]", ""},
		{strings.Repeat("a", 64) + ".example", ""},
		{strings.Repeat("a.", 127) + "ab", ""}, // 256 bytes
		{"<script>.example", ""},
		{"a.example/path", ""},
		{"a.example\x00", ""},
	}
	for _, tt := range tests {
		got, err := NormalizeHost(tt.in)
		if tt.want == "" {
			if !errors.Is(err, ErrInvalidHost) {
				t.Errorf("NormalizeHost(%q) = %q, %v; want ErrInvalidHost", tt.in, got, err)
			}
			if err != nil && strings.Contains(err.Error(), tt.in) && tt.in != "" && tt.in != "." {
				t.Errorf("NormalizeHost(%q) error %q reflects the input", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestNormalizeHostIsIdempotent(t *testing.T) {
	for _, in := range []string{"A.Example.:80", "shop.kamui.app", "x.y.z."} {
		once, err := NormalizeHost(in)
		if err != nil {
			t.Fatal(err)
		}
		twice, err := NormalizeHost(once)
		if err != nil || twice != once {
			t.Errorf("NormalizeHost(NormalizeHost(%q)) = %q, %v; want %q", in, twice, err, once)
		}
	}
}

func TestPlatformApp(t *testing.T) {
	const platform = "kamui.app"
	tests := []struct {
		host       string
		app        string
		isPlatform bool
	}{
		{"shop.kamui.app", "shop", true},
		{"kamui.app", ApexApp, true},
		{"a.shop.kamui.app", "", true},         // deeper: unknown with no KV read
		{"www.kamui.app", "", true},            // reserved
		{"kamui-internal.kamui.app", "", true}, // internal cache host is never an app
		{"apex.kamui.app", "", true},           // the apex app is only reachable at the apex
		{"www.shop.example", "", false},
		{"shopkamui.app", "", false}, // suffix without the dot is another domain
		{"kamui.app.example", "", false},
	}
	for _, tt := range tests {
		app, isPlatform := PlatformApp(tt.host, platform)
		if app != tt.app || isPlatform != tt.isPlatform {
			t.Errorf("PlatformApp(%q) = %q, %v; want %q, %v", tt.host, app, isPlatform, tt.app, tt.isPlatform)
		}
	}
	if app, isPlatform := PlatformApp("shop.kamui.app", ""); app != "" || isPlatform {
		t.Errorf("with no platform domain every host is custom; got %q, %v", app, isPlatform)
	}
}

func TestPlatformHostnameRoundTrips(t *testing.T) {
	for _, app := range []string{"shop", ApexApp, "a-1"} {
		host := PlatformHostname(app, "kamui.app")
		got, ok := PlatformApp(host, "kamui.app")
		if !ok || got != app {
			t.Errorf("PlatformApp(PlatformHostname(%q)) = %q, %v", app, got, ok)
		}
	}
}

func TestIsDNSLabel(t *testing.T) {
	good := []string{"a", "shop", "a-b", "0", "x1", strings.Repeat("z", 63)}
	bad := []string{"", "-a", "a-", "A", "a.b", "a_b", strings.Repeat("z", 64), "é"}
	for _, s := range good {
		if !IsDNSLabel(s) {
			t.Errorf("IsDNSLabel(%q) = false", s)
		}
	}
	for _, s := range bad {
		if IsDNSLabel(s) {
			t.Errorf("IsDNSLabel(%q) = true", s)
		}
	}
}

func TestParseUpstream(t *testing.T) {
	u, err := ParseUpstream("tenant-shop/web:8080")
	if err != nil {
		t.Fatal(err)
	}
	if u != (Upstream{Namespace: "tenant-shop", Service: "web", Port: 8080}) {
		t.Errorf("got %+v", u)
	}
	if got := u.String(); got != "tenant-shop/web:8080" {
		t.Errorf("String() = %q", got)
	}
	if got := u.ClusterAddr(); got != "web.tenant-shop.svc.cluster.local:8080" {
		t.Errorf("ClusterAddr() = %q", got)
	}
	for _, bad := range []string{"", "web:80", "ns/web", "ns/web:0", "ns/web:65536", "ns/web:080",
		"NS/web:80", "ns/we_b:80", "ns//web:80", "ns/web:80/x", "/web:80", "ns/:80", "ns/web:-1", "ns/web:+80"} {
		if _, err := ParseUpstream(bad); !errors.Is(err, ErrInvalidField) {
			t.Errorf("ParseUpstream(%q) err = %v; want ErrInvalidField", bad, err)
		}
	}
}

// A request's host is normalized on every request, by the Worker and the router: one already
// in lower case costs no allocation.
func TestNormalizeHostAllocatesNothingForALowerCaseHost(t *testing.T) {
	for _, host := range []string{"shop.kamui.app", "www.shop.example:443", "a-b.c.d.example."} {
		if n := testing.AllocsPerRun(100, func() {
			if _, err := NormalizeHost(host); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("NormalizeHost(%q): %v allocations, want 0", host, n)
		}
	}
	if got, err := NormalizeHost("WWW.Shop.Example"); err != nil || got != "www.shop.example" {
		t.Errorf("NormalizeHost(WWW.Shop.Example) = %q, %v", got, err)
	}
}
