package cfapi

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/textproto"
	"strconv"
	"strings"
)

// decodeAWSChunked decodes S3's aws-chunked content encoding (not HTTP's chunked transfer
// coding, which net/http has already removed): chunks of "<hex size>[;ext]\r\n<data>\r\n",
// a zero-size chunk, then trailer lines "<name>:<value>\r\n" and an empty line. The AWS SDK
// sends it for uploads over TLS with a trailing checksum (x-amz-trailer). Chunk extensions
// (chunk-signature) are ignored: only unsigned streaming is accepted (readS3Payload).
func decodeAWSChunked(encoded []byte) (content []byte, trailers map[string]string, err error) {
	rd := bufio.NewReader(bytes.NewReader(encoded))
	tp := textproto.NewReader(rd)
	var out bytes.Buffer
	for {
		line, lineErr := tp.ReadLine()
		if lineErr != nil {
			return nil, nil, errors.New("aws-chunked body ends inside a chunk header")
		}
		sizeText, _, _ := strings.Cut(line, ";")
		size, parseErr := strconv.ParseInt(strings.TrimSpace(sizeText), 16, 64)
		if parseErr != nil || size < 0 || size > int64(len(encoded)) {
			return nil, nil, errors.New("aws-chunked chunk size is not a hex length")
		}
		if size == 0 {
			break
		}
		if _, copyErr := io.CopyN(&out, rd, size); copyErr != nil {
			return nil, nil, errors.New("aws-chunked chunk is shorter than its size")
		}
		if end, _ := tp.ReadLine(); end != "" {
			return nil, nil, errors.New("aws-chunked chunk is longer than its size")
		}
	}
	trailers = map[string]string{}
	for {
		line, lineErr := tp.ReadLine()
		if lineErr == io.EOF || line == "" {
			break // the final empty line (some clients omit it)
		}
		if lineErr != nil {
			return nil, nil, lineErr
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, nil, errors.New("aws-chunked trailer is not <name>:<value>")
		}
		trailers[strings.ToLower(strings.TrimSpace(name))] = strings.TrimSpace(value)
	}
	return out.Bytes(), trailers, nil
}
