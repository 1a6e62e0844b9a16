package cloudflare

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
)

// CustomHostname is the part of a Cloudflare for SaaS custom hostname the provider uses.
// cloudflare-go returns a different Go type from each call (new, get, list, edit); decoding each
// one's raw JSON into this single type keeps the resource code free of four copies.
type CustomHostname struct {
	ID                    string   `json:"id"`
	Hostname              string   `json:"hostname"`
	Status                string   `json:"status"`
	CustomOriginServer    string   `json:"custom_origin_server"`
	VerificationErrors    []string `json:"verification_errors"`
	OwnershipVerification struct {
		Name  string `json:"name"`
		Type  string `json:"type"`
		Value string `json:"value"`
	} `json:"ownership_verification"`
	SSL struct {
		Status            string `json:"status"`
		Method            string `json:"method"`
		ValidationRecords []struct {
			TXTName  string `json:"txt_name"`
			TXTValue string `json:"txt_value"`
		} `json:"validation_records"`
		ValidationErrors []struct {
			Message string `json:"message"`
		} `json:"validation_errors"`
	} `json:"ssl"`
}

// Active reports whether both the hostname and its certificate are live.
func (h *CustomHostname) Active() bool {
	return h.Status == "active" && h.SSL.Status == "active"
}

func decodeHostname(raw string) (*CustomHostname, error) {
	var h CustomHostname
	if err := json.Unmarshal([]byte(raw), &h); err != nil {
		return nil, fmt.Errorf("decoding custom hostname: %w", err)
	}
	return &h, nil
}

// CreateCustomHostname creates hostname with a DV certificate validated by TXT record.
func (c *Client) CreateCustomHostname(ctx context.Context, zoneID, hostname, originServer string) (*CustomHostname, error) {
	params := custom_hostnames.CustomHostnameNewParams{
		ZoneID:   cf.F(zoneID),
		Hostname: cf.F(hostname),
		SSL: cf.F(custom_hostnames.CustomHostnameNewParamsSSL{
			Method: cf.F(custom_hostnames.DCVMethodTXT),
			Type:   cf.F(custom_hostnames.DomainValidationTypeDv),
		}),
	}
	if originServer != "" {
		params.CustomOriginServer = cf.F(originServer)
	}
	res, err := c.CustomHostnames.New(ctx, params)
	if err != nil {
		return nil, err
	}
	return decodeHostname(res.JSON.RawJSON())
}

// GetCustomHostname reads one hostname by ID; found is false when it does not exist.
func (c *Client) GetCustomHostname(ctx context.Context, zoneID, id string) (h *CustomHostname, found bool, err error) {
	res, err := c.CustomHostnames.Get(ctx, id, custom_hostnames.CustomHostnameGetParams{ZoneID: cf.F(zoneID)})
	if isStatus(err, http.StatusNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	h, err = decodeHostname(res.JSON.RawJSON())
	return h, err == nil, err
}

// FindCustomHostname looks a hostname up by exact name (never a substring match).
func (c *Client) FindCustomHostname(ctx context.Context, zoneID, hostname string) (h *CustomHostname, found bool, err error) {
	page, err := c.CustomHostnames.List(ctx, custom_hostnames.CustomHostnameListParams{
		ZoneID:   cf.F(zoneID),
		Hostname: cf.F(custom_hostnames.CustomHostnameListParamsHostname{Exact: cf.F(hostname)}),
	})
	if err != nil {
		return nil, false, err
	}
	for _, item := range page.Result {
		h, err := decodeHostname(item.JSON.RawJSON())
		if err != nil {
			return nil, false, err
		}
		// Belt and braces: an API that ignored the exact filter must not hand us a neighbour.
		if h.Hostname == hostname {
			return h, true, nil
		}
	}
	return nil, false, nil
}

// SetCustomOriginServer changes the hostname's custom origin ("" clears it).
func (c *Client) SetCustomOriginServer(ctx context.Context, zoneID, id, originServer string) (*CustomHostname, error) {
	res, err := c.CustomHostnames.Edit(ctx, id, custom_hostnames.CustomHostnameEditParams{
		ZoneID:             cf.F(zoneID),
		CustomOriginServer: cf.F(originServer),
	})
	if err != nil {
		return nil, err
	}
	return decodeHostname(res.JSON.RawJSON())
}

// DeleteCustomHostname deletes a hostname; one already gone is not an error.
func (c *Client) DeleteCustomHostname(ctx context.Context, zoneID, id string) error {
	_, err := c.CustomHostnames.Delete(ctx, id, custom_hostnames.CustomHostnameDeleteParams{ZoneID: cf.F(zoneID)})
	if isStatus(err, http.StatusNotFound) {
		return nil
	}
	return err
}
