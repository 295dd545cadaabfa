// Command search is focuscrawl's search service and the tools that read
// what crawls stored: the index, the crawl store, and the tokenizer. It opens
// the store and index directly (no Temporal), so it runs where they are.
//
//	go run ./search serve    [--addr 127.0.0.1:8080] [--no-store]
//	go run ./search query    "查询" [--topic NAME] [--host HOST] [--limit N] [--json]
//	go run ./search export   CRAWL_ID [--out log.jsonl [--force]]
//	go run ./search crawls   [--topic NAME]
//	go run ./search keywords TOPIC [--live]
//	go run ./search topic bootstrap URL... --name N [--out FILE [--force]]
//
// Every command accepts --config FILE and the configuration flags
// (e.g. --index.path=var/index.db); FOCUSCRAWL_* environment variables work
// too. The commands are in package searchcmd.
package main

import (
	"focuscrawl/internal/cli"
	"focuscrawl/internal/searchcmd"
)

func main() {
	cli.Main("search", "focuscrawl's search service, index and crawl-store tools", searchcmd.Commands())
}
