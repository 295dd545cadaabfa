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
