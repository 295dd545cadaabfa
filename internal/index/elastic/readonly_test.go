package elastic

import (
	"context"
	"errors"
	"strings"
	"testing"

	"focuscrawl/internal/index"
)

// TestOpenReadOnly: an index opened for searching only sends no template or
// mapping request — only a count, which a read-only key may make — and
// refuses every write without sending it. Before, `search serve` wrote the
// template at every start, so the public search service needed the
// cluster's manage privileges.
func TestOpenReadOnly(t *testing.T) {
	_, srv := newFakeES(t,
		exchange{method: "POST", path: "/focuscrawl-all/_count", query: q("allow_no_indices", "true"),
			status: 200, file: "count.json"},
	)
	x := openFake(t, srv, func(c *Config) { c.ReadOnly = true })
	ctx := context.Background()
	for name, err := range map[string]error{
		"Upsert":       x.Upsert(ctx, gimpDocs()),
		"Delete":       x.Delete(ctx, "gimp", []string{"h1"}),
		"UpdateScores": x.UpdateScores(ctx, "gimp", map[string]index.Scores{"h1": {Hub: 1}}),
	} {
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s on a read-only index: %v; want ErrReadOnly", name, err)
		}
	}
	if _, err := x.Rebuild(ctx, "gimp"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Rebuild on a read-only index: %v; want ErrReadOnly", err)
	}
}

// TestOpenReadOnlyReportsAuthFailure: bad credentials still fail at Open
// (and so does a key without read access: the probe does not ignore the
// indices it may not read).
func TestOpenReadOnlyReportsAuthFailure(t *testing.T) {
	_, srv := newFakeES(t, exchange{method: "POST", path: "/focuscrawl-all/_count",
		query: q("allow_no_indices", "true"), status: 401, file: "unauthorized.json"})
	_, err := Open(context.Background(), Config{Addresses: []string{srv.URL}, ReadOnly: true, MaxRetries: 1}, spaceSegmenter{})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401: security_exception") {
		t.Fatalf("Open error = %v, want the 401 security_exception", err)
	}
}

// TestOpenReadOnlyFreshCluster: a cluster with no index of the prefix yet
// (the probe's 404) opens; searches then find nothing.
func TestOpenReadOnlyFreshCluster(t *testing.T) {
	_, srv := newFakeES(t, exchange{method: "POST", path: "/focuscrawl-all/_count",
		query: q("allow_no_indices", "true"), status: 404, file: "index_missing.json"})
	if _, err := Open(context.Background(), Config{Addresses: []string{srv.URL}, ReadOnly: true, MaxRetries: 1}, spaceSegmenter{}); err != nil {
		t.Fatalf("Open on a cluster without the prefix's indices: %v", err)
	}
}
