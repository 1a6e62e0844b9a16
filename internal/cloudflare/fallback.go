package cloudflare

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/dns"
)

// The fallback origin's statuses (cloudflare-go's FallbackOrigin*ResponseStatus values).
const (
	FallbackInitializing       = "initializing"
	FallbackPendingDeployment  = "pending_deployment"
	FallbackActive             = "active"
	FallbackDeploymentTimedOut = "deployment_timed_out"
	FallbackPendingDeletion    = "pending_deletion"
	FallbackDeletionTimedOut   = "deletion_timed_out"
)

// PlaceholderAddress is the conventional content of the proxied record of a hostname that only
// a Worker serves: the IPv6 discard prefix, so nothing is ever reached behind it.
const PlaceholderAddress = "100::"

// FallbackOrigin is the SaaS zone's fallback origin: where custom hostnames without a custom
// origin send their traffic. cloudflare-go returns a different type from each call; decoding
// each one's raw JSON into this one keeps the resource free of three copies.
type FallbackOrigin struct {
	Origin string   `json:"origin"`
	Status string   `json:"status"`
	Errors []string `json:"errors"`
}

func decodeFallbackOrigin(raw string) (*FallbackOrigin, error) {
	var f FallbackOrigin
	if err := json.Unmarshal([]byte(raw), &f); err != nil {
		return nil, fmt.Errorf("decoding the fallback origin: %w", err)
	}
	return &f, nil
}

// GetFallbackOrigin reads the zone's fallback origin; found is false when the zone has none.
func (c *Client) GetFallbackOrigin(ctx context.Context, zoneID string) (f *FallbackOrigin, found bool, err error) {
	res, err := c.CustomHostnames.FallbackOrigin.Get(ctx, custom_hostnames.FallbackOriginGetParams{ZoneID: cf.F(zoneID)})
	if isStatus(err, http.StatusNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	f, err = decodeFallbackOrigin(res.JSON.RawJSON())
	return f, err == nil, err
}

// SetFallbackOrigin sets (or moves) the zone's fallback origin to origin, a hostname in the
// zone with a proxied record; activation follows asynchronously.
func (c *Client) SetFallbackOrigin(ctx context.Context, zoneID, origin string) (*FallbackOrigin, error) {
	res, err := c.CustomHostnames.FallbackOrigin.Update(ctx, custom_hostnames.FallbackOriginUpdateParams{
		ZoneID: cf.F(zoneID),
		Origin: cf.F(origin),
	})
	if err != nil {
		return nil, err
	}
	return decodeFallbackOrigin(res.JSON.RawJSON())
}

// DeleteFallbackOrigin removes the zone's fallback origin; one already gone is not an error
// (the answer is then nil).
func (c *Client) DeleteFallbackOrigin(ctx context.Context, zoneID string) (*FallbackOrigin, error) {
	res, err := c.CustomHostnames.FallbackOrigin.Delete(ctx, custom_hostnames.FallbackOriginDeleteParams{ZoneID: cf.F(zoneID)})
	if isStatus(err, http.StatusNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decodeFallbackOrigin(res.JSON.RawJSON())
}

// UpsertPlaceholderRecord points name at PlaceholderAddress with a proxied AAAA record,
// updating recordID when set: the record a Worker-served hostname needs so that Cloudflare
// proxies it (the fallback origin's, for one). comment says who manages it.
func (c *Client) UpsertPlaceholderRecord(ctx context.Context, zoneID, recordID, name, comment string) (*DNSRecord, error) {
	return c.upsertDNSRecord(ctx, zoneID, recordID, dns.AAAARecordParam{
		Name:    cf.F(name),
		Type:    cf.F(dns.AAAARecordTypeAAAA),
		Content: cf.F(PlaceholderAddress),
		Proxied: cf.F(true),
		TTL:     cf.F(dns.TTL1),
		Comment: cf.F(comment),
	})
}
