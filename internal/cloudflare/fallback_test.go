package cloudflare

import (
	"context"
	"testing"
)

// The fallback origin's calls against the local edge: none at first, set on a proxied
// placeholder record, moved with the record, deleted twice (the second a no-op).
func TestFallbackOriginCalls(t *testing.T) {
	a := newLocalAPI(t)
	ctx, zone := context.Background(), a.id.ZoneID
	if _, found, err := a.c.GetFallbackOrigin(ctx, zone); err != nil || found {
		t.Fatalf("a fresh zone: found %v, %v; want none", found, err)
	}
	name := "fallback." + a.id.ZoneName
	rec, err := a.c.UpsertPlaceholderRecord(ctx, zone, "", name, "managed by a test")
	if err != nil {
		t.Fatal(err)
	}
	if rec.ID == "" || rec.Type != "AAAA" || rec.Content != PlaceholderAddress || !rec.Proxied || rec.Name != name {
		t.Fatalf("placeholder record = %+v", rec)
	}
	set, err := a.c.SetFallbackOrigin(ctx, zone, name)
	if err != nil || set.Origin != name || set.Status != FallbackInitializing {
		t.Fatalf("set: %+v, %v; want %s initializing", set, err, name)
	}
	got, found, err := a.c.GetFallbackOrigin(ctx, zone)
	if err != nil || !found || got.Origin != name {
		t.Fatalf("get: %+v %v %v", got, found, err)
	}

	moved := "edge-fallback." + a.id.ZoneName
	again, err := a.c.UpsertPlaceholderRecord(ctx, zone, rec.ID, moved, "managed by a test")
	if err != nil || again.ID != rec.ID || again.Name != moved {
		t.Fatalf("moving the record: %+v, %v; want the same record renamed", again, err)
	}
	if _, err := a.c.SetFallbackOrigin(ctx, zone, moved); err != nil {
		t.Fatal(err)
	}

	del, err := a.c.DeleteFallbackOrigin(ctx, zone)
	if err != nil || del == nil || del.Status != FallbackPendingDeletion {
		t.Fatalf("delete: %+v, %v; want pending_deletion", del, err)
	}
	if del, err := a.c.DeleteFallbackOrigin(ctx, zone); err != nil || del != nil {
		t.Errorf("deleting again: %+v, %v; want nothing to do", del, err)
	}
	if _, found, err := a.c.GetFallbackOrigin(ctx, zone); err != nil || found {
		t.Errorf("after delete: found %v, %v", found, err)
	}
}
