package provider

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
)

type fakePrivate map[string][]byte

func (p fakePrivate) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	return p[key], nil
}

func (p fakePrivate) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	p[key] = value
	return nil
}

func TestOwnerRecentlySeen(t *testing.T) {
	ctx := context.Background()
	seenAt := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	private := fakePrivate{}
	if d := noteOwnerSeen(ctx, private, ownerRouteRecord, seenAt); d.HasError() {
		t.Fatal(d)
	}
	for name, tc := range map[string]struct {
		owner string
		now   time.Time
		want  bool
	}{
		"just now":             {ownerRouteRecord, seenAt.Add(5 * time.Second), true},
		"at the listing's age": {ownerRouteRecord, seenAt.Add(kdcf.KVIndexMaxAge), true},
		"older":                {ownerRouteRecord, seenAt.Add(kdcf.KVIndexMaxAge + time.Second), false},
		"from the future":      {ownerRouteRecord, seenAt.Add(-time.Second), false},
		"another owner":        {ownerTenantApp, seenAt.Add(time.Second), false},
	} {
		if got := ownerRecentlySeen(ctx, private, tc.owner, tc.now); got != tc.want {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
	if ownerRecentlySeen(ctx, fakePrivate{}, ownerRouteRecord, seenAt) {
		t.Error("no stamp (a plan made with -refresh=false) counts as seen")
	}
	if ownerRecentlySeen(ctx, fakePrivate{ownerSeenKey: []byte("{")}, ownerRouteRecord, seenAt) {
		t.Error("a broken stamp counts as seen")
	}
}
