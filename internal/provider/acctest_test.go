package provider

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// testEdge is a local edge API server running in the test process, so that acceptance tests
// drive the real CLI against a Cloudflare-compatible API with no account and no network.
type testEdge struct {
	*cfapi.Server
	URL string
}

func newTestEdge(t *testing.T, options ...func(*cfapi.Config)) *testEdge {
	t.Helper()
	return newTestEdgeBehind(t, nil, options...)
}

// newTestEdgeBehind is newTestEdge with wrap (when not nil) in front of the API server: a test's
// call counter or fault of its own.
func newTestEdgeBehind(t *testing.T, wrap func(http.Handler) http.Handler, options ...func(*cfapi.Config)) *testEdge {
	t.Helper()
	cfg := cfapi.Config{
		StateDir:           t.TempDir(),
		ZoneName:           "kamui.test",
		KVPropagationDelay: -1, // synchronous: tests read what they just wrote
		Logger:             slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	for _, o := range options {
		o(&cfg)
	}
	srv, err := cfapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if wrap != nil {
		h = wrap(srv)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return &testEdge{Server: srv, URL: hs.URL + cfapi.APIPrefix}
}

// loseAnswers stands in front of the API as a proxy that loses the API's answers: every
// request of method whose path ends in suffix is carried out (as it came, or as store rewrites
// it when store is not nil) and answered 502, whatever the API said. A retry ends the same way.
func loseAnswers(method, suffix string, store func(*http.Request) *http.Request) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != method || !strings.HasSuffix(r.URL.Path, suffix) {
				next.ServeHTTP(w, r)
				return
			}
			if store != nil {
				r = store(r)
			}
			next.ServeHTTP(httptest.NewRecorder(), r)
			http.Error(w, "bad gateway", http.StatusBadGateway)
		})
	}
}

// providerBlockWithS3 is providerBlock with the edge's R2 S3 endpoint and key pair.
func (e *testEdge) providerBlockWithS3() string {
	id := e.Identity()
	return strings.TrimSuffix(e.providerBlock(), "}\n") + fmt.Sprintf(`  r2_s3_endpoint       = %q
  r2_access_key_id     = %q
  r2_secret_access_key = %q
}
`, strings.TrimSuffix(e.URL, cfapi.APIPrefix)+cfapi.S3Prefix, id.R2AccessKeyID, id.R2SecretAccessKey)
}

// providerBlock configures the provider for this edge.
func (e *testEdge) providerBlock() string {
	return e.providerBlockWithZone("zone_id", e.Identity().ZoneID)
}

// providerBlockByZoneName configures the provider for this edge with the zone given by name
// (zoneName, spelled as the test likes) instead of its ID.
func (e *testEdge) providerBlockByZoneName(zoneName string) string {
	return e.providerBlockWithZone("zone_name", zoneName)
}

// providerBlockWithZone is the provider block for this edge, its zone set by the attribute
// zoneAttr (zone_id or zone_name).
func (e *testEdge) providerBlockWithZone(zoneAttr, zone string) string {
	id := e.Identity()
	return fmt.Sprintf(`
provider "kamuidash" {
  api_token       = %q
  account_id      = %q
  %-16s= %q
  api_base_url    = %q
  platform_domain = "kamui.test"
  environment     = "test"
}
`, id.APIToken, id.AccountID, zoneAttr, zone, e.URL)
}

// importVerify is ImportStateVerify with durations compared by what they parse to: an import
// reads a duration back as Go prints it ("2.5s"), whatever the configuration spelled
// ("2500ms"). remember, a Check of the step before the import, keeps the resource's
// attributes; check, the import step's ImportStateCheck, requires the imported instance to have
// the same attributes with the same values.
type importVerify struct {
	addr string
	// durations are the attributes compared as durations, as flatmap keys ("dynamic.timeout").
	durations []string
	applied   map[string]string
}

func (v *importVerify) remember(s *terraform.State) error {
	r, ok := s.RootModule().Resources[v.addr]
	if !ok || r.Primary == nil {
		return fmt.Errorf("%s is not in the state", v.addr)
	}
	v.applied = r.Primary.Attributes
	return nil
}

func (v *importVerify) check(imported []*terraform.InstanceState) error {
	if v.applied == nil {
		return fmt.Errorf("no state of %s was remembered before the import", v.addr)
	}
	if len(imported) != 1 {
		return fmt.Errorf("the import made %d instances, want 1", len(imported))
	}
	return sameAttributes(v.applied, imported[0].Attributes, v.durations)
}

// sameAttributes compares two flatmapped states as ImportStateVerify does (empty containers
// count as absent), except that the durations compare by value.
func sameAttributes(applied, imported map[string]string, durations []string) error {
	present := func(m map[string]string, k string) (string, bool) {
		v, ok := m[k]
		if ok && v == "0" && (strings.HasSuffix(k, ".#") || strings.HasSuffix(k, ".%")) {
			return "", false
		}
		return v, ok
	}
	var diffs []string
	for k := range applied {
		want, inApplied := present(applied, k)
		got, inImported := present(imported, k)
		switch {
		case !inApplied:
		case !inImported:
			diffs = append(diffs, fmt.Sprintf("%s: %q applied, missing after the import", k, want))
		case slices.Contains(durations, k):
			w, errW := time.ParseDuration(want)
			g, errG := time.ParseDuration(got)
			if errW != nil || errG != nil || w != g {
				diffs = append(diffs, fmt.Sprintf("%s: %q applied, %q imported: not the same duration", k, want, got))
			}
		case got != want:
			diffs = append(diffs, fmt.Sprintf("%s: %q applied, %q imported", k, want, got))
		}
	}
	for k := range imported {
		_, inApplied := present(applied, k)
		if got, inImported := present(imported, k); inImported && !inApplied {
			diffs = append(diffs, fmt.Sprintf("%s: %q imported, absent from the applied state", k, got))
		}
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		return fmt.Errorf("the imported state differs from the applied one:\n%s", strings.Join(diffs, "\n"))
	}
	return nil
}

func TestSameAttributes_DurationsByValueEverythingElseExactly(t *testing.T) {
	applied := map[string]string{"id": "ns/shop", "timeout": "2500ms", "port": "8080", "tags.#": "0"}
	for _, c := range []struct {
		name     string
		imported map[string]string
		ok       bool
	}{
		{"the same duration spelled otherwise", map[string]string{"id": "ns/shop", "timeout": "2.5s", "port": "8080"}, true},
		{"another duration", map[string]string{"id": "ns/shop", "timeout": "2.6s", "port": "8080"}, false},
		{"a duration that does not parse", map[string]string{"id": "ns/shop", "timeout": "soon", "port": "8080"}, false},
		{"another value", map[string]string{"id": "ns/shop", "timeout": "2.5s", "port": "9090"}, false},
		{"an attribute missing", map[string]string{"id": "ns/shop", "timeout": "2.5s"}, false},
		{"an attribute more", map[string]string{"id": "ns/shop", "timeout": "2.5s", "port": "8080", "extra": "x"}, false},
		{"a spelling outside the durations", map[string]string{"id": "ns/shop", "timeout": "2.5s", "port": "08080"}, false},
	} {
		err := sameAttributes(applied, c.imported, []string{"timeout"})
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v, want ok = %v", c.name, err, c.ok)
		}
	}
}
