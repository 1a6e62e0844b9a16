package guard_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

// classesOf classifies one resource type the way the guard does for a plan: a one-change plan,
// hand-written because only the type matters here.
func classesOf(t *testing.T, resourceType string, extra *guard.Table) []guard.Class {
	t.Helper()
	plan, err := guard.ParsePlan([]byte(fmt.Sprintf(`{"format_version": "1.2", "resource_changes": [
		{"address": "module.a.module.b.%[1]s.x", "mode": "managed", "type": %[1]q, "name": "x", "change": {"actions": ["update"]}}]}`, resourceType)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := guard.Evaluate(plan, guard.Options{Classes: extra})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 1 {
		t.Fatalf("changes = %v", r.Changes)
	}
	return r.Changes[0].Classes
}

func TestBuiltinClasses(t *testing.T) {
	const (
		W = guard.ClassWorker
		K = guard.ClassKV
		S = guard.ClassStatic
		D = guard.ClassDNS
		T = guard.ClassTunnel
		C = guard.ClassCluster
		O = guard.ClassOther
	)
	for typ, want := range map[string][]guard.Class{
		// This provider (docs/ARCHITECTURE.md, "Change classes and the guard"); several classes
		// are listed in report order.
		"kamuidash_edge_worker":           {W},
		"kamuidash_kv_namespace":          {K},
		"kamuidash_tenant_app":            {K},
		"kamuidash_route_record":          {K},
		"kamuidash_custom_domain":         {K, D},
		"kamuidash_tunnel":                {D, T},
		"kamuidash_router_network_policy": {C},
		"kamuidash_router_image":          {C},
		"kamuidash_fallback_origin":       {D},
		"kamuidash_static_site":           {S},
		"kamuidash_something_new":         {O},
		// The official Cloudflare provider, current and older names.
		"cloudflare_workers_script":                       {W},
		"cloudflare_worker_script":                        {W},
		"cloudflare_workers_route":                        {W},
		"cloudflare_worker_route":                         {W},
		"cloudflare_workers_secret":                       {W},
		"cloudflare_workers_cron_trigger":                 {W},
		"cloudflare_workers_kv":                           {K},
		"cloudflare_workers_kv_namespace":                 {K},
		"cloudflare_dns_record":                           {D},
		"cloudflare_record":                               {D},
		"cloudflare_custom_hostname":                      {D},
		"cloudflare_custom_hostname_fallback_origin":      {D},
		"cloudflare_zero_trust_tunnel_cloudflared":        {T},
		"cloudflare_zero_trust_tunnel_cloudflared_config": {T},
		"cloudflare_tunnel":                               {T},
		"cloudflare_tunnel_config":                        {T},
		"cloudflare_r2_bucket":                            {S},
		"cloudflare_r2_custom_domain":                     {S},
		"cloudflare_zone":                                 {O},
		"cloudflare_records_export":                       {O}, // cloudflare_record is exact, not a prefix
		// The Kubernetes provider.
		"kubernetes_network_policy_v1": {C},
		"kubernetes_deployment":        {C},
		// Everything else.
		"terraform_data":         {O},
		"aws_s3_bucket":          {O},
		"kubernetesish_resource": {O},
	} {
		if got := classesOf(t, typ, nil); !slices.Equal(got, want) {
			t.Errorf("%s: classes %v, want %v", typ, got, want)
		}
	}
}

func TestClassesFileOverridesBuiltins(t *testing.T) {
	extra, err := guard.ParseClasses([]byte(`{
		"classes": {
			"acme_*":               "kv",
			"acme_dns_*":           "dns",
			"acme_dns_legacy":      "other",
			"my_worker_thing":      "worker",
			"cloudflare_*":         "other",
			"kamuidash_tenant_app": ["cluster", "kv"]
		}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string][]guard.Class{
		"acme_bucket":           {guard.ClassKV},     // a prefix
		"acme_dns_zone":         {guard.ClassDNS},    // the longer prefix wins
		"acme_dns_legacy":       {guard.ClassOther},  // an exact type beats prefixes
		"my_worker_thing":       {guard.ClassWorker}, // an exact type
		"cloudflare_dns_record": {guard.ClassOther},  // any match in the file beats the built-ins
		// ...but a prefix never takes the worker class away: only the exact type can.
		"cloudflare_workers_script": {guard.ClassWorker},
		"kamuidash_tenant_app":      {guard.ClassKV, guard.ClassCluster}, // a list, in report order
		"kamuidash_edge_worker":     {guard.ClassWorker},                 // built-ins still apply
		"kubernetes_service_v1":     {guard.ClassCluster},
	} {
		if got := classesOf(t, typ, extra); !slices.Equal(got, want) {
			t.Errorf("%s: classes %v, want %v", typ, got, want)
		}
	}
}

// A classes file's broad prefix would otherwise turn a Worker into "other", and a plan that
// mixes a Worker update with DNS and KV edits would pass (an attack found it); naming the type
// exactly still reclassifies it.
func TestClassesFilePrefixKeepsTheWorker(t *testing.T) {
	plan, err := guard.ParsePlan([]byte(`{"format_version": "1.2", "resource_changes": [
		{"address": "cloudflare_workers_script.edge", "mode": "managed", "type": "cloudflare_workers_script", "name": "edge", "change": {"actions": ["update"]}},
		{"address": "cloudflare_dns_record.www", "mode": "managed", "type": "cloudflare_dns_record", "name": "www", "change": {"actions": ["update"]}},
		{"address": "cloudflare_workers_kv.route", "mode": "managed", "type": "cloudflare_workers_kv", "name": "route", "change": {"actions": ["update"]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for file, wantAllowed := range map[string]bool{
		`{"classes": {"cloudflare_*": "other"}}`:              false,
		`{"classes": {"cloudflare_workers_*": "other"}}`:      false,
		`{"classes": {"cloudflare_workers_script": "other"}}`: true, // named exactly: the operator's call
	} {
		extra, err := guard.ParseClasses([]byte(file))
		if err != nil {
			t.Fatal(err)
		}
		r, err := guard.Evaluate(plan, guard.Options{Classes: extra})
		if err != nil {
			t.Fatal(err)
		}
		if r.Allowed != wantAllowed {
			t.Errorf("%s: allowed %v, want %v (%s)", file, r.Allowed, wantAllowed, r.Reason)
		}
	}
}

func TestClassesFileErrors(t *testing.T) {
	for name, tc := range map[string]struct{ file, want string }{
		"unknown class":      {`{"classes": {"acme_x": "workers"}}`, `unknown class "workers" (the classes are worker, kv, static, dns, tunnel, cluster, other)`},
		"star in the middle": {`{"classes": {"acme_*_x": "kv"}}`, `pattern "acme_*_x"`},
		"star alone":         {`{"classes": {"*": "kv"}}`, `pattern "*"`},
		"no class":           {`{"classes": {"acme_x": []}}`, `pattern "acme_x": no class given`},
		"class not a string": {`{"classes": {"acme_x": 3}}`, `a class must be a string`},
		"misspelt key":       {`{"class": {"acme_x": "kv"}}`, `unknown field "class"`},
		"no classes":         {`{}`, `no "classes" object`},
		"two documents":      {`{"classes": {}} {}`, `more than one JSON value`},
		"not JSON":           {`classes: {acme_x: kv}`, `expected {"classes"`},
		"truncated":          {`{"classes": {"acme_x": "kv"`, `unexpected EOF`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := guard.ParseClasses([]byte(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
