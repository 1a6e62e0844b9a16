// Package route is the contract shared by the provider, the edge Worker and the internal router:
// the schemas of the ROUTES and DOMAINS KV records, host normalisation and platform-host
// detection, the internal cache-key builders, the freshness-budget arithmetic, the signing of
// the resolved request context (signing secret) and of the propagation probe (a probe key
// derived from it), and the Worker's binding constants.
//
// It imports the standard library only, and none of net/http: it is compiled into the Worker's
// Wasm, where every imported package costs bytes, and the provider builds it offline.
//
// Everything here is strict on purpose. A record with an unknown version, an unknown kind, a bad
// status or incomplete delivery data is an error with a typed cause, never a guessed default: the
// Worker refuses to route on data it does not fully understand.
package route
