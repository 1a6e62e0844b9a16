// Package cfapi serves the subset of the Cloudflare v4 API that the KamuiDash provider uses, for
// the local edge: its one zone (details by id, and the listing with its name, status and
// account filters, which the provider resolves zone_name with), Workers scripts and routes,
// KV, R2 buckets and objects, custom hostnames and the SaaS zone's fallback origin (its
// statuses derived on read, fallback.go), Cloudflare Tunnels, DNS records, cache purges and
// the zone's Cache Rules (the entrypoint ruleset of phase http_request_cache_settings, with
// per-rule create, edit and delete), with Cloudflare's response envelope, bearer-token auth,
// pagination, fault injection and state persisted under a directory.
//
// # Wiring (the `localedge` sub-command)
//
// Create one [Server] per state dir with [New] and serve it on a loopback listener; it is an
// [net/http.Handler]. [Server.Identity] gives what a user pastes (account id, zone id and name,
// API token); it is generated on the first start and stable afterwards. The API base URL is
// the listener's address followed by [APIPrefix] ("/client/v4"). Call [Server.Close] on
// shutdown to cancel delayed hooks; all state is already on disk.
//
// # Plugging in the runtime
//
// The runtime (workerd, tunnel emulation, the router) follows the API's state through
// [Hooks], set in [Config.Hooks]: ScriptChanged (uploads and deletes, with modules and secret
// bindings), KVChanged (after [Config.KVPropagationDelay]), RoutesChanged,
// CustomHostnamesChanged, DNSChanged, TunnelChanged (ingress rules), R2Changed (objects) and
// Purged (URLs to drop from the Cache API). On start it reads the current state through [Server.Script],
// [Server.ScriptNames], [Server.KVNamespaces], [Server.KVValue], [Server.Routes],
// [Server.CustomHostnames], [Server.DNSRecords], [Server.Tunnel], [Server.R2Buckets],
// [Server.Purges] and [Server.Entrypoint] (the Cache Rules the zone cache applies, read at
// every request, so no hook is needed); every read returns a copy.
//
// # Failure modes
//
// Anything the emulator does not implement answers with a Cloudflare-style error naming the
// method and path (404 code 7003 for an unknown path, 405 code 10405 for an unsupported method
// on a known one) and is logged: a provider must never mistake an emulation gap for success.
// Faults for reliability tests (429 with Retry-After, 5xx, latency; for a count or a fraction
// of requests; and bulk KV writes and deletes that report chosen keys, by prefix or fraction,
// in unsuccessful_keys without applying them, [KVBulkFault]) are set with [Config.Faults],
// [Server.SetFaults] or, at run time, POST AdminPrefix+"/faults" with a [FaultSpec] as JSON
// (DELETE clears it; the API token is required).
//
// # Rate limit
//
// [Config.RateLimit] enforces Cloudflare's global API rate limit ([CloudflareRateLimit],
// 1,200 requests per five minutes; the `localedge --api-rate-limit N/DUR` flag): a fixed
// window opened by its first request; the request over the quota and every request for one
// window after it answer 429 with Retry-After and Cloudflare's error envelope. While a limit
// is set every authenticated API answer carries Cloudflare's Ratelimit and Ratelimit-Policy
// headers (see [RateLimit]). Object-storage calls through the REST API count against it;
// S3 calls do not. Off by default: no limit, no headers.
//
// # Call accounting
//
// Every API request is counted by operation (the method and route pattern as registered,
// without APIPrefix; unrouted requests under [UnroutedOperation]; S3 requests as "S3 " and
// the S3 action) and by status class, with the account's REST budget, REST object-storage
// traffic (R2 object reads, writes, deletes and listings) and S3 traffic apart: [Server.Calls], [Server.ResetCalls], or at run time GET
// AdminPrefix+"/calls" for a [CallStats] snapshot and DELETE to reset it (answering what it
// held). Admin requests are neither counted nor limited. `make bench-api` reads it between
// the phases of a Terraform run.
//
// # R2 over S3
//
// Under [S3Prefix] the server speaks R2's S3-compatible API, path-style
// (S3Prefix/<bucket>/<key>), over the same buckets and objects as the REST routes (and the
// same R2Changed hook): PutObject, GetObject (Range and conditional headers), HeadObject,
// DeleteObject, DeleteObjects, ListObjectsV2, HeadBucket and CreateBucket; anything else
// answers NotImplemented, errors are S3's XML. Every request must carry a SigV4 signature by
// [Identity.R2AccessKeyID] for region "auto" and service "s3", within 15 minutes of the
// server's clock; the AWS SDK's signer recomputes it. Upload bodies are checked against the
// signed payload hash, Content-MD5 and x-amz-checksum-* (header, or aws-chunked trailer with
// STREAMING-UNSIGNED-PAYLOAD-TRAILER), so the AWS SDK works in either checksum mode. Signed
// streaming (STREAMING-AWS4-HMAC-SHA256-PAYLOAD), presigned URLs, multipart uploads and
// CopyObject are not implemented.
//
// # Contract
//
// contract_test.go drives the provider's cloudflare-go traffic through Prism, validating every
// request and response against the OpenAPI description carried in the cloudflare-go module
// (S3 is outside it; s3_test.go drives the endpoint with the AWS SDK instead).
// It needs `npm ci` at the repo root.
package cfapi
