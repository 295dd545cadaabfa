package crawlctl

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
)

// workflowType returns workflow id's type name, "" when it cannot be
// described (the crawl path reports a missing workflow). `schedule
// describe` names its runs (refresh/<topic>/scheduled-<time>), so a user
// asks `status` about them; a refresh answers the same "status" query with
// a RefreshState, which read as a CrawlState printed "crawl  completed"
// with an empty ID, a harvest rate and a page budget that do not exist.
func workflowType(ctx context.Context, c client.Client, id string) string {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	desc, err := c.DescribeWorkflowExecution(dctx, id, "")
	if err != nil {
		return ""
	}
	return desc.GetWorkflowExecutionInfo().GetType().GetName()
}

// queryState asks workflow id's query for its state and decodes it into
// out, asking again while the workflow has no worker to answer yet
// (queryAgain).
func queryState(ctx context.Context, c client.Client, id, queryName string, out any) error {
	query := func() (converter.EncodedValue, error) {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return c.QueryWorkflow(qctx, id, "", queryName)
	}
	v, err := query()
	err = queryAgain(ctx, c, id, err, func() (err error) {
		v, err = query()
		return err
	})
	if err != nil {
		return noAnswer(ctx, c, id, err)
	}
	return v.Get(out)
}

// refreshStatus prints refresh id's status query answer.
func refreshStatus(ctx context.Context, c client.Client, cfg *config.Config, id string) error {
	var st crawlapi.RefreshState
	if err := queryState(ctx, c, id, crawlapi.QueryRefreshStatus, &st); err != nil {
		return err
	}
	if st.EndedAt.IsZero() {
		crawlapi.AddRefetchProgress(ctx, c, id, &st)
	}
	printStatus(ctx, c, cfg, id, &st.Phase, &st.EndedAt, func() { printRefreshSummary(os.Stdout, &st, time.Now()) })
	return nil
}

// printStatus prints a refresh's or a reindex's status with summary, after
// setting its phase and end from the workflow when it ended abnormally
// (endedAbnormally), then the workflow's error and its UI link.
func printStatus(ctx context.Context, c client.Client, cfg *config.Config, id string, phase *string, endedAt *time.Time, summary func()) {
	ended := endedAbnormally(ctx, c, id, phase, endedAt)
	summary()
	if ended != "" {
		fmt.Printf("  error: %s\n", ended)
	}
	fmt.Printf("  %s\n", uiLink(cfg, id))
}

// printRefreshSummary writes a refresh's counters (docs/operations.md,
// "What a refresh does"); now dates a refresh still running.
func printRefreshSummary(w io.Writer, st *crawlapi.RefreshState, now time.Time) {
	reason := ""
	if st.Reason != "" {
		reason = " (" + st.Reason + ")"
	}
	fmt.Fprintf(w, "\nrefresh %s %s%s %s\n", st.RefreshID, st.Phase, reason, elapsed(st.StartedAt, st.EndedAt, now))
	if st.TopicVersion == 0 {
		// StartRefresh never answered: the topic was never crawled in the
		// store (a first crawl ran instead, or the refresh failed), or it
		// is still starting. Its version, page counts and refresh.max_pages
		// are the zero values then; "topic nope v0: 0 pages due …, at most
		// 0 a run" and a row of zero counters read as a refresh that
		// revisited nothing under a budget of 0 (an operator trial).
		printUnstartedRefresh(w, st, now)
		return
	}
	fmt.Fprintf(w, "  topic %s v%d: %s due when it started, %d claimed in %s (at most %d a run, refresh.max_pages)\n",
		st.Topic, st.TopicVersion, count(st.Due, "page", "pages"), st.Claimed, count(st.Batches, "batch", "batches"), st.Params.MaxPages)
	if st.MadeDue > 0 {
		fmt.Fprintf(w, "  revisit all (starter refresh --all): %d pages made due at its start, earlier than their revisit times\n", st.MadeDue)
	}
	fmt.Fprintf(w, "  checked     %6d  (not modified %d, unchanged %d, changed %d, gone %d, failed %d)\n",
		st.Checked, st.NotModified, st.Unchanged, st.Changed, st.Gone, st.Failed)
	if st.Unreachable > 0 {
		fmt.Fprintf(w, "  unreachable %6d  (of the failed: revisits past refresh.drop_unreachable_after, of pages out of the index until they answer or of hubs; still revisited)\n", st.Unreachable)
	}
	if st.Postponed > 0 {
		fmt.Fprintf(w, "  postponed   %6d  (their hosts asked for a longer pause than fetch.max_host_delay: due when it ends)\n", st.Postponed)
	}
	if n := st.Claimed - st.Checked - st.Postponed; n > 0 && st.Phase == crawlapi.PhaseCompleted && st.FailedBatches == 0 {
		// A batch whose worker was killed is retried from its last
		// heartbeat's counts; the pages it recorded after that beat are
		// not visited again, nor counted (activities.earlierRefetch). A
		// user trial's kill -9 read "68 claimed … checked 66" with every
		// page requested once, and nothing said where the two went.
		fmt.Fprintf(w, "  uncounted   %6d  of the claimed pages: revisited and recorded by a worker that died (kill -9, a lost machine) after its last progress report, so missing from the counts above\n", n)
	}
	fmt.Fprintf(w, "  index       kept %d changed pages, removed %d (gone or no longer relevant)\n", st.Kept, st.Removed)
	fmt.Fprintf(w, "  links seen  %6d  new frontier entries %d\n", st.Links, st.Enqueued)
	if st.Enqueued > 0 && st.Params.ContinueMaxPages == 0 && st.ChildCrawlID == "" && !st.EndedAt.IsZero() {
		// A refresh revisits the pages it has; the new links it found wait
		// for a crawl. A user trial expected the refresh to fetch a page a
		// changed chapter had just linked to.
		fmt.Fprintf(w, "              not fetched by a refresh with refresh.continue_max_pages 0: set it to crawl up to that many\n"+
			"              new pages after each refresh, or crawl them now with 'starter crawl --topic FILE' (no --fresh)\n")
	}
	if st.ChildCrawlID != "" {
		fmt.Fprintf(w, "  crawl       %s ('starter status %s')\n", st.ChildCrawlID, st.ChildCrawlID)
	}
	// The outlook of a refresh still running is its start's, stale once it
	// takes pages; the reason's "in" counts from the end, this from now.
	if o := st.Outlook; o != nil && !st.EndedAt.IsZero() {
		if o.Refreshable == 0 {
			fmt.Fprintf(w, "  next due    none: no accepted pages to refresh\n")
		} else {
			fmt.Fprintf(w, "  next due    %s (%s), %d pages to revisit\n",
				o.NextDueAt.UTC().Format(time.RFC3339), crawlapi.Until(o.NextDueAt, now), o.Refreshable)
		}
	}
	if st.Store != "" {
		fmt.Fprintf(w, "  crawl store %s\n", st.Store)
	}
	switch {
	case st.FailedBatches > 0:
		fmt.Fprintf(w, "  failed batches %d, %s: %s\n", st.FailedBatches, lastErrorLabel(st.LastErrorAt, now), st.LastError)
	case st.LastError != "":
		fmt.Fprintf(w, "  %s: %s\n", lastErrorLabel(st.LastErrorAt, now), st.LastError)
	}
}

// printUnstartedRefresh writes the summary of a refresh whose StartRefresh
// gave no topic version: what it did instead of revisiting pages, the
// crawl it ran, the store it read and its error.
func printUnstartedRefresh(w io.Writer, st *crawlapi.RefreshState, now time.Time) {
	switch {
	case st.ChildCrawlID != "":
		fmt.Fprintf(w, "  topic %s: never crawled in this crawl store, so no pages to revisit: this refresh runs the topic's first crawl instead\n", st.Topic)
		fmt.Fprintf(w, "  crawl       %s ('starter status %s')\n", st.ChildCrawlID, st.ChildCrawlID)
	case st.EndedAt.IsZero():
		fmt.Fprintf(w, "  topic %s: not read from the crawl store yet, no page claimed\n", st.Topic)
	default:
		fmt.Fprintf(w, "  topic %s: not read from the crawl store, no page revisited\n", st.Topic)
	}
	if st.Store != "" {
		fmt.Fprintf(w, "  crawl store %s\n", st.Store)
	}
	if st.LastError != "" {
		fmt.Fprintf(w, "  %s: %s\n", lastErrorLabel(st.LastErrorAt, now), st.LastError)
	}
}

// count writes n with its noun: "1 batch", "0 batches" (an operator trial
// read "0 claimed in 1 batches").
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
