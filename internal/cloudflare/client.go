// Package cloudflare is the provider's access to the Cloudflare API: a cloudflare-go v7 client
// set up once per provider with a bounded, jittered retry policy, a client-side rate limit and
// logging that never shows the token.
package cloudflare

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cloudflare/cloudflare-go/v7/cache"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/r2"
	"github.com/cloudflare/cloudflare-go/v7/rulesets"
	"github.com/cloudflare/cloudflare-go/v7/workers"
	"github.com/cloudflare/cloudflare-go/v7/zero_trust"
	"github.com/cloudflare/cloudflare-go/v7/zones"
	"github.com/hashicorp/go-cleanhttp"
	"golang.org/x/time/rate"
)

// DefaultBaseURL is Cloudflare's API v4 endpoint.
const DefaultBaseURL = "https://api.cloudflare.com/client/v4/"

// Cloudflare allows 1,200 requests per five minutes per user; we stay under it with room for
// the burst: burst + rate × 300 s ≤ 1,200.
const (
	DefaultRequestsPerFiveMinutes = 1200
	defaultBurst                  = 60
)

// Config holds what the client is built from. Zero values take the documented defaults.
type Config struct {
	APIToken  string // required; sent as a bearer token, never logged
	BaseURL   string // default DefaultBaseURL; the local edge's URL for local runs
	UserAgent string // required, e.g. "terraform-provider-kamuidash/1.2.3"

	MaxRetries   int           // retries after a failure; default 4, -1 disables (429s: see rateLimitRetries)
	RetryWaitMin time.Duration // default 1s
	RetryWaitMax time.Duration // default 30s; also caps a server's Retry-After

	// RequestsPerFiveMinutes bounds this process's request rate; default
	// DefaultRequestsPerFiveMinutes.
	RequestsPerFiveMinutes int

	// Transport sends the requests; default a pooled go-cleanhttp transport. Tests inject one.
	Transport http.RoundTripper

	// R2S3, when set, sends static-site object traffic through R2's S3-compatible API instead
	// of the REST API (R2PutObject, R2DeleteObject, R2ListObjects); buckets stay on REST.
	R2S3 *R2S3Config

	jitter func(n int64) int64 // default math/rand; tests make it exact
}

// Client is one configured set of the cloudflare-go services the provider uses. It is safe for
// concurrent use and is shared by every resource of one provider instance.
type Client struct {
	// Options are the request options every service was built with; pass them on to a service
	// not listed here.
	Options []option.RequestOption
	// HTTP is the configured HTTP client, for the few calls cloudflare-go cannot make as needed
	// (a hand-built multipart Worker upload is still sent through a service with
	// option.WithRequestBody, so this is mostly for tests and the local edge's extras).
	HTTP *http.Client

	KV              *kv.KVService
	Workers         *workers.WorkerService
	CustomHostnames *custom_hostnames.CustomHostnameService
	DNS             *dns.DNSService
	Tunnels         *zero_trust.TunnelCloudflaredService
	Cache           *cache.CacheService
	R2              *r2.R2Service
	Rulesets        *rulesets.RulesetService
	// Zones resolves the provider's zone_name to its id, once per Configure.
	Zones *zones.ZoneService

	// What thousands of resources share instead of a call each: coalesced bulk KV writes,
	// deletes and reads, one key listing per namespace, one custom hostname listing and poll
	// per zone, batched purges.
	KVBulk    *KVBatches
	KVIndex   *KVIndex
	Hostnames *HostnameIndex
	Purges    *PurgeBatches
	// NameFilters rebuilds the namespaces' name filters; its first listing of a rebuild is
	// KVIndex's (NewNameFilters with economy off lists afresh every time).
	NameFilters *NameFilters

	r2s3 *r2S3 // nil: objects go through the REST API
}

// New builds the client. It does not contact the API.
//
// It builds the services it needs one by one instead of calling cloudflare.NewClient, whose
// defaults read CLOUDFLARE_API_KEY, CLOUDFLARE_EMAIL and CLOUDFLARE_BASE_URL from the
// environment: the provider's own configuration must be the only source of credentials.
func New(cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	limit := rate.Limit(float64(cfg.RequestsPerFiveMinutes-defaultBurst) / 300)
	burst := defaultBurst
	if cfg.RequestsPerFiveMinutes <= defaultBurst {
		limit, burst = rate.Limit(float64(cfg.RequestsPerFiveMinutes)/300), 1
	}
	var rt http.RoundTripper = &rateLimited{limiter: rate.NewLimiter(limit, burst), budget: newSharedBudget(time.Now), next: cfg.Transport}
	rt = retrying(cfg, rt)
	rt = &logged{token: cfg.APIToken, next: rt}
	rt = &redactingErrors{token: []byte(cfg.APIToken), next: rt}
	httpClient := &http.Client{Transport: rt}

	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIToken(cfg.APIToken),
		option.WithHTTPClient(httpClient),
		option.WithHeader("User-Agent", cfg.UserAgent),
		// Retries belong to the transport above; cloudflare-go's own loop would multiply them
		// and retry POSTs silently.
		option.WithMaxRetries(0),
	}
	c := &Client{
		Options:         opts,
		HTTP:            httpClient,
		KV:              kv.NewKVService(opts...),
		Workers:         workers.NewWorkerService(opts...),
		CustomHostnames: custom_hostnames.NewCustomHostnameService(opts...),
		DNS:             dns.NewDNSService(opts...),
		Tunnels:         zero_trust.NewTunnelCloudflaredService(opts...),
		Cache:           cache.NewCacheService(opts...),
		R2:              r2.NewR2Service(opts...),
		Rulesets:        rulesets.NewRulesetService(opts...),
		Zones:           zones.NewZoneService(opts...),
	}
	c.KVBulk, c.KVIndex, c.Hostnames, c.Purges = NewKVBatches(c), NewKVIndex(c), NewHostnameIndex(c), NewPurgeBatches(c)
	c.NameFilters = NewNameFilters(c, true)
	if cfg.R2S3 != nil {
		c.r2s3 = newR2S3(*cfg.R2S3)
	}
	return c, nil
}

func (cfg Config) withDefaults() (Config, error) {
	if cfg.APIToken == "" {
		return cfg, errors.New("an API token is required")
	}
	if cfg.UserAgent == "" {
		return cfg, errors.New("a User-Agent is required")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if err := ValidateBaseURL(cfg.BaseURL); err != nil {
		return cfg, err
	}
	if !strings.HasSuffix(cfg.BaseURL, "/") {
		cfg.BaseURL += "/"
	}
	switch {
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = 4
	}
	if cfg.RetryWaitMin <= 0 {
		cfg.RetryWaitMin = time.Second
	}
	if cfg.RetryWaitMax <= 0 {
		cfg.RetryWaitMax = 30 * time.Second
	}
	if cfg.RequestsPerFiveMinutes <= 0 {
		cfg.RequestsPerFiveMinutes = DefaultRequestsPerFiveMinutes
	}
	if cfg.Transport == nil {
		cfg.Transport = cleanhttp.DefaultPooledTransport()
	}
	if cfg.jitter == nil {
		cfg.jitter = defaultJitter
	}
	return cfg, nil
}

// ValidateBaseURL accepts an absolute http(s) URL with a host and no query or fragment.
func ValidateBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return errors.New("the API base URL must be an absolute http(s) URL such as https://host/client/v4")
	}
	if u.User != nil {
		// Credentials in a URL end up in logs, proxies' access logs and error texts.
		return errors.New("the API base URL carries credentials (user:password@); remove them and authenticate with api_token")
	}
	return nil
}

// RedactedURL is raw without userinfo, query and fragment, for logs; "" when raw does not parse.
// ValidateBaseURL refuses credentials in the base URL, so this is the second line: a URL is never
// logged as given.
func RedactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}
