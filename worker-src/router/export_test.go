package router

// UpstreamClients counts the upstream clients rt keeps (for tests of the pool's bound).
func UpstreamClients(rt *Router) int {
	n := 0
	rt.upstreams.clients.Range(func(any, any) bool { n++; return true })
	return n
}

// UpstreamReadBufferSize is the transport's read buffer: a response body that fits in it along
// with its head may be taken whole; a larger one is always streamed.
const UpstreamReadBufferSize = upstreamReadBufferSize
