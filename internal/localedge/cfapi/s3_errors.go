package cfapi

import (
	"encoding/xml"
	"net/http"
)

// s3Error is an S3 error answer: the code clients switch on (the AWS SDK maps NoSuchKey,
// NoSuchBucket… to typed errors) and its HTTP status.
type s3Error struct {
	Status  int
	Code    string
	Message string
}

func (e *s3Error) Error() string { return e.Code + ": " + e.Message }

// The errors the endpoint answers, with S3's codes and statuses.
var (
	errS3NoSuchBucket = &s3Error{http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist."}
	errS3NoSuchKey    = &s3Error{http.StatusNotFound, "NoSuchKey", "The specified key does not exist."}
	errS3BadDigest    = &s3Error{http.StatusBadRequest, "BadDigest", "The Content-MD5 or checksum you specified did not match what we received."}
	errS3Mismatch     = &s3Error{http.StatusForbidden, "SignatureDoesNotMatch",
		"The request signature we calculated does not match the signature you provided. Check your secret access key and signing method."}
)

func s3Errorf(status int, code, message string) *s3Error {
	return &s3Error{Status: status, Code: code, Message: message}
}

// s3NotImplemented answers an S3 operation outside the emulated subset, naming it so the gap
// is easy to locate.
func s3NotImplemented(action string) *s3Error {
	return s3Errorf(http.StatusNotImplemented, "NotImplemented", "The local edge's S3 endpoint does not implement "+action+".")
}

type s3ErrorBody struct {
	XMLName  xml.Name `xml:"Error"`
	Code     string   `xml:"Code"`
	Message  string   `xml:"Message"`
	Resource string   `xml:"Resource,omitempty"`
}

// writeS3Error answers err as S3's XML error document; a HEAD answer has no body, as on S3
// (clients then go by the status alone).
func writeS3Error(w http.ResponseWriter, r *http.Request, err *s3Error) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(err.Status)
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write([]byte(xml.Header))
	_ = xml.NewEncoder(w).Encode(s3ErrorBody{Code: err.Code, Message: err.Message, Resource: r.URL.Path})
}

// writeS3XML answers v as an XML document with status 200.
func writeS3XML(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(xml.Header))
	_ = xml.NewEncoder(w).Encode(v)
}
