# focuscrawl — the two commands that matter:
#   make demo   offline demo crawl (Temporal dev server + worker + SQLite)
#   make test   every test, unit and integration (what CI runs)
# and, for hands-on use:
#   make up / make down   Temporal dev server + one worker in the background (state and logs under var/)

.PHONY: demo test up down build temporal clean bench eval bench-postgres

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
	go build -o var/bin/search ./search
	go build -o var/bin/eval ./eval

temporal:
	@bash scripts/ensure-temporal.sh

bench:
	go test -run '^$$' -bench . -benchmem ./internal/...

# PostgreSQL crawl store at size and with 1, 2, 4 workers (issue 14): fills a
# 10 M-row frontier and a 10 M-edge graph (tens of minutes, several GB in the
# server at 127.0.0.1:5432 or $$FOCUSCRAWL_TEST_POSTGRES_DSN; dropped after)
# and rewrites its section of docs/benchmarks.md. Not part of make test.
bench-postgres:
	FOCUSCRAWL_TEMPORAL_BIN="$$(bash scripts/ensure-temporal.sh)" go run ./eval pgbench \
		--rows 10000,10000000 --edges 1000000,10000000 --workers 1,2,4 --update docs/benchmarks.md

# Strategy comparison and throughput benchmark (long; regenerates
# docs/evaluation.md and docs/benchmarks.md). Not part of make test.
eval:
	@bash scripts/eval.sh

clean: down
	rm -rf var
