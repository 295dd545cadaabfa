package backend

import (
	"strings"
	"testing"

	"focuscrawl/internal/config"
)

// TestDescribeHidesQueryPassword: pgx reads a password from the URL's query
// (?password=) as libpq does; Describe goes to the worker's log, start-up
// errors, WrongStore errors and RefreshState.Store (starter status).
func TestDescribeHidesQueryPassword(t *testing.T) {
	for _, dsn := range []string{
		"postgres://app@db:5432/crawl?sslmode=require&password=S3cretPW",
		"postgresql://app@db/crawl?password=S3cretPW",
		"postgres://app@db/crawl?sslpassword=S3cretPW&sslkey=/k.pem",
	} {
		if d := Describe(config.Store{Driver: "postgres", DSN: dsn}); strings.Contains(d, "S3cretPW") {
			t.Errorf("Describe(%q) = %q: shows the password", dsn, d)
		}
	}
}

// TestDescribeHidesQueryPasswordAsPgxReadsIt: pgx splits the query on "&"
// only; url.Query drops pairs with a ";" or a bad escape, so such a
// password was printed whole (and kept in a refresh's workflow history).
func TestDescribeHidesQueryPasswordAsPgxReadsIt(t *testing.T) {
	for _, dsn := range []string{
		"postgres://app@db:5432/crawl?sslmode=disable&password=S3cret;PW",
		"postgres://app@127.0.0.1:5432/test?password=S3cret%zzPW",
		"postgres://app@db/crawl?PassWord=S3cretPW&application_name=x",
	} {
		if d := Describe(config.Store{Driver: "postgres", DSN: dsn}); strings.Contains(d, "S3cret") || !strings.Contains(d, "xxxxx") {
			t.Errorf("Describe(%q) = %q; want the password hidden", dsn, d)
		}
	}
}

// TestDescribeHidesFragment: a password pasted with a raw "#" puts its tail
// in the URL's fragment, which url.Redacted prints whole, and one with a raw
// "?" its tail in the query as a pair without "=" (a review found
// "postgres://u:p@ss#word@h/db" shown as "…xxxxx@ss#word@h/db").
func TestDescribeHidesFragment(t *testing.T) {
	for _, dsn := range []string{
		"postgres://u:p@ss#S3cretword@h/db",
		"postgres://u@h/db#password=S3cret",
		"postgres://app:2024?S3cret@db/crawl", // a raw "?" in the password: read as a port and a query
	} {
		if d := Describe(config.Store{Driver: "postgres", DSN: dsn}); strings.Contains(d, "S3cret") {
			t.Errorf("Describe(%q) = %q; want the fragment hidden", dsn, d)
		}
	}
}
