package searchcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/index"
	"focuscrawl/internal/index/backend"
	"focuscrawl/internal/store"
	"focuscrawl/internal/textproc"
)

func init() {
	register("topics", cli.Command{
		Summary: "list the topics of the crawl store: version, searchable pages, frontier, refresh outlook, last crawl ([--json])",
		Flags: func(fs *pflag.FlagSet) {
			fs.Bool("json", false, "one JSON array of the topics, for scripts")
		},
		Run: runTopics,
	})
}

// TopicSummary is one topic of `search topics`: what an operator asks of
// a topic before searching, refreshing or crawling it again.
type TopicSummary struct {
	Name      string    `json:"name"`
	Version   int       `json:"version"`     // the latest stored topic file version
	StoredAt  time.Time `json:"stored_at"`   // when that version was stored
	Indexed   *int      `json:"indexed"`     // documents in the search index; null when the index could not be read
	Queued    int       `json:"queued"`      // frontier entries waiting
	Claimed   int       `json:"claimed"`     // frontier entries claimed by running slices
	Done      int       `json:"done"`        // frontier entries fetched or skipped
	Refresh   int       `json:"refreshable"` // pages a refresh revisits
	DueNow    int       `json:"due_now"`     // of those, due now
	NextDueAt time.Time `json:"next_due_at,omitzero"`
	// LastCrawl is the topic's most recent crawl, nil when none is recorded.
	LastCrawl *CrawlSummary `json:"last_crawl,omitempty"`
	// Error says why the topic could not be read (the other fields are
	// what was read before); the listing goes on with the next topic.
	Error string `json:"error,omitempty"`
}

// CrawlSummary is a crawl as `search topics` shows it.
type CrawlSummary struct {
	ID        string    `json:"id"`
	State     string    `json:"state"`
	StartedAt time.Time `json:"started_at"`
}

// runTopics lists the crawl store's topics. It reads the store and the
// index (opening an index written by an older version upgrades it, as any
// command does); the refresh outlook uses this configuration's refresh
// settings, as a worker with it would claim.
func runTopics(ctx context.Context, env *cli.Env) error {
	if len(env.Args) != 0 {
		return cli.Usagef("topics takes no arguments, got %q", env.Args)
	}
	st, err := openStoreToRead(ctx, env.Cfg.Store)
	if err != nil {
		return err
	}
	defer st.Close()
	names, err := st.TopicNames(ctx)
	if err != nil {
		return err
	}
	// The index is optional here: an operator on a machine without it (a
	// shared PostgreSQL store, the index elsewhere) still gets the topics.
	var ix index.Index
	if len(names) > 0 {
		ix, err = openIndexToCount(ctx, env)
		if err != nil {
			fmt.Fprintf(os.Stderr, "warning: %v\n  the INDEXED column is left empty\n", err)
		} else {
			defer ix.Close()
			defer textproc.Close()
		}
	}
	sums := make([]TopicSummary, 0, len(names))
	for _, name := range names {
		s, err := summarizeTopic(ctx, st, ix, env.Cfg.Refresh, name, time.Now())
		if err != nil {
			// A topic reset or removed since the names were read, a row
			// that does not decode: say so and go on.
			s.Name, s.Error = name, err.Error()
		}
		sums = append(sums, s)
	}
	if asJSON, _ := env.FS.GetBool("json"); asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(sums)
	}
	return printTopics(os.Stdout, sums, time.Now())
}

// openIndexToCount opens the search index to count documents, refusing a
// SQLite file that does not exist (opening would create it empty).
func openIndexToCount(ctx context.Context, env *cli.Env) (index.Index, error) {
	if c := env.Cfg.Index; c.Driver == "sqlite" {
		if err := needFile(c.Path, "index", "index.path"); err != nil {
			return nil, err
		}
	}
	return backend.OpenReadOnly(ctx, env.Cfg.Index, textproc.Lazy())
}

// summarizeTopic reads one topic's summary at now; ix nil leaves Indexed
// unknown.
func summarizeTopic(ctx context.Context, st store.Store, ix index.Index, rc config.Refresh, name string, now time.Time) (TopicSummary, error) {
	t, err := st.Topic(ctx, name, 0)
	if err != nil {
		return TopicSummary{}, err
	}
	s := TopicSummary{Name: name, Version: t.Version, StoredAt: t.CreatedAt}
	if ix != nil {
		n, err := ix.Count(ctx, name)
		if err != nil {
			return s, err
		}
		s.Indexed = &n
	}
	fs, err := st.FrontierStats(ctx, name)
	if err != nil {
		return s, err
	}
	s.Queued, s.Claimed, s.Done = fs.Queued, fs.Claimed, fs.Done
	// As a worker with this configuration would claim (activities'
	// refreshClaim).
	o, err := st.RefreshOutlook(ctx, store.RefreshClaim{Topic: name, MinHub: rc.HubMinScore, Now: now,
		NewPageDelay: rc.InitialInterval, RetryDelay: rc.MinInterval, RetryMax: rc.MaxInterval})
	if err != nil {
		return s, err
	}
	s.Refresh, s.DueNow, s.NextDueAt = o.Refreshable, o.Due, o.NextAt
	crawls, err := st.Crawls(ctx, name, 1)
	if err != nil {
		return s, err
	}
	if len(crawls) > 0 {
		c := crawls[0]
		s.LastCrawl = &CrawlSummary{ID: c.ID, State: c.State, StartedAt: c.StartedAt}
	}
	return s, nil
}

// printTopics writes the summaries as a table; now dates the next refresh.
func printTopics(w io.Writer, sums []TopicSummary, now time.Time) error {
	if len(sums) == 0 {
		_, err := fmt.Fprintln(w, "no topics yet (a crawl stores its topic: starter crawl --topic FILE)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOPIC\tVERSION\tINDEXED\tQUEUED\tREFRESH\tLAST CRAWL")
	for _, s := range sums {
		refresh := "-"
		switch {
		case s.Refresh == 0:
		case s.DueNow > 0:
			refresh = fmt.Sprintf("%d pages, %d due now", s.Refresh, s.DueNow)
		case !s.NextDueAt.IsZero():
			refresh = fmt.Sprintf("%d pages, next %s", s.Refresh, crawlapi.Until(s.NextDueAt, now))
		default:
			refresh = fmt.Sprintf("%d pages", s.Refresh)
		}
		last := "-"
		if c := s.LastCrawl; c != nil {
			last = fmt.Sprintf("%s (%s, %s)", c.ID, c.State, c.StartedAt.Local().Format("2006-01-02 15:04"))
		}
		queued := fmt.Sprint(s.Queued)
		if s.Claimed > 0 {
			queued += fmt.Sprintf(" (+%d claimed)", s.Claimed)
		}
		indexed := "-"
		if s.Indexed != nil {
			indexed = fmt.Sprint(*s.Indexed)
		}
		if s.Error != "" {
			last = "error: " + s.Error
		}
		fmt.Fprintf(tw, "%s\tv%d\t%s\t%s\t%s\t%s\n", printable(s.Name), s.Version, indexed, queued, refresh, printable(last))
	}
	return tw.Flush()
}
