// Package metrics is the worker's Prometheus instrumentation: one registry
// holding the Temporal SDK's own metrics (through the SDK's tally adapter
// and tally's Prometheus reporter) and the crawler's metrics — pages
// fetched and accepted per topic, fetch errors by class, harvest rate,
// frontier size, refresh outcomes and activity latencies — served on
// /metrics (config key metrics.address).
//
// The crawler's metrics are recorded by a worker interceptor that reads the
// activities' results (FetchResult, FilterResult, ClaimResult, ...), so the
// activities themselves stay free of instrumentation.
package metrics

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/uber-go/tally/v4"
	tallyprom "github.com/uber-go/tally/v4/prometheus"
	"go.temporal.io/sdk/client"
	sdktally "go.temporal.io/sdk/contrib/tally"
)

// Namespace prefixes the crawler's own metrics.
const Namespace = "focuscrawl"

// Crawler holds the crawler's own metrics.
type Crawler struct {
	PagesFetched    *prometheus.CounterVec   // topic: pages fetched OK (crawl)
	PagesAccepted   *prometheus.CounterVec   // topic: pages judged relevant (crawl)
	FetchErrors     *prometheus.CounterVec   // topic, class: failed fetches of crawls and refreshes by fetch error class
	HarvestRate     *prometheus.GaugeVec     // topic: accepted / fetched OK seen by this worker
	FrontierSize    *prometheus.GaugeVec     // topic: queued frontier entries when the last crawl slice ended
	RefreshChecks   *prometheus.CounterVec   // topic, outcome: not_modified, unchanged, changed, gone, failed
	ActivityLatency *prometheus.HistogramVec // activity, outcome (ok, error)

	fetched, accepted map[string]float64 // per topic, for HarvestRate
}

// New registers the crawler's metrics on reg.
func New(reg prometheus.Registerer) *Crawler {
	c := &Crawler{
		PagesFetched: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "pages_fetched_total",
			Help: "Pages fetched successfully (2xx) by crawls, per topic."}, []string{"topic"}),
		PagesAccepted: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "pages_accepted_total",
			Help: "Pages judged relevant by the page filter, per topic."}, []string{"topic"}),
		FetchErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "fetch_errors_total",
			Help: "Failed fetches by fetch error class (robots, timeout, http_client, ...)."}, []string{"topic", "class"}),
		HarvestRate: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "harvest_rate",
			Help: "Accepted / fetched pages of the topic's crawls seen by this worker process (use the counters' rates across workers)."}, []string{"topic"}),
		FrontierSize: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "frontier_queued",
			Help: "Queued frontier entries of the topic at the last batch claim."}, []string{"topic"}),
		RefreshChecks: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "refresh_checks_total",
			Help: "Page revisits by outcome (not_modified, unchanged, changed, gone, failed)."}, []string{"topic", "outcome"}),
		ActivityLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "activity_duration_seconds",
			Help:    "Wall time of focuscrawl activity executions on this worker.",
			Buckets: prometheus.ExponentialBuckets(0.005, 3, 12)}, []string{"activity", "outcome"}),
		fetched: map[string]float64{}, accepted: map[string]float64{},
	}
	reg.MustRegister(c.PagesFetched, c.PagesAccepted, c.FetchErrors, c.HarvestRate, c.FrontierSize,
		c.RefreshChecks, c.ActivityLatency)
	return c
}

// NewRegistry returns a registry with the Go runtime and process collectors.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// TemporalHandler returns a metrics handler for client.Options.MetricsHandler
// that reports the SDK's metrics (temporal_* : workflow task and activity
// latencies, poll counts, ...) into reg. Close the returned closer on exit.
func TemporalHandler(reg *prometheus.Registry) (client.MetricsHandler, io.Closer) {
	reporter := tallyprom.NewReporter(tallyprom.Options{Registerer: reg})
	scope, closer := tally.NewRootScope(tally.ScopeOptions{
		CachedReporter:  reporter,
		Separator:       tallyprom.DefaultSeparator,
		SanitizeOptions: &sdktally.PrometheusSanitizeOptions,
	}, time.Second)
	return sdktally.NewMetricsHandler(scope), closer
}

// Server is a running /metrics endpoint.
type Server struct {
	srv  *http.Server
	Addr net.Addr // the bound address (useful with port 0)
}

// Serve serves reg on addr at /metrics until Close.
func Serve(addr string, reg *prometheus.Registry) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, Addr: ln.Addr()}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the listener failed after start; nothing else to do
		}
	}()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}
