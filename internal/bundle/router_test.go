package bundle

import (
	"bytes"
	"context"
	"debug/elf"
	"testing"
)

func TestRouter_StaticBinaryPerPlatform(t *testing.T) {
	r, _, _ := sharedRouter(t)
	machines := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	if len(r.Files) != len(RouterPlatforms) {
		t.Errorf("files = %v, want one per platform", fileNames(r.Artifact))
	}
	for _, p := range RouterPlatforms {
		bin, err := r.Binary(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := elf.NewFile(bytes.NewReader(bin))
		if err != nil {
			t.Fatalf("%s: not an ELF binary: %v", p, err)
		}
		if f.Machine != machines[p.Arch] {
			t.Errorf("%s: machine %v, want %v", p, f.Machine, machines[p.Arch])
		}
		for _, prog := range f.Progs {
			if prog.Type == elf.PT_INTERP || prog.Type == elf.PT_DYNAMIC {
				t.Errorf("%s: dynamically linked (%v); the image has no libc", p, prog.Type)
			}
		}
		if f.Section(".symtab") != nil {
			t.Errorf("%s: has a symbol table; -s was not applied", p)
		}
	}
	t.Logf("router: sha256=%s size=%d", r.SHA256, r.Size)
}

func TestRouter_ReproducibleAndCached(t *testing.T) {
	first, shared, counter := sharedRouter(t)
	if n := counter.builds(); n != len(RouterPlatforms) {
		t.Errorf("the first build ran go build %d times, want %d", n, len(RouterPlatforms))
	}

	// A separate artifact cache: the router is compiled and linked again.
	b, c := countingBuilder(t, nil)
	second, err := b.Router(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.builds() != len(RouterPlatforms) {
		t.Errorf("a fresh artifact cache ran go build %d times, want %d", c.builds(), len(RouterPlatforms))
	}
	if second.SHA256 != first.SHA256 {
		t.Errorf("SHA256 differs between builds: %s then %s", first.SHA256, second.SHA256)
	}

	before := counter.total.Load()
	if _, err := shared.Router(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := counter.total.Load() - before; n != 0 {
		t.Errorf("a cached router build ran the go command %d times, want 0", n)
	}
}

// The Worker and the router are separate artifacts: editing one does not rebuild the other.
func TestRouter_WorkerEditKeepsRouterCached(t *testing.T) {
	_, shared, _ := sharedRouter(t)
	m := repoCopy(t)
	editComment(t, m, "worker-src/edge/js/worker.mjs")
	c := &goCounter{}
	b := &Builder{Sources: m, CacheDir: shared.CacheDir, GoCacheDir: shared.GoCacheDir, RunGo: c.run}
	if _, err := b.Router(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := c.builds(); n != 0 {
		t.Errorf("a Worker edit rebuilt the router (%d go builds)", n)
	}
}
