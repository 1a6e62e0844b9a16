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

// zonesPerPage is the zone listing's largest page.
const zonesPerPage = 50

// ActiveZonesNamed lists the active zones of accountID called name, filtered by the API
// (name, account.id, status=active) and again here, so that an API that ignored a filter
// cannot hand over a neighbour. name is compared without regard to case, as DNS names are.
// It is one call: a next page is asked for only after a full one (cloudflare-go's auto-pager
// would always ask for a second, empty page). More than one zone is the caller's ambiguity
// to report, with all of their IDs.
func (c *Client) ActiveZonesNamed(ctx context.Context, accountID, name string) ([]Zone, error) {
	var out []Zone
	for page := 1; ; page++ {
		res, err := c.Zones.List(ctx, zones.ZoneListParams{
			Name:    cf.F(name),
			Account: cf.F(zones.ZoneListParamsAccount{ID: cf.F(accountID)}),
			Status:  cf.F(zones.ZoneListParamsStatusActive),
			Page:    cf.F(float64(page)),
			PerPage: cf.F(float64(zonesPerPage)),
		})
		if err != nil {
			return nil, err
		}
		for _, z := range res.Result {
			if strings.EqualFold(z.Name, name) && z.Account.ID == accountID && z.Status == zones.ZoneStatusActive {
				out = append(out, Zone{ID: z.ID, Name: z.Name, Status: string(z.Status), AccountID: z.Account.ID})
			}
		}
		if len(res.Result) < zonesPerPage {
			return out, nil
		}
	}
}
