package edge

import (
	"encoding/json"
	"hash/fnv"
	"testing"
)

// The hand-written encoder must give exactly what encoding/json gives for the same line.
func TestLogLineEncodeMatchesEncodingJSON(t *testing.T) {
	lines := []logLine{
		{Msg: "edge.request", RequestID: "r", Method: "HEAD", ManifestReads: 1, ContentCache: "miss", RouteCache: "skip"},
		{Msg: "edge.request", RequestID: "r", Method: "GET", ContentCache: "skip", RouteCache: "skip"},
		{Msg: "edge.request", TimeMS: 1795997381096, RequestID: "d2c0d4cc-7a5c", Method: "POST", Host: "www.shop.example",
			HostKind: "custom", App: "shop", RouteSource: "kv", KVReads: 2, R2Reads: 1, ManifestReads: 1, IORounds: 3, ContentCache: "miss",
			RouteCache: "miss", Delivery: "dynamic", Outcome: OutcomeOK, Status: 200, DurUS: 1234, KVUS: -5, UpstreamUS: 99,
			Error: "STATIC: \"quoted\" \\ back <tag> & \x00\x1f\t\n é \u2028\u2029 \xff\xfe end"},
	}
	for _, l := range lines {
		want, err := json.Marshal(&l)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.encode(); got != string(want) {
			t.Errorf("encode:\n got %s\nwant %s", got, want)
		}
	}
}

func TestSampledIsFNV1a(t *testing.T) {
	for _, id := range []string{"", "rid-1", "d2c0d4cc-7a5c-422f-9dd1-5c7f86a780ad"} {
		f := fnv.New32a()
		f.Write([]byte(id))
		cut := int(f.Sum32() % 1_000_000)
		if !sampled(id, cut+1) || sampled(id, cut) {
			t.Errorf("sampled(%q) does not cut at FNV-1a %d", id, cut)
		}
	}
}

// Every outcome has its own name: a constant added without one would log as another's.
func TestOutcomeNames(t *testing.T) {
	if outcomeUnset.String() != "" {
		t.Errorf("the zero Outcome logs %q", outcomeUnset)
	}
	seen := map[string]Outcome{}
	for o := outcomeUnset + 1; o < outcomeCount; o++ {
		name := o.String()
		if name == "" {
			t.Errorf("outcome %d has no name", o)
		}
		if prev, dup := seen[name]; dup {
			t.Errorf("outcomes %d and %d are both %q", prev, o, name)
		}
		seen[name] = o
	}
}
