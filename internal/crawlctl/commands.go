// Package crawlctl is the logic of the client command (starter): it starts,
// steers and watches crawls and schedules through Temporal — crawl, status,
// pause, resume, stop, add-seeds, update-topic, schedule, refresh, validate. It uses
// only the contract (package crawlapi) and topic validation, never the crawl
// store, the index or the tokenizer, so the client links no cgo and no
// database driver; what reads the store and index is package searchcmd.
package crawlctl

import (
	"fmt"
	"io"

	"go.temporal.io/sdk/client"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/logging"
)

var commands = map[string]cli.Command{}

func register(name string, c cli.Command) { commands[name] = c }

// Commands returns the client's commands by name.
func Commands() map[string]cli.Command { return commands }

func dial(cfg *config.Config) (client.Client, error) {
	c, err := client.Dial(client.Options{
		HostPort: cfg.Temporal.Address, Namespace: cfg.Temporal.Namespace,
		Logger: logging.Temporal(logging.New(io.Discard, "error")),
	})
	if err != nil {
		if why := cli.Unresolvable(cfg.Temporal.Address); why != "" {
			return nil, fmt.Errorf("connect to Temporal at %s (config temporal.address, env FOCUSCRAWL_TEMPORAL_ADDRESS): %s", cfg.Temporal.Address, why)
		}
		return nil, fmt.Errorf("connect to Temporal at %s (is it running? try 'make up'): %w", cfg.Temporal.Address, err)
	}
	return c, nil
}
