// Package backend opens the crawl store the configuration selects
// (store.driver): the embedded SQLite file or a PostgreSQL database shared
// by workers on many machines. Every process (worker, search command, eval
// tools) opens its crawl store here, never a backend package
// directly, so switching backends is a configuration change.
package backend

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"focuscrawl/internal/config"
	"focuscrawl/internal/store"
	"focuscrawl/internal/store/postgres"
	"focuscrawl/internal/store/sqlite"
)

// Open opens the crawl store cfg describes and brings its schema up to date
// (both backends migrate on open, safely when several processes start at
// once). For PostgreSQL it connects, so an unreachable server or bad
// credentials fail here, at start-up.
func Open(ctx context.Context, cfg config.Store) (store.Store, error) {
	switch cfg.Driver {
	case "sqlite":
		st, err := sqlite.Open(cfg.Path)
		if err != nil {
			return nil, fmt.Errorf("open crawl store %s: %w", Describe(cfg), err)
		}
		return st, nil
	case "postgres":
		st, err := postgres.Open(ctx, cfg.DSN)
		if err != nil {
			return nil, fmt.Errorf("open crawl store %s: %w", Describe(cfg), err)
		}
		return st, nil
	default:
		return nil, fmt.Errorf("store.driver %q is not supported (supported: sqlite, postgres)", cfg.Driver)
	}
}

// Describe names the store cfg selects, for logs and errors: the SQLite
// path, or the PostgreSQL DSN with any password hidden.
func Describe(cfg config.Store) string {
	if cfg.Driver == "postgres" {
		return "postgres " + redact(cfg.DSN)
	}
	return "sqlite " + cfg.Path
}

// redact hides the password of a URL DSN: the user part's, and the query
// parameters pgx and libpq read as secrets (password, sslpassword; the
// name in any case) — url.Redacted hides only the first, and a DSN with
// "?password=" was printed whole in the worker's log, its errors and a
// refresh's status. Key=value DSNs are shown as "(DSN)", since a password
// may sit anywhere in them.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return "(DSN)"
	}
	// The query is split on "&" only, each pair at its first "=" (at
	// least every pair pgx reads), not by url.Query, which drops pairs with a ";" or a bad
	// escape: "?password=S3cret;PW" connected with that password and was
	// printed whole.
	if u.RawQuery != "" {
		pairs := strings.Split(u.RawQuery, "&")
		for i, p := range pairs {
			k, _, hasValue := strings.Cut(p, "=")
			if !hasValue {
				// No parameter: a password typed with a raw "?" in it
				// ("u:2024?S3cret@db", read as a port and a query).
				pairs[i] = "xxxxx"
				continue
			}
			if uk, err := url.QueryUnescape(k); err == nil {
				k = uk
			}
			if lk := strings.ToLower(k); lk == "password" || lk == "sslpassword" {
				pairs[i] = k + "=xxxxx"
			}
		}
		u.RawQuery = strings.Join(pairs, "&")
	}
	// A fragment is no part of a connection string, but a password pasted
	// with a raw "#" in it ("u:p@ss#word@h") puts its tail there.
	if u.Fragment != "" || u.RawFragment != "" {
		u.Fragment, u.RawFragment = "xxxxx", ""
	}
	return u.Redacted()
}
