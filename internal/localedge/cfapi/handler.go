package cfapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// maxBodyBytes bounds any request body; Workers uploads and KV values are far below it.
const maxBodyBytes = 128 << 20

// jsonHandler handles one API operation under s.mu and returns the envelope's result and
// result_info. Changes it makes are reported through the returned notify, run after the lock
// is released (so hooks may call the Server's read methods) and before the response is sent
// (so a client that saw the response knows synchronous hooks have run).
type jsonHandler func(r *http.Request) (result, info any, notify func(), err error)

// rawHandler handles an operation whose success answer is not an envelope (KV values, script
// content). It runs under s.mu and writes the response itself; an error is answered as an
// envelope instead.
type rawHandler func(w http.ResponseWriter, r *http.Request) error

func (s *Server) handleJSON(h jsonHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Read the body before taking the lock so a slow upload does not stall other requests.
		body, readErr := io.ReadAll(http.MaxBytesReader(unwrapped(w), r.Body, maxBodyBytes))
		if readErr != nil {
			writeError(w, asAPIError(readErr))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.mu.Lock()
		var (
			result, info any
			notify       func()
			err          error
		)
		if scopeErr := s.checkScope(r); scopeErr != nil {
			err = scopeErr
		} else {
			result, info, notify, err = h(r)
		}
		s.mu.Unlock()
		if err != nil {
			writeError(w, asAPIError(err))
			return
		}
		if notify != nil {
			notify()
		}
		writeResult(w, result, info)
	}
}

func (s *Server) handleRaw(h rawHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// The answer is made under the lock but sent after it: a client that stops reading a
		// 25 MiB value would otherwise hold the lock, and every other client, for as long as
		// it likes.
		held := &heldResponse{header: http.Header{}}
		s.mu.Lock()
		err := s.checkScope(r)
		if err == nil {
			if hErr := h(held, r); hErr != nil {
				held = &heldResponse{header: http.Header{}}
				writeError(held, asAPIError(hErr))
			}
		} else {
			writeError(held, err)
		}
		s.mu.Unlock()
		held.sendTo(w)
	}
}

// heldResponse is a raw handler's answer, kept until the lock is released.
type heldResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (h *heldResponse) Header() http.Header { return h.header }

func (h *heldResponse) WriteHeader(status int) {
	if h.status == 0 {
		h.status = status
	}
}

func (h *heldResponse) Write(p []byte) (int, error) {
	h.WriteHeader(http.StatusOK)
	return h.body.Write(p)
}

func (h *heldResponse) sendTo(w http.ResponseWriter) {
	for k, v := range h.header {
		w.Header()[k] = v
	}
	w.WriteHeader(cmp.Or(h.status, http.StatusOK))
	_, _ = w.Write(h.body.Bytes())
}

func asAPIError(err error) *apiError {
	var e *apiError
	if errors.As(err, &e) {
		return e
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &apiError{Status: http.StatusRequestEntityTooLarge, Code: codeBadRequest, Message: err.Error()}
	}
	return &apiError{Status: http.StatusInternalServerError, Code: codeInternal, Message: err.Error()}
}

// decodeJSON decodes the request body into v, answering 400 on malformed input.
func decodeJSON(r *http.Request, v any) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return errBadRequest("reading request body: " + err.Error())
	}
	if err := json.Unmarshal(data, v); err != nil {
		return errBadRequest(fmt.Sprintf("malformed JSON body: %v", err))
	}
	return nil
}
