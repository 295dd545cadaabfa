// Command starter is focuscrawl's client: it starts and steers topic crawls
// and recurring refreshes through Temporal. It talks to Temporal only (no
// crawl store, index or tokenizer; no cgo): reading crawl logs and searching
// is the search command's job, on the machine where the store and index are.
//
//	go run ./starter crawl --topic topics/example-en.yaml --wait
//	go run ./starter status   CRAWL_ID
//	go run ./starter pause|resume|stop CRAWL_ID
//	go run ./starter add-seeds CRAWL_ID URL...
//	go run ./starter update-topic CRAWL_ID --topic FILE
//	go run ./starter schedule create|list|describe|pause|unpause|trigger|delete
//	go run ./starter refresh TOPIC [--all] [--wait]
//	go run ./starter validate --topic FILE
//	go run ./starter bootstrap   (points to 'search topic bootstrap')
//
// Every command accepts --config FILE and the configuration flags
// (e.g. --temporal.address=host:7233); FOCUSCRAWL_* environment variables
// work too. The commands are in package crawlctl.
package main

import (
	"focuscrawl/internal/cli"
	"focuscrawl/internal/crawlctl"
)

func main() {
	cli.Main("starter", "start and steer focuscrawl crawls through Temporal", crawlctl.Commands())
}
