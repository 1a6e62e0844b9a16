// Package localedge is the `localedge` sub-command: the KamuiDash edge on one machine, all on
// loopback, so that `terraform apply` works with no Cloudflare account.
//
//	terraform-provider-kamuidash localedge [--state-dir DIR] [--api ADDR] [--edge ADDR]
//	    [--ready-file F] [--zone NAME] [--auto-validate DUR] [--fallback-activation DUR]
//	    [--kv-propagation DUR]
//	    [--api-rate-limit N/DUR] [--node-modules DIR] [--router] [--router-upstream-template T]
//	    [--router-namespace-prefix P] [--router-secret-dir DIR] [--kube-assets DIR]
//
// It starts:
//
//   - the Cloudflare-API-compatible server (package cfapi) on --api (default 127.0.0.1:8787),
//     counting every call by operation (GET or DELETE /__localedge/calls with the API token
//     reads or resets the counts; cmd/bench-api, `make bench-api`, reads them between the
//     phases of a Terraform run) and, with --api-rate-limit (1200/5m is Cloudflare's global
//     limit; default off), enforcing the rate limit with Cloudflare's 429 and headers;
//   - the uploaded Workers in the real workerd (package runtime: Miniflare, driven by an
//     embedded Node host), byte-exact modules and their bindings. Miniflare comes from
//     --node-modules, else the nearest node_modules up from the working directory (a
//     checkout after npm ci), else the npm packages the provider binary pins (its package.json
//     and package-lock.json), installed with npm ci into the cache directory on first use,
//     once per lockfile (NodeModulesCacheDir);
//   - the edge on --edge (default 127.0.0.1:8788): each request goes to the Worker its Host
//     and path route to, as Cloudflare would for the zone (the most specific Worker route;
//     hosts outside the zone only when they are active custom hostnames, tried under their
//     own name and then under their custom_origin_server); a registered custom hostname
//     that is not active (its ownership not validated, or the zone's fallback origin not
//     active: --fallback-activation, default 2s, after its proxied record exists) gets
//     Cloudflare's 530 error 1016; anything else gets a fixed 404;
//   - tunnel emulation: every outbound fetch of a Worker is delivered by the tunnel ingress
//     rules of its hostname (see tunnelHandler for the mapping of in-cluster services),
//     through an emulated zone cache when the hostname is proxied on the zone (below);
//   - with --router, the router from worker-src/router (built with go build into the state
//     dir), sharing the signing secret of the uploaded Worker's SIGNING_SECRET binding, with
//     --upstream-template so namespace/service:port upstreams go to 127.0.0.1:{port}. With
//     --router-secret-dir DIR it ignores the Worker and takes its keys from DIR instead, laid
//     out like its mounted Kubernetes Secret (signing-secret, optional signing-secret-next):
//     the stand-in for the cluster's secret store and router rollout, to rehearse a rotation
//     of the signing secret. A change of the files is rolled out with no request dropped (the
//     new router starts, the tunnel switches to it, the old one drains and stops).
//   - the cluster side (cluster.go): an in-memory OCI registry on a free loopback port
//     (KAMUIDASH_LOCAL_REGISTRY), where kamuidash_router_image pushes the router image, and
//     with --kube-assets DIR a real Kubernetes API server (etcd and kube-apiserver from DIR,
//     as `scripts/install-tools.sh kube` prints it; no nodes, no pods) with the router's
//     namespace kamuidash-system, whose administrator kubeconfig is exported as KUBECONFIG
//     for kamuidash_router_network_policy. Both start empty at every start.
//
// It prints the credentials a user pastes and writes them to <state-dir>/env as export lines
// (mode 0600); they stay the same across restarts of one state dir. Besides the API's they
// carry the local edge's own signing secret (KAMUIDASH_LOCAL_SIGNING_SECRET, made on the first
// start) and the probe key derived from it (KAMUIDASH_PROBE_KEY): a Worker given that secret
// answers the propagation probes the provider signs with that key, from the first apply on. A
// Worker loaded with another secret is logged as a warning. R2's S3-compatible endpoint is
// served on the API listener under cfapi.S3Prefix (KAMUIDASH_R2_S3_ENDPOINT, for the AWS
// SDK's BaseEndpoint with path-style addressing), signed with the key pair made with the
// identity (KAMUIDASH_R2_ACCESS_KEY_ID, KAMUIDASH_R2_SECRET_ACCESS_KEY); its objects are the
// REST API's, so the Workers' R2 bindings serve them. With --router the env file also exports
// the router's namespace prefix (KAMUIDASH_TENANT_NAMESPACE_PREFIX), which the provider checks
// apps against at plan. --ready-file is written (atomically, with the same lines) once
// everything listens, and removed on exit. SIGINT or SIGTERM stops everything it started and
// exits 0. One local edge runs on a state dir at a time (<state-dir>/lock, flock'd, names its
// pid): a second is refused before it writes anything. It runs where process groups exist
// (Linux, macOS); elsewhere it refuses to start (package procgroup).
//
// # State dir
//
// Default: <user cache dir>/kamuidash/localedge (e.g. ~/.cache/kamuidash/localedge on Linux),
// or .localedge in the working directory when the system has none.
//
//	api/       the API server's state: identity, scripts, KV, R2, zone (DNS, hostnames, routes),
//	           tunnels
//	runtime/   host.mjs (rewritten at every start) and Miniflare's data: kv/ and r2/ are copies
//	           of the API's KV and R2 (e.g. the STATIC bucket) rebuilt at every start
//	bin/       the router binary (--router)
//	env        the credentials as export lines
//	cluster/   with --kube-assets: the kubeconfig and the etcd and kube-apiserver logs
//	signing-secret  the local edge's own signing secret (see above)
//
// # Consistency with Cloudflare
//
// KV writes reach the Workers --kv-propagation after the API accepted them (cfapi's
// Hooks.KVChanged fires late; the runtime's copy is then updated), and script uploads reload
// workerd within about a second: like Cloudflare, nothing is read-after-write across the edge.
// Cache purges drop the URLs from the Cache API, which all Workers share as one zone does,
// and from the zone cache.
//
// # Zone cache
//
// On Cloudflare a Worker's fetch of a hostname proxied on the zone goes through the zone's
// cache, keyed by URL, unless the fetch opts out. Every dynamic app is forwarded to the same
// tunnel origin URLs, so a cached answer would cross tenants; the local edge models that cache
// so that a Worker which forgets to opt out fails a test. Fetches of proxied tunnel hostnames
// (not loopback pass-through) go through an in-memory cache (zoneCache) with Cloudflare's
// default behaviour: GET and HEAD of the default cacheable file extensions only, the origin's
// Cache-Control and Set-Cookie respected, s-maxage then max-age (or the status's default edge
// TTL) as the TTL, Cf-Cache-Status (HIT, MISS, EXPIRED, BYPASS, DYNAMIC) and Age on the
// answers. A fetch with cache: "no-store" skips it: workerd marks such a subrequest with
// Cache-Control: no-cache and Pragma: no-cache, the only signal the local runtime gives (on
// Cloudflare the runtime itself skips the cache). The zone's Cache Rules (the
// http_request_cache_settings entrypoint the API serves; kamuidash_tunnel adds one that
// bypasses the cache for its origin hostname) apply: a matching "cache": false rule bypasses
// the cache (DYNAMIC), "cache": true makes any extension eligible. Rule expressions are
// understood in the shapes the provider writes, (http.host eq "…"), (http.host in {"…" "…"})
// and "or" of those; any other expression never matches and is logged once. The cache is
// bounded (entries, bytes, and a per-answer size beyond which answers pass uncached), streams
// what it does not store, and starts empty at every start.
// A KV expiration sooner than Miniflare's 60 s minimum is emulated by deleting the runtime's
// copy of the key when it expires.
package localedge
