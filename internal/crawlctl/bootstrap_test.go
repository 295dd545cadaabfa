package crawlctl

import (
	"context"
	"strings"
	"testing"

	"focuscrawl/internal/cli"
)

// TestBootstrapPointsToSearch: "starter bootstrap" (issue 12's wording)
// answers with the search command's command line, as a usage error.
func TestBootstrapPointsToSearch(t *testing.T) {
	err := Commands()["bootstrap"].Run(context.Background(), &cli.Env{Args: []string{"http://example.test/a.html"}})
	if err == nil || !strings.Contains(err.Error(), "search topic bootstrap URL... --name NAME") {
		t.Fatalf("starter bootstrap: %v; want the search command's command line", err)
	}
}
