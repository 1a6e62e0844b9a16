package route

import (
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"
)

// A Signer signs as Context.Sign does, every time (its MACs are reset between uses), from
// several goroutines at once, and what it signs verifies.
func TestSignerSignsAsContextSign(t *testing.T) {
	s, err := NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	contexts := []Context{baseContext(), {}, {Method: "GET", Host: "a.b", Target: "/", App: "a", Upstream: "tenant-a/w:1", RequestID: "r", Time: time.Unix(1, 0)}}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for i := 0; i < 50; i++ {
				c := contexts[i%len(contexts)]
				c.RequestID += string(rune('a' + g))
				if got, want := s.Sign(c), c.Sign(testSecret); got != want {
					t.Errorf("Signer.Sign(%+v) = %s, Context.Sign = %s", c, got, want)
					return
				}
			}
		})
	}
	wg.Wait()

	c := baseContext()
	viaSigner, viaContext := http.Header{}, http.Header{}
	s.SetHeaders(c, viaSigner)
	c.SetHeaders(viaContext, testSecret)
	if !reflect.DeepEqual(viaSigner, viaContext) {
		t.Errorf("Signer.SetHeaders wrote %v, Context.SetHeaders %v", viaSigner, viaContext)
	}
	if _, err := VerifyHeaders(viaSigner, c.Method, c.Target, testSecret, testNow, 0); err != nil {
		t.Errorf("a Signer's headers do not verify: %v", err)
	}
}

func TestNewSignerRefusesAnEmptySecret(t *testing.T) {
	for _, secret := range [][]byte{nil, {}} {
		if _, err := NewSigner(secret); err == nil {
			t.Errorf("NewSigner(%q) accepted it", secret)
		}
	}
}

func BenchmarkSign(b *testing.B) {
	c := baseContext()
	b.Run("Context.Sign", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.Sign(testSecret)
		}
	})
	b.Run("Signer", func(b *testing.B) {
		s, _ := NewSigner(testSecret)
		b.ReportAllocs()
		for b.Loop() {
			s.Sign(c)
		}
	})
}
