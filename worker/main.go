// Command worker runs focuscrawl's Temporal worker: it polls the task queue
// and executes crawl workflows and their activities against the configured
// crawl store, search index and fetcher (package crawlworker).
//
//	go run ./worker [--config focuscrawl.yaml]
//
// Configuration comes from the optional file, FOCUSCRAWL_* environment
// variables and flags (see config.example.yaml).
package main

import (
	"errors"
	"fmt"
	"os"

	"focuscrawl/crawlworker"
	"focuscrawl/internal/cli"
)

func main() {
	if err := crawlworker.Run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		var ue cli.UsageError
		if errors.As(err, &ue) {
			os.Exit(2) // as the other commands (cli.Main)
		}
		os.Exit(1)
	}
}
