package cfapi

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// The signing scope every S3 request must use: R2's region and S3's service name.
const (
	s3Region  = "auto"
	s3Service = "s3"
	// s3MaxClockSkew is how far X-Amz-Date may be from the server's clock (S3's limit), so
	// a captured request cannot be replayed later.
	s3MaxClockSkew = 15 * time.Minute
	amzDateFormat  = "20060102T150405Z"
)

// sigV4Authorization is the parsed Authorization header of a SigV4-signed request.
type sigV4Authorization struct {
	accessKeyID, date, region, service, terminal string
	signedHeaders                                string // as sent: lower-case names joined by ';'
	signature                                    string
}

// parseSigV4Authorization splits
// "AWS4-HMAC-SHA256 Credential=<id>/<date>/<region>/<service>/aws4_request,
// SignedHeaders=<names>, Signature=<hex>".
func parseSigV4Authorization(header string) (sigV4Authorization, *s3Error) {
	var a sigV4Authorization
	algorithm, rest, _ := strings.Cut(header, " ")
	if algorithm != "AWS4-HMAC-SHA256" {
		return a, s3Errorf(http.StatusBadRequest, "AuthorizationHeaderMalformed",
			"Only AWS Signature Version 4 (AWS4-HMAC-SHA256) is supported.")
	}
	for part := range strings.SplitSeq(rest, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch name {
		case "Credential":
			scope := strings.Split(value, "/")
			if len(scope) != 5 {
				return a, s3Errorf(http.StatusBadRequest, "AuthorizationHeaderMalformed", "The Credential is not <key id>/<date>/<region>/<service>/aws4_request.")
			}
			a.accessKeyID, a.date, a.region, a.service, a.terminal = scope[0], scope[1], scope[2], scope[3], scope[4]
		case "SignedHeaders":
			a.signedHeaders = value
		case "Signature":
			a.signature = value
		}
	}
	if a.accessKeyID == "" || a.signedHeaders == "" || a.signature == "" {
		return a, s3Errorf(http.StatusBadRequest, "AuthorizationHeaderMalformed", "The Authorization header lacks Credential, SignedHeaders or Signature.")
	}
	return a, nil
}

// verifySigV4 checks that r carries a valid SigV4 signature by the key pair keyID/secret.
// It rebuilds the request as the client signed it (its method, path, query and exactly the
// headers it lists as signed) and has the AWS SDK's own signer sign that again with the
// client's date and payload hash: equal signatures prove the client holds the secret and
// that nothing signed was changed on the way. The payload hash itself is checked against
// the body later (readS3Payload), once the body is read.
func verifySigV4(r *http.Request, keyID, secret string, now time.Time) *s3Error {
	header := r.Header.Get("Authorization")
	if header == "" {
		if r.URL.Query().Has("X-Amz-Signature") {
			return s3Errorf(http.StatusForbidden, "AccessDenied", "Presigned URLs are not supported by the local edge's S3 endpoint; sign the request's headers.")
		}
		return s3Errorf(http.StatusForbidden, "AccessDenied", "Access Denied: the request is not signed.")
	}
	auth, err := parseSigV4Authorization(header)
	if err != nil {
		return err
	}
	// The key id is not secret, but comparing in constant time costs nothing.
	if subtle.ConstantTimeCompare([]byte(auth.accessKeyID), []byte(keyID)) != 1 {
		return s3Errorf(http.StatusForbidden, "InvalidAccessKeyId", "The access key ID you provided does not exist in our records.")
	}
	if auth.region != s3Region || auth.service != s3Service || auth.terminal != "aws4_request" {
		return s3Errorf(http.StatusBadRequest, "AuthorizationHeaderMalformed",
			"The credential scope must be <date>/auto/s3/aws4_request (R2's region is \"auto\").")
	}
	signedAt, parseErr := time.Parse(amzDateFormat, r.Header.Get("X-Amz-Date"))
	if parseErr != nil || signedAt.Format("20060102") != auth.date {
		return s3Errorf(http.StatusForbidden, "AccessDenied", "X-Amz-Date is missing, malformed or not the date of the credential scope.")
	}
	if skew := now.Sub(signedAt); skew > s3MaxClockSkew || skew < -s3MaxClockSkew {
		return s3Errorf(http.StatusForbidden, "RequestTimeTooSkewed", "The difference between the request time and the server's time is too large.")
	}
	payloadHash := r.Header.Get("X-Amz-Content-Sha256")
	if payloadHash == "" {
		return s3Errorf(http.StatusBadRequest, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256.")
	}

	signed, rebuildErr := rebuildSignedRequest(r, auth.signedHeaders)
	if rebuildErr != nil {
		return rebuildErr
	}
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }) // S3 signs the path as sent
	creds := aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret}
	if signErr := signer.SignHTTP(r.Context(), creds, signed, payloadHash, s3Service, s3Region, signedAt); signErr != nil {
		return s3Errorf(http.StatusInternalServerError, "InternalError", "The local edge could not recompute the signature.")
	}
	want, _ := parseSigV4Authorization(signed.Header.Get("Authorization"))
	// A header the signer never signs (User-Agent, Expect…) listed as signed makes the lists
	// differ: the request cannot be verified, so it is refused like a bad signature.
	if want.signedHeaders != auth.signedHeaders || subtle.ConstantTimeCompare([]byte(want.signature), []byte(auth.signature)) != 1 {
		return errS3Mismatch
	}
	return nil
}

// rebuildSignedRequest copies what the client signed out of r: method, host, path as sent,
// query, and the signed headers only (net/http keeps Host and Content-Length out of Header).
func rebuildSignedRequest(r *http.Request, signedHeaders string) (*http.Request, *s3Error) {
	u := &url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
	out := &http.Request{Method: r.Method, URL: u, Host: r.Host, Header: http.Header{}}
	for name := range strings.SplitSeq(signedHeaders, ";") {
		switch name {
		case "host":
		case "content-length":
			out.ContentLength = r.ContentLength
		default:
			values := r.Header.Values(name)
			if len(values) == 0 {
				return nil, errS3Mismatch // a signed header was dropped on the way
			}
			out.Header[http.CanonicalHeaderKey(name)] = values
		}
	}
	return out, nil
}
