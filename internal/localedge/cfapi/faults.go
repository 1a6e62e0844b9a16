package cfapi

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FaultSpec describes injected failures for reliability tests. A request to the API is
// affected when Count is positive (the next Count requests, then these fields clear
// themselves) or, with Count zero, with probability Fraction. An affected request waits
// Latency, then answers Status (if non-zero) instead of being served; with Status zero it is
// served after the delay. KVBulk, independent of the rest, makes bulk KV writes and deletes
// fail part of their keys.
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
	// KVBulk, when set, makes bulk KV writes and deletes (PUT …/bulk, DELETE …/bulk, POST
	// …/bulk/delete) report the keys it chooses in unsuccessful_keys without writing or
	// deleting them, as Cloudflare's bulk endpoints can; the other keys are applied and the
	// call answers 200 with successful_key_count. Default nil: bulk calls apply every key.
	KVBulk *KVBulkFault `json:"kv_bulk,omitempty"`
}

// KVBulkFault chooses the keys a bulk KV write or delete fails. A key is chosen when it
// starts with KeyPrefix and, if KeyFraction is set, falls into that fraction of keys; at least
// one of the two must be set.
type KVBulkFault struct {
	// KeyPrefix chooses the keys starting with it. Default "": any key (KeyFraction decides).
	KeyPrefix string `json:"key_prefix,omitempty"`
	// KeyFraction, 0..1, chooses that share of the keys by a hash of the key, so a key that
	// fails once fails in every call while the fault lasts (a retry fails again). Default 0:
	// every key KeyPrefix chooses.
	KeyFraction float64 `json:"key_fraction,omitempty"`
	// Calls is how many bulk writes and deletes the fault affects before it clears itself.
	// Default 0: every one until the faults are cleared.
	Calls int `json:"calls,omitempty"`
}

// fails reports whether the fault chooses key.
func (f *KVBulkFault) fails(key string) bool {
	if !strings.HasPrefix(key, f.KeyPrefix) {
		return false
	}
	if f.KeyFraction == 0 || f.KeyFraction >= 1 {
		return true
	}
	sum := sha256.Sum256([]byte(key)) // FNV's high bits barely move between keys like app001, app002
	return float64(binary.BigEndian.Uint64(sum[:8]))/math.MaxUint64 < f.KeyFraction
}

func (f *KVBulkFault) validate() error {
	if f.KeyPrefix == "" && f.KeyFraction == 0 {
		return errors.New("kv_bulk must choose keys: set key_prefix, key_fraction or both")
	}
	if f.KeyFraction < 0 || f.KeyFraction > 1 {
		return fmt.Errorf("kv_bulk.key_fraction must be within 0..1, got %v", f.KeyFraction)
	}
	if f.Calls < 0 {
		return fmt.Errorf("kv_bulk.calls must not be negative, got %d", f.Calls)
	}
	return nil
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
	if f.KVBulk != nil {
		return f.KVBulk.validate()
	}
	return nil
}

// clone copies the spec so that no caller shares its KVBulk.
func (f FaultSpec) clone() FaultSpec {
	if f.KVBulk != nil {
		bulk := *f.KVBulk
		f.KVBulk = &bulk
	}
	return f
}

type faultInjector struct {
	mu   sync.Mutex
	spec FaultSpec
}

func newFaultInjector(spec FaultSpec) *faultInjector { return &faultInjector{spec: spec.clone()} }

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
			f.spec = FaultSpec{KVBulk: f.spec.KVBulk} // the bulk fault has its own count
		}
		return spec, true
	}
	return spec, rand.Float64() < spec.Fraction
}

// bulkFailures returns the keys of one bulk write or delete that the KVBulk fault fails (nil
// when there is none) and consumes one of its Calls.
func (f *faultInjector) bulkFailures(keys []string) map[string]bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	bulk := f.spec.KVBulk
	if bulk == nil {
		return nil
	}
	if bulk.Calls > 0 {
		bulk.Calls--
		if bulk.Calls == 0 {
			f.spec.KVBulk = nil
		}
	}
	failed := map[string]bool{}
	for _, k := range keys {
		if bulk.fails(k) {
			failed[k] = true
		}
	}
	return failed
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
	s.faults.spec = spec.clone()
	s.faults.mu.Unlock()
	return nil
}

// Faults returns the active fault injection (Count and KVBulk.Calls are what remains).
func (s *Server) Faults() FaultSpec {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	return s.faults.spec.clone()
}

// serveFaults serves AdminPrefix+"/faults": GET shows the active faults, POST (or PUT) a
// FaultSpec replaces them, DELETE clears them.
func (s *Server) serveFaults(w http.ResponseWriter, r *http.Request) {
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
