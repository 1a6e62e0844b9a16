package provider

import (
	"context"
	"encoding/json"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
)

// EnvAPIEconomy set to "off" makes every resource make its own calls (a read per key, a write
// per change, a purge per host, a GET per hostname), as providers usually do. It exists to
// measure the economy against (make bench-api) and to rule it out when chasing a problem.
const EnvAPIEconomy = "KAMUIDASH_API_ECONOMY"

// How the resources reach KV and the cache. By default they share what they can across the
// provider process: the namespace's key listing serves every Read whose revision it confirms,
// writes, deletes and reads made at the same time go out as bulk calls, and purges as batches
// (see internal/cloudflare). With Economy off, each goes out as its own call.

// readKV reads key's value and metadata.
func (d *providerData) readKV(ctx context.Context, namespaceID, key string) (kdcf.KVEntry, bool, error) {
	if !d.Economy {
		return d.Client.KVGet(ctx, d.AccountID, namespaceID, key)
	}
	r, err := d.Client.KVBulk.Get(ctx, d.AccountID, namespaceID, key)
	return r.Entry, r.Found, err
}

// listedKV returns key's metadata as the shared listing has it; listed is false when the
// listing lacks the key, and always without the economy.
func (d *providerData) listedKV(ctx context.Context, namespaceID, key string) (json.RawMessage, bool, error) {
	if !d.Economy {
		return nil, false, nil
	}
	return d.Client.KVIndex.Lookup(ctx, d.AccountID, namespaceID, key)
}

// writeKV writes key; the listing learns of it at once, so nothing written here is served
// stale. A write that failed may or may not have landed: the listing then forgets the key, and
// the next look at it reads the value.
func (d *providerData) writeKV(ctx context.Context, namespaceID, key string, value []byte, metadataJSON string) error {
	if !d.Economy {
		return d.Client.KVPut(ctx, d.AccountID, namespaceID, key, value, metadataJSON)
	}
	if err := d.Client.KVBulk.Put(ctx, d.AccountID, namespaceID, key, value, metadataJSON); err != nil {
		d.Client.KVIndex.Forgot(d.AccountID, namespaceID, key)
		return err
	}
	d.Client.KVIndex.Noted(d.AccountID, namespaceID, key, json.RawMessage(metadataJSON))
	return nil
}

// deleteKV deletes key.
func (d *providerData) deleteKV(ctx context.Context, namespaceID, key string) error {
	if !d.Economy {
		return d.Client.KVDelete(ctx, d.AccountID, namespaceID, key)
	}
	err := d.Client.KVBulk.Delete(ctx, d.AccountID, namespaceID, key)
	d.Client.KVIndex.Forgot(d.AccountID, namespaceID, key)
	return err
}

// purgeURL drops url from the zone's cache.
func (d *providerData) purgeURL(ctx context.Context, url string) error {
	if !d.Economy {
		return d.Client.PurgeURLs(ctx, d.ZoneID, []string{url})
	}
	return d.Client.Purges.Purge(ctx, d.ZoneID, url)
}

// customHostname reads the custom hostname with id: from the zone's shared listing when it
// lists it, with a GET otherwise (the listing may predate it).
func (d *providerData) customHostname(ctx context.Context, id string) (*kdcf.CustomHostname, bool, error) {
	if d.Economy {
		if h, listed, err := d.Client.Hostnames.ByID(ctx, d.ZoneID, id); err != nil || listed {
			return h, listed, err
		}
	}
	return d.Client.GetCustomHostname(ctx, d.ZoneID, id)
}

// findCustomHostname looks a hostname up by name, from the shared listing when it lists it.
func (d *providerData) findCustomHostname(ctx context.Context, hostname string) (*kdcf.CustomHostname, bool, error) {
	if d.Economy {
		if h, listed, err := d.Client.Hostnames.ByName(ctx, d.ZoneID, hostname); err != nil || listed {
			return h, listed, err
		}
	}
	return d.Client.FindCustomHostname(ctx, d.ZoneID, hostname)
}

// pollCustomHostname is one status check of a hostname waiting for validation: the zone's
// shared poll round, or a GET of its own without the economy.
func (d *providerData) pollCustomHostname(ctx context.Context, id string) (*kdcf.CustomHostname, bool, error) {
	if d.Economy {
		return d.Client.Hostnames.Poll(ctx, d.ZoneID, id)
	}
	return d.Client.GetCustomHostname(ctx, d.ZoneID, id)
}

// notedHostname and forgotHostname keep the shared listing in step with what this process
// changed.
func (d *providerData) notedHostname(h *kdcf.CustomHostname) { d.Client.Hostnames.Noted(d.ZoneID, h) }
func (d *providerData) forgotHostname(id string)             { d.Client.Hostnames.Forgot(d.ZoneID, id) }
