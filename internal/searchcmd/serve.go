package searchcmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/pflag"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/index/backend"
	"focuscrawl/internal/logging"
	"focuscrawl/internal/search"
	storebackend "focuscrawl/internal/store/backend"
	"focuscrawl/internal/textproc"
)

func init() {
	register("serve", cli.Command{
		Summary: "run the search service: web page and JSON API ([--addr 127.0.0.1:8080] [--no-store])",
		Flags: func(fs *pflag.FlagSet) {
			fs.String("addr", "127.0.0.1:8080", "listen address")
			fs.Bool("no-store", false, "do not open the crawl store (no topic list, no-result searches not recorded)")
			fs.Duration("timeout", 10*time.Second, "longest one search may take in the index (503 past it; 0: no limit)")
		},
		Run: runServe,
	})
}

// runServe serves internal/search over the configured index until
// interrupted. With the crawl store it lists topics and records searches
// that found nothing: requests only queue them (search.NoResultQueue,
// bounded and rate-limited), and a background loop writes them to the store.
func runServe(ctx context.Context, env *cli.Env) error {
	addr, _ := env.FS.GetString("addr")
	noStore, _ := env.FS.GetBool("no-store")
	log := logging.New(os.Stderr, env.Cfg.Log.Level)
	if err := textproc.Preload(); err != nil {
		return fmt.Errorf("load Chinese dictionaries: %w", err)
	}
	defer textproc.Close()
	ix, err := backend.OpenReadOnly(ctx, env.Cfg.Index, textproc.Shared())
	if err != nil {
		return err
	}
	defer ix.Close()
	timeout, _ := env.FS.GetDuration("timeout")
	if timeout < 0 {
		return cli.Usagef("--timeout must not be negative, got %v", timeout)
	}
	svc := &search.Service{Index: ix, Seg: textproc.Shared(), Log: log, Timeout: timeout}
	if !noStore {
		st, err := storebackend.Open(ctx, env.Cfg.Store)
		if err != nil {
			return fmt.Errorf("%w (or pass --no-store)", err)
		}
		defer st.Close()
		q := search.NewNoResultQueue(st)
		flushed := make(chan struct{})
		qctx, stopQueue := context.WithCancel(context.WithoutCancel(ctx))
		go func() {
			defer close(flushed)
			q.Run(qctx, search.DefaultFlushEvery, func(err error) { log.Warn("no-result queries not recorded", "error", err) })
		}()
		// Stop the flusher after the server (its last flush keeps the queue)
		// and before the store closes (defers run last-in first-out).
		defer func() { stopQueue(); <-flushed }()
		svc.NoResults = q
		// Every stored topic (each crawl stores its own first), not those
		// of the newest crawls, which scheduled refreshes and their crawls
		// would push older topics out of.
		svc.Topics = st.TopicNames
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           svc.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	log.Info("search service listening", "url", "http://"+ln.Addr().String()+"/", "index", backend.Describe(env.Cfg.Index))
	fmt.Printf("search service: http://%s/\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			return err
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
