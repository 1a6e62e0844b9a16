package router_test

import (
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/worker-src/router"
)

// printableSecret is a fresh random key in hex, so a key that leaked into a log line would
// show there as it is.
func printableSecret(t *testing.T) []byte { return []byte(hex.EncodeToString(newSecret(t))) }

// While the signing secret rotates, the router verifies under the current and the next key,
// so the Worker can switch to the next one with no request refused in between; a key it was
// not given is still refused, and the log names the key that matched, never the key.
func TestRouter_AcceptsTheNextSigningKey(t *testing.T) {
	current, next, stranger := printableSecret(t), printableSecret(t), printableSecret(t)
	h := newHarness(t, newBackend(t, nil), func(c *router.Config) { c.Secret, c.NextSecret = current, next })
	h.secret = current
	for _, tt := range []struct {
		name       string
		key        []byte
		wantStatus int
	}{
		{"current", current, http.StatusOK},
		{"next", next, http.StatusOK},
		{"unknown", stranger, http.StatusForbidden},
	} {
		for _, p := range requestShapes {
			if res, _ := do(t, p.requestSignedWith(t, h, tt.key, "req-"+tt.name, "/")); res.StatusCode != tt.wantStatus {
				t.Errorf("signed with the %s key, %s path: got %d, want %d", tt.name, p.name, res.StatusCode, tt.wantStatus)
			}
		}
	}
	keys := map[string]int{}
	for _, l := range h.logs.accessLines(t) {
		k, _ := l["signing_key"].(string)
		outcome, _ := l["outcome"].(string) // a missing one counts under "", which fails the check
		keys[outcome+"/"+k]++
	}
	if len(keys) != 3 || keys["proxied/current"] != 2 || keys["proxied/next"] != 2 || keys["denied/"] != 2 {
		t.Errorf("outcome/signing_key of the access lines: %v, want 2 proxied/current, 2 proxied/next, 2 denied/ (none named)", keys)
	}
	logs := h.logs.String()
	for _, key := range [][]byte{current, next, stranger} {
		if strings.Contains(logs, string(key)) {
			t.Error("a signing key appears in the log")
		}
	}
}

// Without a next key, a context signed with it is refused: the rotation's first step (the
// router learns the next key) cannot be skipped.
func TestRouter_RefusesTheNextKeyItWasNotGiven(t *testing.T) {
	next := newSecret(t)
	h := newHarness(t, newBackend(t, nil), nil)
	for _, p := range requestShapes {
		if res, _ := do(t, p.requestSignedWith(t, h, next, "req-early", "/")); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s path, signed with a key the router does not have: got %d, want 403", p.name, res.StatusCode)
		}
		if res, _ := do(t, p.requestSignedWith(t, h, h.secret, "req-current", "/")); res.StatusCode != http.StatusOK {
			t.Errorf("%s path, signed with the current key: got %d, want 200", p.name, res.StatusCode)
		}
	}
}
