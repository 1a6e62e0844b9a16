package route

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// The edge Worker's bindings: what the provider uploads and the Worker reads at start. Both
// sides take names, kinds and value formats from here, so the writer and the reader cannot
// drift; a missing or invalid binding makes every request a fixed 500.
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

// BindingKind is how a binding reaches the Worker, spelled as the Workers upload API's
// binding "type".
type BindingKind string

const (
	KVNamespaceBinding BindingKind = "kv_namespace"
	R2BucketBinding    BindingKind = "r2_bucket"
	PlainTextBinding   BindingKind = "plain_text"
	SecretTextBinding  BindingKind = "secret_text"
)

// BindingFormat is what a text binding's value must be.
type BindingFormat uint8

const (
	// FormatObject: a KV namespace or an R2 bucket, no text.
	FormatObject BindingFormat = iota
	// FormatDNSName: a valid DNS name, already normalised (NormalizeHost returns it unchanged).
	FormatDNSName
	// FormatSeconds: a decimal integer of seconds between Min and Max.
	FormatSeconds
	// FormatMilliseconds: a decimal integer of milliseconds between Min and Max.
	FormatMilliseconds
	// FormatRate: a decimal fraction between 0 and 1 ("0", "1", "0.25", ".5"), read to the
	// millionth; no sign, no exponent.
	FormatRate
	// FormatSecret: any text of at least Min bytes.
	FormatSecret
)

// Binding is one binding of the edge Worker.
type Binding struct {
	Name   string
	Kind   BindingKind
	Format BindingFormat
	// Min and Max bound the value: seconds or milliseconds for those formats, a secret's
	// length in bytes (Min only).
	Min, Max int
}

// WorkerBindings is every binding the Worker reads, in the order the provider uploads them.
var WorkerBindings = [...]Binding{
	{Name: BindingRoutes, Kind: KVNamespaceBinding, Format: FormatObject},
	{Name: BindingDomains, Kind: KVNamespaceBinding, Format: FormatObject},
	{Name: BindingStatic, Kind: R2BucketBinding, Format: FormatObject},
	{Name: BindingPlatformDomain, Kind: PlainTextBinding, Format: FormatDNSName},
	{Name: BindingFreshness, Kind: PlainTextBinding, Format: FormatSeconds,
		Min: int(MinFreshnessBudget / time.Second), Max: int(MaxFreshnessBudget / time.Second)},
	{Name: BindingUpstreamTimeout, Kind: PlainTextBinding, Format: FormatMilliseconds,
		Min: MinUpstreamTimeoutMS, Max: MaxUpstreamTimeoutMS},
	{Name: BindingLogSampleRate, Kind: PlainTextBinding, Format: FormatRate},
	{Name: BindingSigningSecret, Kind: SecretTextBinding, Format: FormatSecret, Min: MinSigningSecretBytes},
	{Name: BindingCacheMarker, Kind: SecretTextBinding, Format: FormatSecret, Min: MinCacheMarkerBytes},
}

// WorkerBinding returns the binding named name.
func WorkerBinding(name string) (Binding, bool) {
	for _, b := range WorkerBindings {
		if b.Name == name {
			return b, true
		}
	}
	return Binding{}, false
}

// Parse checks a text binding's value against its format and returns its number: seconds,
// milliseconds, millionths for a rate, 0 otherwise. The error says what is wrong and never
// carries the value: two of the bindings are secrets.
func (b Binding) Parse(v string) (int, error) {
	switch b.Format {
	case FormatDNSName:
		if h, err := NormalizeHost(v); err != nil || h != v {
			return 0, errors.New("not a normalised DNS name")
		}
		return 0, nil
	case FormatSeconds, FormatMilliseconds:
		unit := "seconds"
		if b.Format == FormatMilliseconds {
			unit = "milliseconds"
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < b.Min || n > b.Max {
			return 0, errors.New("must be an integer number of " + unit + " between " +
				strconv.Itoa(b.Min) + " and " + strconv.Itoa(b.Max))
		}
		return n, nil
	case FormatRate:
		n, ok := parseRate(v)
		if !ok {
			return 0, errors.New("must be a decimal between 0 and 1")
		}
		return n, nil
	case FormatSecret:
		if len(v) < b.Min {
			return 0, errors.New("shorter than " + strconv.Itoa(b.Min) + " bytes")
		}
		return 0, nil
	}
	return 0, errors.New("not a text binding")
}

// FormatSecondsText and the functions after it write the values Parse reads: the provider
// uses them, the Worker only parses (the linker leaves these out of its Wasm).

// FormatSecondsText writes d as FormatSeconds, in whole seconds.
func FormatSecondsText(d time.Duration) string { return strconv.FormatInt(int64(d/time.Second), 10) }

// FormatMillisecondsText writes d as FormatMilliseconds.
func FormatMillisecondsText(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// FormatRateText writes a fraction in [0, 1] as FormatRate: shortest decimal, no exponent.
func FormatRateText(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// parseRate parses a decimal in [0, 1] ("1", "0.25", ".5", "1.0") into millionths without
// strconv.ParseFloat, whose tables would add weight to the Wasm; digits beyond the sixth
// decimal are ignored.
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
