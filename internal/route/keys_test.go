package route

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestVerifyHeadersWithKeys(t *testing.T) {
	current := []byte("current-signing-secret-0123456789abcdef")
	next := []byte("next-signing-secret-0123456789abcdef")
	other := []byte("another-environment-0123456789abcdef")
	c := baseContext()
	for _, tt := range []struct {
		name     string
		signedBy []byte
		keys     [][]byte
		now      time.Time
		want     int // index of the key that matched
		wantErr  error
	}{
		{name: "current key", signedBy: current, keys: [][]byte{current, next}, want: 0},
		{name: "next key", signedBy: next, keys: [][]byte{current, next}, want: 1},
		{name: "current key alone", signedBy: current, keys: [][]byte{current}, want: 0},
		{name: "next key before the router knows it", signedBy: next, keys: [][]byte{current}, wantErr: ErrSignatureInvalid},
		{name: "neither key", signedBy: other, keys: [][]byte{current, next}, wantErr: ErrSignatureInvalid},
		{name: "next key, stale", signedBy: next, keys: [][]byte{current, next}, now: testNow.Add(DefaultMaxSkew + time.Second), wantErr: ErrContextStale},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hdr := http.Header{}
			c.SetHeaders(hdr, tt.signedBy)
			now := testNow
			if !tt.now.IsZero() {
				now = tt.now
			}
			v, err := NewVerifier(tt.keys)
			if err != nil {
				t.Fatal(err)
			}
			// A Verifier answers as VerifyHeadersWithKeys does, the second time too (its MACs
			// are reused).
			for _, way := range []string{"VerifyHeadersWithKeys", "Verifier", "Verifier again"} {
				got, key, err := VerifyHeadersWithKeys(hdr, c.Method, c.Target, tt.keys, now, 0)
				if way != "VerifyHeadersWithKeys" {
					got, key, err = v.VerifyHeaders(hdr, c.Method, c.Target, now, 0)
				}
				if tt.wantErr != nil {
					if !errors.Is(err, tt.wantErr) || key != -1 {
						t.Fatalf("%s: key %d, err %v; want -1, %v", way, key, err, tt.wantErr)
					}
					continue
				}
				if err != nil || key != tt.want || got.RequestID != c.RequestID {
					t.Fatalf("%s: key %d, context %+v, err %v; want key %d", way, key, got, err, tt.want)
				}
			}
		})
	}
}

func TestVerifyHeadersWithKeysRefusesEmptyKeys(t *testing.T) {
	c := baseContext()
	h := signedHeaders(c)
	for name, keys := range map[string][][]byte{"no keys": nil, "an empty key": {testSecret, nil}} {
		if _, _, err := VerifyHeadersWithKeys(h, c.Method, c.Target, keys, testNow, 0); err == nil {
			t.Errorf("%s: verified", name)
		}
		if _, err := NewVerifier(keys); err == nil {
			t.Errorf("%s: NewVerifier accepted them", name)
		}
	}
}
