package cfapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// FaultSpec describes injected failures for reliability tests. A request to the API is
// affected when Count is positive (the next Count requests, then the spec clears itself) or,
// with Count zero, with probability Fraction. An affected request waits Latency, then answers
// Status (if non-zero) instead of being served; with Status zero it is served after the delay.
type FaultSpec struct {
	// Status is 429 or a 5xx. Zero injects latency only.
	Status int `json:"status,omitempty"`
	// RetryAfterSeconds is sent as Retry-After on a 429 (default 1).
	RetryAfterSeconds int `json:"retry_after_seconds,omitempty"`
	// LatencyMillis is added before the answer.
	LatencyMillis int `json:"latency_ms,omitempty"`
	// Fraction of requests affected, 0..1, used when Count is zero.
	Fraction float64 `json:"fraction,omitempty"`
	// Count of next requests affected.
	Count int `json:"count,omitempty"`
}

func (f FaultSpec) active() bool {
	return (f.Status != 0 || f.LatencyMillis > 0) && (f.Count > 0 || f.Fraction > 0)
}

func (f FaultSpec) validate() error {
	if f.Status != 0 && f.Status != http.StatusTooManyRequests && (f.Status < 500 || f.Status > 599) {
		return fmt.Errorf("status must be 429 or 5xx, got %d", f.Status)
	}
	if f.Fraction < 0 || f.Fraction > 1 {
		return fmt.Errorf("fraction must be within 0..1, got %v", f.Fraction)
	}
	if f.Count < 0 || f.LatencyMillis < 0 || f.RetryAfterSeconds < 0 {
		return fmt.Errorf("count, latency_ms and retry_after_seconds must not be negative")
	}
	return nil
}

type faultInjector struct {
	mu   sync.Mutex
	spec FaultSpec
}

func newFaultInjector(spec FaultSpec) *faultInjector { return &faultInjector{spec: spec} }

// pick decides whether this request is affected and consumes one from Count.
func (f *faultInjector) pick() (FaultSpec, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	spec := f.spec
	if !spec.active() {
		return spec, false
	}
	if spec.Count > 0 {
		f.spec.Count--
		if f.spec.Count == 0 {
			f.spec = FaultSpec{}
		}
		return spec, true
	}
	return spec, rand.Float64() < spec.Fraction
}

// inject applies a fault to the request if one is due; it reports whether it answered.
func (f *faultInjector) inject(w http.ResponseWriter, r *http.Request, log *slog.Logger) bool {
	spec, hit := f.pick()
	if !hit {
		return false
	}
	log.Info("cfapi: injecting fault", "method", r.Method, "path", r.URL.Path, "status", spec.Status, "latency_ms", spec.LatencyMillis)
	if spec.LatencyMillis > 0 {
		select {
		case <-time.After(time.Duration(spec.LatencyMillis) * time.Millisecond):
		case <-r.Context().Done():
			return true
		}
	}
	switch {
	case spec.Status == http.StatusTooManyRequests:
		retry := spec.RetryAfterSeconds
		if retry == 0 {
			retry = 1
		}
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		writeError(w, &apiError{Status: spec.Status, Code: codeRateLimited,
			Message: "Rate limited (injected by the local edge)"})
		return true
	case spec.Status != 0:
		writeError(w, &apiError{Status: spec.Status, Code: codeInternal,
			Message: fmt.Sprintf("Internal error (HTTP %d injected by the local edge)", spec.Status)})
		return true
	}
	return false
}

// SetFaults replaces the active fault injection; the zero FaultSpec disables it.
func (s *Server) SetFaults(spec FaultSpec) error {
	if err := spec.validate(); err != nil {
		return err
	}
	s.faults.mu.Lock()
	s.faults.spec = spec
	s.faults.mu.Unlock()
	return nil
}

// Faults returns the active fault injection (Count is what remains).
func (s *Server) Faults() FaultSpec {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	return s.faults.spec
}

// serveAdmin serves AdminPrefix: GET/POST/DELETE /faults.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != AdminPrefix+"/faults" {
		s.unimplemented(w, r)
		return
	}
	switch r.Method {
	case http.MethodGet:
		writeResult(w, s.Faults(), nil)
	case http.MethodDelete:
		_ = s.SetFaults(FaultSpec{})
		writeResult(w, s.Faults(), nil)
	case http.MethodPost, http.MethodPut:
		var spec FaultSpec
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&spec); err != nil {
			writeError(w, errBadRequest("malformed fault spec: "+err.Error()))
			return
		}
		if err := s.SetFaults(spec); err != nil {
			writeError(w, errBadRequest(err.Error()))
			return
		}
		writeResult(w, s.Faults(), nil)
	default:
		writeError(w, &apiError{Status: http.StatusMethodNotAllowed, Code: codeMethodNotAllow,
			Message: fmt.Sprintf("local edge does not implement %s %s", r.Method, r.URL.Path)})
	}
}
