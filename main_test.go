package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
