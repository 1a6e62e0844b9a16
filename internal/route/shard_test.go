package route

import (
	"errors"
	"strconv"
	"testing"
)

const testManifestKey = "sites/docs/manifests/3f2a.json"

func siteOf(files int, path func(i int) string) SiteManifest {
	m := SiteManifest{Files: map[string]SiteFile{}}
	for i := range files {
		m.Files[path(i)] = SiteFile{Object: testObject, Type: "text/html; charset=utf-8", Size: int64(i)}
	}
	return m
}

func docPath(i int) string { return "docs/page-" + strconv.Itoa(i) + "/index.html" }

func TestSmallSiteIsNotSplit(t *testing.T) {
	m := siteOf(SiteShardFiles, docPath)
	root, shards, err := SplitSiteManifest(testManifestKey, m)
	if err != nil || shards != nil || root.Shards != 0 || len(root.Files) != SiteShardFiles {
		t.Fatalf("split of %d files = %d files, %d shards (%d), %v; want the manifest itself",
			SiteShardFiles, len(root.Files), root.Shards, len(shards), err)
	}
}

// Every file of a large site is in exactly the shard SiteShard names, no shard holds more than
// MaxSiteShardFiles, and each piece encodes and decodes under its own rules.
func TestLargeSiteSplitsIntoShardsOfItsPaths(t *testing.T) {
	m := siteOf(20000, docPath)
	root, shards, err := SplitSiteManifest(testManifestKey, m)
	if err != nil {
		t.Fatal(err)
	}
	if want := (20000 + SiteShardFiles - 1) / SiteShardFiles; root.Shards != want || len(shards) != want || len(root.Files) != 0 {
		t.Fatalf("split into %d shards (%d listed), %d files in the manifest; want %d and none", root.Shards, len(shards), len(root.Files), want)
	}
	b, err := EncodeSiteManifest(root)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"v":1,"shards":`+strconv.Itoa(root.Shards)+`}` {
		t.Errorf("manifest = %s", b)
	}
	if got, err := DecodeSiteManifest(b); err != nil || got.Shards != root.Shards {
		t.Errorf("decoded %+v, %v", got, err)
	}
	total := 0
	for i, s := range shards {
		if len(s.Files) > MaxSiteShardFiles {
			t.Errorf("shard %d holds %d files", i, len(s.Files))
		}
		total += len(s.Files)
		b, err := EncodeSiteShard(s, testManifestKey, i, root.Shards)
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		got, err := DecodeSiteShard(b, testManifestKey, i, root.Shards)
		if err != nil || len(got.Files) != len(s.Files) {
			t.Fatalf("shard %d decoded to %d files, %v; want %d", i, len(got.Files), err, len(s.Files))
		}
		for p := range got.Files {
			if SiteShard(testManifestKey, p, root.Shards) != i {
				t.Errorf("%s is in shard %d, SiteShard says %d", p, i, SiteShard(testManifestKey, p, root.Shards))
			}
		}
		if _, err := DecodeSiteShard(b, testManifestKey, (i+1)%root.Shards, root.Shards); !errors.Is(err, ErrInvalidField) && len(s.Files) > 0 {
			t.Errorf("shard %d read as shard %d: %v; want ErrInvalidField", i, (i+1)%root.Shards, err)
		}
	}
	if total != 20000 {
		t.Errorf("shards hold %d files; want 20000", total)
	}
}

// Paths that crowd one shard (a site whose paths happen to, or were chosen to) make the split
// add shards until none holds more than MaxSiteShardFiles.
func TestCrowdedShardDoublesTheShards(t *testing.T) {
	m := SiteManifest{Files: map[string]SiteFile{}}
	for i := 0; len(m.Files) < 600; i++ {
		if p := "p" + strconv.Itoa(i); SiteShard(testManifestKey, p, 3) == 0 {
			m.Files[p] = SiteFile{Object: testObject, Type: "text/plain", Size: 1}
		}
	}
	root, shards, err := SplitSiteManifest(testManifestKey, m)
	if err != nil {
		t.Fatal(err)
	}
	if root.Shards <= 3 {
		t.Fatalf("600 files in one of 3 shards split into %d shards", root.Shards)
	}
	for i, s := range shards {
		if len(s.Files) > MaxSiteShardFiles {
			t.Errorf("shard %d holds %d files", i, len(s.Files))
		}
	}
}

// Doubling from a count that is not a power of two passes MaxSiteShards without reaching it:
// the split then tries MaxSiteShards itself before it gives up. The paths here crowd shard 0
// of 3,072 shards, and so of every count 3 doubles to below it; 4,096 spreads them.
func TestSplitTriesTheMostShardsBeforeGivingUp(t *testing.T) {
	m := SiteManifest{Files: map[string]SiteFile{}}
	for i := 0; len(m.Files) < 600; i++ {
		if p := "p" + strconv.Itoa(i); SiteShard(testManifestKey, p, 3072) == 0 {
			m.Files[p] = SiteFile{Object: testObject, Type: "text/plain", Size: 1}
		}
	}
	root, shards, err := SplitSiteManifest(testManifestKey, m)
	if err != nil {
		t.Fatal(err)
	}
	if root.Shards != MaxSiteShards {
		t.Fatalf("split into %d shards; want %d", root.Shards, MaxSiteShards)
	}
	for i, s := range shards {
		if len(s.Files) > MaxSiteShardFiles {
			t.Errorf("shard %d holds %d files", i, len(s.Files))
		}
	}
}

// The shard of a path is part of the data contract: manifests already uploaded were split
// with it, and a Worker that placed a path elsewhere would not find it.
func TestSiteShardIsStable(t *testing.T) {
	for _, tc := range []struct {
		key, path    string
		shards, want int
	}{
		{testManifestKey, "index.html", 79, 32},
		{testManifestKey, "docs/page-1/index.html", 79, 18},
		{"sites/docs/manifests/3f2b.json", "index.html", 79, 38}, // the key seeds the hash
		{testManifestKey, "index.html", 1, 0},
	} {
		if got := SiteShard(tc.key, tc.path, tc.shards); got != tc.want {
			t.Errorf("SiteShard(%q, %q, %d) = %d; want %d", tc.key, tc.path, tc.shards, got, tc.want)
		}
	}
	if got := SiteShardKey(testManifestKey, 7); got != "sites/docs/manifests/3f2a/7.json" {
		t.Errorf("shard key = %q", got)
	}
}

func TestSiteShardsAreStrict(t *testing.T) {
	for name, tc := range map[string]struct {
		in   string
		want error
	}{
		"files and shards": {`{"v":1,"files":{"index.html":{"object":"` + testObject + `","type":"a/b","size":1}},"shards":2}`, ErrInvalidField},
		"one shard":        {`{"v":1,"shards":1}`, ErrInvalidField},
		"too many shards":  {`{"v":1,"shards":` + strconv.Itoa(MaxSiteShards+1) + `}`, ErrInvalidField},
		"neither":          {`{"v":1}`, ErrMissingDelivery},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := DecodeSiteManifest([]byte(tc.in)); !errors.Is(err, tc.want) {
				t.Errorf("err = %v; want %v", err, tc.want)
			}
		})
	}
	if m, err := DecodeSiteShard([]byte(`{"v":1}`), testManifestKey, 0, 2); err != nil || len(m.Files) != 0 {
		t.Errorf("an empty shard: %+v, %v", m, err)
	}
	if _, err := DecodeSiteShard([]byte(`{"v":1,"shards":2}`), testManifestKey, 0, 2); !errors.Is(err, ErrInvalidField) {
		t.Errorf("a shard with shards: %v; want ErrInvalidField", err)
	}
	big := siteOf(MaxSiteShardFiles+1, docPath)
	if _, err := EncodeSiteShard(big, testManifestKey, 0, 1); !errors.Is(err, ErrInvalidField) {
		t.Errorf("a shard of %d files: %v; want ErrInvalidField", MaxSiteShardFiles+1, err)
	}
	b, err := EncodeSiteManifest(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeSiteShard(b, testManifestKey, 0, 1); !errors.Is(err, ErrInvalidField) {
		t.Errorf("a shard of %d files decoded: %v; want ErrInvalidField", MaxSiteShardFiles+1, err)
	}
}
