package router

import (
	"errors"
	"net"
	"net/http"
	"os"

	"github.com/valyala/fasthttp"
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
	// OutcomeMalformed: the request head is ambiguous (Transfer-Encoding beside Content-Length,
	// obs-fold), which only a request smuggling attempt sends (400).
	OutcomeMalformed

	outcomeCount = iota
)

var outcomeNames = [outcomeCount]string{
	"proxied", "denied", "namespace_refused", "bad_upstream", "unreachable",
	"upstream_error", "timeout", "client_gone", "aborted", "malformed",
}

func (o Outcome) String() string { return outcomeNames[o] }

// StatusClientClosedRequest is the non-standard status logged when the client left first.
const StatusClientClosedRequest = 499

// Failure describes a request the router answered itself.
type Failure struct {
	Status    int     // 400, 403, 502 or 504
	Outcome   Outcome // why
	RequestID string  // the verified request id; empty when the context was refused
	Err       error   // the cause, for the log only: never shown to the client
}

// The fixed bodies. A refusal says nothing about why (that would help whoever forges contexts);
// gateway errors name the request id so a tenant can quote it to the operators.
const (
	forbiddenBody  = "403 forbidden\n"
	badRequestBody = "400 bad request\n"
)

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
func WriteFailure(ctx *fasthttp.RequestCtx, f *Failure) {
	var body string
	switch f.Status {
	case http.StatusForbidden:
		body = forbiddenBody
	case http.StatusBadRequest:
		body = badRequestBody
	default:
		body = gatewayBody(f.Status, f.RequestID)
	}
	h := &ctx.Response.Header
	h.SetContentType("text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	ctx.SetStatusCode(f.Status)
	ctx.SetBodyString(body)
}

// classifyUpstreamError maps a failed upstream exchange (before any response byte reached the
// client) to the router's answer.
func classifyUpstreamError(err error) (int, Outcome) {
	var ne net.Error
	timeout := errors.Is(err, fasthttp.ErrTimeout) || errors.Is(err, fasthttp.ErrDialTimeout) ||
		errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
	switch {
	case timeout:
		return http.StatusGatewayTimeout, OutcomeTimeout
	case isDialError(err):
		return http.StatusBadGateway, OutcomeUnreachable
	default:
		return http.StatusBadGateway, OutcomeUpstreamError
	}
}
