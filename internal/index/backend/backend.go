// Package backend opens the search index the configuration selects
// (index.driver): the embedded SQLite FTS5 index or Elasticsearch. Processes
// (worker, starter search, starter serve) open their index here, never a
// backend package directly, so switching backends is a configuration change.
package backend

import (
	"context"
	"fmt"
	"log/slog"

	"focuscrawl/internal/config"
	"focuscrawl/internal/index"
	"focuscrawl/internal/index/elastic"
	"focuscrawl/internal/index/sqlitefts"
)

// Open opens the index cfg describes. seg segments documents and queries;
// pass the project's one tokenizer (textproc.Shared()). For Elasticsearch it
// connects and installs the index template, so an unreachable cluster or bad
// credentials fail here, at start-up.
func Open(ctx context.Context, cfg config.Index, seg index.Segmenter) (index.Index, error) {
	return open(ctx, cfg, seg, false)
}

// OpenReadOnly opens the index for searching only, for the search service
// and the command line's queries: on Elasticsearch it writes no template
// or mapping (elastic.Config.ReadOnly), so its credentials need only read
// access, and every write fails. SQLite opens as Open does.
func OpenReadOnly(ctx context.Context, cfg config.Index, seg index.Segmenter) (index.Index, error) {
	return open(ctx, cfg, seg, true)
}

func open(ctx context.Context, cfg config.Index, seg index.Segmenter, readOnly bool) (index.Index, error) {
	switch cfg.Driver {
	case "sqlite":
		ix, err := sqlitefts.Open(cfg.Path, seg)
		if err != nil {
			return nil, fmt.Errorf("open search index %s: %w", cfg.Path, err)
		}
		return ix, nil
	case "elasticsearch":
		e := cfg.Elasticsearch
		ec := ElasticConfig(e)
		ec.ReadOnly = readOnly
		ix, err := elastic.Open(ctx, ec, seg)
		if err != nil {
			return nil, fmt.Errorf("open Elasticsearch index at %v: %w", e.Addresses, err)
		}
		if err := ix.SpansUnavailable(); err != nil {
			slog.Warn("Elasticsearch: documents are written without link spans (snippets chosen among all matches)", "error", err)
		}
		return ix, nil
	default:
		return nil, fmt.Errorf("index.driver %q is not supported (supported: sqlite, elasticsearch)", cfg.Driver)
	}
}

// ElasticConfig maps the index.elasticsearch section onto elastic.Config.
func ElasticConfig(e config.Elasticsearch) elastic.Config {
	return elastic.Config{
		Addresses: e.Addresses, APIKey: e.APIKey, Username: e.Username, Password: e.Password,
		CACert: e.CACert, InsecureSkipVerify: e.InsecureSkipVerify,
		RequestTimeout: e.RequestTimeout, MaxRetries: e.MaxRetries, IndexPrefix: e.IndexPrefix,
	}
}

// Describe names the index cfg selects, for logs: a path or the cluster.
func Describe(cfg config.Index) string {
	if cfg.Driver == "elasticsearch" {
		return fmt.Sprintf("elasticsearch %v (prefix %s)", cfg.Elasticsearch.Addresses, cfg.Elasticsearch.IndexPrefix)
	}
	return "sqlite " + cfg.Path
}
