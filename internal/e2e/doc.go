// Package e2e holds focuscrawl's end-to-end tests: a real Temporal dev
// server (the CLI binary built by scripts/ensure-temporal.sh), real worker
// processes built from ./worker, and real HTTP sites on loopback. They check
// the crawl invariants that matter most: the accepted set, the crawl log's
// fetch order, pause/resume, and that killing a worker mid-crawl loses no
// page and indexes none twice.
package e2e
