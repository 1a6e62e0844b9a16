package route

import "testing"

func BenchmarkDecodeRecord(b *testing.B) {
	v, _, err := EncodeRecord(dynamicRecord())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRecord(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeRecordReference(b *testing.B) {
	v, _, err := EncodeRecord(dynamicRecord())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeRecordReference(v); err != nil {
			b.Fatal(err)
		}
	}
}
