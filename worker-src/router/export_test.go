package router

// UpstreamClients counts the upstream clients rt keeps (for tests of the pool's bound).
func UpstreamClients(rt *Router) int {
	n := 0
	rt.upstreams.clients.Range(func(any, any) bool { n++; return true })
	return n
}
