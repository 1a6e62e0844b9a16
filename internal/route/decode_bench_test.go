package route

import (
	"strconv"
	"testing"
)

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

// The manifest's canonical fast path against the decoder it replaced, on a manifest of a
// small site (the bench's four files) and of a larger one.
func BenchmarkDecodeSiteManifest(b *testing.B) {
	for _, files := range []int{4, 200} {
		v := benchManifest(b, files)
		for name, decode := range map[string]func([]byte) (SiteManifest, error){
			"fast": DecodeSiteManifest, "reference": decodeSiteManifestReference,
		} {
			b.Run(strconv.Itoa(files)+"-files/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := decode(v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func benchManifest(b *testing.B, files int) []byte {
	m := SiteManifest{Files: map[string]SiteFile{}}
	for i := range files {
		m.Files["assets/file-"+strconv.Itoa(i)+".js"] = SiteFile{Object: testObject, Type: "text/javascript; charset=utf-8", Size: int64(100 + i)}
	}
	v, err := EncodeSiteManifest(m)
	if err != nil {
		b.Fatal(err)
	}
	return v
}
