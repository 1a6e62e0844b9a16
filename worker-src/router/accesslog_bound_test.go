package router_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// TestAccessLog_BoundsHostileMethod: any client reaching the tunnel, unsigned, chooses the method;
// a refused request is always logged, so the method must be bounded as the path is, or every
// forged request writes up to a whole request head (32 KiB) into the log.
func TestAccessLog_BoundsHostileMethod(t *testing.T) {
	h := newHarness(t, newBackend(t, func(http.ResponseWriter, *http.Request) {}), nil)
	conn := dialRouter(t, h)
	method := strings.Repeat("M", 20<<10)
	if _, err := conn.Write([]byte(method + " / HTTP/1.1\r\nHost: router\r\nConnection: close\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("got %d, want 403", res.StatusCode)
	}
	eventually(t, "the access line", func() bool { return strings.Contains(h.logs.String(), `"access"`) })
	lines := h.logs.accessLines(t)
	if len(lines) != 1 {
		t.Fatalf("%d access lines, want 1", len(lines))
	}
	if m, _ := lines[0]["method"].(string); len(m) > 64 {
		t.Errorf("logged a %d-byte method", len(m))
	}
}
