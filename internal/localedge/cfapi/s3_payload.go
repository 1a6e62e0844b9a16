package cfapi

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// The payload hashes (X-Amz-Content-Sha256) a client may sign instead of the body's SHA-256.
const (
	unsignedPayload                 = "UNSIGNED-PAYLOAD"
	streamingUnsignedPayloadTrailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
)

// maxS3BodyBytes bounds the body as received: an object of r2MaxObjectBytes plus the
// aws-chunked framing around it.
const maxS3BodyBytes = r2MaxObjectBytes + 1<<20

// crc64NVME is the reversed CRC-64/NVME polynomial, as crc64.MakeTable wants it (S3's
// CRC64NVME checksum, the AWS SDK's default for new uploads in some versions).
const crc64NVME = 0x9a6c9329ac4bc9b5

// s3ChecksumAlgorithms maps each x-amz-checksum-* name to its hash.
var s3ChecksumAlgorithms = map[string]func() hash.Hash{
	"x-amz-checksum-crc32":     func() hash.Hash { return crc32.NewIEEE() },
	"x-amz-checksum-crc32c":    func() hash.Hash { return crc32.New(crc32.MakeTable(crc32.Castagnoli)) },
	"x-amz-checksum-crc64nvme": func() hash.Hash { return crc64.New(crc64.MakeTable(crc64NVME)) },
	"x-amz-checksum-sha1":      sha1.New,
	"x-amz-checksum-sha256":    sha256.New,
}

// readS3Payload reads an upload's body and returns the object's bytes after checking every
// integrity claim the request makes: the signed payload hash, the aws-chunked framing and
// its declared length, the x-amz-checksum-* values (header or trailer) and Content-MD5.
func readS3Payload(w http.ResponseWriter, r *http.Request) ([]byte, *s3Error) {
	raw, err := io.ReadAll(http.MaxBytesReader(unwrapped(w), r.Body, maxS3BodyBytes))
	if err != nil {
		if _, tooBig := errors.AsType[*http.MaxBytesError](err); tooBig {
			return nil, s3Errorf(http.StatusBadRequest, "EntityTooLarge", "The object is larger than the local edge's "+strconv.Itoa(r2MaxObjectBytes)+" bytes.")
		}
		return nil, s3Errorf(http.StatusBadRequest, "IncompleteBody", "The request body could not be read.")
	}
	checksums := map[string]string{}
	for name := range s3ChecksumAlgorithms {
		if v := r.Header.Get(name); v != "" {
			checksums[name] = v
		}
	}
	content := raw
	switch payloadHash := r.Header.Get("X-Amz-Content-Sha256"); {
	case payloadHash == unsignedPayload:
	case payloadHash == streamingUnsignedPayloadTrailer:
		var trailers map[string]string
		if content, trailers, err = decodeAWSChunked(raw); err != nil {
			return nil, s3Errorf(http.StatusBadRequest, "InvalidRequest", err.Error())
		}
		if declared := r.Header.Get("X-Amz-Decoded-Content-Length"); declared != strconv.Itoa(len(content)) {
			return nil, s3Errorf(http.StatusBadRequest, "IncompleteBody", "The decoded body's length is not x-amz-decoded-content-length.")
		}
		for _, name := range strings.Split(r.Header.Get("X-Amz-Trailer"), ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			value, ok := trailers[name]
			if !ok {
				return nil, s3Errorf(http.StatusBadRequest, "InvalidRequest", "The trailer "+name+" announced in x-amz-trailer is missing.")
			}
			checksums[name] = value
		}
	case strings.HasPrefix(payloadHash, "STREAMING-"):
		return nil, s3NotImplemented("signed streaming uploads (" + payloadHash + "); sign the whole payload or send it unsigned")
	default:
		sum := sha256.Sum256(raw)
		if subtle.ConstantTimeCompare([]byte(strings.ToLower(payloadHash)), []byte(hex.EncodeToString(sum[:]))) != 1 {
			return nil, s3Errorf(http.StatusBadRequest, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.")
		}
	}
	if len(content) > r2MaxObjectBytes {
		return nil, s3Errorf(http.StatusBadRequest, "EntityTooLarge", "The object is larger than the local edge's "+strconv.Itoa(r2MaxObjectBytes)+" bytes.")
	}
	for name, want := range checksums {
		algorithm, known := s3ChecksumAlgorithms[name]
		if !known {
			return nil, s3Errorf(http.StatusBadRequest, "InvalidRequest", "Unsupported checksum "+name+".")
		}
		h := algorithm()
		h.Write(content)
		if base64.StdEncoding.EncodeToString(h.Sum(nil)) != want {
			return nil, errS3BadDigest
		}
	}
	if contentMD5 := r.Header.Get("Content-MD5"); contentMD5 != "" {
		want, decodeErr := base64.StdEncoding.DecodeString(contentMD5)
		if decodeErr != nil || len(want) != md5.Size {
			return nil, s3Errorf(http.StatusBadRequest, "InvalidDigest", "The Content-MD5 you specified is not valid.")
		}
		if sum := md5.Sum(content); subtle.ConstantTimeCompare(sum[:], want) != 1 {
			return nil, errS3BadDigest
		}
	}
	return content, nil
}
