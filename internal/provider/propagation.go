package provider

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// isEdgeURL accepts an http(s) URL with a host and no path, query or credentials.
func isEdgeURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		(u.Path == "" || u.Path == "/") && u.RawQuery == "" && u.Fragment == "" && u.User == nil
}

// defaultPropagationWait bounds verify_propagation when the provider's propagation_wait is not
// set: it covers the default freshness budget with room to spare, and a routing change that
// has not arrived after a few minutes needs a person to look.
const defaultPropagationWait = 5 * time.Minute

// The bounds of propagation_wait: long enough for KV's shortest edge cache, and as long as the
// longest freshness budget with an hour to spare.
const (
	minPropagationWait  = 10 * time.Second
	maxPropagationWait  = 2 * time.Hour
	propagationWaitRule = "10s and 2h, such as 5m or 90s"
)

// isPropagationWait accepts a duration within the bounds of propagation_wait.
func isPropagationWait(s string) bool {
	d, err := time.ParseDuration(s)
	return err == nil && d >= minPropagationWait && d <= maxPropagationWait
}

// parsePropagationWait is the resolved propagation_wait ("" or not valid: the default;
// Configure has reported a value that is not).
func parsePropagationWait(s string) time.Duration {
	if !isPropagationWait(s) {
		return defaultPropagationWait
	}
	d, _ := time.ParseDuration(s)
	return d
}

// propagationProbe waits until the edge serves an expected revision for a host, then sends
// one real request through the new route. Its fields are hooks for tests; the zero value
// uses the defaults.
type propagationProbe struct {
	// EdgeURL is where requests go, with the host in the Host header ("" means https://<host>).
	EdgeURL string
	// Key signs every probe (route.ProbeKey of the Worker's signing secret); the Worker
	// answers nothing else.
	Key []byte
	// Now is the clock probes are signed with. Default: time.Now.
	Now func() time.Time
	// Client sends the requests. Default: a pooled client with a 10 s timeout that does not
	// follow redirects (the edge's own answer is what counts).
	Client *http.Client
	// Interval is the pause between probes. Default 1 s.
	Interval time.Duration
}

func defaultProbeClient() *http.Client {
	c := cleanhttp.DefaultPooledClient()
	c.Timeout = 10 * time.Second
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

func (p propagationProbe) url(host, target string) string {
	if p.EdgeURL != "" {
		return p.EdgeURL + target
	}
	return "https://" + host + target
}

// What to do about a route that did not propagate, by what the edge last answered.
const (
	advicePropagation = "KV changes can take up to the Worker's freshness budget to reach every edge; check that the " +
		"Worker is deployed and routes this host, then apply again (the write is already done), or give the provider a " +
		"propagation_wait (" + EnvPropagationWait + ") at least as long as the Worker's freshness_budget."
	adviceMappedAppMissing = "Check the domain's app: it must be the name of an app this environment publishes (a " +
		"kamuidash_tenant_app or kamuidash_route_record in the routes namespace the Worker reads). If that app is created in " +
		"the same apply, make the domain refer to it (app = kamuidash_tenant_app.<name>.name) so that it is written first; " +
		"then apply again (the mapping is already written)."
)

// wait probes host until the edge answers that it serves rev (as its route record's or its
// domain mapping's revision), or until wait passes. Then it sends GET / to the host and
// expects an answer the record's status allows: for an active app anything but the edge's
// failures (500, 502, 504), 503 otherwise.
// Progress is logged every few probes; the diagnostic on failure says what was last seen.
func (p propagationProbe) wait(ctx context.Context, host, rev string, active bool, wait time.Duration) diag.Diagnostics {
	var diags diag.Diagnostics
	// The wait bounds the probes only: the request through the new route that follows has the
	// client's own timeout, so that a route seen just before the wait ends is not reported as
	// failing for want of time.
	outer := ctx
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if p.Client == nil {
		p.Client = defaultProbeClient() // one client, so the probes reuse their connection
	}
	interval := p.Interval
	if interval <= 0 {
		interval = time.Second
	}
	start := time.Now()
	last, advice := "no answer yet", advicePropagation
	for attempt := 1; ; attempt++ {
		match, err := p.probe(ctx, host, rev)
		if err == nil && (match == route.RevMatchRecord || match == route.RevMatchMapping) {
			tflog.Info(ctx, "The edge serves the new route", map[string]any{"host": host, "rev": rev, "after": time.Since(start).Round(time.Millisecond).String()})
			break
		}
		switch {
		case err != nil:
			if ctx.Err() == nil { // a probe cut short by the deadline says nothing new
				last, advice = err.Error(), advicePropagation
			}
		case match == route.RevMatchMappingNoRecord:
			// Waited out like any other answer: the app's record may be on its way (written in
			// this apply, or cached as absent at the edge for a while).
			last, advice = "the edge serves this domain's new mapping, but the app it names has no route record there, "+
				"so visitors get 404", adviceMappedAppMissing
		default:
			last, advice = "the edge still serves another revision ("+route.RevMatchHeader+": "+match+")", advicePropagation
		}
		if attempt%10 == 0 {
			tflog.Info(ctx, "Waiting for the edge to serve the new route", map[string]any{"host": host, "rev": rev, "waited": time.Since(start).Round(time.Second).String(), "last": last})
		}
		select {
		case <-ctx.Done():
			if outer.Err() != nil {
				diags.Append(waitInterruptedDiag("the edge to serve revision "+rev+" for "+host, time.Since(start),
					"The change was written; last seen: "+last+"."))
				return diags
			}
			diags.AddError("Route Did Not Propagate",
				fmt.Sprintf("The change was written, but after %s the edge (%s) did not yet serve revision %s for %s: %s. %s",
					wait, p.url(host, ""), rev, host, last, advice))
			return diags
		case <-time.After(interval):
		}
	}

	// One real request proves the route end to end.
	status, err := p.get(outer, host, "/")
	switch {
	case err != nil:
		diags.AddError("Request Through the New Route Failed",
			fmt.Sprintf("The edge serves revision %s for %s, but a request to it failed: %v.", rev, host, err))
	case active && (status == http.StatusInternalServerError || status == http.StatusBadGateway || status == http.StatusGatewayTimeout):
		diags.AddError("Request Through the New Route Failed",
			fmt.Sprintf("The edge serves revision %s for %s, but GET / answered HTTP %d. Check that the app's upstream is reachable "+
				"from the router (the edge answers 502 when it cannot connect and 504 when the app is too slow).", rev, host, status))
	case !active && status != http.StatusServiceUnavailable:
		diags.AddError("Request Through the New Route Failed",
			fmt.Sprintf("The app is not active, so the edge should answer 503 for %s, but GET / answered HTTP %d.", host, status))
	default:
		tflog.Info(ctx, "A request through the new route answered", map[string]any{"host": host, "status": status})
	}
	return diags
}

// probe asks the edge whether it serves rev for host (p.Client is set by wait).
func (p propagationProbe) probe(ctx context.Context, host, rev string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url(host, route.ProbePath), nil)
	if err != nil {
		return "", err
	}
	req.Host = host
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	// Signed afresh for every attempt: the Worker refuses a probe older than route.DefaultMaxSkew.
	route.Probe{Host: host, ExpectRev: rev, Time: now()}.SetHeaders(req.Header, p.Key)
	resp, err := p.Client.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	match := resp.Header.Get(route.RevMatchHeader)
	if match == "" {
		return "", fmt.Errorf("the edge answered HTTP %d without %s, as it answers any probe it does not accept: check that "+
			"probe_key (%s) is derived from the deployed Worker's current signing secret, and that the Worker is recent "+
			"enough to answer signed probes", resp.StatusCode, route.RevMatchHeader, EnvProbeKey)
	}
	return strings.ToLower(match), nil
}

func (p propagationProbe) get(ctx context.Context, host, target string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url(host, target), nil)
	if err != nil {
		return 0, err
	}
	req.Host = host
	resp, err := p.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, nil
}

// verifyPropagation runs the probe after a write when the provider asks for it (its
// verify_propagation setting). It is a provider setting, not a resource attribute: it changes how
// the provider waits, not what it manages, so it must not make a plan differ after an import
// (which cannot know it) or between environments.
func (d *providerData) verifyPropagation(ctx context.Context, host, rev string, active bool) diag.Diagnostics {
	if !d.VerifyPropagation {
		return nil
	}
	if host == "" {
		var diags diag.Diagnostics
		diags.AddError("Cannot Verify Propagation",
			"The provider's verify_propagation needs the host the app is served at; set the provider's platform_domain (or "+
				EnvPlatformDomain+"), or turn verify_propagation off. The change itself was written.")
		return diags
	}
	return propagationProbe{EdgeURL: d.EdgeURL, Key: d.ProbeKey}.wait(ctx, host, rev, active, d.propagationWait())
}

// propagationWait is how long verify_propagation waits (the default for a providerData that
// Configure did not make).
func (d *providerData) propagationWait() time.Duration {
	if d.PropagationWait <= 0 {
		return defaultPropagationWait
	}
	return d.PropagationWait
}

// propagationWaitDiags warns, at the edge Worker's plan, when verify_propagation would give up
// before the Worker's freshness budget, the longest a changed route may take to reach every
// edge: such verifications can fail while the change is still on its way.
func (d *providerData) propagationWaitDiags(budget timetypes.GoDuration) diag.Diagnostics {
	var diags diag.Diagnostics
	b, bd := budget.ValueGoDuration()
	wait := d.propagationWait()
	if !d.VerifyPropagation || bd.HasError() || budget.IsNull() || budget.IsUnknown() || b <= wait {
		return diags
	}
	diags.AddAttributeWarning(path.Root("freshness_budget"), "Propagation Wait Shorter Than the Freshness Budget",
		"The provider's verify_propagation waits up to "+wait.String()+" (propagation_wait) for each write to reach the edge, "+
			"but this Worker's freshness_budget lets a changed route take up to "+b.String()+" to reach every edge, so a "+
			"verification may fail while the change is still on its way. Set the provider's propagation_wait (or "+
			EnvPropagationWait+") to at least "+b.String()+", or shorten the budget.")
	return diags
}

// checkProbeKey refuses, at plan time, a verify_propagation that could never succeed because
// the provider has no key to sign its probes with (unsigned probes are ordinary requests).
func (d *providerData) checkProbeKey() diag.Diagnostics {
	var diags diag.Diagnostics
	if d.VerifyPropagation && len(d.ProbeKey) == 0 {
		diags.AddError("Probe Key Needed",
			"The provider's verify_propagation asks the edge which revision it serves with probes the Worker answers only "+
				"when they are signed, and the provider has no key to sign them with. Set the provider's probe_key or "+EnvProbeKey+
				" to the key derived from the edge Worker's signing secret (`terraform-provider-kamuidash probe-key < "+
				"signing-secret-file` prints it; a local edge's env file exports it), or turn verify_propagation off.")
	}
	return diags
}

// verifyRecord verifies a written route record on its platform host (tenant_app and
// route_record share the key space and this step).
func (d *providerData) verifyRecord(ctx context.Context, written route.Record) diag.Diagnostics {
	return d.verifyPropagation(ctx, d.platformHost(written.App), written.Rev, written.Status == route.StatusActive)
}

// verifiedCreate is a verification's outcome right after a create. Terraform taints a resource
// whose create reports an error, and its next apply replaces it: deletes what was just written
// (and a custom domain's custom hostname, whose ownership and certificate the tenant then
// validates anew) before writing it again, not the "apply again" the failure itself advises. So
// a failed check of a create says so, and how to keep the write instead.
func verifiedCreate(diags diag.Diagnostics, what string) diag.Diagnostics {
	if diags.HasError() {
		diags.AddError("Created "+titleCase(what)+" Is Tainted",
			"The "+what+" was written, but its check above failed, so Terraform marks it tainted: the next apply replaces it, "+
				"deleting what was just written before writing it again. If the route is right (or once what the check found is "+
				"fixed), keep it with `terraform untaint <address>`; the next apply then only checks it again if it changes.")
	}
	return diags
}
