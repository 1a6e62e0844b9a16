package edge

import (
	"errors"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// Binding names (route.WorkerBindings is the contract: names, kinds, value formats).
const (
	BindingRoutes          = route.BindingRoutes
	BindingDomains         = route.BindingDomains
	BindingStatic          = route.BindingStatic
	BindingPlatformDomain  = route.BindingPlatformDomain
	BindingFreshness       = route.BindingFreshness
	BindingUpstreamTimeout = route.BindingUpstreamTimeout
	BindingLogSampleRate   = route.BindingLogSampleRate
	BindingSigningSecret   = route.BindingSigningSecret
	BindingCacheMarker     = route.BindingCacheMarker
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
	// LogSamplePerMillion is the share of success lines logged, in millionths (route's
	// FormatRate, parsed without strconv.ParseFloat); error lines are always logged.
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

// ParseConfig validates the plain-text and secret bindings of route.WorkerBindings, each by
// its contract format. lookup returns a binding's string value and whether it is present as a
// string. Object bindings (KV, R2) are the adapter's to check.
func ParseConfig(lookup func(name string) (string, bool)) (Config, error) {
	var c Config
	var errs []error
	bad := func(name, problem string) { errs = append(errs, &ConfigError{Binding: name, Problem: problem}) }
	for _, b := range route.WorkerBindings {
		if b.Format == route.FormatObject {
			continue
		}
		v, ok := lookup(b.Name)
		if !ok || v == "" {
			bad(b.Name, "missing")
			continue
		}
		n, err := b.Parse(v)
		if err != nil {
			bad(b.Name, err.Error())
			continue
		}
		switch b.Name {
		case BindingPlatformDomain:
			c.PlatformDomain = v
		case BindingFreshness:
			if c.TTLs, err = route.DeriveTTLs(time.Duration(n) * time.Second); err != nil {
				bad(b.Name, err.Error())
			}
		case BindingUpstreamTimeout:
			c.UpstreamTimeout = time.Duration(n) * time.Millisecond
		case BindingLogSampleRate:
			c.LogSamplePerMillion = n
		case BindingSigningSecret:
			c.SigningSecret = []byte(v)
			c.ProbeKey = route.ProbeKey(c.SigningSecret)
		case BindingCacheMarker:
			c.CacheMarker = v
		default:
			// A binding the contract gained that this reader does not use yet: refusing to
			// start says so at the first request instead of ignoring it.
			bad(b.Name, "not read by this Worker")
		}
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return c, nil
}
