// Command router-deps writes the router's third-party packages into the sources the provider
// embeds (worker-src/router/_deps, see internal/bundle's RouterDepsDir), so that the provider
// builds the router offline. Run it from the repository root after go.mod or the router's
// imports change (`make router-deps`), and commit the result:
//
//	go run ./internal/bundle/cmd/router-deps          regenerate the tree
//	go run ./internal/bundle/cmd/router-deps -check   fail when the committed tree is stale
//
// It lists what ./worker-src/router/cmd/kamuidash-router imports on each platform the router
// is built for, with the provider's pinned Go release, and copies those packages' files from
// the module cache after checking the cache against go.sum.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/bundle"
)

func main() {
	check := flag.Bool("check", false, "compare the committed tree with a fresh one instead of writing it (exit 1 when stale)")
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	var err error
	if *check {
		err = bundle.CheckRouterDeps(ctx, *root)
	} else {
		err = bundle.UpdateRouterDeps(ctx, *root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "router-deps:", err)
		os.Exit(1)
	}
	if *check {
		fmt.Println("router-deps: " + bundle.RouterDepsDir + " matches go.mod and the module cache")
	}
}
