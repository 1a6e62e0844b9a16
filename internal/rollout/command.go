package rollout

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
)

const usage = `usage: terraform-provider-kamuidash rollout --env ENV [--env ENV ...] [flags]

Rolls a change out to each environment in order: init, plan to a file, guard, apply exactly
that plan, then wait for the environment's smoke_checks output to pass. Stops at the first
failure. Each environment is the directory <root>/<env>.

flags:
`

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// Main is the `rollout` sub-command. Exit codes: 0 every environment done, 1 a failure
// stopped the rollout, 2 unusable arguments.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rollout", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { _, _ = fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	var envs, envFiles stringList
	fs.Var(&envs, "env", "an environment to roll out to, in order (repeat: --env dev --env prod)")
	fs.Var(&envFiles, "env-file", "ENV=FILE: export lines (such as a local edge's env file) added to that environment's CLI environment (repeatable)")
	root := fs.String("root", "environments", "the directory holding one configuration directory per environment")
	cli := fs.String("cli", "terraform", "the CLI to run: terraform, tofu, or a path to either")
	workerOnly := fs.Bool("worker-only", false, "refuse a plan that changes anything but the Worker")
	allowBootstrap := fs.Bool("allow-bootstrap", false, "allow a plan that creates the Worker (an environment's first deployment)")
	classes := fs.String("classes", "", "a JSON file of extra resource type → change class mappings for the guard")
	smokeTimeout := fs.Duration("smoke-timeout", 3*time.Minute, "how long an environment's smoke checks may take to pass")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		_, _ = fmt.Fprintf(stderr, "rollout: unexpected argument %q\n\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	if len(envs) == 0 {
		_, _ = fmt.Fprint(stderr, "rollout: name at least one environment with --env\n\n")
		fs.Usage()
		return 2
	}
	seen := map[string]bool{}
	for _, e := range envs {
		if seen[e] || e == "" || strings.ContainsAny(e, `/\`) || e == "." || e == ".." {
			_, _ = fmt.Fprintf(stderr, "rollout: --env %q must be a directory name under --root, given once\n", e)
			return 2
		}
		seen[e] = true
	}
	extra := map[string]map[string]string{}
	for _, spec := range envFiles {
		env, file, ok := strings.Cut(spec, "=")
		if !ok || !seen[env] {
			_, _ = fmt.Fprintf(stderr, "rollout: --env-file %q must be ENV=FILE for an environment named with --env\n", spec)
			return 2
		}
		vars, err := ReadEnvFile(file)
		if err != nil {
			_, _ = fmt.Fprintf(stderr, "rollout: --env-file for %s: %v\n", env, err)
			return 2
		}
		extra[env] = vars
	}
	cliPath, err := exec.LookPath(*cli)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "rollout: cannot run %q: %v (install it, or pass --cli with its path)\n", *cli, err)
		return 2
	}
	opts := guard.Options{AllowBootstrap: *allowBootstrap}
	if *classes != "" {
		if opts.Classes, err = guard.LoadClasses(*classes); err != nil {
			_, _ = fmt.Fprintf(stderr, "rollout: --classes: %v\n", err)
			return 2
		}
	}

	r := &Rollout{
		Root:         *root,
		CLI:          cliPath,
		WorkerOnly:   *workerOnly,
		Guard:        opts,
		Env:          func(env string) (map[string]string, error) { return extra[env], nil },
		SmokeTimeout: *smokeTimeout,
		Out:          stdout,
	}
	results, runErr := r.Run(ctx, envs)
	if err := PrintSummary(stdout, results); err != nil {
		// The exit status still tells how the rollout went; the per-step lines are above.
		_, _ = fmt.Fprintln(stderr, "rollout: writing the summary:", err)
	}
	if runErr != nil {
		if errors.Is(runErr, context.Canceled) {
			_, _ = fmt.Fprintln(stderr, "rollout: interrupted")
		}
		return 1
	}
	return 0
}

// PrintSummary writes one line per environment: how far it got and what was applied. The
// summary is written in one piece; an error says it did not arrive whole.
func PrintSummary(w io.Writer, results []EnvResult) error {
	var table strings.Builder
	table.WriteString("  ENV\tRESULT\tCHANGES\tAPPLIED\tSMOKE\n")
	for _, r := range results {
		result := "ok"
		switch {
		case r.Stage == StageNotStarted:
			result = "not started"
		case r.Failed():
			result = "FAILED at " + string(r.Stage)
		}
		changes, smoke := "-", "-"
		if r.Report != nil {
			changes = fmt.Sprint(len(r.Report.Changes))
		}
		if r.SmokeTotal > 0 {
			smoke = fmt.Sprintf("%d/%d", r.SmokePassed, r.SmokeTotal)
		}
		applied := "no"
		if r.Applied {
			applied = "yes"
		}
		fmt.Fprintf(&table, "  %s\t%s\t%s\t%s\t%s\n", r.Env, result, changes, applied, smoke)
	}
	var b strings.Builder
	b.WriteString("\nrollout summary:\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	if _, err := io.WriteString(tw, table.String()); err != nil {
		return err
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}
