package cloudflare

import (
	"context"
	"strings"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/zones"
)

// Zone is the part of a zone the provider uses to resolve zone_name.
type Zone struct {
	ID        string
	Name      string
	Status    string
	AccountID string
}

// ActiveZonesNamed lists the active zones of accountID called name, filtered by the API
// (name, account.id, status=active) and again here, so that an API that ignored a filter
// cannot hand over a neighbour. name is compared without regard to case, as DNS names are.
// Every page is read: more than one zone is the caller's ambiguity to report, with all of
// their ids.
func (c *Client) ActiveZonesNamed(ctx context.Context, accountID, name string) ([]Zone, error) {
	pager := c.Zones.ListAutoPaging(ctx, zones.ZoneListParams{
		Name:    cf.F(name),
		Account: cf.F(zones.ZoneListParamsAccount{ID: cf.F(accountID)}),
		Status:  cf.F(zones.ZoneListParamsStatusActive),
	})
	var out []Zone
	for pager.Next() {
		z := pager.Current()
		if strings.EqualFold(z.Name, name) && z.Account.ID == accountID && z.Status == zones.ZoneStatusActive {
			out = append(out, Zone{ID: z.ID, Name: z.Name, Status: string(z.Status), AccountID: z.Account.ID})
		}
	}
	return out, pager.Err()
}
