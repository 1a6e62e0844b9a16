package route

// WorkerCompatibilityDate is the compatibility date the edge Worker is uploaded with, and the one
// the runtime tests run it under. The Worker's origin fetch passes cache: "no-store", which the
// runtime accepts from 2024-11-11 on (before that the option throws); a later date is a Worker
// change of its own, to be tested before it lands.
const WorkerCompatibilityDate = "2025-01-01"

// WorkerCompatibilityFlags are the compatibility flags the edge Worker is uploaded with, and
// the ones the runtime tests run it under: nodejs_compat gives the Worker's shim node:crypto,
// the runtime's synchronous SHA-256 and HMAC, which the Go code uses instead of the standard
// library's (digest.go).
func WorkerCompatibilityFlags() []string { return []string{"nodejs_compat"} }

// Minimum sizes of the Worker's secret bindings: shorter values are configuration mistakes (a
// placeholder, an empty variable expanded into a string), and failing closed beats signing with
// them. The provider refuses them at plan time, the Worker at start, and the router refuses a
// signing key (current or next) shorter than MinSigningSecretBytes.
const (
	MinSigningSecretBytes = 32
	MinCacheMarkerBytes   = 16
)
