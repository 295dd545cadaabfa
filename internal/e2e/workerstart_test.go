package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"focuscrawl/crawlworker"
)

// TestWorkerUnknownNamespace: a worker given a namespace the Temporal
// server does not have exits saying so. It logged "search attributes
// unavailable; crawls still run" and then exited with the SDK's "failed
// reaching server", without naming the server or the setting.
func TestWorkerUnknownNamespace(t *testing.T) {
	dir := t.TempDir()
	err := crawlworker.Run([]string{"--temporal.address=" + devServer.FrontendHostPort(), "--temporal.namespace=no-such-namespace",
		"--metrics.address=", "--store.path=" + filepath.Join(dir, "crawl.db"), "--index.path=" + filepath.Join(dir, "index.db")})
	if err == nil || !strings.Contains(err.Error(), `has no namespace "no-such-namespace" (config temporal.namespace)`) {
		t.Errorf("worker with an unknown namespace = %v; want an error naming the namespace and its setting", err)
	}
}
