package edge

import (
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

func validBindings() map[string]string {
	return map[string]string{
		BindingPlatformDomain:  "kamui.test",
		BindingFreshness:       "120",
		BindingUpstreamTimeout: "30000",
		BindingLogSampleRate:   "0.25",
		BindingSigningSecret:   testSecret,
		BindingCacheMarker:     testMarker,
	}
}

func parse(m map[string]string) (Config, error) {
	return ParseConfig(func(n string) (string, bool) { v, ok := m[n]; return v, ok })
}

func TestParseConfig(t *testing.T) {
	c, err := parse(validBindings())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := route.DeriveTTLs(120 * time.Second)
	if c.TTLs != want || c.UpstreamTimeout != 30*time.Second || c.LogSamplePerMillion != 250_000 || c.PlatformDomain != "kamui.test" {
		t.Errorf("config %+v", c)
	}
}

func TestParseConfigRejects(t *testing.T) {
	for name, bad := range map[string]map[string]string{
		BindingPlatformDomain:  {BindingPlatformDomain: "Kamui.Test"},
		BindingFreshness:       {BindingFreshness: "10"},
		BindingUpstreamTimeout: {BindingUpstreamTimeout: "99"},
		BindingLogSampleRate:   {BindingLogSampleRate: "1.5"},
		BindingSigningSecret:   {BindingSigningSecret: "tiny-value"},
		BindingCacheMarker:     {BindingCacheMarker: ""},
	} {
		b := validBindings()
		for k, v := range bad {
			b[k] = v
		}
		_, err := parse(b)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v", name, err)
			continue
		}
		// Secrets never appear in the error, only the binding's name.
		if strings.Contains(err.Error(), "tiny-value") || strings.Contains(err.Error(), testSecret) {
			t.Errorf("%s: error leaks a value: %v", name, err)
		}
	}
}

// Every text binding of the contract is one the Worker requires: without it, it refuses to
// start and names it.
func TestParseConfigReadsEveryContractBinding(t *testing.T) {
	for _, b := range route.WorkerBindings {
		if b.Format == route.FormatObject {
			continue
		}
		m := validBindings()
		if _, ok := m[b.Name]; !ok {
			t.Errorf("%s: validBindings has no value for it", b.Name)
			continue
		}
		delete(m, b.Name)
		if _, err := parse(m); err == nil || !strings.Contains(err.Error(), "binding "+b.Name+": missing") {
			t.Errorf("without %s: err = %v", b.Name, err)
		}
	}
}

// TestBudgetArithmetic pins the worst case of every cache layer to the budget.
func TestBudgetArithmetic(t *testing.T) {
	for _, s := range []int{45, 60, 120, 300, 3600} {
		tt, err := route.DeriveTTLs(time.Duration(s) * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if tt.WorstCase() > tt.Budget {
			t.Errorf("budget %ds: worst case %v", s, tt.WorstCase())
		}
		if tt.RouteCache < time.Second || tt.Negative < time.Second || tt.Negative > tt.RouteCache {
			t.Errorf("budget %ds: route cache %v negative %v", s, tt.RouteCache, tt.Negative)
		}
	}
}

func TestSplitURL(t *testing.T) {
	u := splitURL("https://user@Shop.Kamui.Test:8443/a%2Fb/c?x=1&y=2#frag")
	if u.host != "Shop.Kamui.Test:8443" || u.path != "/a%2Fb/c" || u.query != "x=1&y=2" || u.key != "https://user@Shop.Kamui.Test:8443/a%2Fb/c?x=1&y=2" {
		t.Errorf("%+v", u)
	}
	if u := splitURL("https://h.example?q"); u.path != "/" || u.query != "q" || u.host != "h.example" {
		t.Errorf("%+v", u)
	}
}
