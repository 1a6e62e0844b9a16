package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

func TestUnknownSubcommandPrintsUsageAndExits2(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := runSubcommand(context.Background(), "frobnicate", nil, &stdout, &stderr)
	if code != 2 {
		t.Errorf("exit code = %d; want 2", code)
	}
	if !strings.Contains(stderr.String(), `unknown command "frobnicate"`) || !strings.Contains(stderr.String(), "version") {
		t.Errorf("stderr lacks the error and the command list:\n%s", stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout should be empty, got %q", stdout.String())
	}
}

func TestVersionSubcommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runSubcommand(context.Background(), "version", nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code = %d, stderr %s", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "terraform-provider-kamuidash "+version+" (") {
		t.Errorf("stdout = %q", stdout.String())
	}
	if code := runSubcommand(context.Background(), "version", []string{"extra"}, &stdout, &stderr); code != 2 {
		t.Errorf("version with arguments: exit code = %d; want 2", code)
	}
}

// fullDisk is a stdout that takes nothing.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestResultNotWrittenExits1: a result that does not arrive fails the command, and stderr says
// why.
func TestResultNotWrittenExits1(t *testing.T) {
	var stderr bytes.Buffer
	if code := runSubcommand(context.Background(), "version", nil, fullDisk{}, &stderr); code != 1 {
		t.Errorf("exit code = %d; want 1", code)
	}
	if want := "version: writing the result: no space left on device"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr = %q; want it to say %q", stderr.String(), want)
	}
}

func TestProbeKeySubcommand(t *testing.T) {
	const secret = "0123456789abcdef0123456789abcdef-signing"
	defer func(r io.Reader) { stdin = r }(stdin)
	for _, input := range []string{secret, secret + "\n", secret + "\r\n"} {
		stdin = strings.NewReader(input)
		var stdout, stderr bytes.Buffer
		if code := runSubcommand(context.Background(), "probe-key", nil, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		if want := route.EncodeProbeKey(route.ProbeKey([]byte(secret))) + "\n"; stdout.String() != want {
			t.Errorf("input %q: printed %q, want %q", input, stdout.String(), want)
		}
	}
	stdin = strings.NewReader("too-short-secret")
	var stdout, stderr bytes.Buffer
	if code := runSubcommand(context.Background(), "probe-key", nil, &stdout, &stderr); code != 1 || stdout.Len() != 0 {
		t.Errorf("a short secret: exit %d, stdout %q", code, stdout.String())
	}
	if strings.Contains(stderr.String(), "too-short-secret") {
		t.Errorf("the error repeats the secret: %s", stderr.String())
	}
}
