package provider

import (
	"context"
	"os"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
)

// The provider's zone is one setting with two spellings: zone_id, used as it is, and
// zone_name, resolved to its id once in Configure. Every resource sees the id only
// (providerData.ZoneID).

// zoneSetting resolves the zone's two spellings. The provider block decides when it sets
// either, so that a zone_name there is not overridden by the KAMUIDASH_ZONE_ID a local edge's
// env file exports; otherwise the environment does. Both at once is refused, wherever they
// come from. The name comes back normalised (lower case, no trailing dot) and checked.
func zoneSetting(config providerModel) (id, name string, diags diag.Diagnostics) {
	inBlock := !config.ZoneID.IsNull() || !config.ZoneName.IsNull()
	if inBlock {
		id, name = config.ZoneID.ValueString(), config.ZoneName.ValueString()
	} else {
		id, name = os.Getenv(EnvZoneID), os.Getenv(EnvZoneName)
	}
	switch {
	case id != "" && name != "" && inBlock:
		diags.AddAttributeError(path.Root("zone_name"), "Conflicting Zone Settings",
			"The provider block sets both zone_id and zone_name, which name the zone two ways. Keep one: zone_id to use "+
				"the zone's ID as it is, or zone_name to have the provider look the ID up in account_id.")
		return "", "", diags
	case id != "" && name != "":
		diags.AddAttributeError(path.Root("zone_name"), "Conflicting Zone Settings",
			"The environment variables "+EnvZoneID+" and "+EnvZoneName+" are both set, and they name the zone two ways. "+
				"Unset one of them, or set zone_id or zone_name in the provider block, which takes precedence over both.")
		return "", "", diags
	}
	if name == "" {
		return id, "", diags
	}
	normal, ok := normalizeZoneName(name)
	if !ok {
		diags.AddAttributeError(path.Root("zone_name"), "Invalid Provider Setting",
			"The zone_name value "+quote(name)+" (from the provider block or "+EnvZoneName+") is not a DNS name such as "+
				"kamui.app. Set it to the zone's name as the Cloudflare dashboard shows it, or set zone_id instead.")
		return "", "", diags
	}
	return id, normal, diags
}

// normalizeZoneName lower-cases name and drops a trailing dot, and reports whether what is
// left is a DNS name (no port, no scheme, no path, no wildcard).
func normalizeZoneName(name string) (string, bool) {
	if strings.Contains(name, ":") { // route.NormalizeHost would take it for a port
		return "", false
	}
	normal := strings.TrimSuffix(strings.ToLower(name), ".")
	return normal, isNormalHostname(normal)
}

// lookupZone resolves zoneName to the id of the one active zone of that name in the account,
// with one listing; none or more than one is an error saying what to change.
func lookupZone(ctx context.Context, client *cloudflare.Client, accountID, zoneName string) (string, diag.Diagnostics) {
	var diags diag.Diagnostics
	at := path.Root("zone_name")
	found, err := client.ActiveZonesNamed(ctx, accountID, zoneName)
	if err != nil {
		diags.Append(diag.WithPath(at, apiErrorDiag("Unable to Look Up Zone",
			"Looking up the ID of the active zone named "+quote(zoneName)+" in account "+accountID+
				" (zone_name; a zone_id needs no lookup)", err)))
		return "", diags
	}
	switch len(found) {
	case 0:
		diags.AddAttributeError(at, "Zone Not Found",
			"The account "+accountID+" has no active zone named "+quote(zoneName)+". Check the name's spelling, that the zone "+
				"belongs to account_id (a zone of another account is not looked at), that its status is active (a zone still "+
				"waiting for its nameservers is pending), and that the API token may read it. Or set zone_id instead.")
		return "", diags
	case 1:
		tflog.Debug(ctx, "Resolved zone_name", map[string]any{"zone_name": zoneName, "zone_id": found[0].ID})
		return found[0].ID, diags
	}
	ids := make([]string, len(found))
	for i, z := range found {
		ids[i] = z.ID
	}
	diags.AddAttributeError(at, "Ambiguous Zone Name",
		"The account "+accountID+" has "+strconv.Itoa(len(found))+" active zones named "+quote(zoneName)+": "+strings.Join(ids, ", ")+
			". Set zone_id to the one this configuration manages, and remove zone_name.")
	return "", diags
}
