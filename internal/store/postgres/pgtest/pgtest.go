// Package pgtest gives tests their own PostgreSQL schema: each call creates
// a schema with a random name in the test database, returns a DSN whose
// search_path selects it, and drops it (with everything in it) when the test
// ends. Test packages running in parallel therefore never see each other's
// tables, and nothing is left behind.
//
// The server is found at DefaultDSN (or FallbackDSN), or at
// $FOCUSCRAWL_TEST_POSTGRES_DSN. When
// it cannot be reached the test is skipped with a message saying so — unless
// $FOCUSCRAWL_REQUIRE_POSTGRES is set (CI sets it), when it fails instead, so
// a CI machine without PostgreSQL cannot pass by skipping.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultDSN is the development machines' PostgreSQL: trust authentication,
// database test, role postgres (FallbackDSN: role root, which some of those
// machines have instead).
const (
	DefaultDSN  = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	FallbackDSN = "postgres://root@127.0.0.1:5432/test?sslmode=disable"
)

// EnvDSN overrides DefaultDSN.
const EnvDSN = "FOCUSCRAWL_TEST_POSTGRES_DSN"

// EnvRequire makes an unreachable server a test failure instead of a skip.
const EnvRequire = "FOCUSCRAWL_REQUIRE_POSTGRES"

// candidates returns the DSNs to try, in order.
func candidates() []string {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		return []string{dsn}
	}
	return []string{DefaultDSN, FallbackDSN}
}

// BaseDSN returns the first DSN tried: $FOCUSCRAWL_TEST_POSTGRES_DSN, or
// DefaultDSN.
func BaseDSN() string { return candidates()[0] }

// connect connects to the first candidate that answers and returns it.
func connect(ctx context.Context) (*pgx.Conn, string, error) {
	var errs []string
	for _, dsn := range candidates() {
		conn, err := pgx.Connect(ctx, dsn)
		if err == nil {
			return conn, dsn, nil
		}
		errs = append(errs, fmt.Sprintf("%s: %v", redact(dsn), err))
	}
	return nil, "", errors.New(strings.Join(errs, "; "))
}

// Schema creates a fresh schema for t and returns a DSN that selects it
// (search_path) and the schema's name. It skips t (or fails it, see
// EnvRequire) when the server is unreachable.
func Schema(t testing.TB) (dsn, schema string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, base, err := connect(ctx)
	if err != nil {
		msg := fmt.Sprintf("PostgreSQL not reachable (set %s to a server's DSN): %v", EnvDSN, err)
		if os.Getenv(EnvRequire) != "" {
			t.Fatal(msg + "; " + EnvRequire + " is set, so this is a failure")
		}
		t.Skip(msg)
	}
	defer conn.Close(context.Background())
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema = "fctest_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() { Drop(t, base, schema) })
	return WithSearchPath(t, base, schema), schema
}

// Drop removes schema and everything in it.
func Drop(t testing.TB, base, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Errorf("drop schema %s: %v", schema, err)
		return
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+schema+` CASCADE`); err != nil {
		t.Errorf("drop schema %s: %v", schema, err)
	}
}

// WithSearchPath returns base with search_path set to schema. base may be
// a URL or a key=value DSN.
func WithSearchPath(t testing.TB, base, schema string) string {
	t.Helper()
	if !strings.Contains(base, "://") {
		return base + " search_path=" + schema
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", EnvDSN, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// redact hides a password in a URL DSN for messages.
func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxx")
			return u.String()
		}
	}
	return dsn
}
