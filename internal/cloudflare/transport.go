package cloudflare

import (
	"bytes"
	"context"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"golang.org/x/time/rate"
)

// retryPolicy decides which failures are worth another attempt, and how many.
//
// A 429 was refused before any work was done, so every method may retry it, and the server
// says how long to wait (Retry-After): it is retried up to limited times. A 5xx or a broken
// connection may have happened after the server acted, so only idempotent methods retry those
// (a retried POST could create a second tunnel or custom hostname), up to failed times. 501
// never retries (the endpoint does not exist). A cancelled context never retries.
func retryPolicy(failed, limited int) retryablehttp.CheckRetry {
	return func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		st, _ := ctx.Value(requestKey{}).(*attempts)
		if st == nil {
			st = &attempts{}
		}
		if err != nil {
			retry, _ := retryablehttp.ErrorPropagatedRetryPolicy(ctx, resp, err)
			st.failed++
			return retry && isIdempotent(st.req) && st.failed <= failed, nil
		}
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			st.limited++
			return st.limited <= limited, nil
		case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
			st.failed++
			return isIdempotent(st.req) && st.failed <= failed, nil
		}
		return false, nil
	}
}

// rateLimitRetries is how often a request refused with 429 is sent again, when the client
// retries at all and MaxRetries is smaller: a refusal costs the account nothing and its wait is
// the server's, so giving up after a few would fail an apply that only had to wait (a burst of
// other clients on the same token).
const rateLimitRetries = 10

// requestKey holds a request's attempts in its context, for the retry policy.
type requestKey struct{}

// attempts is what the retry policy knows of one request: the request, and its 429 answers and
// other failures so far.
type attempts struct {
	req             *http.Request
	limited, failed int
}

// isIdempotent says whether sending req twice does what sending it once does: the idempotent
// methods, the POSTs that only read or delete (a bulk read, a bulk delete, a purge), and a
// tunnel's PATCH, which sets its name or secret to what the body gives (RenameTunnel,
// RotateTunnelSecret).
func isIdempotent(req *http.Request) bool {
	if req == nil {
		return false
	}
	p := req.URL.Path
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	case http.MethodPost:
		return strings.HasSuffix(p, "/bulk/get") || strings.HasSuffix(p, "/bulk/delete") || strings.HasSuffix(p, "/purge_cache")
	case http.MethodPatch:
		dir, id := path.Split(p) // …/cfd_tunnel/, the tunnel's ID
		return id != "" && strings.HasSuffix(dir, "/cfd_tunnel/")
	}
	return false
}

// backoff waits what the server asked for (Retry-After, in seconds or as an HTTP date, capped at
// maxWait) and otherwise an exponential delay with full jitter, so that many provider processes
// hitting one limit do not retry in lock-step.
func backoff(jitter func(n int64) int64, now func() time.Time) retryablehttp.Backoff {
	return func(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
		if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
			if d, ok := retryAfter(resp.Header.Get("Retry-After"), now()); ok {
				return clamp(d, 0, maxWait)
			}
		}
		ceiling := minWait << min(attempt, 16)
		if ceiling <= 0 || ceiling > maxWait {
			ceiling = maxWait
		}
		return minWait + time.Duration(jitter(int64(ceiling-minWait)+1))
	}
}

func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return seconds(s), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return t.Sub(now), true
	}
	return 0, false
}

// seconds is s seconds as a Duration, saturating: converting a float beyond a Duration's range
// is undefined in Go (on amd64 it gives the most negative Duration), which would turn a server's
// "wait very long" into no wait at all.
func seconds(s float64) time.Duration {
	if s >= float64(math.MaxInt64)/float64(time.Second) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(s * float64(time.Second))
}

func clamp(d, lo, hi time.Duration) time.Duration { return min(max(d, lo), hi) }

// rateLimited spends one token per attempt (retries included) before sending, so one provider
// process stays under the API's per-token budget whatever the retry logic does, and holds every
// request while the server says the budget is spent (budget).
type rateLimited struct {
	limiter *rate.Limiter
	budget  *sharedBudget
	next    http.RoundTripper
}

func (t *rateLimited) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.budget.wait(req.Context()); err != nil {
		return nil, err
	}
	if err := t.limiter.Wait(req.Context()); err != nil {
		return nil, err
	}
	resp, err := t.next.RoundTrip(req)
	if err == nil {
		t.budget.observe(req.Context(), resp)
	}
	return resp, err
}

// logged writes one debug line per attempt and one per response: method, path, status, attempt,
// duration. Never headers (the bearer token) or bodies (Worker uploads are megabytes); the token
// is masked anyway in case some caller puts it into a field.
type logged struct {
	token string
	next  http.RoundTripper
}

func (t *logged) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := tflog.MaskAllFieldValuesStrings(req.Context(), t.token)
	ctx = tflog.MaskMessageStrings(ctx, t.token)
	start := time.Now()
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	fields := map[string]any{
		"method":      req.Method,
		"path":        req.URL.Path,
		"duration_ms": time.Since(start).Milliseconds(),
	}
	if err != nil {
		fields["error"] = err.Error()
		tflog.Debug(ctx, "Cloudflare API request failed", fields)
		return nil, err
	}
	fields["status"] = resp.StatusCode
	if ray := resp.Header.Get("Cf-Ray"); ray != "" {
		fields["cf_ray"] = ray
	}
	tflog.Debug(ctx, "Cloudflare API response", fields)
	return resp, nil
}

// redactingErrors replaces the token in the body of every error answer with "[redacted]". The
// body becomes the error's text (cloudflare-go keeps it), which the provider shows as a
// diagnostic and Terraform prints; a proxy or gateway that repeats the request's Authorization
// header in its error page would otherwise print the token to the console and the CI log.
type redactingErrors struct {
	token []byte
	next  http.RoundTripper
}

func (t *redactingErrors) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 400 || len(t.token) == 0 {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	body = bytes.ReplaceAll(body, t.token, []byte("[redacted]"))
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// retrying adapts retryablehttp to a RoundTripper that passes the request method to the retry
// policy and hands the last response (not a "giving up" error) back to cloudflare-go, so callers
// still see Cloudflare's own error codes and messages.
func retrying(cfg Config, next http.RoundTripper) http.RoundTripper {
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{Transport: next}
	rc.Logger = nil
	limited := 0
	if cfg.MaxRetries > 0 {
		limited = max(cfg.MaxRetries, rateLimitRetries)
	}
	rc.RetryMax = cfg.MaxRetries + limited // the policy holds each kind to its own count
	rc.RetryWaitMin = cfg.RetryWaitMin
	rc.RetryWaitMax = cfg.RetryWaitMax
	rc.CheckRetry = retryPolicy(cfg.MaxRetries, limited)
	rc.Backoff = backoff(cfg.jitter, time.Now)
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	rc.RequestLogHook = func(_ retryablehttp.Logger, req *http.Request, attempt int) {
		if attempt > 0 {
			tflog.Info(req.Context(), "Retrying Cloudflare API request", map[string]any{
				"method": req.Method, "path": req.URL.Path, "attempt": attempt + 1,
			})
		}
	}
	rt := &retryablehttp.RoundTripper{Client: rc}
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		ctx := context.WithValue(req.Context(), requestKey{}, &attempts{req: req})
		return rt.RoundTrip(req.WithContext(ctx))
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func defaultJitter(n int64) int64 { return rand.Int64N(n) }
