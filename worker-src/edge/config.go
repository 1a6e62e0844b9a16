package edge

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// Binding names, as the provider uploads them (see the package comment for their types).
const (
	BindingRoutes          = "ROUTES"
	BindingDomains         = "DOMAINS"
	BindingStatic          = "STATIC"
	BindingPlatformDomain  = "PLATFORM_DOMAIN"
	BindingFreshness       = "FRESHNESS_BUDGET_SECONDS"
	BindingUpstreamTimeout = "UPSTREAM_TIMEOUT_MS"
	BindingLogSampleRate   = "LOG_SAMPLE_RATE"
	BindingSigningSecret   = "SIGNING_SECRET"
	BindingCacheMarker     = "CACHE_MARKER"
)

// Minimum secret lengths: shorter values are configuration mistakes (a placeholder, an
// empty variable expanded into a string), and failing closed beats signing with them.
const (
	MinSigningSecretBytes = route.MinSigningSecretBytes
	MinCacheMarkerBytes   = route.MinCacheMarkerBytes
)

// Config is the validated Worker configuration.
type Config struct {
	PlatformDomain string
	TTLs           route.TTLs
	// UpstreamTimeout caps every record's timeout_ms.
	UpstreamTimeout time.Duration
	// LogSamplePerMillion is the share of success lines logged, in millionths (parsed
	// from the decimal LOG_SAMPLE_RATE without strconv.ParseFloat, whose tables would
	// add weight to the Wasm); error lines are always logged.
	LogSamplePerMillion int
	SigningSecret       []byte
	// ProbeKey verifies propagation probes: route.ProbeKey of SigningSecret.
	ProbeKey    []byte
	CacheMarker string
}

// ConfigError names the binding that is wrong. Its message never carries the value:
// two of the bindings are secrets.
type ConfigError struct {
	_       [0]func() // not comparable: no equality function in the Wasm
	Binding string
	Problem string
}

func (e *ConfigError) Error() string { return "binding " + e.Binding + ": " + e.Problem }

// ParseConfig validates the plain-text and secret bindings. lookup returns a binding's
// string value and whether it is present as a string. Object bindings (KV, R2) are the
// adapter's to check.
func ParseConfig(lookup func(name string) (string, bool)) (Config, error) {
	var c Config
	var errs []error
	bad := func(name, problem string) { errs = append(errs, &ConfigError{Binding: name, Problem: problem}) }
	get := func(name string) string {
		v, ok := lookup(name)
		if !ok || v == "" {
			bad(name, "missing")
		}
		return v
	}

	if v := get(BindingPlatformDomain); v != "" {
		if h, err := route.NormalizeHost(v); err != nil || h != v {
			bad(BindingPlatformDomain, "not a normalised DNS name")
		}
		c.PlatformDomain = v
	}
	if v := get(BindingFreshness); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			bad(BindingFreshness, "not an integer number of seconds")
		} else if c.TTLs, err = route.DeriveTTLs(time.Duration(n) * time.Second); err != nil {
			bad(BindingFreshness, err.Error())
		}
	}
	if v := get(BindingUpstreamTimeout); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < route.MinUpstreamTimeoutMS || n > route.MaxUpstreamTimeoutMS {
			bad(BindingUpstreamTimeout, "must be an integer between "+
				strconv.Itoa(route.MinUpstreamTimeoutMS)+" and "+strconv.Itoa(route.MaxUpstreamTimeoutMS))
		}
		c.UpstreamTimeout = time.Duration(n) * time.Millisecond
	}
	if v := get(BindingLogSampleRate); v != "" {
		n, ok := parseRate(v)
		if !ok {
			bad(BindingLogSampleRate, "must be a decimal between 0 and 1")
		}
		c.LogSamplePerMillion = n
	}
	if v := get(BindingSigningSecret); v != "" && len(v) < MinSigningSecretBytes {
		bad(BindingSigningSecret, "shorter than "+strconv.Itoa(MinSigningSecretBytes)+" bytes")
	} else if v != "" {
		c.SigningSecret = []byte(v)
		c.ProbeKey = route.ProbeKey(c.SigningSecret)
	}
	if v := get(BindingCacheMarker); v != "" && len(v) < MinCacheMarkerBytes {
		bad(BindingCacheMarker, "shorter than "+strconv.Itoa(MinCacheMarkerBytes)+" bytes")
	} else {
		c.CacheMarker = v
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return c, nil
}

// parseRate parses a decimal in [0, 1] ("1", "0.25", ".5", "1.0") into millionths;
// digits beyond the sixth decimal are ignored.
func parseRate(s string) (int, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" {
		return 0, false
	}
	n := 0
	switch whole {
	case "", "0":
	case "1":
		n = 1_000_000
	default:
		return 0, false
	}
	scale := 100_000
	for i := 0; i < len(frac); i++ {
		c := frac[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n == 1_000_000 && c != '0' {
			return 0, false
		}
		if scale > 0 {
			n += int(c-'0') * scale
			scale /= 10
		}
	}
	return n, true
}
