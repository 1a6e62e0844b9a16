package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/staticsite"
)

// shardsPresent judges a version by the shard count recorded when it was published, and works
// the split out from the state's paths only for a state from before that count was kept.
func TestShardsPresent(t *testing.T) {
	const name, version = "docs", "0123456789abcdef"
	key := staticsite.ManifestKey(name, version)
	large := map[string]string{}
	for i := range route.SiteShardFiles + 1 {
		large[fmt.Sprintf("page-%d.html", i)] = "0"
	}
	paths := route.SiteManifest{Files: map[string]route.SiteFile{}}
	for p := range large {
		paths.Files[p] = route.SiteFile{}
	}
	root, _, err := route.SplitSiteManifest(key, paths)
	if err != nil || root.Shards < 2 {
		t.Fatalf("the large version's split: %d shards, %v", root.Shards, err)
	}
	split := root.Shards
	allShards := func(n int) map[string]bool {
		present := map[string]bool{key: true}
		for i := range n {
			present[route.SiteShardKey(key, i)] = true
		}
		return present
	}
	without := func(present map[string]bool, i int) map[string]bool {
		delete(present, route.SiteShardKey(key, i))
		return present
	}
	for _, c := range []struct {
		name          string
		files         map[string]string
		shards        int
		present       map[string]bool
		manifestBytes int64
		want, warned  bool
	}{
		{"recorded: every shard there", map[string]string{"a": "0"}, 3, allShards(3), 20, true, false},
		{"recorded: the last shard gone, whatever the paths say", map[string]string{"a": "0"}, 3, without(allShards(3), 2), 20, false, false},
		{"recorded: one manifest", large, 0, allShards(0), 5000, true, false},
		{"earlier release: a small version", map[string]string{"a": "0"}, -1, allShards(0), 100, true, false},
		{"earlier release: split, every shard there", large, -1, allShards(split), 20, true, false},
		{"earlier release: split, a shard gone", large, -1, without(allShards(split), 0), 20, false, false},
		{"earlier release: a large version in one manifest", large, -1, allShards(0), 50000, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var diags diag.Diagnostics
			got := shardsPresent(name, version, c.files, c.shards, c.present, c.manifestBytes, &diags)
			if got != c.want || (diags.WarningsCount() > 0) != c.warned {
				t.Errorf("shardsPresent = %v with %d warnings; want %v, warned %v", got, diags.WarningsCount(), c.want, c.warned)
			}
		})
	}
}

// The recorded count belongs to one version: another version's, a state without one, or one
// that does not decode all say "not known", so the split is worked out instead.
func TestPublishedShards(t *testing.T) {
	ctx := context.Background()
	var diags diag.Diagnostics
	private := fakePrivate{}
	if n := publishedShardsOf(ctx, private, "v1", &diags); n != -1 {
		t.Errorf("nothing recorded: %d, want -1", n)
	}
	setPublishedShards(ctx, private, "v1", 3, &diags)
	if n := publishedShardsOf(ctx, private, "v1", &diags); n != 3 {
		t.Errorf("recorded for v1: %d, want 3", n)
	}
	if n := publishedShardsOf(ctx, private, "v2", &diags); n != -1 {
		t.Errorf("recorded for v1, asked for v2: %d, want -1", n)
	}
	private[publishedShardsKey] = []byte(`{"version":`)
	if n := publishedShardsOf(ctx, private, "v1", &diags); n != -1 {
		t.Errorf("a record that does not decode: %d, want -1", n)
	}
	if diags.HasError() {
		t.Fatal(diags)
	}
}
