package backend

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"focuscrawl/internal/config"
	"focuscrawl/internal/store/postgres"
	"focuscrawl/internal/store/postgres/pgtest"
	"focuscrawl/internal/store/sqlite"
)

func TestOpenPicksTheConfiguredBackend(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, config.Store{Driver: "sqlite", Path: filepath.Join(t.TempDir(), "crawl.db")})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, ok := st.(*sqlite.Store); !ok {
		t.Errorf("driver sqlite opened %T", st)
	}
	if _, err := Open(ctx, config.Store{Driver: "oracle"}); err == nil || !strings.Contains(err.Error(), "oracle") {
		t.Errorf("unknown driver: error %v, want one naming it", err)
	}
	// An unreachable server fails at Open, naming it but not its password.
	_, err = Open(ctx, config.Store{Driver: "postgres", DSN: "postgres://u:secret@127.0.0.1:1/db?connect_timeout=2"})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") || strings.Contains(err.Error(), "secret") {
		t.Errorf("unreachable server: error %v, want one naming 127.0.0.1:1 without the password", err)
	}

	dsn, _ := pgtest.Schema(t)
	st, err = Open(ctx, config.Store{Driver: "postgres", DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(*postgres.Store); !ok {
		t.Errorf("driver postgres opened %T", st)
	}
}
