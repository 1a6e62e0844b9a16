package provider

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// isNotFound reports whether err is the API's answer for an object that does not exist, which
// Read treats as drift (remove from state), not as an error.
func isNotFound(err error) bool {
	var apiErr *cf.Error
	return errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound
}

// isConflict reports whether err says the object already exists.
func isConflict(err error) bool {
	var apiErr *cf.Error
	return errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusConflict
}

// apiErrorDiag reports a failed API call: what failed, how to fix or retry, then the API's
// own error (status and Cloudflare error codes; never request headers).
func apiErrorDiag(summary, what string, err error) diag.Diagnostic {
	detail := what + " failed."
	var apiErr *cf.Error
	if errors.As(err, &apiErr) {
		switch {
		case apiErr.StatusCode == http.StatusUnauthorized || apiErr.StatusCode == http.StatusForbidden:
			detail += " The API token was refused or lacks a permission this needs; check the token's scopes for this account and zone."
		case apiErr.StatusCode == http.StatusTooManyRequests || apiErr.StatusCode >= 500:
			detail += " The API is overloaded or failing (HTTP " + strconv.Itoa(apiErr.StatusCode) + ") after the provider's retries; run the command again later."
		}
	}
	return diag.NewErrorDiagnostic(summary, detail+"\n\nError: "+err.Error())
}

// answerLost says whether err leaves open that the API carried the request out: no answer
// came (a broken connection, a timeout, an interrupt) or a server error did, which may come
// after the work was done. Any other answer (a 4xx, 429 included) refused it: nothing was done.
func answerLost(err error) bool {
	var apiErr *cf.Error
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode >= http.StatusInternalServerError
	}
	return true
}

// createdWithoutAnswer returns what find finds after a create (or an upload) that failed with
// err, when the failure leaves open that the API carried it out (answerLost). A create whose
// answer was lost may have made the thing all the same, which the next apply would then
// refuse as existing (and ask to import). find finds only what is that call's: the callers
// looked before the create and found nothing, or find compares what is there with what was
// sent. find runs on a context of its own: an interrupt cancelled the call's.
func createdWithoutAnswer[T any](ctx context.Context, err error, find func(context.Context) (T, bool, error)) (made T, ok bool) {
	if !answerLost(err) {
		return made, false
	}
	ctx, cancel := cleanupContext(ctx)
	defer cancel()
	made, found, findErr := find(ctx)
	if findErr != nil || !found {
		return made, false
	}
	return made, true
}

// createdAnywayWarning tells that the create of what (a noun and its name), which failed with
// err, was found carried out (createdWithoutAnswer); thing is the noun for the summary.
func createdAnywayWarning(thing, what string, err error) diag.Diagnostic {
	return diag.NewWarningDiagnostic(thing+" Created Without an Answer",
		"The create of "+what+" failed ("+err.Error()+"), yet it exists now, as asked for. It did not exist when the create "+
			"began, so it is this create's, and the create carries on with it.")
}
