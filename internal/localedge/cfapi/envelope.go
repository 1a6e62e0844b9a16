package cfapi

import (
	"encoding/json"
	"net/http"
)

// Cloudflare error codes the emulator answers with. Where Cloudflare has a well-known code
// (10000 authentication, 9109 invalid token, 7003 no route, 10009 KV key not found) it is used,
// so a client's error handling sees what it would see in production; the rest are chosen in
// Cloudflare's 1xxxx range, which the OpenAPI description requires (codes >= 1000).
const (
	codeAuthError      = 10000 // missing or malformed credentials
	codeInvalidToken   = 9109  // a token that is not this local edge's
	codeNoRoute        = 7003  // path the emulator does not implement
	codeMethodNotAllow = 10405 // known path, unsupported method
	codeBadRequest     = 10001 // malformed body or parameters
	codeNotFound       = 10007 // the addressed object does not exist
	codeConflict       = 10014 // an object with that identity already exists
	// codeRateLimited answers an injected 429. Cloudflare's API has answered 971 for
	// throttling, but its OpenAPI description requires codes >= 1000, so the emulator uses a
	// code in that range that still reads as 429.
	codeRateLimited   = 10429
	codeInternal      = 10013 // injected or genuine 5xx
	codeKVKeyNotFound = 10009 // KV: key not found
)

// apiMessage is one entry of the envelope's errors or messages arrays.
type apiMessage struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// pageInfo is the page/per_page flavour of result_info.
type pageInfo struct {
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
	Count      int `json:"count"`
	TotalCount int `json:"total_count"`
	TotalPages int `json:"total_pages"`
}

// cursorInfo is the cursor flavour of result_info (KV key listing).
type cursorInfo struct {
	Count  int    `json:"count"`
	Cursor string `json:"cursor"`
}

type envelope struct {
	Success    bool         `json:"success"`
	Errors     []apiMessage `json:"errors"`
	Messages   []apiMessage `json:"messages"`
	Result     any          `json:"result"`
	ResultInfo any          `json:"result_info,omitempty"`
}

// apiError is an error a handler returns to answer with Cloudflare's failure envelope.
type apiError struct {
	Status  int
	Code    int
	Message string
}

func (e *apiError) Error() string { return e.Message }

func errBadRequest(msg string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Code: codeBadRequest, Message: msg}
}

func errNotFound(msg string) *apiError {
	return &apiError{Status: http.StatusNotFound, Code: codeNotFound, Message: msg}
}

func errConflict(msg string) *apiError {
	return &apiError{Status: http.StatusConflict, Code: codeConflict, Message: msg}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeResult answers 200 with a success envelope; info is nil, a pageInfo or a cursorInfo.
func writeResult(w http.ResponseWriter, result any, info any) {
	writeJSON(w, http.StatusOK, envelope{
		Success:    true,
		Errors:     []apiMessage{},
		Messages:   []apiMessage{},
		Result:     result,
		ResultInfo: info,
	})
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.Status, envelope{
		Success:  false,
		Errors:   []apiMessage{{Code: e.Code, Message: e.Message}},
		Messages: []apiMessage{},
		Result:   nil,
	})
}
