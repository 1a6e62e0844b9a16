package localedge

import (
	"net/http"
	"testing"
)

func TestServiceTarget(t *testing.T) {
	withRouter := &tunnelHandler{routerURL: func() string { return "http://127.0.0.1:9999" }}
	withoutRouter := &tunnelHandler{routerURL: func() string { return "" }}
	for _, tc := range []struct {
		h          *tunnelHandler
		service    string
		wantTarget string
		wantStatus int
	}{
		{withRouter, "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080", "http://127.0.0.1:9999", 0},
		{withoutRouter, "http://kamuidash-router.kamuidash-system.svc.cluster.local:8080", "", http.StatusBadGateway},
		{withRouter, "http://127.0.0.1:8081", "http://127.0.0.1:8081", 0},
		{withRouter, "http://localhost:8081", "http://localhost:8081", 0},
		{withRouter, "http_status:404", "", http.StatusNotFound},
		{withRouter, "http_status:9", "", http.StatusBadGateway},
		{withRouter, "http://web.tenant-shop.svc.cluster.local:8080", "", http.StatusBadGateway},
		{withRouter, "tcp://127.0.0.1:22", "", http.StatusBadGateway},
	} {
		target, status, _ := tc.h.serviceTarget(tc.service)
		got := ""
		if target != nil {
			got = target.String()
		}
		if got != tc.wantTarget || status != tc.wantStatus {
			t.Errorf("serviceTarget(%q) = %q, %d; want %q, %d", tc.service, got, status, tc.wantTarget, tc.wantStatus)
		}
	}
}

func TestIngressMatching(t *testing.T) {
	for _, tc := range []struct {
		pattern, host string
		want          bool
	}{
		{"", "anything.test", true},
		{"*", "anything.test", true},
		{"origin.kamui.test", "origin.kamui.test", true},
		{"Origin.Kamui.Test", "origin.kamui.test", true},
		{"origin.kamui.test", "other.kamui.test", false},
		{"*.kamui.test", "a.kamui.test", true},
		{"*.kamui.test", "kamui.test", false},
	} {
		if got := ingressHostMatches(tc.pattern, tc.host); got != tc.want {
			t.Errorf("ingressHostMatches(%q, %q) = %v", tc.pattern, tc.host, got)
		}
	}
	if !ingressPathMatches("", "/x") || !ingressPathMatches("^/api/", "/api/v1") || ingressPathMatches("^/api/", "/web") || ingressPathMatches("(", "/") {
		t.Error("ingress path matching: regexp semantics, empty matches all, invalid matches nothing")
	}
}
