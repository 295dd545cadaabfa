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
	"os"

	"focuscrawl/crawlworker"
	"focuscrawl/internal/cli"
)

func main() {
	// Reported as the other commands report (cli.Main): status 2 for a
	// usage error, 1 for any other.
	if code := cli.Report(os.Stderr, "worker", nil, os.Args[1:], crawlworker.Run(os.Args[1:])); code != 0 {
		os.Exit(code)
	}
}
