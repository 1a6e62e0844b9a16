package provider

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
)

// The owner a refresh saw travels to the apply in the resource's private state: a plan made
// from a refresh that found this resource type owning its key, applied within the listing's
// age (kdcf.KVIndexMaxAge), needs no read of the key before its write. That is the window
// every listing-based check of the provider already accepts; a plan applied later (a saved
// plan that waited for a review), or made with -refresh=false, reads the key first.

// ownerSeenKey names the private-state entry.
const ownerSeenKey = "owner_seen"

type ownerSeen struct {
	Owner string `json:"owner"`
	// At is when the refresh saw it, in Unix milliseconds.
	At int64 `json:"at"`
}

type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// noteOwnerSeen records in private state who owned the key at this refresh.
func noteOwnerSeen(ctx context.Context, private privateSetter, owner string, now time.Time) diag.Diagnostics {
	b, _ := json.Marshal(ownerSeen{Owner: owner, At: now.UnixMilli()})
	return private.SetKey(ctx, ownerSeenKey, b)
}

// ownerRecentlySeen says whether the refresh behind this plan saw owner own the key at most
// kdcf.KVIndexMaxAge before now. A stamp from the future (another machine's clock) is not
// trusted.
func ownerRecentlySeen(ctx context.Context, private privateGetter, owner string, now time.Time) bool {
	if private == nil {
		return false
	}
	b, diags := private.GetKey(ctx, ownerSeenKey)
	var seen ownerSeen
	if diags.HasError() || len(b) == 0 || json.Unmarshal(b, &seen) != nil || seen.Owner != owner {
		return false
	}
	age := now.Sub(time.UnixMilli(seen.At))
	return age >= 0 && age <= kdcf.KVIndexMaxAge
}

// An import is how a key written elsewhere comes under this resource's management: a create
// that finds the key refuses with the advice to import it. The owner the key had when it was
// imported travels in private state, so that the imported resource may write and delete the
// key while that owner still holds it (its first write stamps this resource type); a key that
// another owner takes after the import is refused as before. Without it, an imported key of
// "another tool" could be neither changed nor deleted.

// importedOwnerKey names the private-state entry.
const importedOwnerKey = "imported_owner"

// noteImportedOwner records in private state that the import found owner holding the key.
func noteImportedOwner(ctx context.Context, private privateSetter, owner string) diag.Diagnostics {
	b, _ := json.Marshal(owner)
	return private.SetKey(ctx, importedOwnerKey, b)
}

// importedOwner is the owner the key had when this resource imported it, "" when the resource
// was not imported over another owner (or has written the key since).
func importedOwner(ctx context.Context, private privateGetter) string {
	if private == nil {
		return ""
	}
	b, diags := private.GetKey(ctx, importedOwnerKey)
	var owner string
	if diags.HasError() || len(b) == 0 || json.Unmarshal(b, &owner) != nil {
		return ""
	}
	return owner
}
