package cfapi

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/zones"
)

// TestZones_GetAndListByName: the zone's details by id (an unknown id is Cloudflare's 404
// envelope), and the listing the provider resolves zone_name with, every filter honoured.
func TestZones_GetAndListByName(t *testing.T) {
	created := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	dir := t.TempDir()
	srv, ts := startServer(t, Config{StateDir: dir, ZoneName: "kamui.test", Now: func() time.Time { return created }})
	id := srv.Identity()
	api := newClient(ts.URL, id.APIToken, 0)
	ctx := context.Background()

	z, err := api.Zones.Get(ctx, zones.ZoneGetParams{ZoneID: cloudflare.F(id.ZoneID)})
	must(t, "get the zone", err)
	if z.ID != id.ZoneID || z.Name != "kamui.test" || z.Status != zones.ZoneStatusActive || z.Type != zones.TypeFull ||
		z.Account.ID != id.AccountID || z.Account.Name != AccountName || !z.CreatedOn.Equal(created) || !z.ActivatedOn.Equal(created) {
		t.Errorf("zone details = %+v", z)
	}

	const unknown = "00000000000000000000000000000000"
	_, err = api.Zones.Get(ctx, zones.ZoneGetParams{ZoneID: cloudflare.F(unknown)})
	wantAPIError(t, "an unknown zone id", err, http.StatusNotFound)
	resp, env := rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/zones/"+unknown, id.APIToken, nil)
	if resp.StatusCode != http.StatusNotFound || env.Success || env.firstCode() != codeNotFound || string(env.Result) != "null" {
		t.Errorf("unknown zone: HTTP %d, envelope %+v; want 404, success false, code %d, result null", resp.StatusCode, env, codeNotFound)
	}

	list := func(params zones.ZoneListParams) []string {
		t.Helper()
		page, err := api.Zones.List(ctx, params)
		must(t, "list zones", err)
		ids := []string{}
		for _, z := range page.Result {
			ids = append(ids, z.ID)
		}
		return ids
	}
	byName := func(name, account string, status zones.ZoneListParamsStatus) zones.ZoneListParams {
		return zones.ZoneListParams{
			Name:    cloudflare.F(name),
			Account: cloudflare.F(zones.ZoneListParamsAccount{ID: cloudflare.F(account)}),
			Status:  cloudflare.F(status),
		}
	}
	for _, c := range []struct {
		what   string
		params zones.ZoneListParams
		found  bool
	}{
		{"no filter", zones.ZoneListParams{}, true},
		{"the provider's lookup", byName("kamui.test", id.AccountID, zones.ZoneListParamsStatusActive), true},
		{"a name in another case", byName("Kamui.Test", id.AccountID, zones.ZoneListParamsStatusActive), true},
		{"an unknown name", byName("other.test", id.AccountID, zones.ZoneListParamsStatusActive), false},
		{"a parent of the zone's name", byName("test", id.AccountID, zones.ZoneListParamsStatusActive), false},
		{"another account", byName("kamui.test", unknown, zones.ZoneListParamsStatusActive), false},
		{"another status", byName("kamui.test", id.AccountID, zones.ZoneListParamsStatusPending), false},
		{"an operator", zones.ZoneListParams{Name: cloudflare.F("ends_with:.TEST")}, true},
		{"a case-sensitive operator", zones.ZoneListParams{Name: cloudflare.F("ends_with_case_sensitive:.TEST")}, false},
		{"match any", zones.ZoneListParams{Name: cloudflare.F("other.test"), Status: cloudflare.F(zones.ZoneListParamsStatusActive),
			Match: cloudflare.F(zones.ZoneListParamsMatchAny)}, true},
		{"match all", zones.ZoneListParams{Name: cloudflare.F("other.test"), Status: cloudflare.F(zones.ZoneListParamsStatusActive)}, false},
		{"another type", zones.ZoneListParams{Type: cloudflare.F([]zones.ZoneListParamsType{zones.ZoneListParamsTypePartial})}, false},
		{"its type", zones.ZoneListParams{Type: cloudflare.F([]zones.ZoneListParamsType{zones.ZoneListParamsTypePartial, zones.ZoneListParamsTypeFull})}, true},
	} {
		got := list(c.params)
		if want := c.found; (len(got) == 1 && got[0] == id.ZoneID) != want || len(got) > 1 {
			t.Errorf("%s: listed %v; want the zone %v", c.what, got, want)
		}
	}

	// The envelope's result_info counts what matched; a page past the end is empty.
	for _, c := range []struct {
		query                              string
		page, perPage, count, total, pages int
	}{
		{"name=kamui.test&status=active&account.id=" + id.AccountID, 1, 20, 1, 1, 1},
		{"name=other.test", 1, 20, 0, 0, 0},
		{"page=2&per_page=5", 2, 5, 0, 1, 1},
	} {
		resp, env := rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/zones?"+c.query, id.APIToken, nil)
		want := map[string]any{"page": float64(c.page), "per_page": float64(c.perPage),
			"count": float64(c.count), "total_count": float64(c.total), "total_pages": float64(c.pages)}
		if resp.StatusCode != http.StatusOK || !env.Success || !maps.Equal(env.Info, want) {
			t.Errorf("%s: HTTP %d, result_info %v; want %v", c.query, resp.StatusCode, env.Info, want)
		}
	}

	// What the local edge cannot honour is refused, never answered unfiltered.
	for _, query := range []url.Values{{"name": {"bogus:kamui"}}, {"match": {"some"}}, {"tenant.id": {unknown}}} {
		resp, env := rawRequest(t, http.MethodGet, ts.URL+APIPrefix+"/zones?"+query.Encode(), id.APIToken, nil)
		if resp.StatusCode != http.StatusBadRequest || env.firstCode() != codeBadRequest {
			t.Errorf("%v: HTTP %d %+v; want 400", query, resp.StatusCode, env.Errors)
		}
	}

	// The zone keeps its creation time across a restart.
	again, _ := startServer(t, Config{StateDir: dir, Now: func() time.Time { return created.Add(time.Hour) }})
	again.mu.Lock()
	defer again.mu.Unlock()
	if got := again.zoneDetails().CreatedOn; !got.Equal(created) {
		t.Errorf("after a restart the zone was created on %v; want %v", got, created)
	}
}
