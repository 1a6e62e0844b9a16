package route

// The package's two cryptographic primitives, SHA-256 (a value's rev, record.go) and
// HMAC-SHA256 (the signed context and the propagation probe), are behind one seam with two
// implementations, chosen at build time:
//
//   - digest_std.go, everywhere but in the edge Worker: the standard library's crypto/sha256
//     and crypto/hmac.
//   - digest_host.go, in the edge Worker's Wasm (built with the hostdigest tag,
//     internal/bundle's workerGCFlags): the Workers runtime computes both, natively, through
//     two functions the Worker's shim gives the Wasm as imports (worker-src/edge/js/worker.mjs,
//     module "kamuidash"). Importing crypto/sha256 links the standard library's FIPS 140
//     module, with its AES, SHA-3, SHA-512 and DRBG self-tests, into the Wasm: 51.7 KB of gzip
//     of the 1 MB budget, for two functions the runtime already has.
//
// Both compute the same bytes: every runtime test of the Worker signs, verifies and decodes
// values across the two (the Worker signs what the router's verifier checks, and decodes
// records the provider stamped).

// digestSize is the size of a SHA-256 digest, and so of an HMAC-SHA256.
const digestSize = 32

// keyed is HMAC-SHA256 under one key, for a signer or verifier that uses the key for every
// request: newKeyed(key).sum(msg) equals hmacSHA256(key, msg). It is safe for concurrent use.
type keyed interface {
	sum(msg []byte) [digestSize]byte
}
