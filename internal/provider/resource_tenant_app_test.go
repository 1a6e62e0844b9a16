package provider

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

const tenantAppAddr = "kamuidash_tenant_app.shop"

func tenantAppConfig(edge *testEdge, port int, extra string) string {
	return edge.providerBlock() + fmt.Sprintf(`
resource "kamuidash_kv_namespace" "routes" {
  title = "kamuidash-test-routes"
}

resource "kamuidash_tenant_app" "shop" {
  name                = "shop"
  routes_namespace_id = kamuidash_kv_namespace.routes.id
  origin              = "origin.kamui.test"
  namespace           = "tenant-shop"
  service             = "web"
  port                = %d
  %s
}
`, port, extra)
}

// storedRecord reads the app's record straight from the edge's KV, bypassing the provider.
func (e *testEdge) storedRecord(s *terraform.State, app string) (route.Record, route.Metadata, error) {
	ns := s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID
	entry, ok := e.KVValue(ns, app)
	if !ok {
		return route.Record{}, route.Metadata{}, fmt.Errorf("no KV value for %q", app)
	}
	rec, err := route.DecodeRecord(entry.Value)
	meta, _ := route.DecodeMetadata(entry.Metadata)
	return rec, meta, err
}

func TestAccTenantApp_Lifecycle(t *testing.T) {
	edge := newTestEdge(t)
	revChanges := statecheck.CompareValue(compare.ValuesDiffer())
	imported := importVerify{addr: tenantAppAddr, durations: []string{"timeout"}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             edge.checkNoKVNamespaces,
		Steps: []resource.TestStep{
			{
				Config: tenantAppConfig(edge, 8080, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(tenantAppAddr, tfjsonpath.New("platform_hostname"), knownvalue.StringExact("shop.kamui.test")),
					statecheck.ExpectKnownValue(tenantAppAddr, tfjsonpath.New("timeout"), knownvalue.StringExact("30s")),
					statecheck.ExpectKnownValue(tenantAppAddr, tfjsonpath.New("status"), knownvalue.StringExact("active")),
					statecheck.ExpectKnownValue(tenantAppAddr, tfjsonpath.New("rev"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{24}$`))),
					revChanges.AddStateValue(tenantAppAddr, tfjsonpath.New("rev")),
				},
				Check: func(s *terraform.State) error {
					rec, meta, err := edge.storedRecord(s, "shop")
					if err != nil {
						return err
					}
					want := route.Dynamic{Origin: "origin.kamui.test", Upstream: "tenant-shop/web:8080", TimeoutMS: 30000}
					if rec.Kind != route.KindDynamic || !reflect.DeepEqual(*rec.Dynamic, want) || rec.Status != route.StatusActive {
						return fmt.Errorf("stored record = %+v %+v", rec, rec.Dynamic)
					}
					if meta.Owner != ownerTenantApp || meta.Rev != rec.Rev || meta.V != route.SchemaVersion {
						return fmt.Errorf("stored metadata = %+v", meta)
					}
					if rev := s.RootModule().Resources[tenantAppAddr].Primary.Attributes["rev"]; rev != rec.Rev {
						return fmt.Errorf("state rev %s != stored rev %s", rev, rec.Rev)
					}
					// A create purges nothing (kvStore.create): a new host can only have a negative entry.
					return edge.expectNotPurged("https://kamui-internal.kamui.test/route/v1/shop.kamui.test")
				},
			},
			{
				// Moving the app is an in-place update with a new rev, known at plan time.
				Config: tenantAppConfig(edge, 9090, `timeout = "2500ms"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(tenantAppAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(tenantAppAddr, tfjsonpath.New("rev"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{24}$`))),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					revChanges.AddStateValue(tenantAppAddr, tfjsonpath.New("rev")),
					statecheck.ExpectKnownValue(tenantAppAddr, tfjsonpath.New("timeout"), knownvalue.StringExact("2500ms")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(func(s *terraform.State) error {
					rec, _, err := edge.storedRecord(s, "shop")
					if err != nil {
						return err
					}
					if rec.Dynamic.Upstream != "tenant-shop/web:9090" || rec.Dynamic.TimeoutMS != 2500 {
						return fmt.Errorf("stored record after the move = %+v", rec.Dynamic)
					}
					return edge.expectPurged("https://kamui-internal.kamui.test/route/v1/shop.kamui.test")
				}, imported.remember),
			},
			{
				ResourceName: tenantAppAddr,
				ImportState:  true,
				// An import reads 2500 ms back as Go prints it, "2.5s": the same duration as the
				// configuration's "2500ms", which is all the check asks of a duration.
				ImportStateCheck: imported.check,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return s.RootModule().Resources[tenantAppAddr].Primary.ID, nil
				},
			},
		},
	})
}

// A timeout spelled otherwise than the state has is the same value, whether the state got its
// spelling from an apply or from an import (which reads a duration back as Go prints it): the
// plan shows no change. Another duration is a change.
func TestAccTenantApp_DurationSpellingsPlanNoChange(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: tenantAppConfig(edge, 8080, `timeout = "2.5s"`)},
			{
				Config: tenantAppConfig(edge, 8080, `timeout = "2500ms"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(tenantAppAddr, tfjsonpath.New("timeout"), knownvalue.StringExact("2.5s")),
				},
			},
			{
				// The import reads "2.5s"; the import block's plan must be the import alone.
				Config:          tenantAppConfig(edge, 8080, `timeout = "2500ms"`),
				ResourceName:    tenantAppAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return s.RootModule().Resources[tenantAppAddr].Primary.ID, nil
				},
			},
			{
				Config: tenantAppConfig(edge, 8080, `timeout = "2501ms"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tenantAppAddr, plancheck.ResourceActionUpdate)},
				},
				Check: func(s *terraform.State) error {
					rec, _, err := edge.storedRecord(s, "shop")
					if err == nil && rec.Dynamic.TimeoutMS != 2501 {
						err = fmt.Errorf("stored timeout %d ms, want 2501", rec.Dynamic.TimeoutMS)
					}
					return err
				},
			},
		},
	})
}

func TestAccTenantApp_DriftIsShownAndRepaired(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: tenantAppConfig(edge, 8080, ""),
				Check: func(s *terraform.State) error {
					// Someone moves the app by hand, writing the KV value directly.
					ns := s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID
					value, rec, err := route.EncodeRecord(route.Record{App: "shop", Status: route.StatusActive, Kind: route.KindDynamic,
						Dynamic: &route.Dynamic{Origin: "origin.kamui.test", Upstream: "tenant-shop/web:7070", TimeoutMS: 30000}})
					if err != nil {
						return err
					}
					return edge.client(t).KVPut(context.Background(), edge.Identity().AccountID, ns, "shop", value, route.EncodeMetadata(rec.Rev, ownerTenantApp))
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: tenantAppConfig(edge, 8080, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tenantAppAddr, plancheck.ResourceActionUpdate)},
				},
				Check: func(s *terraform.State) error {
					rec, _, err := edge.storedRecord(s, "shop")
					if err == nil && rec.Dynamic.Upstream != "tenant-shop/web:8080" {
						err = fmt.Errorf("drift not repaired: %s", rec.Dynamic.Upstream)
					}
					if err != nil {
						return err
					}
					// Now the value is deleted by hand: the next plan recreates it.
					ns := s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID
					return edge.client(t).KVDelete(context.Background(), edge.Identity().AccountID, ns, "shop")
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: tenantAppConfig(edge, 8080, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tenantAppAddr, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
}

func TestAccTenantApp_ExistingRecordAsksForImport(t *testing.T) {
	edge := newTestEdge(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: edge.providerBlock() + `resource "kamuidash_kv_namespace" "routes" { title = "kamuidash-test-routes" }`,
				Check: func(s *terraform.State) error {
					ns := s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID
					value, rec, _ := route.EncodeRecord(route.Record{App: "shop", Status: route.StatusActive, Kind: route.KindStatic,
						Static: &route.Static{Prefix: "sites/shop/1/", Index: "index.html"}})
					return edge.client(t).KVPut(context.Background(), edge.Identity().AccountID, ns, "shop", value, route.EncodeMetadata(rec.Rev, "other-tool"))
				},
			},
			{
				Config:      tenantAppConfig(edge, 8080, ""),
				ExpectError: regexp.MustCompile(`(?s)Route Record Already Exists.*other-tool.*terraform\s+import`),
			},
			{
				// Nothing was overwritten.
				Config: edge.providerBlock() + `resource "kamuidash_kv_namespace" "routes" { title = "kamuidash-test-routes" }`,
				Check: func(s *terraform.State) error {
					rec, meta, err := edge.storedRecord(s, "shop")
					if err != nil {
						return err
					}
					if rec.Kind != route.KindStatic || meta.Owner != "other-tool" {
						return fmt.Errorf("the existing record was changed: %+v %+v", rec, meta)
					}
					return nil
				},
			},
		},
	})
}

func TestAccTenantApp_ValidatedAtPlan(t *testing.T) {
	edge := newTestEdge(t)
	for name, tc := range map[string]struct{ extra, want string }{
		"timeout": {`timeout = "5m"`, `timeout.*between 100ms and 90s`},
		"status":  {`status = "live"`, `status.*value must be one of`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      tenantAppConfig(edge, 8080, tc.extra),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`(?s)` + tc.want),
				}},
			})
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: edge.providerBlock() + `
resource "kamuidash_tenant_app" "www" {
  name                = "www"
  routes_namespace_id = "0123456789abcdef0123456789abcdef"
  origin              = "origin.kamui.test"
  namespace           = "tenant-www"
  service             = "web"
  port                = 70000
}`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)reserved by the platform.*port`),
		}},
	})
}

func (e *testEdge) expectNotPurged(url string) error {
	if err := e.expectPurged(url); err == nil {
		return fmt.Errorf("%s was purged; purges: %+v", url, e.Purges())
	}
	return nil
}

func (e *testEdge) expectPurged(url string) error {
	for _, p := range e.Purges() {
		if slices.Contains(p.Files, url) {
			return nil
		}
	}
	return fmt.Errorf("%s was not purged; purges: %+v", url, e.Purges())
}

// A record written elsewhere is taken over by importing it, as the create's refusal advises:
// the imported app then changes and deletes the key like one it created, and its first write
// stamps it as the owner.
func TestAccTenantApp_ImportTakesOverARecordWrittenElsewhere(t *testing.T) {
	edge := newTestEdge(t)
	namespaceOnly := edge.providerBlock() + `resource "kamuidash_kv_namespace" "routes" { title = "kamuidash-test-routes" }`
	writtenElsewhere := func(s *terraform.State) error {
		ns := s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID
		value, rec, _ := route.EncodeRecord(route.Record{App: "shop", Status: route.StatusActive, Kind: route.KindDynamic,
			Dynamic: &route.Dynamic{Origin: "origin.kamui.test", Upstream: "tenant-shop/web:8080", TimeoutMS: 30000}})
		return edge.client(t).KVPut(context.Background(), edge.Identity().AccountID, ns, "shop", value, route.EncodeMetadata(rec.Rev, "other-tool"))
	}
	importBlock := `
import {
  to = kamuidash_tenant_app.shop
  id = "${kamuidash_kv_namespace.routes.id}/shop"
}`
	t.Run("update", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			Steps: []resource.TestStep{
				{Config: namespaceOnly, Check: writtenElsewhere},
				{
					Config: tenantAppConfig(edge, 8081, "") + importBlock,
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tenantAppAddr, plancheck.ResourceActionUpdate)},
					},
					Check: func(s *terraform.State) error {
						rec, meta, err := edge.storedRecord(s, "shop")
						if err != nil {
							return err
						}
						if rec.Dynamic.Upstream != "tenant-shop/web:8081" || meta.Owner != ownerTenantApp {
							return fmt.Errorf("stored = %+v %+v", rec.Dynamic, meta)
						}
						return nil
					},
				},
			},
		})
	})
	t.Run("delete", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			Steps: []resource.TestStep{
				{Config: namespaceOnly, Check: writtenElsewhere},
				{
					Config: tenantAppConfig(edge, 8080, "") + importBlock,
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tenantAppAddr, plancheck.ResourceActionNoop)},
					},
				},
				{
					Config: namespaceOnly,
					Check: func(s *terraform.State) error {
						if _, _, err := edge.storedRecord(s, "shop"); err == nil {
							return fmt.Errorf("the imported app was destroyed, but its record is still there")
						}
						return nil
					},
				},
			},
		})
	})
}

// failFilterWrites is a local edge middleware that refuses every write of a namespace's name
// filter while failing is set.
func failFilterWrites(failing *atomic.Bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if failing.Load() && r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/values/"+route.FilterKey) {
				http.Error(w, `{"success":false,"errors":[{"code":10000,"message":"injected"}]}`, http.StatusBadRequest)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// filterAdmits reports whether namespace ns holds a name filter that admits name.
func (e *testEdge) filterAdmits(ns, name string) bool {
	entry, ok := e.KVValue(ns, route.FilterKey)
	if !ok {
		return false
	}
	f, err := route.DecodeFilter(entry.Value)
	return err == nil && f.Has(name)
}

// A name filter that could not be rebuilt after a create is a warning that says to apply
// again; the next apply must then rebuild it, though the record itself has nothing to change:
// until then the edge refuses the app's host.
func TestAccTenantApp_FilterNotRebuiltIsRebuiltByTheNextApply(t *testing.T) {
	var failing atomic.Bool
	edge := newTestEdgeBehind(t, failFilterWrites(&failing))
	admitted := func(s *terraform.State) bool {
		return edge.filterAdmits(s.RootModule().Resources["kamuidash_kv_namespace.routes"].Primary.ID, "shop")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { failing.Store(true) },
				Config:    tenantAppConfig(edge, 8080, ""),
				// The next plan updates the app, to rebuild the filter.
				ExpectNonEmptyPlan: true,
				Check: func(s *terraform.State) error {
					if admitted(s) {
						return fmt.Errorf("the filter admits the app although every write of it failed")
					}
					return nil
				},
			},
			{
				PreConfig: func() { failing.Store(false) },
				Config:    tenantAppConfig(edge, 8080, ""),
				Check: func(s *terraform.State) error {
					if !admitted(s) {
						return fmt.Errorf("after the next apply the name filter still refuses the app")
					}
					return nil
				},
			},
			{
				Config: tenantAppConfig(edge, 8080, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}
