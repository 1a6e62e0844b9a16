// Package cfapi serves the subset of the Cloudflare v4 API that the KamuiDash provider uses, for
// the local edge: Workers scripts and routes, KV, custom hostnames, Cloudflare Tunnels, DNS
// records and cache purges, with Cloudflare's response envelope, bearer-token auth, pagination,
// fault injection and state persisted under a directory.
//
// The local edge's other parts (the workerd runtime, tunnel emulation, the `localedge`
// sub-command) plug in through [Hooks], which report every change the runtime must follow, and
// through the read methods on [Server] ([Server.Script], [Server.KVValue], [Server.Routes], …),
// which return copies of the current state.
//
// Anything the emulator does not implement answers with a Cloudflare-style error naming the
// method and path, and is logged: a provider must never mistake an emulation gap for success.
package cfapi
