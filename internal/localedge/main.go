package localedge

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os/signal"
	"syscall"
)

// Command returns the `localedge` sub-command, building the router from sources (see
// Options.Sources) and installing the npm packages nodePackages pins when no node_modules is
// found (see Options.NodePackages).
func Command(sources, nodePackages fs.FS) func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		return run(ctx, sources, nodePackages, args, stdout, stderr)
	}
}

// Main runs the `localedge` sub-command with its arguments (after the sub-command's name) and
// returns the process exit code: 0 after a clean stop (SIGINT or SIGTERM), 2 for bad flags,
// 1 when the local edge could not start or a listener failed. --router builds the router
// from the checkout; Command builds it from given sources.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return run(ctx, nil, nil, args, stdout, stderr)
}

func run(ctx context.Context, sources, nodePackages fs.FS, args []string, stdout, stderr io.Writer) int {
	opts, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "localedge:", err)
		return 2
	}
	opts.Sources = sources
	opts.NodePackages = nodePackages
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, opts, stdout, stderr); err != nil {
		_, _ = fmt.Fprintln(stderr, "localedge:", err)
		return 1
	}
	return 0
}
