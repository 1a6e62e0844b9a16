package cfapi

import (
	"encoding/json"
	"time"
)

// The state is split into one JSON file per area so a KV write does not rewrite uploaded Wasm.
// Each file is replaced atomically after every change under the server's lock.
const (
	fileIdentity = "identity.json"
	fileWorkers  = "workers.json"
	fileKV       = "kv.json"
	fileZone     = "zone.json"
	fileTunnels  = "tunnels.json"
	filePurges   = "purges.json"
	fileR2       = "r2.json"
)

// Identity is what a user pastes to point the provider at the local edge. It is generated once
// per state dir and never changes afterwards.
type Identity struct {
	AccountID string `json:"account_id"`
	ZoneID    string `json:"zone_id"`
	ZoneName  string `json:"zone_name"`
	// APIToken is the only bearer token the server accepts. Never log it.
	APIToken string `json:"api_token"`
	// R2AccessKeyID and R2SecretAccessKey are the only key pair the S3-compatible endpoint
	// (S3Prefix) accepts, as an R2 API token's S3 credentials are on Cloudflare. A state dir
	// made before the endpoint existed gets them at its next start. Never log the secret.
	R2AccessKeyID     string `json:"r2_access_key_id"`
	R2SecretAccessKey string `json:"r2_secret_access_key"`
	// ZoneCreatedOn is when the zone was made, which the zone's details report (created,
	// modified and activated at once). A state dir made before they were served gets the time
	// of its next start.
	ZoneCreatedOn time.Time `json:"zone_created_on"`
}

// Module is one uploaded Worker module, stored byte-exact.
type Module struct {
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Content     []byte `json:"content"`
}

// Binding is one entry of a script's metadata.bindings, kept verbatim (every field the client
// sent) so the runtime sees exactly what was uploaded.
type Binding map[string]any

// Type is the binding's "type" field.
func (b Binding) Type() string { s, _ := b["type"].(string); return s }

// Name is the binding's "name" field.
func (b Binding) Name() string { s, _ := b["name"].(string); return s }

// Script is an uploaded Worker.
type Script struct {
	Name               string          `json:"name"`
	MainModule         string          `json:"main_module,omitempty"`
	BodyPart           string          `json:"body_part,omitempty"`
	Modules            []Module        `json:"modules"`
	Bindings           []Binding       `json:"bindings"`
	CompatibilityDate  string          `json:"compatibility_date,omitempty"`
	CompatibilityFlags []string        `json:"compatibility_flags"`
	UsageModel         string          `json:"usage_model,omitempty"`
	Logpush            bool            `json:"logpush"`
	Tags               []string        `json:"tags"`
	Placement          json.RawMessage `json:"placement,omitempty"`
	// ETag is the SHA-256 over the modules and metadata, so an identical re-upload keeps it.
	ETag       string    `json:"etag"`
	CreatedOn  time.Time `json:"created_on"`
	ModifiedOn time.Time `json:"modified_on"`
}

type workersState struct {
	Scripts map[string]*Script `json:"scripts"`
}

// KVEntry is one stored key.
type KVEntry struct {
	Value    []byte          `json:"value"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Expiration is seconds since the Unix epoch; zero means never.
	Expiration int64 `json:"expiration,omitempty"`
}

// KVNamespace is one KV namespace and its keys.
type KVNamespace struct {
	ID      string              `json:"id"`
	Title   string              `json:"title"`
	Entries map[string]*KVEntry `json:"entries"`
}

type kvState struct {
	Namespaces map[string]*KVNamespace `json:"namespaces"`
}

// Route is a Workers route on the zone.
type Route struct {
	ID      string `json:"id"`
	Pattern string `json:"pattern"`
	Script  string `json:"script,omitempty"`
}

// DNSRecord is a DNS record on the zone. Fields the emulator does not interpret are kept in
// Extra and echoed back.
type DNSRecord struct {
	ID         string         `json:"id"`
	Type       string         `json:"type"`
	Name       string         `json:"name"`
	Content    string         `json:"content"`
	Proxied    bool           `json:"proxied"`
	TTL        float64        `json:"ttl"`
	Comment    string         `json:"comment,omitempty"`
	Tags       []string       `json:"tags"`
	Extra      map[string]any `json:"extra,omitempty"`
	CreatedOn  time.Time      `json:"created_on"`
	ModifiedOn time.Time      `json:"modified_on"`
}

// CustomHostname is a Cloudflare for SaaS custom hostname. Its status is derived on read from
// the DNS records and the clock (see hostnames.go), so it is not stored.
type CustomHostname struct {
	ID                 string            `json:"id"`
	Hostname           string            `json:"hostname"`
	CustomOriginServer string            `json:"custom_origin_server,omitempty"`
	CustomOriginSNI    string            `json:"custom_origin_sni,omitempty"`
	CustomMetadata     map[string]string `json:"custom_metadata,omitempty"`
	SSL                HostnameSSL       `json:"ssl"`
	// VerificationName and VerificationValue are the TXT record that proves ownership.
	VerificationName  string    `json:"verification_name"`
	VerificationValue string    `json:"verification_value"`
	CreatedAt         time.Time `json:"created_at"`
	// ValidatedAt is set the first time validation succeeds, so deleting the TXT record later
	// does not send an active hostname back to pending (as on Cloudflare).
	ValidatedAt *time.Time `json:"validated_at,omitempty"`
}

// HostnameSSL is the requested certificate of a custom hostname.
type HostnameSSL struct {
	ID                   string          `json:"id"`
	Method               string          `json:"method"`
	Type                 string          `json:"type"`
	BundleMethod         string          `json:"bundle_method,omitempty"`
	CertificateAuthority string          `json:"certificate_authority,omitempty"`
	Wildcard             bool            `json:"wildcard"`
	Settings             json.RawMessage `json:"settings,omitempty"`
}

type zoneState struct {
	Routes          map[string]*Route          `json:"routes"`
	DNSRecords      map[string]*DNSRecord      `json:"dns_records"`
	CustomHostnames map[string]*CustomHostname `json:"custom_hostnames"`
	Rulesets        map[string]*Ruleset        `json:"rulesets"`
	// FallbackOrigin is the SaaS zone's fallback origin (fallback.go); nil when none is set.
	FallbackOrigin *FallbackOrigin `json:"fallback_origin,omitempty"`
}

// Ruleset is a zone ruleset. Only the zone's entrypoint of CachePhase (its Cache Rules) is
// emulated; the local edge's zone cache applies its rules.
type Ruleset struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Kind        string `json:"kind"`
	Phase       string `json:"phase"`
	// Version counts the changes; it is a string on the wire.
	Version     int           `json:"version"`
	LastUpdated time.Time     `json:"last_updated"`
	Rules       []RulesetRule `json:"rules"`
}

// RulesetRule is one rule of a ruleset, in evaluation order.
type RulesetRule struct {
	ID string `json:"id"`
	// Ref is the rule's stable reference (its ID unless the client chose one), unique in
	// the ruleset.
	Ref     string `json:"ref"`
	Version int    `json:"version"`
	Action  string `json:"action"`
	// ActionParameters are kept verbatim (for set_cache_settings, {"cache": false} and the
	// like).
	ActionParameters json.RawMessage `json:"action_parameters,omitempty"`
	Expression       string          `json:"expression"`
	Description      string          `json:"description"`
	Enabled          bool            `json:"enabled"`
	// Extra holds fields the emulator does not interpret (logging, …), echoed back.
	Extra       map[string]json.RawMessage `json:"extra,omitempty"`
	LastUpdated time.Time                  `json:"last_updated"`
}

// IngressRule is one rule of a remotely managed tunnel's configuration.
type IngressRule struct {
	// Hostname is "" (or "*") on the catch-all rule; it is always present in answers because
	// the OpenAPI description requires it.
	Hostname string `json:"hostname"`
	Path     string `json:"path,omitempty"`
	Service  string `json:"service"`
	// OriginRequest is kept verbatim.
	OriginRequest json.RawMessage `json:"originRequest,omitempty"`
}

// TunnelConfig is a tunnel's remotely managed configuration.
type TunnelConfig struct {
	Ingress       []IngressRule   `json:"ingress"`
	OriginRequest json.RawMessage `json:"originRequest,omitempty"`
	WarpRouting   json.RawMessage `json:"warp-routing,omitempty"`
	Version       int             `json:"version"`
	UpdatedAt     time.Time       `json:"updated_at"`
}

// Tunnel is a Cloudflare Tunnel (cfd_tunnel).
type Tunnel struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	ConfigSrc string `json:"config_src"`
	// Secret is the base64 tunnel secret. Never log it.
	Secret    string        `json:"secret"`
	Config    *TunnelConfig `json:"config,omitempty"`
	CreatedAt time.Time     `json:"created_at"`
}

type tunnelState struct {
	Tunnels map[string]*Tunnel `json:"tunnels"`
}

// R2Object is one stored R2 object.
type R2Object struct {
	Content     []byte `json:"content"`
	ContentType string `json:"content_type"`
	// ETag is the hex MD5 of the content, as R2 reports for a single-request upload.
	ETag     string    `json:"etag"`
	Uploaded time.Time `json:"uploaded"`
	// CustomMetadata is the user metadata sent with an S3 PutObject (x-amz-meta-*, names
	// lower-cased); the REST upload sends none.
	CustomMetadata map[string]string `json:"custom_metadata,omitempty"`
}

// R2Bucket is one R2 bucket and its objects.
type R2Bucket struct {
	Name      string               `json:"name"`
	CreatedAt time.Time            `json:"created_at"`
	Objects   map[string]*R2Object `json:"objects"`
}

type r2State struct {
	Buckets map[string]*R2Bucket `json:"buckets"`
}

// Purge is one accepted purge-by-URL request.
type Purge struct {
	ID    string    `json:"id"`
	Files []string  `json:"files"`
	At    time.Time `json:"at"`
}

// maxPurgeLog bounds the stored purge history; the runtime consumes purges through the hook.
const maxPurgeLog = 1000

type purgeState struct {
	Purges []Purge `json:"purges"`
}
