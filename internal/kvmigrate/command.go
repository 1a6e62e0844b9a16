package kvmigrate

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-cleanhttp"

	kdcf "github.com/kamuidash/terraform-provider-kamuidash/internal/cloudflare"
)

// The environment the command reads, the provider's own names: one set of credentials serves
// `terraform apply` and the migration.
const (
	EnvAPIToken   = "CLOUDFLARE_API_TOKEN"
	EnvAccountID  = "KAMUIDASH_ACCOUNT_ID"
	EnvAPIBaseURL = "KAMUIDASH_API_BASE_URL"
)

// Exit codes: CI tells "did not verify" from "could not start".
const (
	ExitOK          = 0
	ExitNotVerified = 1
	ExitUsage       = 2
)

const usage = `usage: terraform-provider-kamuidash kv migrate --from NS [--from NS ...] --to NS [flags]

Copies every key of the source KV namespaces (values, metadata, expirations) into the target
namespace with bulk calls, copies what changed in the sources meanwhile (a final delta pass),
then reads the target back and verifies every key by content hash. Keys the target already
holds identically are not written again, so a second run (or a run after an interruption)
writes only what is missing. Nothing is ever deleted. Run it during a write freeze: no
terraform apply against the environment until the Worker reads the new namespace.

The API token is read from CLOUDFLARE_API_TOKEN only (never a flag: it would show in the
process list and the shell history); it is never printed.

Exit status: 0 verified (dry run: the copy would go through), 1 anything did not verify or a
key could not be copied, 2 unusable arguments or settings.

flags:
`

// Command is the `kv` sub-command; its zero value reads the process's environment.
type Command struct {
	// Getenv reads a setting from the environment. Default os.Getenv.
	Getenv func(string) string
	// Configure adjusts the API client's configuration before it is built (tests set the
	// transport, the rate limit and the retry waits). Default nil: the provider's defaults.
	Configure func(*kdcf.Config)
	// Now is the clock (expiring keys, progress intervals). Default time.Now.
	Now func() time.Time
}

// Main runs the `kv` sub-command; main.go registers it. An interrupt (Ctrl-C, SIGTERM) stops
// the run between calls and prints what was done; a rerun picks up from there.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return (&Command{}).Run(ctx, args, stdout, stderr)
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// Run parses args, migrates and prints the report to stdout (progress and problems to stderr).
func (c *Command) Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	token := getenv(EnvAPIToken)
	// Everything printed passes through the redaction, whatever an error message carries.
	stdout, stderr = redacting(stdout, token), redacting(stderr, token)

	if len(args) == 0 || args[0] != "migrate" {
		_, _ = fmt.Fprint(stderr, "usage: terraform-provider-kamuidash kv migrate --from NS [--from NS ...] --to NS [flags]\n(run `kv migrate -h` for the flags)\n")
		return ExitUsage
	}
	fs := flag.NewFlagSet("kv migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { _, _ = fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	var from stringList
	fs.Var(&from, "from", "a source namespace `ID` (repeatable; for identical duplicates the first wins)")
	to := fs.String("to", "", "the target namespace `ID`")
	dryRun := fs.Bool("dry-run", false, "list and compare, write nothing, print what a run would do")
	prefer := fs.String("prefer", "", "the source `ID` whose content is copied for keys the sources hold with different content (default: refuse such keys)")
	overwrite := fs.Bool("overwrite", false, "replace target keys that hold other content than the sources (default: report them and leave them alone)")
	account := fs.String("account-id", "", "the account `ID` (default $"+EnvAccountID+")")
	baseURL := fs.String("api-base-url", "", "the API's base `URL`, a local edge's ends in /client/v4 (default $"+EnvAPIBaseURL+", else Cloudflare's API)")
	format := fs.String("format", "text", "the report's `FORMAT`: text or json (for CI)")
	every := fs.Int("progress-every", 1000, "print a progress line every `N` keys")
	interval := fs.Duration("progress-interval", 10*time.Second, "print a progress line at least this often on long steps")
	if err := fs.Parse(args[1:]); err != nil {
		return ExitUsage
	}
	if fs.NArg() > 0 {
		_, _ = fmt.Fprintf(stderr, "kv migrate: unexpected argument %q\n", fs.Arg(0))
		return ExitUsage
	}
	if *format != "text" && *format != "json" {
		_, _ = fmt.Fprintf(stderr, "kv migrate: unknown --format %q; use text or json\n", *format)
		return ExitUsage
	}
	if *account == "" {
		*account = getenv(EnvAccountID)
	}
	if *baseURL == "" {
		*baseURL = getenv(EnvAPIBaseURL)
	}
	var problems []string
	if token == "" {
		problems = append(problems, "no API token: set "+EnvAPIToken+" (a token with Workers KV Storage edit on the account)")
	}
	if *account == "" {
		problems = append(problems, "no account: set "+EnvAccountID+" or --account-id")
	} else if !hexID.MatchString(*account) {
		problems = append(problems, "the account id "+quote(*account)+" is not a 32-character hexadecimal Cloudflare ID")
	}
	if len(from) == 0 {
		problems = append(problems, "name at least one source namespace with --from")
	}
	if *to == "" {
		problems = append(problems, "name the target namespace with --to")
	}
	for _, id := range append(append([]string{}, from...), *to, *prefer) {
		if id != "" && !hexID.MatchString(id) {
			problems = append(problems, "the namespace id "+quote(id)+" is not a 32-character hexadecimal Cloudflare ID")
		}
	}
	if *baseURL == "" {
		*baseURL = kdcf.DefaultBaseURL
	} else if err := kdcf.ValidateBaseURL(*baseURL); err != nil {
		// Not echoed: a mistyped URL may carry credentials.
		problems = append(problems, err.Error()+" (from --api-base-url or "+EnvAPIBaseURL+")")
	}
	if len(problems) > 0 {
		for _, p := range problems {
			_, _ = fmt.Fprintln(stderr, "kv migrate:", p)
		}
		return ExitUsage
	}

	cfg := kdcf.Config{APIToken: token, BaseURL: *baseURL, UserAgent: "terraform-provider-kamuidash (kv migrate)"}
	if c.Configure != nil {
		c.Configure(&cfg)
	}
	calls := &callCounter{counts: map[string]int{}}
	next := cfg.Transport
	if next == nil {
		next = cleanhttp.DefaultPooledTransport()
	}
	cfg.Transport = &countingTransport{calls: calls, next: next}
	client, err := kdcf.New(cfg)
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "kv migrate: setting up the API client:", err)
		return ExitUsage
	}

	now := c.Now
	if now == nil {
		now = time.Now
	}
	opts := Options{
		Client: client, AccountID: *account, Sources: from, Target: *to,
		DryRun: *dryRun, Prefer: *prefer, Overwrite: *overwrite,
		ProgressEvery: *every, ProgressInterval: *interval, Now: now,
		Progress: func(p Progress) { printProgress(stderr, p) },
	}
	rep, err := Run(ctx, opts)
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "kv migrate:", err)
		return ExitUsage
	}
	out := Output{Report: rep, APICalls: calls.snapshot()}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(out)
	} else {
		err = writeText(stdout, out)
	}
	if err != nil {
		// CI reads the report: without it, nothing says the copy verified.
		_, _ = fmt.Fprintln(stderr, "kv migrate: writing the report:", err)
		return ExitNotVerified
	}
	if !rep.OK {
		return ExitNotVerified
	}
	return ExitOK
}

// Output is the command's report: the migration's and the API calls it took.
type Output struct {
	*Report
	// APICalls counts the HTTP requests sent by operation (retries included: each one spends
	// the account's rate limit).
	APICalls map[string]int `json:"api_calls"`
}

// printProgress writes one progress line to w (stderr), best effort: a line that cannot be
// written does not stop the migration.
func printProgress(w io.Writer, p Progress) {
	if p.Final && p.Total == 0 && p.Done == 0 && p.Step != "list" {
		return // nothing to do in this step
	}
	ns := ""
	if p.Namespace != "" {
		ns = " " + p.Namespace
	}
	switch {
	case p.Step == "list" && p.Final:
		_, _ = fmt.Fprintf(w, "kv migrate: listed%s: %d keys\n", ns, p.Done)
	case p.Step == "list":
		_, _ = fmt.Fprintf(w, "kv migrate: listing%s: %d keys so far\n", ns, p.Done)
	default:
		verb := map[string]string{"read": "read", "write": "wrote to", "delta": "delta pass: re-read", "verify": "verified against"}[p.Step]
		_, _ = fmt.Fprintf(w, "kv migrate: %s%s: %d/%d keys\n", verb, ns, p.Done, p.Total)
	}
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// callCounter counts requests by operation.
type callCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *callCounter) add(op string) {
	c.mu.Lock()
	c.counts[op]++
	c.mu.Unlock()
}

func (c *callCounter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// countingTransport sits under the client's rate limit and retries, so it sees every attempt.
type countingTransport struct {
	calls *callCounter
	next  http.RoundTripper
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.calls.add(operation(req.Method, req.URL.Path))
	return t.next.RoundTrip(req)
}

// operation names a KV API request for the report.
func operation(method, path string) string {
	_, rest, ok := strings.Cut(path, "/storage/kv/namespaces/")
	if !ok {
		return "other"
	}
	_, sub, _ := strings.Cut(rest, "/")
	switch {
	case sub == "" && method == http.MethodGet:
		return "namespace_get"
	case sub == "keys" && method == http.MethodGet:
		return "key_list"
	case sub == "bulk/get" && method == http.MethodPost:
		return "bulk_get"
	case sub == "bulk" && method == http.MethodPut:
		return "bulk_write"
	case strings.HasPrefix(sub, "values/") && method == http.MethodGet:
		return "value_get"
	case strings.HasPrefix(sub, "values/"):
		return "value_" + strings.ToLower(method)
	}
	return "other"
}

// redacting replaces every occurrence of secret in what is written with "[redacted]". The
// command writes whole lines, so a secret never straddles two writes.
func redacting(w io.Writer, secret string) io.Writer {
	if secret == "" {
		return w
	}
	return &redactingWriter{w: w, secret: []byte(secret)}
}

type redactingWriter struct {
	w      io.Writer
	secret []byte
}

func (r *redactingWriter) Write(p []byte) (int, error) {
	if !bytes.Contains(p, r.secret) {
		return r.w.Write(p)
	}
	if _, err := r.w.Write(bytes.ReplaceAll(p, r.secret, []byte("[redacted]"))); err != nil {
		return 0, err
	}
	return len(p), nil
}
