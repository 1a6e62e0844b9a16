// Package edge is the decision core of the KamuiDash edge Worker (docs/ARCHITECTURE.md, "The
// path of one request").
//
// The core is plain Go over small interfaces (KV, Cache, Objects, Logger) and a clock so that
// every decision is covered by `go test` on the host. It never imports net/http or fmt:
// the same code is compiled to js/wasm by worker-src/edge/wasm, where those packages would
// only add weight. It never touches a body either: bodies are opaque Body handles that the
// adapter owns, so request and response bytes stay in JS streams. The core decides; the
// adapter fetches upstream and then asks the core to post-process the response headers
// (Exchange.UpstreamResponse) or to answer a failed fetch (Exchange.UpstreamFailed).
//
// # The origin fetch never touches a shared cache
//
// Every dynamic app is forwarded to the same tunnel origin URL (https://<origin>/<path>); only
// the signed Kamui-* headers say which tenant a request is for. A zone cache in front of that
// origin is keyed by URL, so one tenant's cacheable answer for /assets/app.js would be served
// to another tenant's visitors without the router ever seeing the request. The adapter
// therefore makes the origin fetch with cache: "no-store" (route.WorkerCompatibilityDate
// supports it), and the tunnel adds a zone Cache Rule that bypasses the cache for its origin
// hostname as a second layer. Only static content, stored by the core itself under the public
// URL and checked by its private marker, is ever cached.
//
// # Conditional requests and ranges are decided here, for both sources
//
// Static answers tell browsers to revalidate every time (max-age=0, must-revalidate), so
// 304 and 206 are what make that cheap. R2's get has range and onlyIf options, and
// cache.match answers Range and If-None-Match itself when they are on the request it is
// given; using them would split the rules between two layers that behave differently (and
// differently again in Miniflare). Instead the core owns every case (represent.go), from the
// metadata of a complete 200 representation, whichever source it came from:
//
//   - R2, layout by prefix: the adapter reads the whole object (get, or head for HEAD) and
//     reports its size, ETag and upload time as Content-Length, ETag and Last-Modified;
//   - R2, content-addressed layout: the version's manifest entry is the metadata (its size,
//     type and hash, the ETag) and there is no Last-Modified (see below);
//   - the content cache: the entry is the stored complete 200 with the same headers;
//     cache.match is given the bare URL, so it never applies a condition or a range itself.
//
// If-None-Match (weak comparison, "*", lists) decides 304, If-Modified-Since only without it
// (IMF-fixdate only: another form is ignored, which costs a 200, never a wrong 304). A single
// "bytes=" range of a GET gives 206 with Content-Range, or 416 past the end; several ranges
// and malformed ones get the whole 200. If-Range compares strongly with the ETag (or equals
// Last-Modified), so a resumed download never splices two versions. HEAD answers as a GET
// without Range (RFC 9110 §14.2 defines ranges for GET only). The core names the bytes
// (Plan.Range); worker.mjs cuts them from the body stream, whose earlier bytes are read and
// dropped, and sends every static stream with the Content-Length the core set. Only a
// complete 200 is ever stored; a 304 or 206 stores nothing. The site's 404 page is answered
// as a 404 whatever the conditions; the SPA fallback is the 200 representation of its URL
// (the index, stored under that URL), so it revalidates like any other page.
//
// # Content-addressed sites: the manifest decides, the object only carries the body
//
// A static record with static.manifest names one version of a site (route.SiteManifest):
// path → object hash, type, size. Who decides what:
//
//   - the provider (kamuidash_static_site) writes each content once under
//     <prefix>objects/<sha256> and a manifest per version, never rewritten, before it points
//     the record at it; a rollback points the record at a kept manifest;
//   - route.DecodeSiteManifest is the only judge of a manifest: unknown fields, another
//     version, a path that is not relative, an object that is not a hash, a type that is
//     not printable ASCII (CR/LF could otherwise split a header) are all refused, and a
//     refused or missing manifest is a 502 (static-error), never a 404 and never remembered;
//   - the core (site.go) reads a manifest once per isolate (Objects.Text, at most
//     route.MaxSiteManifestBytes, which worker.mjs checks from R2's size before reading the
//     body) and holds it by key in a memo bounded by entries and files, least recently used
//     out, for at most the freshness budget; concurrent misses share one read, and a read
//     after the budget that finds the text decoded before (kept up to 8 KB) is not decoded
//     again. A large version's manifest names only how many shards hold its files
//     (route.SplitSiteManifest): each path is then looked up in its own shard
//     (route.SiteShard), read and held like a manifest and judged by route.DecodeSiteShard
//     (a path another shard should hold is refused), so a request reads the shards of the
//     paths it looks up, never the whole site, and no read holds the isolate (one thread,
//     every tenant) for longer than a shard's decode. It resolves the path (staticPath, then
//     a directory's index, then the SPA index, then the 404 page) and makes every header
//     from the entry, so a 304, a HEAD, a 416 and a missing path without a 404 page read no
//     object; only a body the client gets is read, and an object missing or of another size
//     than the entry says is a 502 before any byte is sent;
//   - the content cache stores the full 200 with the entry's headers, so its hits
//     revalidate against the same ETag.
//
// There is no Last-Modified: an object is shared by every path and version with the same
// bytes, and a record may roll back to an older manifest, so no date the Worker could send
// orders a path's versions. The hash is exact; If-Modified-Since alone gets the 200.
//
// # Bindings
//
// The Worker reads its whole configuration from these Worker bindings; the provider must
// upload all of them. route.WorkerBindings is the contract (names, kinds, value formats,
// minimum secret sizes): the provider writes from it, ParseConfig and the adapter read by it. A missing or invalid one makes every request a fixed 500 plus a log
// line, never a routed request.
//
//	ROUTES                    KV namespace   app name → route.Record (JSON)
//	DOMAINS                   KV namespace   custom hostname → route.DomainMapping (JSON)
//	STATIC                    R2 bucket      static objects (and sites' manifests) under each record's static.prefix
//	PLATFORM_DOMAIN           plain text     e.g. "kamui.test"; a valid, normalised DNS name
//	FRESHNESS_BUDGET_SECONDS  plain text     integer seconds within route.MinFreshnessBudget..MaxFreshnessBudget
//	UPSTREAM_TIMEOUT_MS       plain text     integer ceiling for a record's timeout_ms (100..90000)
//	LOG_SAMPLE_RATE           plain text     decimal 0..1: the share of success lines logged
//	SIGNING_SECRET            secret text    HMAC key for the Kamui-Context-Signature (≥ 32 bytes)
//	CACHE_MARKER              secret text    this deployment's private Kamui-Cache-Marker value (≥ 16 bytes)
package edge
