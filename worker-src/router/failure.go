package router

import (
	"context"
	"errors"
	"net"
	"net/http"
)

// Outcome says how the router handled a request. It labels metrics and access-log lines, so the
// set is small and fixed.
type Outcome uint8

const (
	// OutcomeProxied: the upstream answered (any status, including its own errors).
	OutcomeProxied Outcome = iota
	// OutcomeDenied: no valid, fresh signed context (403).
	OutcomeDenied
	// OutcomeNamespaceRefused: signed, but the upstream namespace is outside the allowed prefix (403).
	OutcomeNamespaceRefused
	// OutcomeBadUpstream: signed, but the upstream could not be parsed or resolved (502).
	OutcomeBadUpstream
	// OutcomeUnreachable: connecting to the upstream failed (502).
	OutcomeUnreachable
	// OutcomeUpstreamError: the upstream broke the exchange after the connection was made (502).
	OutcomeUpstreamError
	// OutcomeTimeout: dialling or waiting for response headers took too long (504).
	OutcomeTimeout
	// OutcomeClientGone: the client went away before the upstream answered; nothing was written
	// (logged as 499, as nginx does).
	OutcomeClientGone
	// OutcomeAborted: the response was cut off mid-body (either side closed the stream).
	OutcomeAborted

	outcomeCount = iota
)

var outcomeNames = [outcomeCount]string{
	"proxied", "denied", "namespace_refused", "bad_upstream", "unreachable",
	"upstream_error", "timeout", "client_gone", "aborted",
}

func (o Outcome) String() string { return outcomeNames[o] }

// StatusClientClosedRequest is the non-standard status logged when the client left first.
const StatusClientClosedRequest = 499

// Failure describes a request the router answered itself.
type Failure struct {
	Status    int     // 403, 502 or 504
	Outcome   Outcome // why
	RequestID string  // the verified request id; empty when the context was refused
	Err       error   // the cause, for the log only: never shown to the client
}

// The fixed bodies. A refusal says nothing about why (that would help whoever forges contexts);
// gateway errors name the request id so a tenant can quote it to the operators.
const forbiddenBody = "403 forbidden\n"

func gatewayBody(status int, requestID string) string {
	return statusLine(status) + " (request id " + requestID + ")\n"
}

func statusLine(status int) string {
	switch status {
	case http.StatusGatewayTimeout:
		return "504 gateway timeout"
	default:
		return "502 bad gateway"
	}
}

// WriteFailure is the default ErrorHandler: a fixed plain-text body that is never cached.
func WriteFailure(w http.ResponseWriter, _ *http.Request, f *Failure) {
	body := forbiddenBody
	if f.Status != http.StatusForbidden {
		body = gatewayBody(f.Status, f.RequestID)
	}
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(f.Status)
	_, _ = w.Write([]byte(body))
}

// classifyProxyError maps an error from the transport to the router's answer.
func classifyProxyError(r *http.Request, err error) (int, Outcome) {
	if r.Context().Err() != nil {
		return StatusClientClosedRequest, OutcomeClientGone
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return http.StatusGatewayTimeout, OutcomeTimeout
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return http.StatusBadGateway, OutcomeUnreachable
	}
	return http.StatusBadGateway, OutcomeUpstreamError
}
