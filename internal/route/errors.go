package route

import "errors"

// The causes a decode or validation can fail with. Test with errors.Is; the *FieldError that
// wraps them names the field and what was wrong with it.
var (
	// ErrMalformed: the bytes are not a JSON object of the expected shape (syntax, types,
	// unknown or duplicated fields, trailing data).
	ErrMalformed = errors.New("malformed record")
	// ErrUnknownVersion: the record's "v" is not a schema version this code knows.
	ErrUnknownVersion = errors.New("unknown schema version")
	// ErrUnknownKind: "kind" is neither "dynamic" nor "static".
	ErrUnknownKind = errors.New("unknown record kind")
	// ErrBadStatus: "status" is not one of "active", "provisioning", "disabled".
	ErrBadStatus = errors.New("bad record status")
	// ErrMissingDelivery: the delivery object for the record's kind is absent or incomplete,
	// or the one for the other kind is present too.
	ErrMissingDelivery = errors.New("missing or ambiguous delivery data")
	// ErrInvalidField: a field is present but its value breaks a rule (an app name that is not
	// a DNS label, a port out of range, …).
	ErrInvalidField = errors.New("invalid field")
	// ErrRevMismatch: "rev" is not the content hash of the rest of the record, so the record
	// was edited without recomputing it, or corrupted.
	ErrRevMismatch = errors.New("rev does not match content")
	// ErrInvalidHost: a host is not a valid DNS name.
	ErrInvalidHost = errors.New("invalid host")
)

// FieldError says which field failed and why. Cause is one of the Err* values above.
type FieldError struct {
	// Not comparable: errors are compared by pointer, and an equality function for the
	// struct would only add to the edge Worker's Wasm.
	_ [0]func()

	Field  string // JSON field path, e.g. "dynamic.upstream"; empty for the whole document
	Cause  error
	Detail string // human-readable; never echoes secrets (records hold none)
}

func (e *FieldError) Error() string {
	msg := e.Cause.Error()
	if e.Field != "" {
		msg += ": " + e.Field
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *FieldError) Unwrap() error { return e.Cause }

func fieldErr(field string, cause error, detail string) error {
	return &FieldError{Field: field, Cause: cause, Detail: detail}
}
