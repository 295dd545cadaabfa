package elastic

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// slowBulkCluster answers the index template and every bulk request, each
// bulk after delay (forever with a negative delay), and counts the bulks.
func slowBulkCluster(t *testing.T, delay time.Duration, bulks *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		w.Header().Set("Content-Type", "application/json")
		if !strings.HasSuffix(r.URL.Path, "/_bulk") {
			fmt.Fprint(w, `{"acknowledged":true}`)
			return
		}
		bulks.Add(1)
		io.Copy(io.Discard, r.Body) // read whole, so the server notices a client that gives up
		if delay < 0 {
			<-r.Context().Done()
			return
		}
		time.Sleep(delay)
		fmt.Fprint(w, `{"took":1,"errors":false,"items":[]}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestBulkTimeoutPerRequest: Config.RequestTimeout bounds each bulk request,
// not a whole write: a delete of 150,000 documents takes several 5 MB
// requests, each well within the timeout, and succeeds although together
// they take longer than it. Before, the timeout covered the whole call, so
// a large UpdateScores or Delete failed while the client went on sending in
// the background. A request that never answers still fails.
func TestBulkTimeoutPerRequest(t *testing.T) {
	ids := make([]string, 150_000)
	for i := range ids {
		ids[i] = fmt.Sprintf("%032x", i)
	}
	t.Run("many requests", func(t *testing.T) {
		var bulks atomic.Int32
		srv := slowBulkCluster(t, 150*time.Millisecond, &bulks)
		x, err := Open(context.Background(), Config{Addresses: []string{srv.URL}, RequestTimeout: 400 * time.Millisecond}, spaceSegmenter{})
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Delete(context.Background(), "t", ids); err != nil || bulks.Load() < 3 {
			t.Fatalf("Delete = %v after %d bulk requests; want success over 3 or more", err, bulks.Load())
		}
	})
	t.Run("a request that never answers", func(t *testing.T) {
		var bulks atomic.Int32
		srv := slowBulkCluster(t, -1, &bulks)
		x, err := Open(context.Background(), Config{Addresses: []string{srv.URL}, RequestTimeout: 200 * time.Millisecond, MaxRetries: 1}, spaceSegmenter{})
		if err != nil {
			t.Fatal(err)
		}
		if err := x.Delete(context.Background(), "t", ids[:10]); err == nil {
			t.Fatal("Delete succeeded against a cluster that never answers")
		}
	})
}
