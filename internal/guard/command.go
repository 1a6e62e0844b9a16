package guard

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	tfjson "github.com/hashicorp/terraform-json"
)

// Exit codes of the sub-command: CI tells "refused" from "could not judge".
const (
	ExitAllowed  = 0
	ExitRefused  = 1
	ExitUnusable = 2
)

// Command is the `guard` sub-command. Its zero value reads the process's standard input.
type Command struct {
	// Stdin is read for --plan - (the default). Default nil: os.Stdin.
	Stdin io.Reader
}

// Main runs the guard sub-command with the process's standard input; main.go registers it.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return (&Command{}).Run(ctx, args, stdout, stderr)
}

const usageLine = "usage: terraform-provider-kamuidash guard [--plan FILE|-] [--format text|json|markdown] [--allow-bootstrap] [--classes FILE]"

// Run parses args, judges the plan and prints the report to stdout; problems go to stderr.
// It returns ExitAllowed, ExitRefused or ExitUnusable (bad usage or input).
func (c *Command) Run(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	planPath := fs.String("plan", "-", "the `FILE` holding the plan as JSON (terraform show -json plan.out); - reads standard input")
	format := fs.String("format", string(FormatText), "the output `FORMAT`: text, json (machine-readable) or markdown (a CI step summary)")
	allowBootstrap := fs.Bool("allow-bootstrap", false, "allow a plan that creates the Worker for the first time (a new environment)")
	classesPath := fs.String("classes", "", "a JSON `FILE` of extra type→class mappings: {\"classes\": {\"my_type\": \"kv\", \"acme_dns_*\": \"dns\"}}")
	fs.Usage = func() {
		_, _ = fmt.Fprintln(stderr, usageLine)
		_, _ = fmt.Fprintln(stderr, "\nJudges a plan: a Worker change must be an in-place update and alone in its plan.\nExit status: 0 allowed, 1 refused, 2 unusable input or usage.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		// -h too: a guard step that judged nothing must not pass as "allowed".
		return ExitUnusable
	}
	if fs.NArg() > 0 {
		_, _ = fmt.Fprintf(stderr, "guard: unexpected argument %q; pass the plan with --plan FILE\n%s\n", fs.Arg(0), usageLine)
		return ExitUnusable
	}
	f := Format(*format)
	if f != FormatText && f != FormatJSON && f != FormatMarkdown {
		_, _ = fmt.Fprintf(stderr, "guard: unknown --format %q; use text, json or markdown\n", *format)
		return ExitUnusable
	}

	opts := Options{AllowBootstrap: *allowBootstrap}
	if *classesPath != "" {
		t, err := LoadClasses(*classesPath)
		if err != nil {
			_, _ = fmt.Fprintf(stderr, "guard: %v\n", err)
			return ExitUnusable
		}
		opts.Classes = t
	}

	plan, err := c.readPlan(*planPath)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "guard: %v\n", err)
		return ExitUnusable
	}
	report, err := Evaluate(plan, opts)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "guard: %v\n", err)
		return ExitUnusable
	}
	if err := Render(stdout, report, f); err != nil {
		_, _ = fmt.Fprintf(stderr, "guard: writing the report: %v\n", err)
		return ExitUnusable
	}
	if !report.Allowed {
		return ExitRefused
	}
	return ExitAllowed
}

func (c *Command) readPlan(path string) (*tfjson.Plan, error) {
	var r io.Reader
	if path == "-" {
		r = c.Stdin
		if r == nil {
			r = os.Stdin
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("opening the plan: %w (pass the output of `terraform show -json plan.out` with --plan FILE, or on standard input)", err)
		}
		defer func() { _ = f.Close() }() // only read: closing it cannot lose anything
		r = f
	}
	return ReadPlan(r)
}
