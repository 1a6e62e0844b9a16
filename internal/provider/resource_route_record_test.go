package provider

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"testing"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

const routeRecordAddr = "kamuidash_route_record.docs"

func routeRecordConfig(edge *testEdge, delivery string) string {
	return edge.providerBlock() + `
resource "kamuidash_kv_namespace" "routes" {
  title = "kamuidash-test-routes"
}

resource "kamuidash_route_record" "docs" {
  app                 = "docs"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  ` + delivery + `
}
`
}

func TestAccRouteRecord_StaticThenDynamic(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoKVNamespaces,
		Steps: []resource.TestStep{
			{
				Config: routeRecordConfig(edge, `static = { prefix = "sites/docs/3f2a9c/", spa = true }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(routeRecordAddr, tfjsonpath.New("static").AtMapKey("index"), knownvalue.StringExact("index.html")),
					statecheck.ExpectKnownValue(routeRecordAddr, tfjsonpath.New("dynamic"), knownvalue.Null()),
				},
				Check: func(s *terraform.State) error {
					rec, meta, err := edge.storedRecord(s, "docs")
					if err != nil {
						return err
					}
					want := route.Static{Prefix: "sites/docs/3f2a9c/", Index: "index.html", SPA: true}
					if rec.Kind != route.KindStatic || !reflect.DeepEqual(*rec.Static, want) || meta.Owner != ownerRouteRecord {
						return fmt.Errorf("stored = %+v %+v %+v", rec, rec.Static, meta)
					}
					// A create purges nothing (kvStore.create): a new host can only have a negative entry.
					return edge.expectNotPurged("https://kamui-internal.kamui.test/route/v1/docs.kamui.test")
				},
			},
			{
				// Switching delivery kind rewrites the same key in place.
				Config: routeRecordConfig(edge, `dynamic = { origin = "origin.kamui.test", upstream = "tenant-docs/web:80" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(routeRecordAddr, plancheck.ResourceActionUpdate)},
				},
				Check: func(s *terraform.State) error {
					rec, _, err := edge.storedRecord(s, "docs")
					if err != nil {
						return err
					}
					if rec.Kind != route.KindDynamic || rec.Dynamic.Upstream != "tenant-docs/web:80" || rec.Dynamic.TimeoutMS != 30000 {
						return fmt.Errorf("stored = %+v %+v", rec, rec.Dynamic)
					}
					return edge.expectPurged("https://kamui-internal.kamui.test/route/v1/docs.kamui.test")
				},
			},
			{
				ResourceName:      routeRecordAddr,
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return s.RootModule().Resources[routeRecordAddr].Primary.ID, nil
				},
			},
		},
	})
}

// dynamic.timeout spelled otherwise than the state has is the same value, after an apply and
// after an import: the plan shows no change. A refresh that reads the record back (it changed
// elsewhere) keeps the state's spelling too, so the plan shows only what did change.
func TestAccRouteRecord_DurationSpellingsPlanNoChange(t *testing.T) {
	edge := newTestEdge(t)
	dynamic := func(timeout string) string {
		return `dynamic = { origin = "origin.kamui.test", upstream = "tenant-docs/web:80", timeout = "` + timeout + `" }`
	}
	var ns string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: routeRecordConfig(edge, dynamic("90000ms")),
				Check: func(s *terraform.State) error {
					ns = s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID
					return nil
				},
			},
			{
				Config: routeRecordConfig(edge, dynamic("1m30s")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// The import reads "1m30s"; the import block's plan must be the import alone.
				Config:          routeRecordConfig(edge, dynamic("90000ms")),
				ResourceName:    routeRecordAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return s.RootModule().Resources[routeRecordAddr].Primary.ID, nil
				},
			},
			{
				PreConfig: func() {
					value, rec, err := route.EncodeRecord(route.Record{App: "docs", Status: route.StatusActive, Kind: route.KindDynamic,
						Dynamic: &route.Dynamic{Origin: "origin.kamui.test", Upstream: "tenant-docs/web:81", TimeoutMS: 90000}})
					must(t, err)
					must(t, edge.client(t).KVPut(context.Background(), edge.Identity().AccountID, ns, "docs", value, route.EncodeMetadata(rec.Rev, ownerRouteRecord)))
				},
				RefreshState: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(routeRecordAddr, "dynamic.upstream", "tenant-docs/web:81"),
					resource.TestCheckResourceAttr(routeRecordAddr, "dynamic.timeout", "90000ms"),
				),
				ExpectNonEmptyPlan: true,
			},
			{
				Config: routeRecordConfig(edge, dynamic("90000ms")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(routeRecordAddr, plancheck.ResourceActionUpdate)},
				},
			},
		},
	})
}

// A record that a tenant_app owns is not overwritten by a route_record, and the reverse.
func TestAccRouteRecord_DoesNotFightTenantApp(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: tenantAppConfig(edge, 8080, ""),
			},
			{
				Config: tenantAppConfig(edge, 8080, "") + `
resource "kamuidash_route_record" "shop" {
  app                 = "shop"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  static              = { prefix = "sites/shop/1/" }
}`,
				ExpectError: regexp.MustCompile(`(?s)Route Record Already Exists.*kamuidash_tenant_app`),
			},
		},
	})
}

func TestAccRouteRecord_ImportsARecordWrittenElsewhere(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: edge.providerBlock() + `resource "kamuidash_kv_namespace" "routes" { title = "kamuidash-test-routes" }`,
				Check: func(s *terraform.State) error {
					ns := s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID
					value, rec, _ := route.EncodeRecord(route.Record{App: "docs", Status: route.StatusActive, Kind: route.KindStatic,
						Static: &route.Static{Prefix: "sites/docs/9/", Index: "index.html", NotFound: "404.html"}})
					return edge.client(t).KVPut(context.Background(), edge.Identity().AccountID, ns, "docs", value, route.EncodeMetadata(rec.Rev, ""))
				},
			},
			{
				// Terraform 1.5+ import blocks: the configuration adopts the existing record.
				Config: routeRecordConfig(edge, `static = { prefix = "sites/docs/9/", not_found = "404.html" }`) + `
import {
  to = kamuidash_route_record.docs
  id = "${kamuidash_kv_namespace.routes.id}/docs"
}`,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(routeRecordAddr, plancheck.ResourceActionNoop)},
				},
			},
		},
	})
}

func TestAccRouteRecord_ValidatedAtPlan(t *testing.T) {
	edge := newTestEdge(t)
	for name, tc := range map[string]struct{ delivery, want string }{
		"both":         {`static = { prefix = "a/" }` + "\n" + `dynamic = { origin = "o.kamui.test", upstream = "a/b:1" }`, `Exactly one of these attributes must be configured: \[dynamic,static\]`},
		"neither":      {``, `Exactly one of these attributes must be configured: \[dynamic,static\]`},
		"bad upstream": {`dynamic = { origin = "o.kamui.test", upstream = "web:80" }`, `namespace/service:port`},
		"bad prefix":   {`static = { prefix = "/abs" }`, `relative object path ending in "/"`},
		"escape":       {`static = { prefix = "a/", index = "../x" }`, `relative object path`},
		// A manifest must lie under the record's prefix: a record never reaches another site.
		"another site's manifest": {`static = { prefix = "sites/docs/", manifest = "sites/shop/manifests/1.json" }`, `(?s)Invalid Route Record.*static.manifest.*under "prefix"`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      routeRecordConfig(edge, tc.delivery),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}

// An update reads who owns the key before it writes: a key another resource type has taken
// since the state was written is refused, and its value left alone. The apply holds no
// listing, so this goes through the one-key read an update makes (currentOwner).
func TestAccRouteRecord_UpdateRefusesAKeyOwnedElsewhere(t *testing.T) {
	edge := newTestEdge(t)
	var ns string
	static := func(version string) string {
		return `static = { prefix = "sites/docs/", manifest = "sites/docs/manifests/` + version + `.json" }`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: routeRecordConfig(edge, static("a")),
				Check: func(s *terraform.State) error {
					ns = s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID
					return nil
				},
			},
			{
				// Another resource type claims the key, with the same value and revision, so
				// the refresh sees nothing to change; only the update's own read can tell.
				PreConfig: func() {
					entry, ok := edge.KVValue(ns, "docs")
					if !ok {
						t.Fatal("no record to take over")
					}
					meta, _ := route.DecodeMetadata(entry.Metadata)
					must(t, edge.client(t).KVPut(context.Background(), edge.Identity().AccountID, ns, "docs", entry.Value,
						route.EncodeMetadata(meta.Rev, ownerTenantApp)))
				},
				Config:      routeRecordConfig(edge, static("b")),
				ExpectError: regexp.MustCompile(`(?s)Route Record Owned Elsewhere.*kamuidash_tenant_app.*Nothing was overwritten`),
			},
			{
				PreConfig: func() {
					entry, _ := edge.KVValue(ns, "docs")
					rec, err := route.DecodeRecord(entry.Value)
					if err != nil || rec.Static.Manifest != "sites/docs/manifests/a.json" {
						t.Errorf("the refused update changed the record: %+v, %v", rec.Static, err)
					}
					// Hand the key back so the test can destroy what it made.
					meta, _ := route.DecodeMetadata(entry.Metadata)
					must(t, edge.client(t).KVPut(context.Background(), edge.Identity().AccountID, ns, "docs", entry.Value,
						route.EncodeMetadata(meta.Rev, ownerRouteRecord)))
				},
				Config: routeRecordConfig(edge, static("a")),
			},
		},
	})
}

// An update applied right after the refresh that planned it, which saw this resource type
// owning the key, writes without reading the key first: an edit costs its write and purge.
func TestAccRouteRecord_UpdateRightAfterItsRefreshReadsNothing(t *testing.T) {
	// The tap tells the name filter's read-back (after every write) from the resource's reads.
	tap := newAPITap()
	edge := newTestEdgeBehind(t, tap.wrap)
	static := func(version string) string {
		return `static = { prefix = "sites/docs/", manifest = "sites/docs/manifests/` + version + `.json" }`
	}
	reads := func() int {
		return tap.count("kv read") + tap.count("kv bulk read") + tap.count("kv metadata read")
	}
	var before int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: routeRecordConfig(edge, static("a"))},
			{
				PreConfig: func() { before = reads() },
				Config:    routeRecordConfig(edge, static("b")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(routeRecordAddr, plancheck.ResourceActionUpdate)},
				},
				Check: func(s *terraform.State) error {
					if n := reads() - before; n != 0 {
						return fmt.Errorf("the update read KV values %d times, want none (its refresh saw the owner just now)", n)
					}
					rec, _, err := edge.storedRecord(s, "docs")
					if err != nil || rec.Static.Manifest != "sites/docs/manifests/b.json" {
						return fmt.Errorf("stored record %+v, %v", rec.Static, err)
					}
					return nil
				},
			},
		},
	})
}

// A namespace deleted behind Terraform's back takes its records with it: the next plan
// recreates the namespace and the record instead of failing the record's refresh on the
// namespace's key listing (what a single read of the key already did: a 404 is drift).
func TestAccRouteRecord_NamespaceDeletedOutOfBandIsDrift(t *testing.T) {
	edge := newTestEdge(t)
	config := routeRecordConfig(edge, `static = { prefix = "sites/docs/3f2a9c/" }`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(s *terraform.State) error {
					id := s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID
					_, err := edge.client(t).KV.Namespaces.Delete(context.Background(), id, kv.NamespaceDeleteParams{AccountID: cf.F(edge.Identity().AccountID)})
					return err
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kamuidash_kv_namespace.routes", plancheck.ResourceActionCreate),
						plancheck.ExpectResourceAction(routeRecordAddr, plancheck.ResourceActionCreate),
					},
				},
			},
		},
	})
}
