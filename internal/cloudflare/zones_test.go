package cloudflare

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"testing"
)

// TestActiveZonesNamed_FiltersAgainAndPagesOnlyAfterAFullPage: the lookup sends the name,
// account and status filters; it keeps only exact (any-case) names of that account that are
// active, whatever the API handed back; it asks for a next page only after a full one.
func TestActiveZonesNamed_FiltersAgainAndPagesOnlyAfterAFullPage(t *testing.T) {
	const account = "0123456789abcdef0123456789abcdef"
	zone := func(id, name, accountID, status string) map[string]any {
		return map[string]any{"id": id, "name": name, "status": status, "account": map[string]any{"id": accountID, "name": "a"}}
	}
	for _, c := range []struct {
		what      string
		pages     [][]map[string]any
		wantIDs   []string
		wantCalls int
	}{
		{"one short page", [][]map[string]any{{zone("z1", "Kamui.Test", account, "active")}}, []string{"z1"}, 1},
		{"nothing", [][]map[string]any{{}}, nil, 1},
		{"a full page, then the rest", [][]map[string]any{
			// An API that ignored the filters: neighbours fill the first page.
			append(slices.Repeat([]map[string]any{
				zone("other-account", "kamui.test", "ffffffffffffffffffffffffffffffff", "active"),
				zone("pending", "kamui.test", account, "pending"),
				zone("sub", "www.kamui.test", account, "active"),
				zone("parent", "test", account, "active"),
				zone("dotted", "kamui.test.", account, "active"),
			}, 9), zone("z1", "kamui.test", account, "active"), // 46 so far
				zone("x1", "a.test", account, "active"), zone("x2", "b.test", account, "active"),
				zone("x3", "c.test", account, "active"), zone("x4", "d.test", account, "active")),
			{zone("z2", "KAMUI.TEST", account, "active")},
		}, []string{"z1", "z2"}, 2},
	} {
		t.Run(c.what, func(t *testing.T) {
			var queries []url.Values
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				q := r.URL.Query()
				queries = append(queries, q)
				page, _ := strconv.Atoi(q.Get("page"))
				var result []map[string]any
				if page >= 1 && page <= len(c.pages) {
					result = c.pages[page-1]
				}
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]any{"success": true, "errors": []any{}, "messages": []any{},
					"result": result, "result_info": map[string]any{"page": page, "per_page": 50, "count": len(result)}})
			}))
			t.Cleanup(srv.Close)
			if n := len(c.pages[0]); c.wantCalls == 2 && n != zonesPerPage {
				t.Fatalf("the first page has %d zones; the case needs a full page of %d", n, zonesPerPage)
			}

			found, err := newTestClient(t, srv.URL, nil).ActiveZonesNamed(context.Background(), account, "kamui.test")
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, z := range found {
				ids = append(ids, z.ID)
			}
			if !slices.Equal(ids, c.wantIDs) {
				t.Errorf("found %v, want %v", ids, c.wantIDs)
			}
			if len(queries) != c.wantCalls {
				t.Errorf("%d listing calls, want %d", len(queries), c.wantCalls)
			}
			for i, q := range queries {
				want := url.Values{"name": {"kamui.test"}, "account.id": {account}, "status": {"active"},
					"page": {fmt.Sprint(i + 1)}, "per_page": {"50"}}
				for k, v := range want {
					if !slices.Equal(q[k], v) {
						t.Errorf("call %d sent %s=%v, want %v (query %v)", i+1, k, q[k], v, q)
					}
				}
			}
		})
	}
}
