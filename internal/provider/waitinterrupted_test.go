package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// TestWaitsSayTheyWereInterrupted: every wait of the provider stopped from outside (Terraform
// cancels the operation's context when an apply or destroy is interrupted) says so, instead of
// reporting that its timeout ran out and advising a longer one. Each wait here has an hour left
// and nothing it waits for will happen.
func TestWaitsSayTheyWereInterrupted(t *testing.T) {
	edge := newTestEdge(t, func(c *cfapi.Config) { c.FallbackActivation = time.Hour })
	c, zone := edge.client(t), edge.Identity().ZoneID
	data := &providerData{Client: c, ZoneID: zone}
	interrupted := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	wantInterrupted := func(what string, diags diag.Diagnostics, detail string) {
		t.Helper()
		if !diags.HasError() || diags[0].Summary() != "Wait Interrupted" || !strings.Contains(diags[0].Detail(), detail) {
			t.Errorf("%s: %v; want a Wait Interrupted error saying %q", what, diags, detail)
		}
	}

	set, err := c.SetFallbackOrigin(context.Background(), zone, "fallback.kamui.test")
	if err != nil {
		t.Fatal(err)
	}
	origins := &fallbackOriginResource{data: data, pollInterval: time.Millisecond, maxPollInterval: 5 * time.Millisecond}
	_, diags := origins.waitActive(interrupted(), zone, set, time.Hour, "timeouts.create")
	wantInterrupted("the fallback origin's activation", diags, "apply again to keep waiting")
	wantInterrupted("the fallback origin's deletion", origins.waitGone(interrupted(), zone, set, time.Hour), "run the destroy again")

	h, err := c.CreateCustomHostname(context.Background(), zone, "www.shop.example", "")
	if err != nil {
		t.Fatal(err)
	}
	domains := &customDomainResource{data: data, pollInterval: time.Millisecond, maxPollInterval: 5 * time.Millisecond}
	_, diags = domains.waitActive(interrupted(), h, time.Hour)
	wantInterrupted("the custom hostname's activation", diags, "terraform untaint")

	srv, _ := fakeEdge(t, 0, "none", 200)
	probe := propagationProbe{EdgeURL: srv.URL, Key: testProbeKey, Interval: time.Millisecond}
	wantInterrupted("verify_propagation", probe.wait(interrupted(), "shop.kamui.test", "abc", true, time.Hour), "Kamui-Rev-Match: none")
}
