package main

import "testing"

// A key is the same key however it is delivered: a Kubernetes Secret made from a file that ends
// in a newline, given as an environment variable (secretKeyRef) rather than mounted, carried
// the newline into the key, and every context the Worker signed was refused with 403.
func TestLoadSecret_EnvironmentIgnoresTrailingNewline(t *testing.T) {
	const key = "signing-secret-from-the-environment-0123"
	t.Setenv("KAMUI_ROUTER_SECRET", key+"\n")
	t.Setenv("KAMUI_ROUTER_NEXT_SECRET", key+"-next\r\n")
	if got, err := loadSecret(""); err != nil || string(got) != key {
		t.Errorf("current: %q, %v; want the variable without the newline", got, err)
	}
	if got, err := loadNextSecret(""); err != nil || string(got) != key+"-next" {
		t.Errorf("next: %q, %v; want the variable without the line ending", got, err)
	}
}
