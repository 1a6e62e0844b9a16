// Command terraform-provider-kamuidash serves the KamuiDash Terraform provider, or, given a
// sub-command as its first argument, runs the toolkit.
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/guard"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/kvmigrate"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/provider"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/rollout"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// bundledSources are the Worker and router sources the provider builds and uploads. They live
// here because //go:embed cannot reach above its package's directory. A plain pattern leaves
// out names beginning with _ or ., so the router's third-party packages (bundle.RouterDepsDir,
// a directory named _deps to keep the go command from treating them as ours) need all:.
//
//go:embed worker-src internal/route all:worker-src/router/_deps
var bundledSources embed.FS

// nodePackages pins the npm packages the local edge runs (Miniflare with workerd): it installs
// them into its cache directory on first use outside a checkout.
//
//go:embed package.json package-lock.json
var nodePackages embed.FS

// version is set by the release build (goreleaser: -X main.version={{.Version}}).
var version = "dev"

// providerAddress is the provider's registry address; the same binary serves registry.opentofu.org.
const providerAddress = "registry.terraform.io/kamuidash/kamuidash"

// subcommand is a toolkit command; it returns the process exit code.
type subcommand struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// subcommands are the toolkit's commands.
var subcommands = map[string]subcommand{
	"version":   {summary: "print the provider version", run: runVersion},
	"localedge": {summary: "run the whole edge on this machine (API, workerd, tunnel, router)", run: localedge.Command(bundledSources, nodePackages)},
	"guard":     {summary: "judge a plan (terraform show -json): a Worker change must be in place and alone", run: guard.Main},
	"rollout":   {summary: "roll out environment by environment: plan, guard, apply that plan, smoke checks", run: rollout.Main},
	"kv":        {summary: "kv migrate: copy KV namespaces into a new one with bulk calls, then verify every key", run: kvmigrate.Main},
	"probe-key": {summary: "print the probe key (probe_key) derived from a signing secret read on stdin", run: runProbeKey},
}

// stdin is what probe-key reads; tests replace it.
var stdin io.Reader = os.Stdin

func main() {
	if len(os.Args) > 1 && !isFlag(os.Args[1]) {
		os.Exit(runSubcommand(context.Background(), os.Args[1], os.Args[2:], os.Stdout, os.Stderr))
	}
	serve()
}

func serve() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	err := providerserver.Serve(context.Background(), provider.New(version, bundledSources), providerserver.ServeOpts{
		Address:         providerAddress,
		Debug:           debug,
		ProtocolVersion: 6,
	})
	if err != nil {
		log.Fatal(err)
	}
}

func isFlag(arg string) bool { return len(arg) > 0 && arg[0] == '-' }

func runSubcommand(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	cmd, ok := subcommands[name]
	if !ok {
		// Messages to stderr are best effort here and below: there is nowhere else to say
		// that stderr failed, and the exit status tells the outcome anyway.
		_, _ = fmt.Fprintf(stderr, "terraform-provider-kamuidash: unknown command %q\n\n%s", name, usage())
		return 2
	}
	return cmd.run(ctx, args, stdout, stderr)
}

func usage() string {
	var b strings.Builder
	b.WriteString("usage: terraform-provider-kamuidash [-debug]          serve the provider (Terraform starts it)\n")
	b.WriteString("       terraform-provider-kamuidash <command> [args]  run a toolkit command\n")
	b.WriteString("\ncommands:\n")
	names := make([]string, 0, len(subcommands))
	for name := range subcommands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(&b, "  %-10s %s\n", name, subcommands[name].summary)
	}
	return b.String()
}

// printResult writes a command's result to stdout; a result that does not arrive (a closed
// pipe, a full disk) fails the command.
func printResult(stdout, stderr io.Writer, command, result string) int {
	if _, err := io.WriteString(stdout, result); err != nil {
		_, _ = fmt.Fprintf(stderr, "%s: writing the result: %v\n", command, err)
		return 1
	}
	return 0
}

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		_, _ = fmt.Fprintln(stderr, "usage: terraform-provider-kamuidash version")
		return 2
	}
	return printResult(stdout, stderr, "version",
		fmt.Sprintf("terraform-provider-kamuidash %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH))
}

// runProbeKey derives the provider's probe_key from the environment's signing secret, so that
// an operator can hand the provider the key without the secret. The secret is read from stdin
// (one trailing newline, as files and secret stores add, is not part of it) and never printed.
func runProbeKey(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		_, _ = fmt.Fprint(stderr, "usage: terraform-provider-kamuidash probe-key < signing-secret-file\n"+
			"prints the probe_key (KAMUIDASH_PROBE_KEY) for the edge Worker's signing secret\n")
		return 2
	}
	b, err := io.ReadAll(io.LimitReader(stdin, 64<<10))
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "probe-key: reading the signing secret from stdin:", err)
		return 1
	}
	secret := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if len(secret) < route.MinSigningSecretBytes {
		_, _ = fmt.Fprintf(stderr, "probe-key: the signing secret on stdin is %d bytes; the edge Worker needs at least %d\n",
			len(secret), route.MinSigningSecretBytes)
		return 1
	}
	return printResult(stdout, stderr, "probe-key", route.EncodeProbeKey(route.ProbeKey([]byte(secret)))+"\n")
}
