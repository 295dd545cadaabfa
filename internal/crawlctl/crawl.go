package crawlctl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/lexicon"
	"focuscrawl/internal/searchattr"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/topiccheck"
	"focuscrawl/internal/urlnorm"
	"focuscrawl/lexicons"
)

func init() {
	register("crawl", cli.Command{
		Summary: "start a topic crawl (--topic FILE [--wait] [--fresh] [--id ID])",
		Flags: func(fs *pflag.FlagSet) {
			fs.String("topic", "", "topic file (YAML)")
			fs.Bool("wait", false, "wait for the crawl to finish, showing progress")
			fs.Bool("fresh", false, "forget the topic's earlier crawl state (frontier, pages, index documents) first")
			fs.String("id", "", "workflow ID: letters, digits and . _ - : / @ + = (default crawl/<topic>/<UTC time>)")
			fs.Duration("progress", 2*time.Second, "with --wait: progress interval")
		},
		Run: runCrawl,
	})
	register("status", cli.Command{Summary: "show a crawl's progress, or a refresh's or a reindex's (CRAWL_ID, REFRESH_ID or REINDEX_ID)", Run: runStatus})
	// Sent as one signal (crawlapi.SignalControl) so that operations sent
	// in quick succession take effect in the order sent.
	for _, s := range []struct{ op, what string }{
		{crawlapi.ControlPause, "pause a crawl: its running slices stop claiming (CRAWL_ID)"},
		{crawlapi.ControlResume, "resume a paused crawl (CRAWL_ID)"},
		{crawlapi.ControlStop, "stop a crawl once its running slices have finished (CRAWL_ID)"},
	} {
		register(s.op, cli.Command{Summary: s.what, Run: func(ctx context.Context, env *cli.Env) error {
			id, err := env.OneArg("CRAWL_ID")
			if err != nil {
				return err
			}
			return signalCrawl(ctx, env, id, crawlapi.SignalControl, s.op)
		}})
	}
	register("add-seeds", cli.Command{Summary: "add seed URLs to a running crawl (CRAWL_ID URL...)", Run: runAddSeeds})
	register("update-topic", cli.Command{
		Summary: "send a new version of a running crawl's topic file (CRAWL_ID --topic FILE)",
		Flags:   func(fs *pflag.FlagSet) { fs.String("topic", "", "the edited topic file (same topic name)") },
		Run:     runUpdateTopic,
	})
	register("validate", cli.Command{
		Summary: "check a topic file and print a summary of it: seeds, keywords, strategies, limits (--topic FILE)",
		Flags:   func(fs *pflag.FlagSet) { fs.String("topic", "", "topic file (YAML)") },
		Run:     runValidate,
	})
}

func loadTopicFile(env *cli.Env) (*topic.Topic, []byte, error) {
	path, _ := env.FS.GetString("topic")
	if path == "" {
		return nil, nil, cli.UsageError("--topic FILE is required")
	}
	// One parse that checks the strategies too, so a file with a bad field
	// and a misspelt strategy gets both errors in one report.
	data, err := topic.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	t, err := topiccheck.Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("topic file %s: %w", path, err)
	}
	return t, data, nil
}

// noArguments refuses positional arguments to a command that takes its
// topic file as --topic: `validate --topic a.yaml b.yaml` checked a.yaml
// alone and said it was valid.
func noArguments(cmd string, env *cli.Env) error {
	if len(env.Args) > 0 {
		return cli.Usagef("%s takes no arguments (the topic file is --topic FILE, one per call), got %q", cmd, env.Args)
	}
	return nil
}

func runValidate(_ context.Context, env *cli.Env) error {
	return validateTopic(os.Stdout, os.Stderr, env)
}

// validateTopic is runValidate writing its report to out and its warnings
// to warn.
func validateTopic(out, warn io.Writer, env *cli.Env) error {
	if err := noArguments("validate", env); err != nil {
		return err
	}
	t, _, err := loadTopicFile(env)
	if err != nil {
		return err
	}
	noteUnusedLexicon(warn, t)
	fmt.Fprintf(out, "topic %s is valid: %d seeds, %d keywords, %d samples, page filter %s, link predictor %s, max_pages %d\n",
		t.Name, len(t.Seeds), len(t.Keywords), len(t.Samples), t.Strategy.PageFilter.Name,
		t.Strategy.LinkPredictor.Name, t.Limits.MaxPages)
	if sm := t.Sitemaps; sm.Enabled {
		fmt.Fprintf(out, "sitemaps: read at the start, at most %d files and %d matching URLs per seed host\n", sm.Files(), sm.URLs())
	}
	if t.Lexicon != "" {
		// The worker resolves the lexicon in its own crawl.lexicon_dir; this
		// checks the starter's, which is the same on one machine (the demo,
		// a shared volume) and says so when it may not be.
		dir := env.Cfg.Crawl.LexiconDir
		l, err := lexicons.Resolve(dir, t.Lexicon)
		switch {
		case errors.Is(err, lexicon.ErrMalformed): // found and broken: the worker's would be the same file
			return fmt.Errorf("topic %s: %w", t.Name, err)
		case err != nil: // not here, or not readable here: the worker's directory may differ
			fmt.Fprintf(warn, "warning: %v here (crawl.lexicon_dir %q); the crawl fails to start unless the worker's crawl.lexicon_dir has it\n", err, dir)
		default:
			fmt.Fprintf(out, "lexicon %s: %d pairs (as the worker resolves it with crawl.lexicon_dir %q)\n", t.Lexicon, l.Len(), dir)
		}
	}
	return nil
}

// noteUnusedLexicon writes a note to w when t's lexicon is read by neither
// of its strategies (topiccheck.UnusedLexicon).
func noteUnusedLexicon(w io.Writer, t *topic.Topic) {
	if n := topiccheck.UnusedLexicon(t); n != "" {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func runCrawl(ctx context.Context, env *cli.Env) error {
	if err := noArguments("crawl", env); err != nil {
		return err
	}
	t, data, err := loadTopicFile(env)
	if err != nil {
		return err
	}
	noteUnusedLexicon(os.Stderr, t)
	wait, _ := env.FS.GetBool("wait")
	fresh, _ := env.FS.GetBool("fresh")
	id, _ := env.FS.GetString("id")
	every, _ := env.FS.GetDuration("progress")
	// Checked before the crawl starts: time.NewTicker panics on a
	// non-positive interval, which left a started crawl behind a Go panic.
	if wait && every <= 0 {
		return cli.Usagef("--progress must be a positive duration, got %s", every)
	}
	given := id != ""
	if given {
		if err := checkCrawlID(id); err != nil {
			return err
		}
	}
	if id == "" {
		id = fmt.Sprintf("crawl/%s/%s", t.Name, time.Now().UTC().Format("20060102T150405Z"))
	}
	c, err := dial(env.Cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	// A --id an earlier crawl used is refused before the notes below: they
	// said how "this crawl" would go on, then that nothing was started.
	if given {
		if _, err := c.DescribeWorkflowExecution(ctx, id, ""); err == nil {
			return idTaken(ctx, c, id)
		}
	}
	if fresh {
		if err := refuseFreshWhileRunning(ctx, c, t.Name); err != nil {
			return err
		}
	} else if !warnIfRunning(ctx, c, t.Name, id) {
		noteEarlierCrawl(ctx, c, t.Name, id)
	}
	opts := client.StartWorkflowOptions{
		ID: id, TaskQueue: env.Cfg.Temporal.TaskQueue,
		TypedSearchAttributes: crawlapi.SearchAttributes(crawlapi.KindCrawl, t.Name),
		// A crawl ID names one crawl. Without these the SDK answered a
		// start under the ID of a running crawl with that crawl (printed as
		// "crawl started", and two crawls started within one second share
		// the default ID), and Temporal started one under an ended crawl's
		// ID, which StartCrawl then failed as taken.
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		WorkflowIDReusePolicy:                    enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}
	input := crawlapi.CrawlInput{TopicYAML: string(data), Fresh: fresh}
	run, err := crawlapi.TopicCrawlWorkflow.Start(ctx, c, opts, input)
	if searchattr.IsMissing(err) {
		warnNoSearchAttributes(err)
		opts.TypedSearchAttributes = temporal.SearchAttributes{}
		run, err = crawlapi.TopicCrawlWorkflow.Start(ctx, c, opts, input)
	}
	var taken *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &taken) {
		return idTaken(ctx, c, id)
	}
	if err != nil {
		return fmt.Errorf("start crawl workflow: %w", err)
	}
	fmt.Printf("crawl started: %s\n  topic %s, max %d pages, filter %s, predictor %s\n  watch it: %s\n",
		run.GetID(), t.Name, t.Limits.MaxPages, t.Strategy.PageFilter.Name, t.Strategy.LinkPredictor.Name,
		uiLink(env.Cfg, run.GetID()))
	if !wait {
		return nil
	}
	st, err := waitWithProgress(ctx, os.Stdout, c, run, every)
	if err != nil {
		return err
	}
	printSummary(os.Stdout, st, time.Now())
	fmt.Printf("crawl log: search export %s --out FILE\n", run.GetID())
	return nil
}

// waitWithProgress polls the status query until the workflow ends, writing
// a progress line to w for each answer. A query that gets no answer (no
// worker runs the crawl: killed, stopped, not started) is said once, with
// what the server knows (noAnswer), and so is the first answer after it:
// before, the progress lines just stopped, for as long as no worker ran,
// and a user watching could not tell a dead worker from a slow page.
func waitWithProgress(ctx context.Context, w io.Writer, c client.Client, run crawlapi.Run[*crawlapi.CrawlState], every time.Duration) (*crawlapi.CrawlState, error) {
	result := make(chan error, 1)
	var final *crawlapi.CrawlState
	go func() {
		var err error
		// The query failures below already say that nothing answers
		// (noAnswer names a server that is down): nothing is written here.
		final, err = patientResult(ctx, io.Discard, run, every)
		result <- err
	}()
	tick := time.NewTicker(every)
	defer tick.Stop()
	start := time.Now()
	noted := map[string]bool{}
	silent := false // the last query got no answer, and that was said
	for {
		select {
		case err := <-result:
			if err != nil {
				return nil, endedError("crawl", run.GetID(), err)
			}
			return final, nil
		case <-ctx.Done():
			fmt.Fprintf(os.Stderr, "\ninterrupted; the crawl goes on in Temporal: starter status %s\n", run.GetID())
			return nil, ctx.Err()
		case <-tick.C:
			st, err := queryStatus(ctx, c, run.GetID())
			// The next line comes an interval after this answer: a query
			// that waited out a dead worker (seconds) left a tick pending,
			// and the first answer after it was printed twice at once.
			tick.Reset(every)
			if err != nil {
				if !silent && ctx.Err() == nil {
					silent = true
					fmt.Fprintf(w, "[%6s] no progress: %v; still waiting (the crawl goes on when a worker runs it; Ctrl-C stops waiting, not the crawl)\n",
						time.Since(start).Round(time.Second), noAnswer(ctx, c, run.GetID(), err))
					tick.Reset(every)
				}
				continue // the worker may be busy or restarting; try again next tick
			}
			if silent {
				silent = false
				fmt.Fprintf(w, "[%6s] the crawl answers again\n", time.Since(start).Round(time.Second))
			}
			// Warnings about the topic file, once each, as soon as the
			// crawl has them (the summary repeats them at the end).
			for _, n := range st.Notes {
				if !noted[n] {
					noted[n] = true
					fmt.Fprintf(w, "note: %s\n", n)
				}
			}
			fmt.Fprintf(w, "[%6s] %-9s fetched %5d  ok %5d  failed %4d  accepted %5d  harvest %5.1f%%  frontier %6d  in-flight %d\n",
				time.Since(start).Round(time.Second), st.Phase, st.Fetched, st.OK, st.Failed, st.Accepted,
				100*st.HarvestRate(), st.Queued, st.InFlight)
		}
	}
}

// patientResult is run.Result outlasting a Temporal server that does not
// answer: the SDK gives up waiting for a result after a minute without the
// server, and 'starter crawl --wait' then exited 1 saying "crawl … failed:
// context deadline exceeded" while the crawl was fine and went on to its
// budget once the server was back (chaos trial, kill -9 of the dev server).
// Such an error is said once on w and the result asked for again every
// retry; any other error (the workflow failed, was cancelled or
// terminated, does not exist) and ctx's end are returned.
func patientResult[O any](ctx context.Context, w io.Writer, run crawlapi.Run[O], retry time.Duration) (O, error) {
	said := false
	for {
		out, err := run.Result(ctx)
		if !lostContact(ctx, err) {
			if said && err == nil {
				fmt.Fprintf(w, "the Temporal server answers again\n")
			}
			return out, err
		}
		if !said {
			said = true
			fmt.Fprintf(w, "the Temporal server does not answer (%v); still waiting for %s (it goes on from where it was once the server is back; Ctrl-C stops waiting, not it)\n",
				err, run.GetID())
		}
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-time.After(retry):
		}
	}
}

// lostContact reports whether err says that the Temporal server did not
// answer (unreachable, restarting, overloaded) rather than anything about
// the workflow; an error after ctx ended is ctx's, not the server's.
func lostContact(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	var wf *temporal.WorkflowExecutionError
	if errors.As(err, &wf) {
		return false
	}
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	var exhausted *serviceerror.ResourceExhausted
	return errors.As(err, &unavailable) || errors.As(err, &deadline) || errors.As(err, &exhausted) ||
		errors.Is(err, context.DeadlineExceeded)
}

func queryStatus(ctx context.Context, c client.Client, id string) (*crawlapi.CrawlState, error) {
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return crawlapi.Status(qctx, c, id)
}

// answeredStatus is 'starter status': the crawl's status, asked again
// when a dead worker's sticky queue kept the first query (queryAgain).
func answeredStatus(ctx context.Context, c client.Client, id string) (*crawlapi.CrawlState, error) {
	st, err := queryStatus(ctx, c, id)
	err = queryAgain(ctx, c, id, err, func() (err error) {
		st, err = queryStatus(ctx, c, id)
		return err
	})
	return st, err
}

// queryAgain runs query once more when it failed (err) while workers poll
// workflow id's task queue. The server sends a query to the worker that
// ran the workflow's last task (its sticky queue); when that worker has
// just died, a 10 s query fails after 5 s, and only then does the server
// send the workflow's tasks to the others. An operator who ran 'starter
// status' right after a kill -9 of one of three workers read that no
// worker answered and the question whether one polled the task queue;
// the same command a moment later answered at once.
func queryAgain(ctx context.Context, c client.Client, id string, err error, query func() error) error {
	var nf *serviceerror.NotFound
	if err == nil || errors.As(err, &nf) || ctx.Err() != nil || pollers(ctx, c, id) == 0 {
		return err
	}
	return query()
}

// pollerFresh is how recently a poller must have polled to count: the
// server lists every poller of the last five minutes (its poller history),
// a killed worker's too, and a live worker's long poll comes back at least
// every ~70 s.
const pollerFresh = 2 * time.Minute

// pollers counts the workers polling workflow id's task queue for workflow
// tasks (0 when the server cannot say); a worker that has not polled for
// pollerFresh does not count.
func pollers(ctx context.Context, c client.Client, id string) int {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	desc, err := c.DescribeWorkflowExecution(dctx, id, "")
	if err != nil || desc.GetWorkflowExecutionInfo().GetStatus() != enums.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return 0
	}
	tq, err := c.DescribeTaskQueue(dctx, taskQueueOf(desc), enums.TASK_QUEUE_TYPE_WORKFLOW)
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range tq.GetPollers() {
		if at := p.GetLastAccessTime(); at == nil || time.Since(at.AsTime()) < pollerFresh {
			n++
		}
	}
	return n
}

// taskQueueOf is the task queue a workflow's tasks go to now.
func taskQueueOf(desc *workflowservice.DescribeWorkflowExecutionResponse) string {
	if q := desc.GetExecutionConfig().GetTaskQueue().GetName(); q != "" {
		return q
	}
	return desc.GetWorkflowExecutionInfo().GetTaskQueue()
}

// noAnswer explains a status query that failed although the crawl exists:
// a query is answered by a worker, and with none polling the crawl's task
// queue the SDK's error (a deadline, a cancelled stream) says nothing of
// that. It names the task queue and what the server knows of the crawl.
func noAnswer(ctx context.Context, c client.Client, id string, qerr error) error {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	desc, err := c.DescribeWorkflowExecution(dctx, id, "")
	if lostContact(ctx, err) {
		// Not a worker: the server itself (killed, restarting, the network).
		// The message blamed the worker alone and sent the operator to its
		// logs (chaos trial, kill -9 of the Temporal dev server).
		return fmt.Errorf("the Temporal server does not answer (is it running? the crawl goes on from where it was once it is back): %w", err)
	}
	if err != nil {
		return fmt.Errorf("query crawl %s: %w", id, qerr)
	}
	info := desc.GetWorkflowExecutionInfo()
	queue := taskQueueOf(desc)
	state := "is running"
	if s := info.GetStatus(); s != enums.WORKFLOW_EXECUTION_STATUS_RUNNING {
		state = "has ended (" + strings.ToLower(strings.TrimPrefix(s.String(), "WORKFLOW_EXECUTION_STATUS_")) + ")"
	}
	if n := pollers(ctx, c, id); n > 0 {
		// Asked twice (queryAgain): not a dead worker's sticky queue.
		// The server lists a poller for a while after its last poll: a
		// worker killed a minute ago counts (Rust-doc trial, kill -9), and
		// "are they stuck" alone sent the operator looking for a live one.
		return fmt.Errorf("crawl %s %s and %d worker(s) poll task queue %q, but none answered its status query twice: "+
			"are they stuck, or unable to run the workflow (see their logs)? A worker that died in the last %v is still counted (%v)",
			id, state, n, queue, pollerFresh, qerr)
	}
	return fmt.Errorf("crawl %s %s, but no worker answered its status query: is a worker polling task queue %q? (%v)",
		id, state, queue, qerr)
}

// elapsed describes how long a crawl has run at now: until EndedAt once it
// has ended; a running crawl has a zero EndedAt, and subtracting from that
// printed "-2562047h47m16s". A crawl not ended says when it started, after
// its phase: "running for" after the phase read "paused running for 15s"
// (a trial's status of a paused crawl).
func elapsed(startedAt, endedAt, now time.Time) string {
	switch {
	case startedAt.IsZero():
		return "not started yet"
	case endedAt.IsZero():
		return "(started " + max(now.Sub(startedAt), 0).Round(time.Second).String() + " ago)"
	default:
		return "after " + endedAt.Sub(startedAt).Round(time.Second).String()
	}
}

// printSummary writes a crawl's counters; now dates a crawl still running.
func printSummary(w io.Writer, st *crawlapi.CrawlState, now time.Time) {
	reason := ""
	if st.Reason != "" { // a running crawl has none yet
		reason = " (" + st.Reason + ")"
	}
	fmt.Fprintf(w, "\ncrawl %s %s%s %s\n", st.CrawlID, st.Phase, reason, elapsed(st.StartedAt, st.EndedAt, now))
	fmt.Fprintf(w, "  fetched     %6d  (ok %d, failed %d)\n", st.Fetched, st.OK, st.Failed)
	fmt.Fprintf(w, "  accepted    %6d  harvest rate %.1f%%\n", st.Accepted, 100*st.HarvestRate())
	if st.DryDetail > 0 {
		fmt.Fprintf(w, "              %6d  of them detail pages whose links were followed when the frontier ran dry (strategy.detail_page)\n", st.DryDetail)
	}
	fmt.Fprintf(w, "  rejected    %6d  duplicates %d\n", st.Rejected, st.Duplicates)
	if st.Tunnel > 0 {
		// Without this line the page counts did not add up to the pages
		// fetched: a crawl's tunnel pages are often a third of them.
		fmt.Fprintf(w, "  tunnel      %6d  not accepted, but their links followed (strategy.tunnel, strategy.accept)\n", st.Tunnel)
		if st.DryExpanded > 0 {
			fmt.Fprintf(w, "              %6d  of them rejected first, expanded later when the frontier ran dry (%d rounds)\n", st.DryExpanded, st.DryRounds)
		}
	}
	if st.RunningNotAccepted > 0 || st.RunningUnjudged > 0 {
		fmt.Fprintf(w, "  judging     %6d  pages of running slices: %d done, not accepted (rejected, tunnel, duplicates or failed: split when the slice ends), %d not judged yet\n",
			st.RunningNotAccepted+st.RunningUnjudged, st.RunningNotAccepted, st.RunningUnjudged)
	}
	if st.Withdrawn > 0 {
		fmt.Fprintf(w, "  withdrawn   %6d  of the accepted: below the whole crawl's split when re-judged, removed from the index\n", st.Withdrawn)
	}
	if st.Promoted > 0 {
		fmt.Fprintf(w, "  promoted    %6d  not accepted when judged, above the whole crawl's split at its end: accepted and indexed (strategy.promote)\n", st.Promoted)
	}
	if st.AcceptedFinal > 0 && st.AcceptedFinal != st.Accepted {
		fmt.Fprintf(w, "  accepted now %5d  after re-judgement (the crawl's accepted set)\n", st.AcceptedFinal)
	}
	fmt.Fprintf(w, "  indexed     %6d\n", st.Indexed)
	fmt.Fprintf(w, "  links seen  %6d  new frontier entries %d, still queued %d\n", st.Links, st.Enqueued, st.Queued)
	if st.SitemapURLs > 0 {
		fmt.Fprintf(w, "  sitemaps    %6d  URLs from the seed hosts' sitemaps queued at the start and by update-topic (topic sitemaps:)\n", st.SitemapURLs)
	}
	if st.UpdateSeeded > 0 {
		fmt.Fprintf(w, "  new seeds   %6d  seeds of update-topic's files queued (new to the crawl)\n", st.UpdateSeeded)
	}
	if st.SeedsSent > 0 {
		fmt.Fprintf(w, "  add-seeds   %6d  of %d URLs sent were new to the crawl and in the topic's scope (the worker's log names those outside it)\n",
			st.SeedsAdded, st.SeedsSent)
	}
	switch {
	case st.FailedSlices > 0:
		fmt.Fprintf(w, "  failed slices %d, %s: %s\n", st.FailedSlices, lastErrorLabel(st.LastErrorAt, now), st.LastError)
	case st.LastError != "":
		// A signal the crawl could not act on (update-topic, add-seeds, a
		// control payload) or a failed learning or ranking step is
		// recorded here and nowhere else a user sees.
		fmt.Fprintf(w, "  %s: %s\n", lastErrorLabel(st.LastErrorAt, now), st.LastError)
	}
	for _, n := range st.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	for _, r := range st.Retrying {
		// A crawl whose slices keep failing (store down, a worker killed)
		// read "crawling, in flight 2" with nothing moving.
		fmt.Fprintf(w, "  retrying    %s attempt %d%s%s, last failure: %s\n", r.Activity, r.Attempt, ofMaximum(r.Maximum),
			nextAttempt(r.NextAttempt, now), r.LastFailure)
	}
	switch {
	case st.Phase == crawlapi.PhaseCompleted && st.Reason == crawlapi.ReasonFrontierExhausted && st.Fetched == 0:
		// Nothing was queued when it started: a topic's frontier is kept
		// across crawls, and seeds an earlier crawl fetched (or failed to
		// fetch) are not queued again. It used to end at once, saying only
		// "frontier exhausted".
		fmt.Fprintf(w, "  nothing to fetch: the seeds were fetched (or failed) in an earlier crawl of topic %s, whose frontier\n"+
			"  and pages a new crawl goes on from ('search crawls --topic %s'); 'starter crawl --fresh' starts the topic over\n",
			st.Topic, st.Topic)
	case st.Fetched > 0 && st.OK == 0 && st.InFlight == 0:
		fmt.Fprintf(w, "  no page could be fetched: the crawl log has each URL's error ('search export %s')\n", st.CrawlID)
	}
}

// ofMaximum is " of N" for an activity's attempt limit, "" without one.
func ofMaximum(n int32) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" of %d", n)
}

// nextAttempt says when a failed activity's next attempt starts, or that it
// is running (zero next).
func nextAttempt(next, now time.Time) string {
	if next.IsZero() {
		return " running"
	}
	return " next in " + max(next.Sub(now), 0).Round(time.Second).String()
}

func runStatus(ctx context.Context, env *cli.Env) error {
	id, err := env.OneArg("CRAWL_ID")
	if err != nil {
		return err
	}
	c, err := dial(env.Cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	switch workflowType(ctx, c, id) {
	case crawlapi.RefreshWorkflow.Name:
		return refreshStatus(ctx, c, env.Cfg, id)
	case crawlapi.ReindexWorkflow.Name:
		return reindexStatus(ctx, c, env.Cfg, id)
	}
	st, err := answeredStatus(ctx, c, id)
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return fmt.Errorf("no crawl with ID %q (list them with 'search crawls')", id)
		}
		return noAnswer(ctx, c, id, err)
	}
	ended := endedAbnormally(ctx, c, id, &st.Phase, &st.EndedAt)
	printSummary(os.Stdout, st, time.Now())
	if ended != "" {
		fmt.Printf("  error: %s\n", ended)
	}
	// The version shows whether an update-topic took (the memo keeps the
	// version the crawl started with).
	fmt.Printf("  phase %s, topic %s v%d, crawl slices %d (in flight %d), budget spent %d (+%d allotted to running slices) of %d\n  %s\n",
		st.Phase, st.Topic, st.TopicVersion, st.Slices, st.InFlight, st.Claimed, st.Allotted, st.Params.MaxPages, uiLink(env.Cfg, id))
	if st.Params.ExpandEvery > 0 { // seed expansion (search keywords)
		fmt.Printf("  seed expansion: %d frontier entries added, %d candidate keywords ('search keywords %s')\n",
			st.Expanded, st.CandidateKeywords, st.Topic)
	}
	return nil
}

// endedAbnormally checks whether crawl id's workflow failed, was
// terminated, cancelled or timed out. Its status query still answers then,
// with the state it had (a crawl that failed in StartCrawl is "starting"),
// and the status read "starting, running for 6s", its clock going on. If
// so, it sets *phase and *endedAt (the status's) from the workflow and
// returns the workflow's error; it returns "" for a crawl or refresh that
// runs or completed.
func endedAbnormally(ctx context.Context, c client.Client, id string, phase *string, endedAt *time.Time) string {
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return ""
	}
	info := desc.GetWorkflowExecutionInfo()
	switch s := info.GetStatus(); s {
	case enums.WORKFLOW_EXECUTION_STATUS_RUNNING, enums.WORKFLOW_EXECUTION_STATUS_COMPLETED,
		enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, enums.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED:
		return ""
	default:
		*phase = strings.ToLower(strings.TrimPrefix(s.String(), "WORKFLOW_EXECUTION_STATUS_"))
	}
	if endedAt.IsZero() && info.GetCloseTime() != nil {
		*endedAt = info.GetCloseTime().AsTime()
	}
	// The run described, not whichever is newest by then (a new run under
	// the ID would make Get wait for it), and not for long.
	gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	werr := c.GetWorkflow(gctx, id, info.GetExecution().GetRunId()).Get(gctx, nil)
	if werr == nil {
		return *phase
	}
	return workflowCause(werr).Error()
}

// endedState is a completed crawl run's result — the phase it ended in
// (completed, stopped) and why — or nil when it cannot be read: a crawl an
// operator stopped completes its workflow, and "has ended (completed)"
// contradicted 'starter status' ("stopped").
func endedState(ctx context.Context, c client.Client, id, runID string) *crawlapi.CrawlState {
	gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var st crawlapi.CrawlState
	if err := c.GetWorkflow(gctx, id, runID).Get(gctx, &st); err != nil || st.Phase == "" {
		return nil
	}
	return &st
}

// workflowCause returns the innermost cause of a workflow's failure, which
// says what went wrong; the layers around it name the workflow, the
// activity, their run and event IDs, and the SDK's retry wrapper repeats
// the cause: `crawl --wait` of a topic without terms printed the reason
// twice inside three lines of IDs (a user trial), where `status` gave it
// once. Other errors (a cancelled wait) come back as they are.
func workflowCause(err error) error {
	for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(err) {
		err = next
	}
	return err
}

// crawlIDRE is what a --id may be: the default IDs' characters
// (crawl/<topic>/<time>) and a few more, nothing a shell would split or
// expand.
var crawlIDRE = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}._:/@+=-]{0,199}$`)

// checkCrawlID refuses a --id that crawlIDRE does not take. Temporal takes
// any string, but an ID with spaces or shell characters must be quoted in
// every later 'starter status', 'pause' or 'search export' (a user trial
// started 'my crawl').
func checkCrawlID(id string) error {
	if crawlIDRE.MatchString(id) {
		return nil
	}
	return cli.Usagef("--id %q: use letters, digits and . _ - : / @ + = (a letter or digit first, at most 200, no spaces), e.g. nightly-2026-11-28", id)
}

// lastErrorLabel introduces a workflow's last error with when it was set
// (at): a crawl that recovered from a full disk hours ago showed the error
// as if it were current. With a zero now the age is left out; a zero at
// (a state of an older run) gives the bare label.
func lastErrorLabel(at, now time.Time) string {
	if at.IsZero() {
		return "last error"
	}
	label := "last error at " + at.UTC().Format("2006-01-02 15:04:05 UTC")
	if !now.IsZero() && now.After(at) {
		label += ", " + now.Sub(at).Round(time.Second).String() + " ago"
	}
	return label
}

// endedError says why workflow id (a crawl, refresh or reindex: kind)
// ended without a result. A cancelled or terminated workflow was ended on
// purpose by someone (the Temporal UI, `temporal workflow cancel`): that
// is said as such and not as a failure with the SDK's bare "canceled"
// (`crawl --wait` printed "crawl … failed: canceled", a chaos trial),
// with where to see what it left, which stays in the store and index.
// ctx's end (Ctrl-C) is returned as it is: the command line reports it.
func endedError(kind, id string, err error) error {
	var canceled *temporal.CanceledError
	var terminated *temporal.TerminatedError
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &canceled):
		return fmt.Errorf("%s %s was cancelled (in the Temporal UI or with temporal workflow cancel); what it stored stays: starter status %s", kind, id, id)
	case errors.As(err, &terminated):
		return fmt.Errorf("%s %s was terminated (in the Temporal UI or with temporal workflow terminate); what it stored stays: starter status %s", kind, id, id)
	}
	return fmt.Errorf("%s %s failed: %w", kind, id, workflowCause(err))
}

func signalCrawl(ctx context.Context, env *cli.Env, id, name string, arg any) error {
	c, err := dial(env.Cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := refuseNonCrawl(ctx, c, id, name, arg); err != nil {
		return err
	}
	// Whether a pause or resume changes anything: a second pause said only
	// "sent pause" (a new user's trial). One short query of a crawl known
	// to run, never retried: the signal must not wait on it (a dead
	// worker's sticky queue holds a query for seconds), and a status that
	// cannot be had says nothing either way.
	var before *crawlapi.CrawlState
	if name == crawlapi.SignalControl && (arg == crawlapi.ControlPause || arg == crawlapi.ControlResume) {
		qctx, cancel := context.WithTimeout(ctx, time.Second)
		before, _ = crawlapi.Status(qctx, c, id)
		cancel()
	}
	if err := signal(ctx, c, id, name, arg); err != nil {
		return err
	}
	if name == crawlapi.SignalControl {
		name = fmt.Sprint(arg) // the operation: "sent pause to …"
	}
	fmt.Printf("sent %s to %s%s\n", name, id, unchangedNote(before, arg))
	return nil
}

// unchangedNote is what a pause or resume sent to a crawl in the state it
// asks for says, as the crawl was when asked just before (an operation
// sent just before may not have been handled yet): nothing changes; ""
// otherwise, or without a status.
func unchangedNote(before *crawlapi.CrawlState, op any) string {
	switch {
	case before == nil:
		return ""
	case crawlEnding(before) != "":
		return " (when asked, the crawl " + crawlEnding(before) + ": nothing changes)"
	case op == crawlapi.ControlPause && before.Paused:
		return " (it was paused when asked: nothing changes)"
	case op == crawlapi.ControlResume && !before.Paused:
		return " (it was not paused when asked: nothing changes)"
	}
	return ""
}

func runAddSeeds(ctx context.Context, env *cli.Env) error {
	if len(env.Args) < 2 {
		return cli.UsageError("usage: starter add-seeds CRAWL_ID URL...")
	}
	urls := env.Args[1:]
	if len(urls) > crawlapi.MaxSeedsPerSignal {
		return cli.Usagef("at most %d URLs per call", crawlapi.MaxSeedsPerSignal)
	}
	// The worker drops URLs that do not normalise without a word, so a typo
	// was reported as "sent add-seeds" and never crawled: refuse it here,
	// with the worker's own normaliser.
	for _, u := range urls {
		if _, err := urlnorm.Normalize(u); err != nil {
			return cli.Usagef("%q is not an http(s) URL: %v", u, err)
		}
	}
	id := env.Args[0]
	c, err := dial(env.Cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	// The worker drops URLs outside the topic's scope and URLs the crawl
	// already has; "sent" alone left the operator to guess. The crawl
	// counts what its add-seeds signals brought and added, so wait for the
	// count to move and say what happened to these URLs.
	before, qerr := statusBeforeSignal(ctx, c, id)
	if err := sendSignal(ctx, c, id, crawlapi.SignalAddSeeds, urls); err != nil {
		return err
	}
	fmt.Printf("sent add-seeds (%d URLs) to %s\n", len(urls), id)
	if qerr != nil {
		fmt.Printf("no worker answered the crawl's status query; 'starter status %s' will show how many were added\n", id)
		return nil
	}
	// Counted from the state before this signal: another add-seeds sent at
	// the same moment can be counted in with it.
	st, err := awaitSeeds(ctx, c, id, before.SeedsSent+len(urls), seedsWait, 250*time.Millisecond)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil || st == nil {
		fmt.Printf("the crawl has not handled them yet (it does between its steps); 'starter status %s' will show how many were added\n", id)
		return nil
	}
	if st.LastError != before.LastError && strings.HasPrefix(st.LastError, "add-seeds") {
		return fmt.Errorf("the crawl could not add them: %s", st.LastError)
	}
	added := st.SeedsAdded - before.SeedsAdded
	fmt.Printf("added %d of %d as new frontier entries", added, len(urls))
	if added < len(urls) {
		fmt.Print(" (the others are outside the topic's scope or already known to the crawl; the worker's log names those outside the scope)")
	}
	fmt.Println()
	return nil
}

// seedsWait bounds how long add-seeds waits for the crawl to handle the
// signal: a crawl busy with a step between slices handles it afterwards.
const seedsWait = 15 * time.Second

// statusBeforeSignal is a crawl's status before a signal whose effect the
// caller then waits for. A short query: with no worker it would wait its
// whole timeout before the signal went out. When workers poll it is asked
// again as 'starter status' asks (answeredStatus): add-seeds right after a
// kill -9 of the worker that ran the crawl's last task said no worker
// answered, and did not wait for the seeds, while two workers polled. A
// second short query does not help: the server waits on the dead worker's
// sticky queue for half a query's time and moves the crawl to the other
// workers only once it has waited 5 s there (queries of 3 s failed after
// 1.5 s, one after another).
func statusBeforeSignal(ctx context.Context, c client.Client, id string) (*crawlapi.CrawlState, error) {
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	st, err := crawlapi.Status(qctx, c, id)
	cancel()
	err = queryAgain(ctx, c, id, err, func() (err error) {
		st, err = answeredStatus(ctx, c, id)
		return err
	})
	return st, err
}

// awaitSeeds polls a crawl's status until its add-seeds count has reached
// sent, and returns that status; nil when it has not within wait.
func awaitSeeds(ctx context.Context, c client.Client, id string, sent int, wait, every time.Duration) (*crawlapi.CrawlState, error) {
	return awaitState(ctx, c, id, wait, every, func(st *crawlapi.CrawlState) bool { return st.SeedsSent >= sent })
}

// awaitState polls a crawl's status until done accepts it, and returns that
// status; nil when none did within wait.
func awaitState(ctx context.Context, c client.Client, id string, wait, every time.Duration, done func(*crawlapi.CrawlState) bool) (*crawlapi.CrawlState, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		st, err := queryStatus(ctx, c, id)
		if err != nil {
			return nil, err
		}
		if done(st) {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return nil, nil
		case <-t.C:
		}
	}
}

// sendSignal signals a running crawl, naming a crawl that is not running.
func sendSignal(ctx context.Context, c client.Client, id, name string, arg any) error {
	// The server takes any signal for a running workflow: a refresh (or any
	// other workflow) ignored a stop it was told was sent.
	if err := refuseNonCrawl(ctx, c, id, name, arg); err != nil {
		return err
	}
	return signal(ctx, c, id, name, arg)
}

// signal sends the signal, after refuseNonCrawl.
func signal(ctx context.Context, c client.Client, id, name string, arg any) error {
	if err := c.SignalWorkflow(ctx, id, "", name, arg); err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return fmt.Errorf("no running crawl with ID %q", id)
		}
		return fmt.Errorf("signal %s to %s: %w", name, id, err)
	}
	return nil
}

// refuseNonCrawl refuses to signal a workflow that is no crawl, saying
// what to do instead for a refresh, and a crawl that has ended, saying how
// to go on. A workflow that cannot be described is left to SignalWorkflow
// to report.
func refuseNonCrawl(ctx context.Context, c client.Client, id, name string, arg any) error {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	desc, err := c.DescribeWorkflowExecution(dctx, id, "")
	if err != nil {
		return nil
	}
	what := name
	if name == crawlapi.SignalControl {
		what = fmt.Sprint(arg)
	}
	info := desc.GetWorkflowExecutionInfo()
	switch typ := info.GetType().GetName(); typ {
	case crawlapi.TopicCrawlWorkflow.Name, "":
		// An ended crawl's ID was answered "no running crawl with ID",
		// which reads as a mistyped ID (a user trial's update-topic to
		// the crawl it had just watched complete).
		if s := info.GetStatus(); s != enums.WORKFLOW_EXECUTION_STATUS_RUNNING && s != enums.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED &&
			s != enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW { // a closed run whose next one runs
			ended := "has ended (" + strings.ToLower(strings.TrimPrefix(s.String(), "WORKFLOW_EXECUTION_STATUS_")) + ")"
			if s == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED {
				if st := endedState(ctx, c, id, info.GetExecution().GetRunId()); st != nil && crawlEnding(st) != "" {
					ended = crawlEnding(st)
				}
			}
			return fmt.Errorf("crawl %s %s: it takes no %s; a new crawl of its topic goes on from its frontier: 'starter crawl --topic FILE'", id, ended, what)
		}
		return nil
	case crawlapi.RefreshWorkflow.Name:
		return fmt.Errorf("%s is a refresh, not a crawl: it takes no %s (a scheduled one: 'starter schedule pause TOPIC'; to end this run: 'temporal workflow terminate --workflow-id %s')", id, what, id)
	default:
		return fmt.Errorf("%s is a %s workflow, not a crawl: it takes no %s", id, typ, what)
	}
}

// runningOfTopic finds a crawl or refresh of the topic that is still
// running, asking Temporal's visibility store: its workflow ID and whether
// it is a refresh, or "" when there is none.
func runningOfTopic(ctx context.Context, c client.Client, topicName string) (id string, refresh bool, err error) {
	q := fmt.Sprintf("(WorkflowType = '%s' OR WorkflowType = '%s') AND ExecutionStatus = 'Running' AND FocuscrawlTopic = '%s'",
		crawlapi.TopicCrawlWorkflow.Name, crawlapi.RefreshWorkflow.Name, topicName)
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: q, PageSize: 10})
	if err != nil || len(resp.GetExecutions()) == 0 {
		return "", false, err
	}
	w := resp.Executions[0]
	return w.GetExecution().GetWorkflowId(), w.GetType().GetName() == crawlapi.RefreshWorkflow.Name, nil
}

// refuseFreshWhileRunning stops --fresh from wiping a topic's crawl state
// under a crawl or a refresh of the same topic that is still running. If
// the visibility store cannot answer (no search attributes), it warns and
// lets the user decide.
func refuseFreshWhileRunning(ctx context.Context, c client.Client, topicName string) error {
	// A refresh rewrites the topic's pages and index documents too, and a
	// wipe under it would leave its batches failing on pages that are gone.
	id, refresh, err := runningOfTopic(ctx, c, topicName)
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "warning: cannot check for running crawls of %s (%v); --fresh goes ahead\n", topicName, err)
		return nil
	case id == "":
		return nil
	case refresh:
		return fmt.Errorf("--fresh would wipe the state of topic %s while refresh %s is running: wait for it, or terminate it (temporal workflow terminate --workflow-id %s)",
			topicName, id, id)
	}
	return fmt.Errorf("--fresh would wipe the state of topic %s while crawl %s is running: stop it first (starter stop %s)",
		topicName, id, id)
}

// warnIfRunning warns, on stderr, when a crawl or refresh of the topic is
// still running as another crawl of it starts. Both take their URLs from
// the topic's one frontier, and in a trial the second crawl took the
// topic's site while the first, started a moment before, spent its budget
// on the off-site links that were left (919 fetched, 843 failed). Running
// them side by side stays possible; it is seldom meant (a crawl started
// again after an interrupted --wait, which leaves it running).
func warnIfRunning(ctx context.Context, c client.Client, topicName, newID string) (warned bool) {
	id, refresh, err := runningOfTopic(ctx, c, topicName)
	if err != nil || id == "" || id == newID {
		return false // no search attributes: nothing to go by; or the start is refused (idTaken)
	}
	what, stop := "crawl", "starter stop "+id
	if refresh {
		what, stop = "refresh", "temporal workflow terminate --workflow-id "+id
	}
	fmt.Fprintf(os.Stderr, "warning: %s %s of topic %s is still running; this crawl shares the topic's frontier with it,\n"+
		"  each fetching only part of it (to run this one alone, stop it first: %s)\n", what, id, topicName, stop)
	return true
}

// noteEarlierCrawl says, on stderr, that the topic was crawled before and
// this crawl goes on from what that left queued (README: a new crawl of a
// topic goes on from its earlier crawls' frontier). In a trial a second
// crawl of a documentation topic, started as if anew, fetched only the
// first one's leftovers, the links it had ranked lowest, ended "frontier
// exhausted" at 69 of its 150 pages, and accepted pages the first had
// scored far below its own, since a crawl's acceptance split is drawn from
// the pages it fetches itself; nothing had said it would not start over.
func noteEarlierCrawl(ctx context.Context, c client.Client, topicName, newID string) {
	q := fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus != 'Running' AND FocuscrawlTopic = '%s'",
		crawlapi.TopicCrawlWorkflow.Name, topicName)
	// A note, not a check: a slow visibility store must not hold the
	// crawl's start for long.
	lctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	resp, err := c.ListWorkflow(lctx, &workflowservice.ListWorkflowExecutionsRequest{Query: q, PageSize: 1})
	if err != nil || len(resp.GetExecutions()) == 0 {
		return // never crawled, no search attributes to tell, or no answer in time
	}
	id := resp.Executions[0].GetExecution().GetWorkflowId()
	if id == newID {
		return // the start is refused (idTaken)
	}
	fmt.Fprintf(os.Stderr, "note: topic %s was crawled before (%s): this crawl goes on from what that left queued,\n"+
		"  fetching no page again, with its acceptance split drawn from its own pages; 'starter crawl --fresh' starts the topic over\n",
		topicName, id)
}

// idTaken explains a crawl that did not start because its ID is taken, by
// a crawl that is running or by one that has ended.
func idTaken(ctx context.Context, c client.Client, id string) error {
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err == nil && desc.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return fmt.Errorf("crawl %s is already running, nothing was started ('starter status %s'); "+
			"two crawls started within one second get the same default ID: start again, or give --id", id, id)
	}
	return fmt.Errorf("crawl ID %s was used by an earlier crawl, nothing was started: give a new --id, or leave it out", id)
}

// warnNoSearchAttributes explains why a workflow starts without its search
// attributes: the server does not know them (a worker registers them when it
// starts; docs/operations.md has the manual command).
func warnNoSearchAttributes(err error) {
	fmt.Fprintf(os.Stderr, "warning: %v\n  starting without search attributes (start a worker first, or register them: see docs/operations.md)\n", err)
}

// uiLink is the Temporal Web UI page of a workflow.
func uiLink(cfg *config.Config, id string) string {
	return fmt.Sprintf("%s/namespaces/%s/workflows/%s", cfg.Temporal.UIURL,
		url.PathEscape(cfg.Temporal.Namespace), url.PathEscape(id))
}

func runUpdateTopic(ctx context.Context, env *cli.Env) error {
	id, err := env.OneArg("CRAWL_ID")
	if err != nil {
		return err
	}
	path, _ := env.FS.GetString("topic")
	if path == "" {
		return cli.UsageError("--topic FILE is required")
	}
	data, err := topic.ReadFile(path)
	if err != nil {
		return err
	}
	t, err := topiccheck.Parse(data)
	if err != nil {
		return fmt.Errorf("topic file %s: %w", path, err)
	}
	noteUnusedLexicon(os.Stderr, t)
	c, err := dial(env.Cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	// "sent update-topic" was all it said, also for a file of another topic
	// or one the crawl could not load: the crawl recorded the refusal in
	// its status's last error, where nobody looked, and went on with the
	// old topic. So check the name here, and wait, as add-seeds does, for
	// the crawl to say what it did with the file. A refresh is refused
	// first: it answers the status query too, with a state whose crawl ID
	// is empty, and the name check then told of "crawl  of topic ...".
	if err := refuseNonCrawl(ctx, c, id, crawlapi.SignalUpdateTopic, nil); err != nil {
		return err
	}
	before, qerr := statusBeforeSignal(ctx, c, id)
	if qerr == nil {
		if err := sameTopic(t.Name, before); err != nil {
			return err
		}
	}
	if err := sendSignal(ctx, c, id, crawlapi.SignalUpdateTopic, string(data)); err != nil {
		return err
	}
	fmt.Printf("sent update-topic (%s) to %s\n", path, id)
	if qerr != nil {
		fmt.Printf("no worker answered the crawl's status query; 'starter status %s' will show the topic version it uses\n", id)
		return nil
	}
	st, err := awaitState(ctx, c, id, topicWait, 250*time.Millisecond, func(st *crawlapi.CrawlState) bool {
		_, done, _ := topicOutcome(before, st, t)
		return done
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil || st == nil {
		fmt.Printf("the crawl has not handled it yet (it stores the new version first, fetching its sample pages), or the file is the version it already uses; "+
			"'starter status %s' shows the topic version and any error\n", id)
		return nil
	}
	msg, _, err := topicOutcome(before, st, t)
	if err != nil {
		return err
	}
	fmt.Println(msg)
	return nil
}

// topicTaken says what of an updated topic file a crawl took: the version
// its next slices judge with, the page budget, the learning cadence and
// the frontier entries the file's seeds and sitemaps added — and what did
// not take effect: a limits.max_pages the crawl could not take, and the
// pages judged already, which keep their scores. Saying only "now uses
// v2" read as if the whole file applied.
func topicTaken(before, now *crawlapi.CrawlState, file *topic.Topic) string {
	if why := crawlEnding(now); why != "" {
		return topicTooLate(before, now, file, why)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the crawl now uses topic %s v%d (was v%d): running slices finish with v%d, the next ones judge with v%d",
		now.Topic, now.TopicVersion, before.TopicVersion, before.TopicVersion, now.TopicVersion)
	budget, was, want := now.Params.MaxPages, before.Params.MaxPages, file.Limits.MaxPages
	switch {
	case budget == want && budget != was:
		fmt.Fprintf(&b, "\n  page budget: %d pages (was %d)", budget, was)
		if now.Fetched >= budget {
			// "page budget: 20 pages (was 150)" after 72 fetched read as if
			// the crawl would stop at 20 (an operator trial; it ended at 80).
			fmt.Fprintf(&b, "; the crawl has fetched %d already: it fetches no more once its running slices end, with the pages they hold", now.Fetched)
		}
	case budget == want:
		fmt.Fprintf(&b, "\n  page budget: %d pages, unchanged", budget)
	case now.MaxPagesCap > 0 && budget == min(want, now.MaxPagesCap):
		fmt.Fprintf(&b, "\n  page budget: %d pages (was %d); limits.max_pages %d is not taken above the %d pages this crawl was started with (a refresh's continuation)",
			budget, was, want, now.MaxPagesCap)
	default:
		fmt.Fprintf(&b, "\n  page budget: limits.max_pages %d NOT taken, the crawl keeps %d pages (the worker that stored the update is older than the crawl's workflow: send the file again once every worker is updated)",
			want, budget)
	}
	if l, wasL := now.Params.LearnEvery, before.Params.LearnEvery; l != wasL {
		fmt.Fprintf(&b, "\n  link model learned: %s (was %s)", learnCadence(l), learnCadence(wasL))
	}
	newEntries(&b, before, now, file, "new frontier entries", " (seeds the crawl knew are not queued again)",
		" (read only for seed hosts whose sitemaps the crawl had not read)")
	b.WriteString("\n  pages judged already keep the scores the old version gave them")
	for _, n := range now.Notes {
		fmt.Fprintf(&b, "\n  note: %s", n)
	}
	return b.String()
}

// newEntries writes, on a line of its own after what, the frontier
// entries the update's seeds and (when the file has them on) sitemaps
// added, each count followed by its note.
func newEntries(b *strings.Builder, before, now *crawlapi.CrawlState, file *topic.Topic, what, seedsNote, sitemapsNote string) {
	fmt.Fprintf(b, "\n  %s: %d from its seeds%s", what, now.UpdateSeeded-before.UpdateSeeded, seedsNote)
	if file.Sitemaps.Enabled {
		fmt.Fprintf(b, ", %d from sitemaps%s", now.SitemapURLs-before.SitemapURLs, sitemapsNote)
	}
}

// crawlEnding says why a crawl whose status is st launches no slice any
// more — it has ended, or it is finishing after a stop — or "" when it
// crawls on. An update that came during the final steps and gave the
// crawl nothing more to do (no higher budget, no new entries) is stored as
// it ends: it changes the status's topic version and page budget, though
// no page is fetched with them.
func crawlEnding(st *crawlapi.CrawlState) string {
	switch st.Phase {
	case crawlapi.PhaseCompleted, crawlapi.PhaseStopped, crawlapi.PhaseFailed:
		if st.Reason != "" {
			return fmt.Sprintf("has ended (%s: %s)", st.Phase, st.Reason)
		}
		return "has ended (" + st.Phase + ")"
	case crawlapi.PhaseStopping:
		return "is finishing (a stop was requested: its running slices end, then its final steps run)"
	}
	return ""
}

// topicTooLate is topicTaken for a crawl that has ended or is finishing
// (why, crawlEnding): the file is stored and its seeds are queued, but
// its page budget, seeds and sitemaps serve only a new crawl of the topic.
// "page budget: 40 pages (was 4)" read as if the crawl would go on to 40.
func topicTooLate(before, now *crawlapi.CrawlState, file *topic.Topic, why string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the update was recorded, but crawl %s %s: it claims no more pages, so this file takes effect only in a new crawl of the topic", now.CrawlID, why)
	fmt.Fprintf(&b, "\n  topic %s v%d is stored (the crawl had v%d)", now.Topic, now.TopicVersion, before.TopicVersion)
	if want := file.Limits.MaxPages; want > 0 {
		fmt.Fprintf(&b, "; its page budget, %d pages, applies to a new crawl, not to this one (it claimed %d)", want, now.Claimed)
	}
	newEntries(&b, before, now, file, "new frontier entries queued for the topic's next crawl", "", "")
	b.WriteString("\n  start one with 'starter crawl --topic FILE' (without --fresh it goes on from the frontier this crawl left, these entries included)")
	return b.String()
}

// learnCadence describes CrawlParams.LearnEvery.
func learnCadence(every int) string {
	if every <= 0 {
		return "never"
	}
	return fmt.Sprintf("every %d accepted pages", every)
}

// topicWait bounds how long update-topic waits for the crawl to store and
// switch to the new version (UpdateTopic fetches the file's sample pages).
const topicWait = 30 * time.Second

// sameTopic refuses a file that names another topic than the crawl's: the
// crawl's UpdateTopic refuses it too, but only in the status's last error.
func sameTopic(name string, st *crawlapi.CrawlState) error {
	if st.Topic != "" && name != st.Topic {
		return fmt.Errorf("the file is of topic %q, crawl %s of topic %q: update-topic changes a crawl's topic file, not its topic "+
			"(start a crawl of %q with 'starter crawl --topic FILE')", name, st.CrawlID, st.Topic, name)
	}
	return nil
}

// topicOutcome says what a crawl did with an update-topic signal of file,
// from its status before the signal and now: switched to a new topic
// version (a message: topicTaken), refused the file (an error), or nothing
// yet (done false).
func topicOutcome(before, now *crawlapi.CrawlState, file *topic.Topic) (msg string, done bool, err error) {
	switch {
	case now.TopicVersion != before.TopicVersion:
		return topicTaken(before, now, file), true, nil
	case now.LastError != before.LastError && strings.HasPrefix(now.LastError, crawlapi.SignalUpdateTopic):
		return "", true, fmt.Errorf("the crawl refused the file and goes on with topic %s v%d: %s", now.Topic, now.TopicVersion, now.LastError)
	}
	return "", false, nil
}
