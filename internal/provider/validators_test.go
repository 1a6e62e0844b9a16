package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func validate(v validator.String, s string) *validator.StringResponse {
	resp := &validator.StringResponse{}
	v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("x"), ConfigValue: types.StringValue(s)}, resp)
	return resp
}

// An edge URL may carry credentials by mistake; the check that refuses it (at validate and
// plan, before Configure) says so without printing them.
func TestEdgeURLCheckNeverEchoesCredentials(t *testing.T) {
	var sr provider.SchemaResponse
	New("test", testSources)().Schema(context.Background(), provider.SchemaRequest{}, &sr)
	attr, ok := sr.Schema.Attributes["edge_url"].(pschema.StringAttribute)
	if !ok {
		t.Fatalf("edge_url is a %T", sr.Schema.Attributes["edge_url"])
	}
	validators := attr.Validators
	for _, value := range []string{
		"https://ops:hunter2-secret@edge.internal.example",
		"https://hunter2-secret@edge.internal.example",
		"https://ops:hunter2-secret@edge.internal.example/with/a/path",
		"http://ops:hunter2-secret@bad host",
	} {
		var diags []string
		for _, v := range validators {
			for _, d := range validate(v, value).Diagnostics {
				diags = append(diags, d.Summary()+": "+d.Detail())
			}
		}
		if len(diags) == 0 {
			t.Errorf("%q accepted", value)
		}
		for _, d := range diags {
			if strings.Contains(d, "hunter2-secret") {
				t.Errorf("the diagnostic prints the URL's credentials: %s", d)
			}
			if !strings.Contains(d, "credentials") {
				t.Errorf("the diagnostic does not say what is wrong (credentials in the URL): %s", d)
			}
		}
	}
	if d := validate(validators[0], "http://edge.example/path").Diagnostics; !d.HasError() ||
		!strings.Contains(d[0].Detail(), `"http://edge.example/path"`) {
		t.Errorf("a URL without credentials is shown in its diagnostic: %v", d)
	}
}

// cloudflared refuses an ingress service with any path, even "/": the tunnel resource's
// router_service is refused at plan rather than after the tunnel is created.
func TestRouterServiceRefusesAPath(t *testing.T) {
	for s, ok := range map[string]bool{
		"http://kamuidash-router.kamuidash-system.svc.cluster.local:8080":        true,
		"https://router.internal:8443":                                           true,
		"http://kamuidash-router.kamuidash-system.svc.cluster.local:8080/":       false,
		"http://kamuidash-router.kamuidash-system.svc.cluster.local:8080/router": false,
		"http://router:8080?x=1":                                                 false,
		"tcp://router:8080":                                                      false,
	} {
		if got := !validate(serviceURL(), s).Diagnostics.HasError(); got != ok {
			t.Errorf("router_service %q accepted = %v, want %v", s, got, ok)
		}
	}
}

// A hostname in another form than the edge compares is refused with the form that was most
// likely meant: an internationalised name in its ASCII form (what browsers send as the Host),
// upper case lowered, a trailing dot dropped. A name with no such form is refused plainly.
func TestHostnameSuggestsTheFormMeant(t *testing.T) {
	for _, c := range []struct{ value, meant, why string }{
		{"bücher.example", "xn--bcher-kva.example", "ASCII form"},
		{"Www.Bücher.Example", "www.xn--bcher-kva.example", "ASCII form"},
		{"カムイ.example", "xn--eckn3n.example", "ASCII form"},
		{"Www.Shop.Example", "www.shop.example", ""},
		{"www.shop.example.", "www.shop.example", ""},
	} {
		d := validate(hostname(), c.value).Diagnostics
		if !d.HasError() {
			t.Errorf("%q accepted", c.value)
			continue
		}
		detail := d[0].Detail()
		if !strings.Contains(detail, `Write it as "`+c.meant+`"`) || c.why != "" && !strings.Contains(detail, c.why) {
			t.Errorf("%q: %s; want it to suggest %q", c.value, detail, c.meant)
		}
	}
	for _, value := range []string{"shop example", "-shop.example", "10.0.0.1", "shop.example:8080", "a..b"} {
		d := validate(hostname(), value).Diagnostics
		if !d.HasError() {
			t.Errorf("%q accepted", value)
		} else if strings.Contains(d[0].Detail(), "Write it as") {
			t.Errorf("%q: %s; no form of it is a hostname", value, d[0].Detail())
		}
	}
	if d := validate(hostname(), "xn--bcher-kva.example").Diagnostics; d.HasError() {
		t.Errorf("the ASCII form refused: %v", d)
	}
}

// A label in capitals is refused with its lower-case form; anything else wrong with it, plainly.
func TestDNSLabelSuggestsLowerCase(t *testing.T) {
	d := validate(dnsLabel(), "Shop").Diagnostics
	if !d.HasError() || !strings.Contains(d[0].Detail(), `Write it as "shop"`) {
		t.Errorf("Shop: %v; want the suggestion \"shop\"", d)
	}
	for _, value := range []string{"shop_app", "-shop", "Shop_App", strings.Repeat("a", 64)} {
		d := validate(dnsLabel(), value).Diagnostics
		if !d.HasError() {
			t.Errorf("%q accepted", value)
		} else if strings.Contains(d[0].Detail(), "Write it as") {
			t.Errorf("%q: %s; no case of it is a label", value, d[0].Detail())
		}
	}
}
