package route

import "testing"

// The canonical fast path against the decoder it replaced, on a record the provider wrote.
func BenchmarkDecodeRecord(b *testing.B)          { benchDecode(b, DecodeRecord) }
func BenchmarkDecodeRecordReference(b *testing.B) { benchDecode(b, decodeRecordReference) }

func benchDecode(b *testing.B, decode func([]byte) (Record, error)) {
	v, _, err := EncodeRecord(dynamicRecord())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(v); err != nil {
			b.Fatal(err)
		}
	}
}
