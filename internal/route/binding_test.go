package route

import (
	"strings"
	"testing"
	"time"
)

func TestWorkerBindingsAreDistinctAndComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range WorkerBindings {
		if seen[b.Name] {
			t.Errorf("%s listed twice", b.Name)
		}
		seen[b.Name] = true
		if got, ok := WorkerBinding(b.Name); !ok || got != b {
			t.Errorf("WorkerBinding(%s) = %+v, %v", b.Name, got, ok)
		}
		object := b.Kind == KVNamespaceBinding || b.Kind == R2BucketBinding
		if object != (b.Format == FormatObject) {
			t.Errorf("%s: kind %s with format %d", b.Name, b.Kind, b.Format)
		}
		if (b.Format == FormatSecret) != (b.Kind == SecretTextBinding) {
			t.Errorf("%s: a secret format must be uploaded as a secret and only then", b.Name)
		}
		if b.Format == FormatSecret && b.Min <= 0 {
			t.Errorf("%s: a secret without a minimum size", b.Name)
		}
	}
	if _, ok := WorkerBinding("NOPE"); ok {
		t.Error("an unknown name was found")
	}
}

func TestBindingParse(t *testing.T) {
	get := func(name string) Binding { b, _ := WorkerBinding(name); return b }
	for _, c := range []struct {
		name, v string
		want    int
	}{
		{BindingPlatformDomain, "kamui.test", 0},
		{BindingFreshness, "45", 45}, {BindingFreshness, "3600", 3600},
		{BindingUpstreamTimeout, "100", 100}, {BindingUpstreamTimeout, "90000", 90000},
		{BindingLogSampleRate, "0.25", 250_000},
		{BindingSigningSecret, strings.Repeat("s", MinSigningSecretBytes), 0},
		{BindingCacheMarker, strings.Repeat("m", MinCacheMarkerBytes), 0},
	} {
		if n, err := get(c.name).Parse(c.v); err != nil || n != c.want {
			t.Errorf("%s %q: %d, %v; want %d", c.name, c.v, n, err, c.want)
		}
	}
	for _, c := range [][2]string{
		{BindingPlatformDomain, "Kamui.Test"}, {BindingPlatformDomain, "kamui.test."}, {BindingPlatformDomain, "a b"},
		{BindingFreshness, "44"}, {BindingFreshness, "3601"}, {BindingFreshness, "1m"}, {BindingFreshness, "120.0"},
		{BindingUpstreamTimeout, "99"}, {BindingUpstreamTimeout, "90001"}, {BindingUpstreamTimeout, "1e3"},
		{BindingLogSampleRate, "1.5"}, {BindingLogSampleRate, "-0"}, {BindingLogSampleRate, "1e-2"},
		{BindingSigningSecret, strings.Repeat("s", MinSigningSecretBytes-1)},
		{BindingCacheMarker, "tiny-value"},
		{BindingRoutes, "anything"},
	} {
		if _, err := get(c[0]).Parse(c[1]); err == nil {
			t.Errorf("%s %q: accepted", c[0], c[1])
		} else if strings.Contains(err.Error(), c[1]) && c[1] != "" {
			t.Errorf("%s: the error carries the value: %v", c[0], err)
		}
	}
}

// What the provider writes with the Format*Text functions is what Parse reads back.
func TestBindingTextRoundTrip(t *testing.T) {
	get := func(name string) Binding { b, _ := WorkerBinding(name); return b }
	for _, d := range []time.Duration{MinFreshnessBudget, DefaultFreshnessBudget, 17*time.Minute + 3*time.Second, MaxFreshnessBudget} {
		if n, err := get(BindingFreshness).Parse(FormatSecondsText(d)); err != nil || time.Duration(n)*time.Second != d {
			t.Errorf("budget %v: %d, %v", d, n, err)
		}
	}
	for _, d := range []time.Duration{100 * time.Millisecond, 1500 * time.Millisecond, 90 * time.Second} {
		if n, err := get(BindingUpstreamTimeout).Parse(FormatMillisecondsText(d)); err != nil || time.Duration(n)*time.Millisecond != d {
			t.Errorf("timeout %v: %d, %v", d, n, err)
		}
	}
	for _, f := range []float64{0, 1, 0.01, 0.5, 0.123456, 1e-7, 0.999999999, 1.0 / 3} {
		n, err := get(BindingLogSampleRate).Parse(FormatRateText(f))
		if want := int(f * 1_000_000); err != nil || n < want-1 || n > want+1 {
			t.Errorf("rate %v (%q): %d, %v; want about %d", f, FormatRateText(f), n, err, want)
		}
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "1": 1_000_000, "1.0": 1_000_000, "0.25": 250_000, ".5": 500_000, "0.0000019": 1} {
		if got, ok := parseRate(in); !ok || got != want {
			t.Errorf("parseRate(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", ".", "2", "1.01", "-0.5", "0.5x", "abc"} {
		if _, ok := parseRate(in); ok {
			t.Errorf("parseRate(%q) accepted", in)
		}
	}
}
