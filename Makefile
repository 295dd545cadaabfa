# focuscrawl — the two commands that matter:
#   make demo   offline demo crawl (Temporal dev server + worker + SQLite)
#   make test   every test, unit and integration (what CI runs)
# and, for hands-on use:
#   make up / make down   Temporal dev server + one worker in the background (state and logs under var/)

.PHONY: demo test up down build temporal clean bench eval

demo:
	@bash scripts/demo.sh

test:
	@bash scripts/test.sh

up:
	@bash scripts/up.sh

down:
	@bash scripts/down.sh

build:
	@mkdir -p var/bin
	go build -o var/bin/worker ./worker
	go build -o var/bin/starter ./starter

temporal:
	@bash scripts/ensure-temporal.sh

bench:
	go test -run '^$$' -bench . -benchmem ./internal/...

# Strategy comparison and throughput benchmark (long; regenerates
# docs/evaluation.md and docs/benchmarks.md). Not part of make test.
eval:
	@bash scripts/eval.sh

clean: down
	rm -rf var
