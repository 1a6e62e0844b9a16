package route

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"errors"
	"net/http"
	"testing"
	"time"
)

// TestProbeKeyIsHKDF holds the Worker-sized derivation to the standard library's HKDF.
func TestProbeKeyIsHKDF(t *testing.T) {
	for _, secret := range []string{"0123456789abcdef0123456789abcdef", "another secret of the environment, 48 bytes long"} {
		want, err := hkdf.Key(sha256.New, []byte(secret), nil, probeKeyInfo, ProbeKeyBytes)
		if err != nil {
			t.Fatal(err)
		}
		if got := ProbeKey([]byte(secret)); !bytes.Equal(got, want) {
			t.Errorf("ProbeKey(%q) = %x, want HKDF-SHA256 %x", secret, got, want)
		}
	}
	if bytes.Equal(ProbeKey([]byte("a-signing-secret-of-32-bytes-000")), []byte("a-signing-secret-of-32-bytes-000")) {
		t.Error("the probe key is the signing secret")
	}
}

func TestVerifyProbe(t *testing.T) {
	key := ProbeKey([]byte("0123456789abcdef0123456789abcdef"))
	now := time.Unix(1_800_000_000, 0)
	signed := func(p Probe, k []byte) http.Header {
		h := http.Header{}
		p.SetHeaders(h, k)
		return h
	}
	good := Probe{Host: "shop.kamui.app", ExpectRev: "0123456789abcdef01234567", Time: now}
	if rev, err := VerifyProbe(signed(good, key), "shop.kamui.app", key, now.Add(10*time.Second), 0); err != nil || rev != good.ExpectRev {
		t.Fatalf("a good probe: %q, %v", rev, err)
	}
	otherRev := signed(good, key)
	otherRev.Set(ExpectRevHeader, "ffffffffffffffffffffffff")
	otherTime := signed(good, key)
	otherTime.Set(ProbeTimeHeader, "1800000001")
	for name, tc := range map[string]struct {
		h    http.Header
		host string
		key  []byte
		want error
	}{
		"unsigned":            {http.Header{ExpectRevHeader: {good.ExpectRev}}, good.Host, key, ErrSignatureMissing},
		"another host":        {signed(good, key), "www.shop.example", key, ErrSignatureInvalid},
		"another revision":    {otherRev, good.Host, key, ErrSignatureInvalid},
		"another time":        {otherTime, good.Host, key, ErrSignatureInvalid},
		"another key":         {signed(good, ProbeKey([]byte("another environment's signing secret"))), good.Host, key, ErrSignatureInvalid},
		"stale":               {signed(Probe{Host: good.Host, ExpectRev: good.ExpectRev, Time: now.Add(-time.Minute)}, key), good.Host, key, ErrContextStale},
		"from the future":     {signed(Probe{Host: good.Host, ExpectRev: good.ExpectRev, Time: now.Add(time.Minute)}, key), good.Host, key, ErrContextFuture},
		"no time":             {http.Header{ExpectRevHeader: {good.ExpectRev}, ProbeSignatureHeader: {"v1=00"}}, good.Host, key, ErrContextMalformed},
		"signed as a context": {http.Header{ExpectRevHeader: {good.ExpectRev}, ProbeTimeHeader: {"1800000000"}, ProbeSignatureHeader: {Context{Method: "GET", Host: good.Host, Time: now}.Sign(key)}}, good.Host, key, ErrSignatureInvalid},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := VerifyProbe(tc.h, tc.host, tc.key, now, 0); !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := VerifyProbe(signed(good, key), good.Host, nil, now, 0); err == nil {
		t.Error("an empty key verified a probe")
	}
}

func TestProbeKeyText(t *testing.T) {
	key := ProbeKey([]byte("0123456789abcdef0123456789abcdef"))
	got, err := DecodeProbeKey(EncodeProbeKey(key))
	if err != nil || !bytes.Equal(got, key) {
		t.Fatalf("round trip: %x, %v", got, err)
	}
	for _, bad := range []string{"", "abcd", EncodeProbeKey(key) + "00", "zz" + EncodeProbeKey(key)[2:]} {
		if _, err := DecodeProbeKey(bad); err == nil {
			t.Errorf("DecodeProbeKey(%q) accepted", bad)
		} else if bad != "" && bytes.Contains([]byte(err.Error()), []byte(bad)) {
			t.Errorf("the error %q repeats the input", err)
		}
	}
}
