package route

import "testing"

// decodeHex accepts what hex.DecodeString accepted for a signature (either case) and nothing of
// another length.
func TestDecodeHex(t *testing.T) {
	var dst [32]byte
	s := "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF"
	if !decodeHex(dst[:], s) || dst[0] != 0x00 || dst[15] != 0xff || dst[16] != 0x00 || dst[31] != 0xff {
		t.Errorf("decoded %x", dst)
	}
	for _, bad := range []string{"", s[:62], s + "00", s[:63] + "g", "zz" + s[2:]} {
		if decodeHex(dst[:], bad) {
			t.Errorf("%q decoded", bad)
		}
	}
}
