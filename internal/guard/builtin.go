package guard

// Builtin returns the table of the types the guard knows without a classes file: this
// provider's (docs/ARCHITECTURE.md, "Change classes and the guard"), the official Cloudflare
// provider's (current and older names, so that configurations mixing or migrating providers are
// guarded as well) and the Kubernetes provider's. Each call returns a new table, so callers may
// extend it.
func Builtin() *Table {
	t := &Table{}

	// This provider. A type that touches several parts of the edge belongs to each of them: a
	// custom domain is a Cloudflare for SaaS hostname (dns) and a DOMAINS mapping (kv).
	t.mustSet("kamuidash_edge_worker", ClassWorker)
	t.mustSet("kamuidash_kv_namespace", ClassKV)
	t.mustSet("kamuidash_tenant_app", ClassKV)
	t.mustSet("kamuidash_route_record", ClassKV)
	t.mustSet("kamuidash_custom_domain", ClassDNS, ClassKV)
	t.mustSet("kamuidash_tunnel", ClassTunnel, ClassDNS)
	t.mustSet("kamuidash_router_network_policy", ClassCluster)
	t.mustSet("kamuidash_router_image", ClassCluster) // what the cluster runs (issue 15)
	t.mustSet("kamuidash_fallback_origin", ClassDNS)  // the SaaS zone's fallback origin (issue 15)
	t.mustSet("kamuidash_static_site", ClassStatic)

	// The official Cloudflare provider. Everything named after Workers changes what the Worker
	// runs or where it is reachable (scripts, routes, secrets, cron triggers, deployments),
	// except Workers KV, whose longer prefix makes it routing data.
	t.mustSet("cloudflare_worker*", ClassWorker) // cloudflare_worker_script, cloudflare_workers_script, …
	t.mustSet("cloudflare_workers_kv*", ClassKV) // cloudflare_workers_kv, cloudflare_workers_kv_namespace
	t.mustSet("cloudflare_dns_record", ClassDNS)
	t.mustSet("cloudflare_record", ClassDNS) // the name before provider v5
	t.mustSet("cloudflare_custom_hostname*", ClassDNS)
	t.mustSet("cloudflare_zero_trust_tunnel_cloudflared*", ClassTunnel)
	t.mustSet("cloudflare_tunnel*", ClassTunnel) // the names before provider v5
	t.mustSet("cloudflare_r2_*", ClassStatic)

	// The Kubernetes provider: the router, its policy and the tunnel connectors live there.
	t.mustSet("kubernetes_*", ClassCluster)
	return t
}
