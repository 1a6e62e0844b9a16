//go:build js && wasm && hostdigest

package route

import "unsafe"

// The runtime's SHA-256 and HMAC-SHA256, given by the Worker's shim (worker.mjs): each reads
// its input from the Wasm's memory at the addresses given and writes the 32-byte digest at out
// before it returns. A call is synchronous, so the Go memory it reads and writes stays put
// for its duration.
//
//go:wasmimport kamuidash sha256
func hostSHA256(msg unsafe.Pointer, msgLen int32, out unsafe.Pointer)

//go:wasmimport kamuidash hmac_sha256
func hostHMACSHA256(key unsafe.Pointer, keyLen int32, msg unsafe.Pointer, msgLen int32, out unsafe.Pointer)

// sha256Sum is SHA-256 of b.
func sha256Sum(b []byte) (sum [digestSize]byte) {
	hostSHA256(unsafe.Pointer(unsafe.SliceData(b)), int32(len(b)), unsafe.Pointer(&sum))
	return sum
}

// hmacSHA256 is HMAC-SHA256 of msg under key.
func hmacSHA256(key, msg []byte) (sum [digestSize]byte) {
	hostHMACSHA256(unsafe.Pointer(unsafe.SliceData(key)), int32(len(key)),
		unsafe.Pointer(unsafe.SliceData(msg)), int32(len(msg)), unsafe.Pointer(&sum))
	return sum
}

// hostKeyed is a key for the runtime's HMAC, which keys its own state on each call.
type hostKeyed struct{ key []byte }

func newKeyed(key []byte) keyed { return hostKeyed{key: key} }

func (k hostKeyed) sum(msg []byte) [digestSize]byte { return hmacSHA256(k.key, msg) }
