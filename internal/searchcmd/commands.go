// Package searchcmd is the logic of the search command: the search service
// (serve) and the tools that read what crawls stored — the index (query),
// the crawl store (export, crawls, keywords) — or that need the tokenizer
// (topic bootstrap). They open the store and index directly, so they run
// where those are: the worker's machine or volume for SQLite, anywhere for
// PostgreSQL and Elasticsearch. Steering crawls through Temporal is package
// crawlctl's job (the starter command).
package searchcmd

import "focuscrawl/internal/cli"

var commands = map[string]cli.Command{}

func register(name string, c cli.Command) { commands[name] = c }

// Commands returns the search command's subcommands by name.
func Commands() map[string]cli.Command { return commands }
