package kvmigrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// A few thousand route records are copied with bulk calls only: one bulk write (under the
// 10,000-pair limit), bulk gets of 100, listings of 1,000, and per key only the rebuilt name filter.
func TestMigrate_CopiesThousandsOfKeysWithBulkCalls(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	want := routeEntries(3000)
	e.seed(src, want)
	e.resetRequests()

	res := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst, "--format", "json")
	if res.code != ExitOK {
		t.Fatalf("want exit 0\n%s", res)
	}
	got := e.stored(dst)
	if len(got) != len(want) {
		t.Fatalf("target holds %d keys, want %d", len(got), len(want))
	}
	for k, w := range want {
		sameEntry(t, k, got[k], w)
	}

	if n := len(e.seen(isBulkWrite)); n != 1 {
		t.Errorf("bulk writes: %d, want 1 (3,000 pairs fit in one)", n)
	}
	// Per key, only the target's name filter: read, written, read back.
	perKey := e.seen(func(r seenRequest) bool { return strings.Contains(r.Path, "/values/") })
	for _, r := range perKey {
		if !strings.HasSuffix(r.Path, "/values/"+route.FilterKey) {
			t.Errorf("a per-key request for another key than the name filter: %+v", r)
		}
	}
	if len(perKey) != 3 {
		t.Errorf("name filter requests: %d, want 3 (read, write, read back)", len(perKey))
	}
	// Source read 30 + verification 30; the empty target needs no read and route data (a rev
	// in every key's metadata) none in the delta pass.
	if n := len(e.seen(isBulkGet)); n != 60 {
		t.Errorf("bulk gets: %d, want 60 (3,000 keys / 100, twice)", n)
	}
	rep := res.report(t)
	s := rep.Sources[0]
	if s.Listed != 3000 || s.Copied != 3000 || s.Identical != 0 || s.Failed != 0 {
		t.Errorf("source report %+v, want 3000 listed and copied", s)
	}
	if v := rep.Verification; v.Expected != 3000 || v.Verified != 3000 || len(v.Missing)+len(v.Mismatched) != 0 {
		t.Errorf("verification %+v, want 3000 verified", v)
	}
	if rep.Writes.BulkCalls != 1 || rep.Writes.Keys != 3000 || rep.APICalls["bulk_write"] != 1 {
		t.Errorf("writes %+v, api calls %v", rep.Writes, rep.APICalls)
	}
	if rep.Target.KeysBefore != 0 || rep.Target.KeysAfter != 3000 {
		t.Errorf("target %+v, want 0 keys before and 3000 after", rep.Target)
	}
}

// More pairs than one bulk write takes are split at exactly the documented limit, and the body
// size estimate the byte limit is enforced with never undercounts what is sent.
func TestMigrate_SplitsBulkWritesAtTheDocumentedLimits(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	e.seed(src, routeEntries(MaxBulkWritePairs+50))
	e.resetRequests()

	rep, err := Run(context.Background(), Options{Client: e.client(t, nil), AccountID: e.id.AccountID, Sources: []string{src}, Target: dst})
	if err != nil || !rep.OK {
		t.Fatalf("Run: %v, report %+v", err, rep)
	}
	writes := e.seen(isBulkWrite)
	if len(writes) != 2 || writes[0].Pairs != MaxBulkWritePairs || writes[1].Pairs != 50 {
		t.Fatalf("bulk writes %+v, want 10,000 pairs then 50", writes)
	}
	sent := 0
	for _, w := range writes {
		sent += w.BodyBytes
	}
	if rep.Writes.Bytes < int64(sent) {
		t.Errorf("estimated %d bytes for bodies of %d bytes: the 100 MB check would undercount", rep.Writes.Bytes, sent)
	}
	if len(e.stored(dst)) != MaxBulkWritePairs+50 {
		t.Errorf("target holds %d keys", len(e.stored(dst)))
	}
}

// The byte limit splits writes of large values: no body exceeds it.
func TestMigrate_BulkWritesStayUnderTheByteLimit(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("big-v1"), e.namespace("big-v2")
	entries := map[string]Entry{}
	for i := range 40 {
		entries[fmt.Sprintf("blob-%02d", i)] = Entry{Value: []byte(strings.Repeat(string(rune('a'+i%26)), 10_000))}
	}
	e.seed(src, entries)
	e.resetRequests()

	const limit = 64 << 10
	rep, err := Run(context.Background(), Options{Client: e.client(t, nil), AccountID: e.id.AccountID,
		Sources: []string{src}, Target: dst, BulkWriteBytes: limit})
	if err != nil || !rep.OK {
		t.Fatalf("Run: %v, report %+v", err, rep)
	}
	writes := e.seen(isBulkWrite)
	pairs := 0
	for _, w := range writes {
		if w.BodyBytes > limit {
			t.Errorf("a bulk write of %d bytes exceeds the %d-byte limit", w.BodyBytes, limit)
		}
		pairs += w.Pairs
	}
	// 40 values of ~13.3 kB in base64 need at least 9 bodies of 64 KiB.
	if len(writes) < 9 || pairs != 40 {
		t.Errorf("%d bulk writes of %d pairs in all, want ≥ 9 writes of 40", len(writes), pairs)
	}
}

// Keys a bulk result reports unsuccessful are sent again (the result is trusted, no read-back
// per key); a key that never succeeds is reported failed on its own and the run does not
// verify.
func TestMigrate_RetriesKeysTheBulkResultReportsUnsuccessful(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	e.seed(src, routeEntries(300))
	flaky := map[string]int{"app-00007": 1, "app-00100": 2} // fails this many times
	var mu sync.Mutex
	e.unsuccessful = func(key string) bool {
		mu.Lock()
		defer mu.Unlock()
		if key == "app-00200" {
			return true // never succeeds
		}
		if flaky[key] > 0 {
			flaky[key]--
			return true
		}
		return false
	}
	e.resetRequests()

	res := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst, "--format", "json")
	if res.code != ExitNotVerified {
		t.Fatalf("want exit 1 for a key that never succeeded\n%s", res)
	}
	rep := res.report(t)
	if len(rep.Failed) != 1 || rep.Failed[0].Key != "app-00200" || !strings.Contains(rep.Failed[0].Error, "unsuccessful 3 times") {
		t.Errorf("failed %+v, want only app-00200, unsuccessful 3 times", rep.Failed)
	}
	if !slices.Equal(rep.Verification.Missing, []string{"app-00200"}) || rep.Verification.Verified != 299 {
		t.Errorf("verification %+v, want app-00200 missing and 299 verified", rep.Verification)
	}
	got := e.stored(dst)
	if got["app-00007"] == nil || got["app-00100"] == nil {
		t.Error("a key that succeeded on retry is missing")
	}
	// The first write, then two retries of the unsuccessful keys only (app-00007, app-00100 and
	// app-00200; then app-00100 and app-00200), after which app-00200 is failed.
	writes := e.seen(isBulkWrite)
	if len(writes) != 3 || writes[0].Pairs != 300 || writes[1].Pairs != 3 || writes[2].Pairs != 2 {
		t.Errorf("bulk writes %+v, want 300 pairs, then 3, then 2", writes)
	}

	e.mu.Lock()
	e.unsuccessful = nil
	e.mu.Unlock()
	if res := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst); res.code != ExitOK {
		t.Fatalf("rerun once the API accepts the key\n%s", res)
	}
}

// Binary values, metadata and expirations arrive exactly; only the values that are not text
// cost a read of their own (the bulk read answers text only).
func TestMigrate_BinaryValuesMetadataAndExpirationsSurvive(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("mixed-v1"), e.namespace("mixed-v2")
	expiry := time.Now().Add(2 * time.Hour).Unix()
	want := map[string]Entry{
		"binary":             {Value: []byte{0x00, 0xff, 0xfe, 0x80, 'k', 0xc3, 0x28, 0x00}, Metadata: json.RawMessage(`{"kind":"blob"}`)},
		"binary-only":        {Value: []byte{0xde, 0xad, 0xbe, 0xef}},
		"utf8":               {Value: []byte("grüße 東京 🚀"), Metadata: json.RawMessage(`{"z":1,"a":{"nested":[1,2.5,"x"],"n":12345678901234567890}}`)},
		"replacement":        {Value: []byte("a real \uFFFD in text")},
		"empty":              {Value: []byte{}, Metadata: json.RawMessage(`{"v":1}`)},
		"expiring":           {Value: []byte(`{"v":1}`), Metadata: json.RawMessage(`{"rev":"r1","v":1}`), Expiration: expiry},
		"json-string":        {Value: []byte(`"just a string"`)},
		"key/with spaces?&#": {Value: []byte("path-unsafe key")},
	}
	e.seed(src, want)
	e.resetRequests()

	res := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst, "--format", "json")
	if res.code != ExitOK {
		t.Fatalf("want exit 0\n%s", res)
	}
	got := e.stored(dst)
	if len(got) != len(want) {
		t.Errorf("target holds %d keys, want %d", len(got), len(want))
	}
	for k, w := range want {
		sameEntry(t, k, got[k], w)
	}
	// The two binary values and the text holding U+FFFD are read on their own: from the source,
	// again by the delta pass (their metadata has no rev, so they are compared by content) and
	// at the verification; and the target's name filter, before it is written and after.
	if n := len(e.seen(isValueGet)); n != 11 {
		t.Errorf("single value reads: %d, want 11 (3 values that are not plain text, 3 reads each, and the name filter twice)", n)
	}
}

// Where the API refuses a bulk read because of a value that is not text, the refused keys are
// found by splitting the read and read on their own (value with expiration, then metadata), and
// still arrive exactly.
func TestMigrate_BinaryValuesWhenTheBulkReadRefusesThem(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("mixed-v1"), e.namespace("mixed-v2")
	want := routeEntries(150)
	want["app-00042-icon"] = Entry{Value: []byte{0x89, 'P', 'N', 'G', 0x00, 0xff}, Metadata: json.RawMessage(`{"kind":"icon"}`),
		Expiration: time.Now().Add(time.Hour).Unix()}
	e.seed(src, want)
	e.refuseBulkGet = func(keys []string) bool { return slices.Contains(keys, "app-00042-icon") }

	res := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst)
	if res.code != ExitOK {
		t.Fatalf("want exit 0\n%s", res)
	}
	got := e.stored(dst)
	for k, w := range want {
		sameEntry(t, k, got[k], w)
	}
	if n := len(e.seen(func(r seenRequest) bool { return strings.Contains(r.Path, "/metadata/") })); n == 0 {
		t.Error("the refused key's metadata was never read on its own")
	}
}

// A second run finds everything identical by content hash, writes nothing and says so.
func TestMigrate_SecondRunWritesNothing(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	e.seed(src, routeEntries(250))
	if res := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst); res.code != ExitOK {
		t.Fatalf("first run\n%s", res)
	}
	e.resetRequests()

	res := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst)
	if res.code != ExitOK {
		t.Fatalf("second run\n%s", res)
	}
	if w := e.seen(isWrite); len(w) != 0 {
		t.Errorf("the second run sent %d writing requests (%+v), want none", len(w), w[0])
	}
	if !strings.Contains(res.stdout, "nothing to copy, all 250 key(s) already identical in the target; nothing was written") {
		t.Errorf("the report does not say that nothing was written\n%s", res)
	}
	if !strings.Contains(res.stdout, "already identical in the target 250") {
		t.Errorf("the report does not count the identical keys\n%s", res)
	}
}

// The same key with different content in two sources is reported and not copied; identical
// duplicates are copied once; --prefer chooses a side, and the conflict is still reported.
func TestMigrate_ConflictAcrossSourcesIsReportedNotMerged(t *testing.T) {
	e := newTestEdge(t)
	a, b, dst := e.namespace("routes-a"), e.namespace("routes-b"), e.namespace("routes-merged")
	shared := Entry{Value: []byte(`{"v":1,"app":"docs"}`), Metadata: json.RawMessage(`{"rev":"d1","v":1}`)}
	e.seed(a, map[string]Entry{
		"shop":   {Value: []byte(`{"v":1,"app":"shop","upstream":"a"}`), Metadata: json.RawMessage(`{"rev":"sa","v":1}`)},
		"docs":   shared,
		"a-only": {Value: []byte("a")},
	})
	e.seed(b, map[string]Entry{
		"shop":   {Value: []byte(`{"v":1,"app":"shop","upstream":"b"}`), Metadata: json.RawMessage(`{"rev":"sb","v":1}`)},
		"docs":   shared,
		"b-only": {Value: []byte("b")},
	})

	res := run(context.Background(), e.command(nil), "migrate", "--from", a, "--from", b, "--to", dst, "--format", "json")
	if res.code != ExitNotVerified {
		t.Fatalf("want exit 1 for an unresolved conflict\n%s", res)
	}
	got := e.stored(dst)
	if _, ok := got["shop"]; ok {
		t.Error("the conflicting key was copied")
	}
	for _, k := range []string{"docs", "a-only", "b-only"} {
		if _, ok := got[k]; !ok {
			t.Errorf("%s was not copied", k)
		}
	}
	rep := res.report(t)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Key != "shop" || len(rep.Conflicts[0].Sides) != 2 || rep.Conflicts[0].Chosen != "" {
		t.Fatalf("conflicts %+v, want shop with two sides, not copied", rep.Conflicts)
	}
	if revs := []string{rep.Conflicts[0].Sides[0].Rev, rep.Conflicts[0].Sides[1].Rev}; revs[0] != "sa" || revs[1] != "sb" {
		t.Errorf("conflict revs %v, want [sa sb]", revs)
	}
	if rep.Sources[0].Conflicts != 1 || rep.Sources[1].Conflicts != 1 || rep.Sources[1].DuplicatesIdentical != 1 || rep.Sources[0].Copied != 2 || rep.Sources[1].Copied != 1 {
		t.Errorf("source reports %+v", rep.Sources)
	}
	text := run(context.Background(), e.command(nil), "migrate", "--from", a, "--from", b, "--to", dst)
	if !strings.Contains(text.stdout, "shop: "+a) || !strings.Contains(text.stdout, "not copied") || !strings.Contains(text.stdout, "NOT VERIFIED") {
		t.Errorf("the text report does not show the conflict\n%s", text)
	}

	res = run(context.Background(), e.command(nil), "migrate", "--from", a, "--from", b, "--to", dst, "--prefer", b, "--format", "json")
	if res.code != ExitOK {
		t.Fatalf("with --prefer: want exit 0\n%s", res)
	}
	if v := e.stored(dst)["shop"]; v == nil || string(v.Value) != `{"v":1,"app":"shop","upstream":"b"}` {
		t.Errorf("with --prefer %s the target holds %v", b, v)
	}
	if rep := res.report(t); len(rep.Conflicts) != 1 || rep.Conflicts[0].Chosen != b {
		t.Errorf("with --prefer the conflict is not reported as resolved: %+v", rep.Conflicts)
	}
}

// A dry run reads and compares but sends no writing request, and says what it would copy.
func TestMigrate_DryRunWritesNothing(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	e.seed(src, routeEntries(120))
	e.seed(dst, map[string]Entry{"app-00000": routeEntries(1)["app-00000"]})
	e.resetRequests()

	res := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst, "--dry-run")
	if res.code != ExitOK {
		t.Fatalf("want exit 0\n%s", res)
	}
	if w := e.seen(isWrite); len(w) != 0 {
		t.Errorf("the dry run sent %d writing requests (%+v)", len(w), w[0])
	}
	if n := len(e.stored(dst)); n != 1 {
		t.Errorf("target holds %d keys after a dry run, want the 1 it had", n)
	}
	if !strings.Contains(res.stdout, "dry run: would copy 119 key(s); nothing was written") ||
		!strings.Contains(res.stdout, "to copy 119, already identical in the target 1") {
		t.Errorf("the dry run does not say what it would do\n%s", res)
	}
}

// fullDisk is a stdout that takes nothing.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// A report that does not arrive is not a verified run: CI reads the report, so the command
// exits 1 and says why on stderr, in both formats.
func TestCommand_UnwrittenReportIsNotVerified(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	e.seed(src, routeEntries(3))
	for _, format := range []string{"text", "json"} {
		var stderr strings.Builder
		code := e.command(nil).Run(context.Background(), []string{"migrate", "--from", src, "--to", dst, "--dry-run", "--format", format}, fullDisk{}, &stderr)
		if code != ExitNotVerified || !strings.Contains(stderr.String(), "kv migrate: writing the report: no space left on device") {
			t.Errorf("--format %s: exit %d, stderr %q; want exit 1 naming the failed write", format, code, stderr.String())
		}
	}
}

// A run cancelled half-way through its bulk writes (just before the third of four) stops, says
// so, and a rerun writes only the rest and verifies.
func TestMigrate_ResumesAfterCancellation(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	e.seed(src, routeEntries(2000))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	transport := beforeBulkWrite(3, cancel)(http.DefaultTransport)
	opts := Options{Client: e.client(t, transport), AccountID: e.id.AccountID, Sources: []string{src}, Target: dst, BulkWritePairs: 500}
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK || rep.Error == "" || rep.Verification.Skipped != "interrupted" {
		t.Fatalf("an interrupted run reports OK=%v error=%q verification=%+v", rep.OK, rep.Error, rep.Verification)
	}
	if n := len(e.stored(dst)); n != 1000 {
		t.Fatalf("target holds %d keys after two of four bulk writes, want 1000", n)
	}
	if len(rep.Failed) != 1000 {
		t.Errorf("%d keys reported failed, want the 1000 not written", len(rep.Failed))
	}
	e.resetRequests()

	opts.Client = e.client(t, nil)
	rep, err = Run(context.Background(), opts)
	if err != nil || !rep.OK {
		t.Fatalf("rerun: %v, %+v", err, rep)
	}
	if rep.Writes.Keys != 1000 || rep.Sources[0].Identical != 1000 || rep.Verification.Verified != 2000 {
		t.Errorf("rerun wrote %d keys, found %d identical, verified %d; want 1000, 1000, 2000",
			rep.Writes.Keys, rep.Sources[0].Identical, rep.Verification.Verified)
	}
	if n := len(e.seen(isBulkWrite)); n != 2 {
		t.Errorf("rerun bulk writes: %d, want 2", n)
	}
}

// Faults injected through the local edge's admin endpoint half-way through the copy (5xx on
// every call, retries exhausted) fail the run with the failed keys reported; once the API is
// healthy again a rerun completes.
func TestMigrate_RerunCompletesAfterInjectedFaults(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	e.seed(src, routeEntries(1500))
	admin := func(method string, body string) {
		req, _ := http.NewRequest(method, e.root+cfapi.AdminPrefix+"/faults", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+e.id.APIToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s faults: %s", method, resp.Status)
		}
	}
	hook := afterBulkWrite(1, func() { admin(http.MethodPost, `{"status":503,"count":1000}`) })
	opts := Options{Client: e.client(t, hook(http.DefaultTransport)), AccountID: e.id.AccountID, Sources: []string{src}, Target: dst, BulkWritePairs: 500}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK || len(rep.Failed) != 1000 || rep.Error == "" {
		t.Fatalf("under faults: OK=%v failed=%d error=%q; want not OK, 1000 failed, stopped at the delta listing", rep.OK, len(rep.Failed), rep.Error)
	}
	if !strings.Contains(rep.Failed[0].Error, "503") {
		t.Errorf("the failure does not name the API's answer: %q", rep.Failed[0].Error)
	}
	admin(http.MethodDelete, "")

	opts.Client = e.client(t, nil)
	rep, err = Run(context.Background(), opts)
	if err != nil || !rep.OK || rep.Writes.Keys != 1000 || rep.Verification.Verified != 1500 {
		t.Fatalf("rerun: %v, OK=%v wrote %d verified %d; want OK, 1000 written, 1500 verified", err, rep.OK, rep.Writes.Keys, rep.Verification.Verified)
	}
}

// Writes that land in a source during the copy are caught by the delta pass: a changed record
// (new rev), a new key, a changed key without metadata (compared by content) are copied; a
// deleted key is reported and left in the target. Keys whose listed rev did not change are
// not read again.
func TestMigrate_DeltaPassCatchesWritesDuringTheCopy(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	entries := routeEntries(300)
	entries["plain"] = Entry{Value: []byte("before")}
	e.seed(src, entries)
	changed := Entry{Value: []byte(`{"v":1,"app":"app-00001","status":"disabled"}`), Metadata: json.RawMessage(`{"owner":"tenant","rev":"rev-2","v":1}`)}
	added := Entry{Value: []byte(`{"v":1,"app":"late"}`), Metadata: json.RawMessage(`{"rev":"late-1","v":1}`)}
	hook := afterBulkWrite(1, func() {
		e.seed(src, map[string]Entry{"app-00001": changed, "late": added, "plain": {Value: []byte("after")}})
		e.deleteKey(src, "app-00002")
	})

	res := run(context.Background(), e.command(hook), "migrate", "--from", src, "--to", dst, "--format", "json")
	if res.code != ExitOK {
		t.Fatalf("want exit 0\n%s", res)
	}
	got := e.stored(dst)
	sameEntry(t, "app-00001", got["app-00001"], changed)
	sameEntry(t, "late", got["late"], added)
	sameEntry(t, "plain", got["plain"], Entry{Value: []byte("after")})
	if _, ok := got["app-00002"]; !ok {
		t.Error("the key deleted from the source during the copy was deleted from the target; the migration never deletes")
	}
	rep := res.report(t)
	d := rep.Delta
	if d == nil {
		t.Fatal("no delta report")
	}
	if !slices.Equal(d.Changed, []string{"app-00001", "plain"}) || !slices.Equal(d.Added, []string{"late"}) ||
		!slices.Equal(d.Deleted, []string{"app-00002"}) || d.Copied != 3 {
		t.Errorf("delta %+v, want changed [app-00001 plain], added [late], deleted [app-00002], 3 copied", d)
	}
	if d.Reread != 3 {
		t.Errorf("the delta pass re-read %d keys, want 3 (the new rev, the new key, the key without a rev)", d.Reread)
	}
	if !slices.Equal(rep.Verification.TargetOnly, []string{"app-00002"}) {
		t.Errorf("target-only keys %v, want [app-00002]", rep.Verification.TargetOnly)
	}
	text := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst)
	if !strings.Contains(text.stdout, "in the target only (in no source; reported, never deleted): 1\n  app-00002") {
		t.Errorf("the text report does not name the target-only key\n%s", text)
	}
}

// Target keys no source has are reported and kept; a target key with other content is left
// alone (exit 1) unless --overwrite replaces it.
func TestMigrate_TargetKeysAreNeverDeletedOrSilentlyOverwritten(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	e.seed(src, map[string]Entry{"shop": {Value: []byte("source")}, "docs": {Value: []byte("docs")}})
	e.seed(dst, map[string]Entry{"shop": {Value: []byte("written after the switch")}, "orphan": {Value: []byte("x")}})

	res := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst, "--format", "json")
	if res.code != ExitNotVerified {
		t.Fatalf("want exit 1 for a differing target key\n%s", res)
	}
	rep := res.report(t)
	if !slices.Equal(rep.TargetDiffers, []string{"shop"}) || !slices.Equal(rep.Verification.TargetOnly, []string{"orphan"}) {
		t.Errorf("target differs %v, target only %v", rep.TargetDiffers, rep.Verification.TargetOnly)
	}
	if v := e.stored(dst)["shop"]; string(v.Value) != "written after the switch" {
		t.Errorf("the differing key was overwritten without --overwrite: %q", v.Value)
	}

	res = run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst, "--overwrite", "--format", "json")
	if res.code != ExitOK {
		t.Fatalf("with --overwrite: want exit 0\n%s", res)
	}
	if rep := res.report(t); !slices.Equal(rep.Replaced, []string{"shop"}) {
		t.Errorf("replaced %v, want [shop]", rep.Replaced)
	}
	got := e.stored(dst)
	if string(got["shop"].Value) != "source" || got["orphan"] == nil {
		t.Errorf("after --overwrite: shop=%q orphan present=%v", got["shop"].Value, got["orphan"] != nil)
	}
}

// A key about to expire (KV refuses expirations less than 60 s ahead) is reported and skipped,
// not sent in a bulk write that the API would refuse whole.
func TestMigrate_KeysAboutToExpireAreSkipped(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	e.seed(src, map[string]Entry{
		"soon":  {Value: []byte("x"), Expiration: time.Now().Add(75 * time.Second).Unix()},
		"later": {Value: []byte("y"), Expiration: time.Now().Add(time.Hour).Unix()},
	})
	res := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst, "--format", "json")
	if res.code != ExitOK {
		t.Fatalf("want exit 0\n%s", res)
	}
	if rep := res.report(t); !slices.Equal(rep.Expiring, []string{"soon"}) || rep.Verification.Verified != 1 {
		t.Errorf("expiring %v, verified %d; want [soon], 1", rep.Expiring, rep.Verification.Verified)
	}
	if got := e.stored(dst); got["later"] == nil || got["soon"] != nil {
		t.Errorf("target keys %v, want only later", got)
	}
}

// Long runs print progress lines on stderr, every N keys.
func TestMigrate_PrintsProgress(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	e.seed(src, routeEntries(2500))
	res := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst, "--progress-every", "1000", "--progress-interval", "1h")
	if res.code != ExitOK {
		t.Fatalf("want exit 0\n%s", res)
	}
	for _, line := range []string{
		"kv migrate: listing " + src + ": 1000 keys so far",
		"kv migrate: listed " + src + ": 2500 keys",
		"kv migrate: read " + src + ": 1000/2500 keys",
		"kv migrate: read " + src + ": 2500/2500 keys",
		"kv migrate: wrote to " + dst + ": 2500/2500 keys",
		"kv migrate: verified against " + dst + ": 2000/2500 keys",
	} {
		if !strings.Contains(res.stderr, line+"\n") {
			t.Errorf("no progress line %q\n%s", line, res)
		}
	}
}

// The token never appears in what the command prints: reports, progress, API errors, and an
// error whose text carries it (a server that echoes the Authorization header).
func TestMigrate_TokenNeverPrinted(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	e.seed(src, routeEntries(50))
	token := e.id.APIToken
	var outputs []runResult
	for _, args := range [][]string{
		{"migrate", "--from", src, "--to", dst},
		{"migrate", "--from", src, "--to", dst, "--format", "json", "--progress-every", "1"},
		{"migrate", "--from", src, "--to", dst, "--dry-run"},
		{"migrate", "--from", src, "--to", "0123456789abcdef0123456789abcdef"},
		{"migrate", "--from", src},
		{"migrate", "-h"},
	} {
		outputs = append(outputs, run(context.Background(), e.command(nil), args...))
	}

	// A wrong token: the API refuses it; the refused token is not printed either.
	wrong := e.command(nil)
	wrong.Getenv = func(k string) string {
		return map[string]string{EnvAPIToken: "wrong-token-0123456789abcdef", EnvAccountID: e.id.AccountID, EnvAPIBaseURL: e.URL}[k]
	}
	res := run(context.Background(), wrong, "migrate", "--from", src, "--to", dst)
	if res.code != ExitNotVerified || !strings.Contains(res.stdout, "Invalid access token") {
		t.Errorf("wrong token: want exit 1 naming the API's refusal\n%s", res)
	}
	if strings.Contains(res.stdout+res.stderr, "wrong-token-0123456789abcdef") {
		t.Errorf("the refused token was printed\n%s", res)
	}

	// A server that reflects the Authorization header into its error.
	echo := httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		msg, _ := json.Marshal("bad request from " + r.Header.Get("Authorization"))
		_, _ = fmt.Fprintf(w, `{"success":false,"errors":[{"code":1000,"message":%s}],"messages":[],"result":null}`, msg) // the command's output is checked
	}))
	reflect := e.command(nil)
	reflect.Getenv = func(k string) string {
		return map[string]string{EnvAPIToken: token, EnvAccountID: e.id.AccountID, EnvAPIBaseURL: echo + "/client/v4"}[k]
	}
	res = run(context.Background(), reflect, "migrate", "--from", src, "--to", dst)
	if !strings.Contains(res.stdout, "bad request from Bearer [redacted]") {
		t.Errorf("the reflected header was not shown redacted\n%s", res)
	}
	outputs = append(outputs, res)

	for _, o := range outputs {
		if strings.Contains(o.stdout+o.stderr, token) {
			t.Errorf("the API token was printed\n%s", o)
		}
	}
}

func TestCommand_UsageErrors(t *testing.T) {
	ns := "0123456789abcdef0123456789abcdef"
	other := "fedcba9876543210fedcba9876543210"
	env := map[string]string{EnvAPIToken: "tok", EnvAccountID: ns}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no sub-command", env, nil, "usage:"},
		{"unknown sub-command", env, []string{"copy"}, "usage:"},
		{"no token", map[string]string{EnvAccountID: ns}, []string{"migrate", "--from", ns, "--to", other}, "set CLOUDFLARE_API_TOKEN"},
		{"no account", map[string]string{EnvAPIToken: "tok"}, []string{"migrate", "--from", ns, "--to", other}, "set KAMUIDASH_ACCOUNT_ID or --account-id"},
		{"no source", env, []string{"migrate", "--to", other}, "--from"},
		{"bad id", env, []string{"migrate", "--from", "routes", "--to", other}, `"routes" is not a 32-character`},
		{"source is target", env, []string{"migrate", "--from", ns, "--to", ns}, "both a source and the target"},
		{"prefer not a source", env, []string{"migrate", "--from", ns, "--to", other, "--prefer", "00000000000000000000000000000000"}, "not one of the sources"},
		{"bad format", env, []string{"migrate", "--from", ns, "--to", other, "--format", "yaml"}, "unknown --format"},
		{"bad base URL", map[string]string{EnvAPIToken: "tok", EnvAccountID: ns, EnvAPIBaseURL: "https://user:pw@example.test/client/v4"}, []string{"migrate", "--from", ns, "--to", other}, "carries credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Command{Getenv: func(k string) string { return tc.env[k] }}
			res := run(context.Background(), c, tc.args...)
			if res.code != ExitUsage || !strings.Contains(res.stderr, tc.want) {
				t.Errorf("want exit 2 and %q\n%s", tc.want, res)
			}
			if strings.Contains(res.stderr, "user:pw") {
				t.Errorf("the base URL's credentials were echoed\n%s", res)
			}
		})
	}
}

// A key whose target content --overwrite replaced stays listed as replaced when the source
// changes during the copy and the delta pass writes it again: by then the target holds this
// run's own copy, and the delta pass's decision alone would no longer see a replacement (an
// attack found the report empty).
func TestRun_ReplacedKeyStaysReportedWhenTheDeltaPassWritesItAgain(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("routes-v1"), e.namespace("routes-v2")
	e.seed(src, map[string]Entry{"shop": {Value: []byte("source v1")}})
	e.seed(dst, map[string]Entry{"shop": {Value: []byte("written after the switch")}})
	hook := afterBulkWrite(1, func() { e.seed(src, map[string]Entry{"shop": {Value: []byte("source v2")}}) })
	rep, err := Run(context.Background(), Options{Client: e.client(t, hook(http.DefaultTransport)),
		AccountID: e.id.AccountID, Sources: []string{src}, Target: dst, Overwrite: true})
	if err != nil || !rep.OK {
		t.Fatalf("run: %v %+v", err, rep)
	}
	if got := string(e.stored(dst)["shop"].Value); got != "source v2" {
		t.Fatalf("target shop = %q, want the source's latest", got)
	}
	if !slices.Equal(rep.Replaced, []string{"shop"}) {
		t.Errorf("replaced %v, want [shop]: the target's own content was overwritten", rep.Replaced)
	}
}

// A binary value is read on its own by its key in the URL path; a key holding characters that
// mean something in a URL (documented as valid, "use percent-encoding") must still address
// itself, not a neighbour or nothing. (Found by attacking the migration: the key went into the
// path unescaped, so "icon?x" read "icon" and "icon%41" read "iconA".)
func TestMigrate_BinaryValuesUnderPathUnsafeKeys(t *testing.T) {
	e := newTestEdge(t)
	src, dst := e.namespace("mixed-v1"), e.namespace("mixed-v2")
	want := map[string]Entry{
		"icon":      {Value: []byte{0x89, 'P', 'N', 'G', 0x00, 0x01}},
		"iconA":     {Value: []byte{0x89, 'P', 'N', 'G', 0x00, 0x02}},
		"icon?x":    {Value: []byte{0x89, 'P', 'N', 'G', 0x00, 0x03}, Metadata: json.RawMessage(`{"kind":"icon"}`)},
		"icon%41":   {Value: []byte{0x89, 'P', 'N', 'G', 0x00, 0x04}},
		"icon/big":  {Value: []byte{0x89, 'P', 'N', 'G', 0x00, 0x05}},
		"icon#frag": {Value: []byte{0x89, 'P', 'N', 'G', 0x00, 0x06}},
	}
	e.seed(src, want)

	res := run(context.Background(), e.command(nil), "migrate", "--from", src, "--to", dst)
	if res.code != ExitOK {
		t.Fatalf("want exit 0\n%s", res)
	}
	got := e.stored(dst)
	for k, w := range want {
		sameEntry(t, k, got[k], w)
	}
}
