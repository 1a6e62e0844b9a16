// Package localedge is the `localedge` sub-command: the KamuiDash edge on one machine, all on
// loopback, so that `terraform apply` works with no Cloudflare account.
//
//	terraform-provider-kamuidash localedge [--state-dir DIR] [--api ADDR] [--edge ADDR]
//	    [--ready-file F] [--zone NAME] [--auto-validate DUR] [--kv-propagation DUR]
//	    [--node-modules DIR] [--router] [--router-upstream-template T] [--router-namespace-prefix P]
//	    [--router-secret-dir DIR]
//
// It starts:
//
//   - the Cloudflare-API-compatible server (package cfapi) on --api (default 127.0.0.1:8787);
//   - the uploaded Workers in the real workerd (package runtime: Miniflare from the repo's
//     node_modules, driven by an embedded Node host), byte-exact modules and their bindings;
//   - the edge on --edge (default 127.0.0.1:8788): each request goes to the Worker its Host
//     and path route to, as Cloudflare would for the zone (the most specific Worker route;
//     hosts outside the zone only when they are active custom hostnames, tried under their
//     own name and then under their custom_origin_server); anything else gets a fixed 404;
//   - tunnel emulation: every outbound fetch of a Worker is delivered by the tunnel ingress
//     rules of its hostname (see tunnelHandler for the mapping of in-cluster services);
//   - with --router, the router from worker-src/router (built with go build into the state
//     dir), sharing the signing secret of the uploaded Worker's SIGNING_SECRET binding, with
//     --upstream-template so namespace/service:port upstreams go to 127.0.0.1:{port}. With
//     --router-secret-dir DIR it ignores the Worker and takes its keys from DIR instead, laid
//     out like its mounted Kubernetes Secret (signing-secret, optional signing-secret-next):
//     the stand-in for the cluster's secret store and router rollout, to rehearse a rotation
//     of the signing secret. A change of the files is rolled out with no request dropped (the
//     new router starts, the tunnel switches to it, the old one drains and stops).
//
// It prints the credentials a user pastes and writes them to <state-dir>/env as export lines
// (mode 0600); they stay the same across restarts of one state dir. --ready-file is written
// (atomically, with the same lines) once everything listens, and removed on exit. SIGINT or
// SIGTERM stops everything it started and exits 0.
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
//
// # Consistency with Cloudflare
//
// KV writes reach the Workers --kv-propagation after the API accepted them (cfapi's
// Hooks.KVChanged fires late; the runtime's copy is then updated), and script uploads reload
// workerd within about a second: like Cloudflare, nothing is read-after-write across the edge.
// Cache purges drop the URLs from the Cache API, which all Workers share as one zone does.
// A KV expiration sooner than Miniflare's 60 s minimum is emulated by deleting the runtime's
// copy of the key when it expires.
package localedge
