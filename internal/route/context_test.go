package route

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

var (
	testSecret = []byte("per-environment-signing-secret")
	testNow    = time.Unix(1_790_000_000, 0)
)

func signedHeaders(c Context) http.Header {
	h := http.Header{}
	c.SetHeaders(h, testSecret)
	return h
}

func baseContext() Context {
	return Context{
		Method:    "POST",
		Host:      "shop.kamui.app",
		Target:    "/cart?item=1",
		App:       "shop",
		Upstream:  "tenant-shop/web:8080",
		RequestID: "req-0123456789",
		Time:      testNow,
	}
}

func TestVerifyHeadersAccepts(t *testing.T) {
	c := baseContext()
	got, err := VerifyHeaders(signedHeaders(c), c.Method, c.Target, testSecret, testNow.Add(10*time.Second), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Host != c.Host || got.Target != c.Target || got.App != c.App || got.Upstream != c.Upstream || got.RequestID != c.RequestID || !got.Time.Equal(c.Time) {
		t.Errorf("got %+v, want %+v", got, c)
	}
	if sig := c.Sign(testSecret); !strings.HasPrefix(sig, "v1=") || len(sig) != 3+64 {
		t.Errorf("signature format: %q", sig)
	}
}

func TestVerifyHeadersRefuses(t *testing.T) {
	c := baseContext()
	tests := []struct {
		name   string
		edit   func(h http.Header)
		method string
		target string
		secret []byte
		now    time.Time
		want   error
	}{
		{name: "missing signature", edit: func(h http.Header) { h.Del(HeaderContextSignature) }, want: ErrSignatureMissing},
		{name: "wrong key", secret: []byte("another-environment"), want: ErrSignatureInvalid},
		{name: "tampered app", edit: func(h http.Header) { h.Set(HeaderApp, "admin") }, want: ErrSignatureInvalid},
		{name: "tampered upstream", edit: func(h http.Header) { h.Set(HeaderUpstream, "kube-system/api:443") }, want: ErrSignatureInvalid},
		{name: "tampered request id", edit: func(h http.Header) { h.Set(HeaderRequestID, "other") }, want: ErrSignatureInvalid},
		{name: "tampered time", edit: func(h http.Header) { h.Set(HeaderContextTime, "1790000001") }, want: ErrSignatureInvalid},
		{name: "tampered host", edit: func(h http.Header) { h.Set(HeaderHost, "other.kamui.app") }, want: ErrSignatureInvalid},
		{name: "replayed on another path", target: "/admin", want: ErrSignatureInvalid},
		{name: "replayed with another query", target: "/cart?item=2", want: ErrSignatureInvalid},
		{name: "missing host", edit: func(h http.Header) { h.Del(HeaderHost) }, want: ErrContextMalformed},
		{name: "unnormalised host", edit: func(h http.Header) { h.Set(HeaderHost, "Shop.Kamui.App") }, want: ErrContextMalformed},
		{name: "tampered method", method: "DELETE", want: ErrSignatureInvalid},
		{name: "not hex", edit: func(h http.Header) { h.Set(HeaderContextSignature, "v1=zz") }, want: ErrSignatureInvalid},
		{name: "unknown scheme", edit: func(h http.Header) {
			h.Set(HeaderContextSignature, strings.Replace(h.Get(HeaderContextSignature), "v1=", "v2=", 1))
		}, want: ErrSignatureInvalid},
		{name: "stale", now: testNow.Add(DefaultMaxSkew + time.Second), want: ErrContextStale},
		{name: "future", now: testNow.Add(-DefaultMaxSkew - time.Second), want: ErrContextFuture},
		{name: "bad time", edit: func(h http.Header) { h.Set(HeaderContextTime, "soon") }, want: ErrContextMalformed},
		{name: "signed negative time", edit: func(h http.Header) { h.Set(HeaderContextTime, "+1790000000") }, want: ErrContextMalformed},
		{name: "missing app", edit: func(h http.Header) { h.Del(HeaderApp) }, want: ErrContextMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := signedHeaders(c)
			if tt.edit != nil {
				tt.edit(h)
			}
			method, target, secret, now := c.Method, c.Target, testSecret, testNow
			if tt.method != "" {
				method = tt.method
			}
			if tt.target != "" {
				target = tt.target
			}
			if tt.secret != nil {
				secret = tt.secret
			}
			if !tt.now.IsZero() {
				now = tt.now
			}
			_, err := VerifyHeaders(h, method, target, secret, now, 0)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v; want %v", err, tt.want)
			}
		})
	}
}

func TestVerifyHeadersEmptySecretRefuses(t *testing.T) {
	c := baseContext()
	h := http.Header{}
	c.SetHeaders(h, nil)
	if _, err := VerifyHeaders(h, c.Method, c.Target, nil, testNow, 0); err == nil {
		t.Fatal("an empty secret must never verify")
	}
}

func TestCanonicalIsUnambiguous(t *testing.T) {
	// Moving a character from one field to the next must change the signature.
	a := baseContext()
	b := a
	a.App, a.Upstream = "shop", "x/web:80"
	b.App, b.Upstream = "shopx", "/web:80"
	if a.Sign(testSecret) == b.Sign(testSecret) {
		t.Fatal("field boundaries are not part of the signed message")
	}
}

func TestMaxSkewIsConfigurable(t *testing.T) {
	c := baseContext()
	h := signedHeaders(c)
	if _, err := VerifyHeaders(h, c.Method, c.Target, testSecret, testNow.Add(5*time.Second), 2*time.Second); !errors.Is(err, ErrContextStale) {
		t.Fatalf("err = %v; want ErrContextStale with a 2s window", err)
	}
}

func TestIsContextHeader(t *testing.T) {
	for _, name := range []string{"Kamui-App", "kamui-app", "KAMUI-ANYTHING", "Kamui-"} {
		if !IsContextHeader(name) {
			t.Errorf("IsContextHeader(%q) = false", name)
		}
	}
	for _, name := range []string{"", "Kamui", "X-Kamui-App", "Authorization"} {
		if IsContextHeader(name) {
			t.Errorf("IsContextHeader(%q) = true", name)
		}
	}
}
