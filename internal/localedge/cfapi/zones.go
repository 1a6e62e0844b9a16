package cfapi

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// AccountName is the name the local edge gives its one account where an answer carries one
// (a zone's account and owner).
const AccountName = "KamuiDash local edge"

// ZoneStatusActive is the status of the local edge's zone: it is served from the start, with
// no nameserver change to wait for.
const ZoneStatusActive = "active"

// zoneDetailsRoute is the zone's own details. The zone id in its path is the object looked up,
// not a scope: an unknown one is answered as not found (checkScope lets it through).
const zoneDetailsRoute = APIPrefix + "/zones/{zone_id}"

func (s *Server) registerZoneRoutes() {
	s.mux.HandleFunc("GET "+APIPrefix+"/zones", s.handleJSON(s.listZones))
	s.mux.HandleFunc("GET "+zoneDetailsRoute, s.handleJSON(s.getZone))
}

// zoneView is a zone as the API answers it: the fields the OpenAPI description requires, with
// what a free, full-setup zone shows. The local edge assigns no nameservers, and the zone
// never moved from another DNS host, so those fields are empty or null.
type zoneView struct {
	ID                  string    `json:"id"`
	Name                string    `json:"name"`
	Status              string    `json:"status"`
	Type                string    `json:"type"`
	Paused              bool      `json:"paused"`
	DevelopmentMode     int       `json:"development_mode"`
	NameServers         []string  `json:"name_servers"`
	VanityNameServers   []string  `json:"vanity_name_servers"`
	OriginalNameServers []string  `json:"original_name_servers"`
	OriginalRegistrar   *string   `json:"original_registrar"`
	OriginalDNSHost     *string   `json:"original_dnshost"`
	CreatedOn           time.Time `json:"created_on"`
	ModifiedOn          time.Time `json:"modified_on"`
	ActivatedOn         time.Time `json:"activated_on"`
	Account             zoneParty `json:"account"`
	Owner               zoneOwner `json:"owner"`
	Meta                zoneMeta  `json:"meta"`
	Plan                zonePlan  `json:"plan"`
}

type zoneParty struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type zoneOwner struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

type zoneMeta struct {
	Step                   int  `json:"step"`
	CustomCertificateQuota int  `json:"custom_certificate_quota"`
	PageRuleQuota          int  `json:"page_rule_quota"`
	PhishingDetected       bool `json:"phishing_detected"`
	CDNOnly                bool `json:"cdn_only"`
	DNSOnly                bool `json:"dns_only"`
	FoundationDNS          bool `json:"foundation_dns"`
}

type zonePlan struct {
	ID                string  `json:"id"`
	Name              string  `json:"name"`
	Price             float64 `json:"price"`
	Currency          string  `json:"currency"`
	Frequency         string  `json:"frequency"`
	IsSubscribed      bool    `json:"is_subscribed"`
	CanSubscribe      bool    `json:"can_subscribe"`
	LegacyID          string  `json:"legacy_id"`
	LegacyDiscount    bool    `json:"legacy_discount"`
	ExternallyManaged bool    `json:"externally_managed"`
}

// zoneDetails is the local edge's one zone; callers hold s.mu.
func (s *Server) zoneDetails() zoneView {
	id := s.identity
	return zoneView{
		ID:                id.ZoneID,
		Name:              id.ZoneName,
		Status:            ZoneStatusActive,
		Type:              "full",
		NameServers:       []string{},
		VanityNameServers: []string{},
		CreatedOn:         id.ZoneCreatedOn,
		ModifiedOn:        id.ZoneCreatedOn,
		ActivatedOn:       id.ZoneCreatedOn,
		Account:           zoneParty{ID: id.AccountID, Name: AccountName},
		Owner:             zoneOwner{ID: id.AccountID, Name: AccountName, Type: "organization"},
		Meta:              zoneMeta{Step: 2, PageRuleQuota: 3},
		// A free plan; the local edge has no billing, so nothing reads it but a client decoding the zone.
		Plan: zonePlan{ID: "0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee", Name: "Free Website", Currency: "USD", LegacyID: "free"},
	}
}

func (s *Server) getZone(r *http.Request) (any, any, func(), error) {
	if id := r.PathValue("zone_id"); id != s.identity.ZoneID {
		return nil, nil, nil, errNotFound("zone not found: " + id)
	}
	return s.zoneDetails(), nil, nil, nil
}

// listZones answers the zone listing with its filters: name and account.name (exact and
// case-insensitive by default, or "<operator>:<value>"), status, account.id and type (a zone
// of type internal only when asked for), combined as match says (all by default, or any).
// Ordering is moot with one zone. Filters the local edge does not know are refused rather
// than ignored, so a client never reads an unfiltered listing as a filtered one.
func (s *Server) listZones(r *http.Request) (any, any, func(), error) {
	q := r.URL.Query()
	for key := range q {
		switch key {
		case "name", "status", "account.id", "account.name", "type", "match", "order", "direction", "page", "per_page":
		default:
			return nil, nil, nil, errBadRequest("the local edge does not implement the zone listing's " + key + " parameter")
		}
	}
	zone := s.zoneDetails()
	var checks []bool
	for _, f := range []struct{ param, value string }{{"name", zone.Name}, {"account.name", zone.Account.Name}} {
		if v := q.Get(f.param); v != "" {
			ok, err := matchNameFilter(f.param, v, f.value)
			if err != nil {
				return nil, nil, nil, err
			}
			checks = append(checks, ok)
		}
	}
	if v := q.Get("status"); v != "" {
		checks = append(checks, v == zone.Status)
	}
	if v := q.Get("account.id"); v != "" {
		checks = append(checks, v == zone.Account.ID)
	}
	matchAny := false
	switch q.Get("match") {
	case "", "all":
	case "any":
		matchAny = true
	default:
		return nil, nil, nil, errBadRequest("match must be any or all")
	}
	// Without a filter every zone matches, whichever way they combine.
	selected := !slices.Contains(checks, false)
	if matchAny && len(checks) > 0 {
		selected = slices.Contains(checks, true)
	}
	selected = selected && typeSelected(q["type"], zone.Type)
	zones := []zoneView{}
	if selected {
		zones = append(zones, zone)
	}
	page, info, err := paginate(r, zones, 20, 50)
	return page, info, nil, err
}

// typeSelected reports whether a zone of type typ is listed for the type parameter's values
// (repeated or comma-separated): without any, every type but internal.
func typeSelected(values []string, typ string) bool {
	if len(values) == 0 {
		return typ != "internal"
	}
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			if t == typ {
				return true
			}
		}
	}
	return false
}

// matchNameFilter applies a name filter, "<operator>:<value>" or a bare value (equal), to
// name. Operators without the _case_sensitive suffix ignore case.
func matchNameFilter(param, filter, name string) (bool, error) {
	op, value, found := strings.Cut(filter, ":")
	if !found {
		op, value = "equal", filter
	}
	base, caseSensitive := strings.CutSuffix(op, "_case_sensitive")
	if !caseSensitive {
		value, name = strings.ToLower(value), strings.ToLower(name)
	}
	switch {
	case op == "equal":
		return name == value, nil
	case op == "not_equal":
		return name != value, nil
	case base == "starts_with":
		return strings.HasPrefix(name, value), nil
	case base == "ends_with":
		return strings.HasSuffix(name, value), nil
	case base == "contains":
		return strings.Contains(name, value), nil
	}
	return false, errBadRequest(param + " has an unknown operator " + op + "; use equal, not_equal, starts_with, ends_with or contains " +
		"(the last three also with _case_sensitive)")
}
