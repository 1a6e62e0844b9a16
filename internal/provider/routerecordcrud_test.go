package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// The shared Read marks a record the model cannot describe as unreadable and keeps the rest of
// the state: fromRecord must refuse such a record before it changes anything.
func TestTenantAppFromRecord_RefusesAStaticRecordUntouched(t *testing.T) {
	m := tenantAppModel{Origin: types.StringValue("origin.kamui.test"), Port: types.Int64Value(8080), Rev: types.StringValue("abc")}
	before := m
	ok := m.fromRecord(route.Record{App: "shop", Status: route.StatusActive, Kind: route.KindStatic,
		Static: &route.Static{Prefix: "sites/shop/", Index: "index.html"}, Rev: "def"})
	if ok || m != before {
		t.Errorf("fromRecord(static) = %v, model %+v; want false and the model as it was", ok, m)
	}
}
