package cfapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// APIPrefix is where the Cloudflare-compatible API is served; a client's base URL is the
// server's address followed by APIPrefix.
const APIPrefix = "/client/v4"

// AdminPrefix is where the local edge's own endpoints (fault injection) live, outside the
// Cloudflare API so no Cloudflare client can reach them by accident.
const AdminPrefix = "/__localedge"

// DefaultZoneName is the zone a fresh state dir gets when Config.ZoneName is empty.
const DefaultZoneName = "kamuidash.localhost"

// DefaultKVPropagationDelay is how long a KV write takes to reach the runtime when
// Config.KVPropagationDelay is zero: short, but not zero, so code that assumes read-after-write
// across the edge is caught. Cloudflare's documented upper bound is 60 s.
const DefaultKVPropagationDelay = 50 * time.Millisecond

// Config configures a Server. Only StateDir is required.
type Config struct {
	// StateDir holds the persisted state (JSON files). Required; created if missing.
	StateDir string

	// ZoneName names the zone created in a fresh state dir. Default DefaultZoneName. Ignored
	// once the state dir has an identity: ids, zone and token never change afterwards.
	ZoneName string

	// AutoValidate, when positive, activates a custom hostname's certificate that long after
	// its creation even if its TXT record was never published. Default 0: only the TXT record
	// (a DNS record on this zone with the ownership_verification name and value) validates.
	AutoValidate time.Duration

	// FallbackActivation is how long the zone's fallback origin stays pending_deployment
	// after a change once its proxied record exists (fallback.go). Default 0: active at the
	// first read after the initializing second.
	FallbackActivation time.Duration

	// SeedFallbackOrigin, when set (a label or a name in the zone, such as "fallback"), gives
	// a zone that has no fallback origin this one, already active, with its proxied
	// placeholder record (AAAA 100::): the SaaS zone set up before a test about something
	// else starts. Default "": the zone starts without one and its custom hostnames stay
	// pending until a fallback origin is set and active, as on Cloudflare.
	SeedFallbackOrigin string

	// KVPropagationDelay delays Hooks.KVChanged after a KV write or delete, emulating KV's
	// eventual consistency at the edge. Zero means DefaultKVPropagationDelay; negative means
	// synchronously, before the API call's response is sent.
	KVPropagationDelay time.Duration

	// Faults is the fault injection active at start. Default: none. It can be changed at run
	// time with Server.SetFaults or POST AdminPrefix+"/faults".
	Faults FaultSpec

	// RateLimit is the global API rate limit enforced on authenticated API requests, with
	// Cloudflare's rate-limit headers on their answers (CloudflareRateLimit is Cloudflare's).
	// Default: the zero RateLimit, nothing enforced and no headers.
	RateLimit RateLimit

	// Logger receives a line per unimplemented request, injected fault and state error.
	// Secrets (token, tunnel secrets, KV values, script bodies) are never logged.
	// Default slog.Default().
	Logger *slog.Logger

	// Now is the clock used for timestamps, KV expiration, custom hostname auto-validation,
	// the rate limit's windows and the call accounting. Default time.Now.
	Now func() time.Time

	// Hooks report changes to the local edge's runtime. Default: all nil (nothing is called).
	Hooks Hooks
}

// Server is the Cloudflare-API-compatible HTTP handler of the local edge. It is safe for
// concurrent use.
type Server struct {
	cfg    Config
	log    *slog.Logger
	now    func() time.Time
	hooks  Hooks
	mux    *http.ServeMux
	faults *faultInjector
	limit  *rateLimiter
	calls  *callCounter

	timersMu sync.Mutex // guards timers and closed
	timers   map[*time.Timer]struct{}
	closed   bool

	mu       sync.Mutex // guards everything below
	identity Identity
	workers  workersState
	kv       kvState
	zone     zoneState
	tunnels  tunnelState
	purges   purgeState
	r2       r2State
}

// New loads (or creates) the state under cfg.StateDir and returns a Server ready to serve.
func New(cfg Config) (*Server, error) {
	if cfg.StateDir == "" {
		return nil, errors.New("cfapi: Config.StateDir is required")
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("cfapi: create state dir: %w", err)
	}
	if err := cfg.Faults.validate(); err != nil {
		return nil, fmt.Errorf("cfapi: Config.Faults: %w", err)
	}
	if err := cfg.RateLimit.validate(); err != nil {
		return nil, fmt.Errorf("cfapi: Config.RateLimit: %w", err)
	}
	s := &Server{cfg: cfg, log: cfg.Logger, now: cfg.Now, hooks: cfg.Hooks, timers: map[*time.Timer]struct{}{}}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.faults = newFaultInjector(cfg.Faults)
	s.limit = newRateLimiter(cfg.RateLimit, s.now)
	s.calls = newCallCounter(s.now())
	if err := s.load(); err != nil {
		return nil, fmt.Errorf("cfapi: load state from %s: %w", cfg.StateDir, err)
	}
	s.mux = http.NewServeMux()
	s.registerRoutes()
	return s, nil
}

// Identity returns the account id, zone id, zone name and API token of this state dir.
func (s *Server) Identity() Identity {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.identity
}

func (s *Server) path(name string) string { return filepath.Join(s.cfg.StateDir, name) }

func (s *Server) load() error {
	if err := loadJSON(s.path(fileIdentity), &s.identity); err != nil {
		return err
	}
	if s.identity.AccountID == "" {
		zone := s.cfg.ZoneName
		if zone == "" {
			zone = DefaultZoneName
		}
		s.identity = Identity{AccountID: newID(), ZoneID: newID(), ZoneName: zone, APIToken: newSecret(20)}
	}
	filled := false
	if s.identity.R2AccessKeyID == "" || s.identity.R2SecretAccessKey == "" {
		// R2's shapes: a 32-hex key id and a 64-hex secret.
		s.identity.R2AccessKeyID, s.identity.R2SecretAccessKey = newID(), newSecret(32)
		filled = true
	}
	if s.identity.ZoneCreatedOn.IsZero() {
		// Whole seconds, as the API's timestamps mostly are.
		s.identity.ZoneCreatedOn, filled = s.now().UTC().Truncate(time.Second), true
	}
	if filled {
		if err := saveJSON(s.path(fileIdentity), s.identity); err != nil {
			return err
		}
	}
	for _, file := range []string{fileWorkers, fileKV, fileZone, fileTunnels, filePurges, fileR2} {
		if err := loadJSON(s.path(file), s.area(file)); err != nil {
			return err
		}
	}
	s.fillEmpty()
	if s.cfg.SeedFallbackOrigin != "" {
		return s.seedFallbackOrigin(s.cfg.SeedFallbackOrigin)
	}
	return nil
}

// fillEmpty makes every map non-nil, whatever the files held.
func (s *Server) fillEmpty() {
	if s.workers.Scripts == nil {
		s.workers.Scripts = map[string]*Script{}
	}
	if s.kv.Namespaces == nil {
		s.kv.Namespaces = map[string]*KVNamespace{}
	}
	for _, ns := range s.kv.Namespaces {
		if ns.Entries == nil {
			ns.Entries = map[string]*KVEntry{}
		}
	}
	if s.zone.Routes == nil {
		s.zone.Routes = map[string]*Route{}
	}
	if s.zone.DNSRecords == nil {
		s.zone.DNSRecords = map[string]*DNSRecord{}
	}
	if s.zone.CustomHostnames == nil {
		s.zone.CustomHostnames = map[string]*CustomHostname{}
	}
	if s.zone.Rulesets == nil {
		s.zone.Rulesets = map[string]*Ruleset{}
	}
	if s.tunnels.Tunnels == nil {
		s.tunnels.Tunnels = map[string]*Tunnel{}
	}
	if s.r2.Buckets == nil {
		s.r2.Buckets = map[string]*R2Bucket{}
	}
	for _, b := range s.r2.Buckets {
		if b.Objects == nil {
			b.Objects = map[string]*R2Object{}
		}
	}
}

// save persists one area; callers hold s.mu. A failure is answered as a 500 so the client
// never believes a change was stored when it was not, and the area is reloaded from its file
// (still the previous version, thanks to the atomic write), which rolls the change back.
func (s *Server) save(file string) error {
	err := saveJSON(s.path(file), s.area(file))
	if err == nil {
		return nil
	}
	s.log.Error("cfapi: persisting state failed; rolling the change back", "file", file, "err", err)
	if reloadErr := s.reload(file); reloadErr != nil {
		s.log.Error("cfapi: rolling back failed; memory and disk disagree until restart", "file", file, "err", reloadErr)
	}
	return &apiError{Status: http.StatusInternalServerError, Code: codeInternal, Message: "local edge could not persist state: " + err.Error()}
}

// area returns the in-memory value persisted in file.
func (s *Server) area(file string) any {
	switch file {
	case fileWorkers:
		return &s.workers
	case fileKV:
		return &s.kv
	case fileZone:
		return &s.zone
	case fileTunnels:
		return &s.tunnels
	case filePurges:
		return &s.purges
	case fileR2:
		return &s.r2
	}
	panic("cfapi: unknown state file " + file)
}

// reload replaces one area with its file's content. It decodes into zero values because
// decoding into existing maps would keep entries the file does not have.
func (s *Server) reload(file string) error {
	switch file {
	case fileWorkers:
		s.workers = workersState{}
	case fileKV:
		s.kv = kvState{}
	case fileZone:
		s.zone = zoneState{}
	case fileTunnels:
		s.tunnels = tunnelState{}
	case filePurges:
		s.purges = purgeState{}
	case fileR2:
		s.r2 = r2State{}
	}
	err := loadJSON(s.path(file), s.area(file))
	s.fillEmpty()
	return err
}

// ServeHTTP serves the API under APIPrefix, the S3-compatible R2 endpoint under S3Prefix and
// the admin endpoints under AdminPrefix. Every request except the admin ones is counted
// (Calls); an authenticated API request then passes the rate limit and the fault injection,
// in that order, before it is served. S3 requests pass neither: they do not spend the
// account's REST budget on Cloudflare either.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, AdminPrefix+"/") {
		if s.authorize(w, r) {
			s.serveAdmin(w, r)
		}
		return
	}
	if isS3Path(r.URL.Path) {
		s.serveS3(w, r)
		return
	}
	op, at := s.operation(r)
	rec := &statusRecorder{ResponseWriter: w}
	defer func() { s.calls.record(op, at, rec.status) }()
	if op == UnroutedOperation && !strings.HasPrefix(r.URL.Path, APIPrefix+"/") {
		s.unimplemented(rec, r)
		return
	}
	if !s.authorize(rec, r) || !s.limit.admit(rec) || s.faults.inject(rec, r, s.log) {
		return
	}
	if op == UnroutedOperation {
		s.unimplemented(rec, r)
		return
	}
	s.mux.ServeHTTP(rec, r)
}

// unimplemented answers a request outside the emulated subset. It distinguishes a known path
// with an unsupported method (405) from an unknown path (404) so the gap is easy to locate.
func (s *Server) unimplemented(w http.ResponseWriter, r *http.Request) {
	s.log.Warn("cfapi: request not implemented by the local edge", "method", r.Method, "path", r.URL.Path)
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" {
			writeError(w, &apiError{Status: http.StatusMethodNotAllowed, Code: codeMethodNotAllow,
				Message: fmt.Sprintf("local edge does not implement %s %s", r.Method, r.URL.Path)})
			return
		}
	}
	writeError(w, &apiError{Status: http.StatusNotFound, Code: codeNoRoute,
		Message: fmt.Sprintf("local edge does not implement %s %s (no route for that URI)", r.Method, r.URL.Path)})
}

func (s *Server) registerRoutes() {
	s.registerWorkersRoutes()
	s.registerRouteRoutes()
	s.registerKVRoutes()
	s.registerHostnameRoutes()
	s.registerFallbackOriginRoutes()
	s.registerTunnelRoutes()
	s.registerDNSRoutes()
	s.registerPurgeRoutes()
	s.registerR2Routes()
	s.registerRulesetRoutes()
	s.registerZoneRoutes()
}

// after runs f after d unless the server is closed first; it carries the delayed hooks
// (KV propagation, custom hostname auto-validation).
func (s *Server) after(d time.Duration, f func()) {
	s.timersMu.Lock()
	defer s.timersMu.Unlock()
	if s.closed {
		return
	}
	var timer *time.Timer
	timer = time.AfterFunc(d, func() {
		s.timersMu.Lock()
		_, pending := s.timers[timer]
		delete(s.timers, timer)
		s.timersMu.Unlock()
		if pending {
			f()
		}
	})
	s.timers[timer] = struct{}{}
}

// Close cancels pending delayed hooks so none runs after the local edge stops. The state is
// already on disk (every change is persisted before it is acknowledged), so there is nothing
// to flush. Serving requests after Close still works but schedules no delayed hooks.
func (s *Server) Close() error {
	s.timersMu.Lock()
	defer s.timersMu.Unlock()
	s.closed = true
	for t := range s.timers {
		t.Stop()
		delete(s.timers, t)
	}
	return nil
}
