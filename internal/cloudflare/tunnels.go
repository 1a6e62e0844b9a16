package cloudflare

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/zero_trust"
)

// TunnelTargetSuffix is appended to a tunnel's ID to form the CNAME target that routes a
// proxied hostname into the tunnel.
const TunnelTargetSuffix = ".cfargotunnel.com"

// Tunnel is the part of a remotely managed cloudflared tunnel the provider uses.
type Tunnel struct {
	ID      string
	Name    string
	Deleted bool
	Ingress []IngressRule
}

// IngressRule routes a hostname to a service; the last rule (no hostname) is the catch-all.
type IngressRule struct {
	Hostname string `json:"hostname"`
	Service  string `json:"service"`
}

// DNSRecord is the part of a DNS record the provider uses.
type DNSRecord struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Type    string `json:"type"`
	Content string `json:"content"`
	Proxied bool   `json:"proxied"`
}

// RoutesInto says whether r, a CNAME, routes its hostname into the tunnel: proxied, to the
// tunnel's target.
func (r *DNSRecord) RoutesInto(tunnelID string) bool {
	return r.Proxied && r.Content == tunnelID+TunnelTargetSuffix
}

// IsPlaceholder says whether r is the proxied placeholder of a hostname only a Worker serves
// (PlaceholderAddress).
func (r *DNSRecord) IsPlaceholder() bool { return r.Proxied && r.Content == PlaceholderAddress }

// CreateTunnel creates a remotely managed tunnel with a freshly generated secret. The secret is
// never returned: the connector authenticates with the token (TunnelToken).
func (c *Client) CreateTunnel(ctx context.Context, accountID, name string) (string, error) {
	secret, err := newTunnelSecret()
	if err != nil {
		return "", err
	}
	t, err := c.Tunnels.New(ctx, zero_trust.TunnelCloudflaredNewParams{
		AccountID:    cf.F(accountID),
		Name:         cf.F(name),
		ConfigSrc:    cf.F(zero_trust.TunnelCloudflaredNewParamsConfigSrcCloudflare),
		TunnelSecret: cf.F(secret),
	})
	if err != nil {
		return "", err
	}
	return t.ID, nil
}

// newTunnelSecret is a tunnel secret as the API takes it: 32 random bytes, base64.
func newTunnelSecret() (string, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(secret), nil
}

// FindTunnel returns the ID of the account's tunnel named name (names are unique among the
// tunnels not deleted); found is false when there is none.
func (c *Client) FindTunnel(ctx context.Context, accountID, name string) (id string, found bool, err error) {
	page, err := c.Tunnels.List(ctx, zero_trust.TunnelCloudflaredListParams{
		AccountID: cf.F(accountID),
		Name:      cf.F(name),
		IsDeleted: cf.F(false),
	})
	if err != nil {
		return "", false, err
	}
	for _, t := range page.Result {
		// An API that ignored the filter must not hand us a neighbour.
		if t.Name == name && t.DeletedAt.IsZero() {
			return t.ID, true, nil
		}
	}
	return "", false, nil
}

// GetTunnel reads a tunnel and its ingress configuration; found is false for a missing or
// deleted tunnel.
func (c *Client) GetTunnel(ctx context.Context, accountID, id string) (t *Tunnel, found bool, err error) {
	res, err := c.Tunnels.Get(ctx, id, zero_trust.TunnelCloudflaredGetParams{AccountID: cf.F(accountID)})
	if isStatus(err, http.StatusNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !res.DeletedAt.IsZero() {
		return nil, false, nil
	}
	t = &Tunnel{ID: res.ID, Name: res.Name}
	conf, err := c.Tunnels.Configurations.Get(ctx, id, zero_trust.TunnelCloudflaredConfigurationGetParams{AccountID: cf.F(accountID)})
	if err != nil && !isStatus(err, http.StatusNotFound) {
		return nil, false, err
	}
	if conf != nil {
		var raw struct {
			Config struct {
				Ingress []IngressRule `json:"ingress"`
			} `json:"config"`
		}
		if json.Unmarshal([]byte(conf.JSON.RawJSON()), &raw) == nil {
			t.Ingress = raw.Config.Ingress
		}
	}
	return t, true, nil
}

// RenameTunnel gives the tunnel another name, keeping its ID, secret (so its token), ingress
// and the records routing into it. The API refuses a name another tunnel of the account has.
func (c *Client) RenameTunnel(ctx context.Context, accountID, id, name string) error {
	_, err := c.Tunnels.Edit(ctx, id, zero_trust.TunnelCloudflaredEditParams{
		AccountID: cf.F(accountID),
		Name:      cf.F(name),
	})
	return err
}

// RotateTunnelSecret gives the tunnel a freshly generated secret, so a new connector token
// (TunnelToken); connectors started with the old token cannot connect again. Sending it twice
// (a lost answer retried) sends the same secret.
func (c *Client) RotateTunnelSecret(ctx context.Context, accountID, id string) error {
	secret, err := newTunnelSecret()
	if err != nil {
		return err
	}
	_, err = c.Tunnels.Edit(ctx, id, zero_trust.TunnelCloudflaredEditParams{
		AccountID:    cf.F(accountID),
		TunnelSecret: cf.F(secret),
	})
	return err
}

// SetTunnelIngress replaces the tunnel's ingress rules with originHost → service and a
// catch-all 404, so the connector answers nothing else.
func (c *Client) SetTunnelIngress(ctx context.Context, accountID, id, originHost, service string) error {
	_, err := c.Tunnels.Configurations.Update(ctx, id, zero_trust.TunnelCloudflaredConfigurationUpdateParams{
		AccountID: cf.F(accountID),
		Config: cf.F(zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfig{
			Ingress: cf.F([]zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfigIngress{
				{Hostname: cf.F(originHost), Service: cf.F(service)},
				{Hostname: cf.F(""), Service: cf.F("http_status:404")},
			}),
		}),
	})
	return err
}

// TunnelToken returns the connector token (a secret).
func (c *Client) TunnelToken(ctx context.Context, accountID, id string) (string, error) {
	tok, err := c.Tunnels.Token.Get(ctx, id, zero_trust.TunnelCloudflaredTokenGetParams{AccountID: cf.F(accountID)})
	if err != nil {
		return "", err
	}
	return *tok, nil
}

// DeleteTunnel cleans up the tunnel's connections, then deletes it; a missing tunnel is fine.
func (c *Client) DeleteTunnel(ctx context.Context, accountID, id string) error {
	_, err := c.Tunnels.Connections.Delete(ctx, id, zero_trust.TunnelCloudflaredConnectionDeleteParams{AccountID: cf.F(accountID)})
	if err != nil && !isStatus(err, http.StatusNotFound) {
		return err
	}
	_, err = c.Tunnels.Delete(ctx, id, zero_trust.TunnelCloudflaredDeleteParams{AccountID: cf.F(accountID)})
	if isStatus(err, http.StatusNotFound) {
		return nil
	}
	return err
}

// UpsertTunnelCNAME points name at the tunnel with a proxied CNAME, updating recordID when set.
func (c *Client) UpsertTunnelCNAME(ctx context.Context, zoneID, recordID, name, tunnelID string) (*DNSRecord, error) {
	return c.upsertDNSRecord(ctx, zoneID, recordID, dns.CNAMERecordParam{
		Name:    cf.F(name),
		Type:    cf.F(dns.CNAMERecordTypeCNAME),
		Content: cf.F(tunnelID + TunnelTargetSuffix),
		Proxied: cf.F(true),
		TTL:     cf.F(dns.TTL1),
		Comment: cf.F("managed by kamuidash_tunnel"),
	})
}

// recordBody is a record's parameters, which cloudflare-go accepts for both a create and a
// replace.
type recordBody interface {
	dns.RecordNewParamsBodyUnion
	dns.RecordUpdateParamsBodyUnion
}

// upsertDNSRecord creates the record, or replaces recordID with it when set.
func (c *Client) upsertDNSRecord(ctx context.Context, zoneID, recordID string, body recordBody) (*DNSRecord, error) {
	var res *dns.RecordResponse
	var err error
	if recordID == "" {
		res, err = c.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: cf.F(zoneID), Body: body})
	} else {
		res, err = c.DNS.Records.Update(ctx, recordID, dns.RecordUpdateParams{ZoneID: cf.F(zoneID), Body: body})
	}
	if err != nil {
		return nil, err
	}
	return decodeDNSRecord(res.JSON.RawJSON())
}

// GetDNSRecord reads one record; found is false when it does not exist.
func (c *Client) GetDNSRecord(ctx context.Context, zoneID, id string) (*DNSRecord, bool, error) {
	res, err := c.DNS.Records.Get(ctx, id, dns.RecordGetParams{ZoneID: cf.F(zoneID)})
	if isStatus(err, http.StatusNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	r, err := decodeDNSRecord(res.JSON.RawJSON())
	return r, err == nil, err
}

// FindDNSRecord finds the record of the given type and exact name.
func (c *Client) FindDNSRecord(ctx context.Context, zoneID, recordType, name string) (*DNSRecord, bool, error) {
	page, err := c.DNS.Records.List(ctx, dns.RecordListParams{
		ZoneID: cf.F(zoneID),
		Name:   cf.F(dns.RecordListParamsName{Exact: cf.F(name)}),
		Type:   cf.F(dns.RecordListParamsType(recordType)),
	})
	if err != nil {
		return nil, false, err
	}
	for _, item := range page.Result {
		r, err := decodeDNSRecord(item.JSON.RawJSON())
		if err != nil {
			return nil, false, err
		}
		if r.Name == name && r.Type == recordType {
			return r, true, nil
		}
	}
	return nil, false, nil
}

// DeleteDNSRecord deletes a record; one already gone is not an error.
func (c *Client) DeleteDNSRecord(ctx context.Context, zoneID, id string) error {
	_, err := c.DNS.Records.Delete(ctx, id, dns.RecordDeleteParams{ZoneID: cf.F(zoneID)})
	if isStatus(err, http.StatusNotFound) {
		return nil
	}
	return err
}

func decodeDNSRecord(raw string) (*DNSRecord, error) {
	var r DNSRecord
	return &r, json.Unmarshal([]byte(raw), &r)
}
