package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

func TestParseOptions_FlagsWinOverEnvironment(t *testing.T) {
	t.Setenv("KAMUI_ROUTER_NAMESPACE_PREFIX", "tenant-")
	t.Setenv("KAMUI_ROUTER_DIAL_TIMEOUT", "2s")
	t.Setenv("KAMUI_ROUTER_LISTEN", "127.0.0.1:1")
	o, err := parseOptions([]string{"--listen", "127.0.0.1:2", "--log-sample-rate", "0.5"})
	if err != nil {
		t.Fatal(err)
	}
	if o.namespacePrefix != "tenant-" || o.dialTimeout != 2*time.Second || o.listen != "127.0.0.1:2" || o.logSampleRate != 0.5 {
		t.Errorf("options %+v: want prefix and dial timeout from the environment, listen and rate from flags", o)
	}
	if o.maxSkew != route.DefaultMaxSkew {
		t.Errorf("max skew %s, want the contract default", o.maxSkew)
	}
}

func TestParseOptions_GCPercent(t *testing.T) {
	args := []string{"--namespace-prefix", "tenant-"}
	if o, err := parseOptions(args); err != nil || o.gcPercent != defaultGCPercent {
		t.Errorf("default: %d, %v; want %d", o.gcPercent, err, defaultGCPercent)
	}
	t.Setenv("GOGC", "150")
	if o, _ := parseOptions(args); o.gcPercent >= 0 {
		t.Errorf("with GOGC set: %d, want the runtime's setting left alone", o.gcPercent)
	}
	if o, _ := parseOptions(append(args, "--gc-percent", "200")); o.gcPercent != 200 {
		t.Errorf("flag with GOGC set: %d, want the flag's 200", o.gcPercent)
	}
	t.Setenv("KAMUI_ROUTER_GC_PERCENT", "300")
	if o, _ := parseOptions(args); o.gcPercent != 300 {
		t.Errorf("variable with GOGC set: %d, want the variable's 300", o.gcPercent)
	}
	if _, err := parseOptions(append(args, "--gc-percent", "-5")); err == nil {
		t.Error("accepted a negative --gc-percent")
	}
}

func TestParseOptions_Refusals(t *testing.T) {
	if _, err := parseOptions(nil); err == nil {
		t.Error("accepted a missing namespace prefix")
	}
	t.Setenv("KAMUI_ROUTER_DRAIN_TIMEOUT", "soon")
	if _, err := parseOptions([]string{"--namespace-prefix", "tenant-"}); err == nil {
		t.Error("accepted a malformed environment value")
	}
}

func TestLoadSecret(t *testing.T) {
	const fromFile, fromEnv = "signing-secret-from-the-file-0123456789", "signing-secret-from-the-environment-0123"
	file := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(file, []byte(fromFile+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KAMUI_ROUTER_SECRET", fromEnv)
	if got, err := loadSecret(file); err != nil || string(got) != fromFile {
		t.Errorf("file: %q, %v; want the file's content without the newline", got, err)
	}
	if got, err := loadSecret(""); err != nil || string(got) != fromEnv {
		t.Errorf("env: %q, %v", got, err)
	}
	t.Setenv("KAMUI_ROUTER_SECRET", "")
	if _, err := loadSecret(""); err == nil {
		t.Error("accepted no secret at all")
	}
}

// The next key of a rotation comes like the current one, is optional, and obeys the same
// rules: at least 32 bytes, and an error never shows it.
func TestLoadNextSecret(t *testing.T) {
	const next = "next-signing-secret-from-the-file-0123456789"
	dir := t.TempDir()
	file := filepath.Join(dir, "signing-secret-next")
	if err := os.WriteFile(file, []byte(next+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KAMUI_ROUTER_NEXT_SECRET", "")
	if got, err := loadNextSecret(""); err != nil || got != nil {
		t.Errorf("none given: %q, %v; want no next key", got, err)
	}
	if got, err := loadNextSecret(file); err != nil || string(got) != next {
		t.Errorf("file: %q, %v; want the file's content without the line ending", got, err)
	}
	t.Setenv("KAMUI_ROUTER_NEXT_SECRET", next+"-env")
	if got, err := loadNextSecret(""); err != nil || string(got) != next+"-env" {
		t.Errorf("env: %q, %v", got, err)
	}
	if _, err := loadNextSecret(filepath.Join(dir, "missing")); err == nil {
		t.Error("accepted a next secret file that does not exist")
	}

	const short = "short-key-0123456789"
	if err := os.WriteFile(file, []byte(short), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KAMUI_ROUTER_SECRET", short)
	t.Setenv("KAMUI_ROUTER_NEXT_SECRET", short)
	for name, load := range map[string]func() ([]byte, error){
		"next from a file":    func() ([]byte, error) { return loadNextSecret(file) },
		"next from env":       func() ([]byte, error) { return loadNextSecret("") },
		"current from a file": func() ([]byte, error) { return loadSecret(file) },
		"current from env":    func() ([]byte, error) { return loadSecret("") },
	} {
		_, err := load()
		if err == nil {
			t.Errorf("%s: accepted a key of %d bytes", name, len(short))
		} else if strings.Contains(err.Error(), short) {
			t.Errorf("%s: the error shows the key: %v", name, err)
		}
	}
}

func TestParseOptions_NextSecretFileFromEnvironment(t *testing.T) {
	t.Setenv("KAMUI_ROUTER_NEXT_SECRET_FILE", "/etc/kamuidash/signing/signing-secret-next")
	o, err := parseOptions([]string{"--namespace-prefix", "tenant-"})
	if err != nil || o.nextSecretFile != "/etc/kamuidash/signing/signing-secret-next" {
		t.Errorf("next secret file %q, %v; want the variable's path", o.nextSecretFile, err)
	}
}

func TestTemplateResolver(t *testing.T) {
	u, err := templateResolver("127.0.0.1:{port}")(route.Upstream{Namespace: "tenant-a", Service: "web", Port: 8081})
	if err != nil || u.String() != "http://127.0.0.1:8081" {
		t.Errorf("got %v, %v", u, err)
	}
	u, _ = templateResolver("{service}.{namespace}.internal:{port}")(route.Upstream{Namespace: "tenant-a", Service: "web", Port: 80})
	if u.Host != "web.tenant-a.internal:80" {
		t.Errorf("got %s", u.Host)
	}
	u, _ = templateResolver("{port}{x}{service")(route.Upstream{Namespace: "n", Service: "s", Port: 1})
	if u.Host != "1{x}{service" {
		t.Errorf("unknown placeholders: got %s, want them kept literally", u.Host)
	}
}
