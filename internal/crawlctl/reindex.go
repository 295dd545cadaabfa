package crawlctl

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/searchattr"
	"focuscrawl/internal/topic"
)

func init() {
	register("reindex", cli.Command{
		Summary: "write a topic's pages into the search index again from the crawl store (TOPIC [--skip-rebuild | --rebuild-only] [--wait])",
		Flags: func(fs *pflag.FlagSet) {
			fs.Bool("skip-rebuild", false, "keep the topic's Elasticsearch index and only write the pages again (no new index under the current template)")
			fs.Bool("rebuild-only", false, "only make the topic's Elasticsearch index again under the current template, its pages not written again (after a rebuild that failed once they were)")
			fs.Bool("wait", false, "wait for the reindex to end and print its summary")
		},
		Run: runReindex,
	})
}

// reindexID names a reindex: reindex/<topic>/<time>.
func reindexID(topicName string, now time.Time) string {
	return "reindex/" + topicName + "/" + now.UTC().Format("20060102T150405Z")
}

// runReindex starts a ReindexWorkflow of a topic by name: after an upgrade
// whose tokenizer or index template changed (docs/search.md, "Upgrading an
// index"), or to fill a new index backend from the crawl store without
// crawling again.
func runReindex(ctx context.Context, env *cli.Env) error {
	if len(env.Args) != 1 {
		return cli.UsageError("reindex needs exactly one TOPIC argument (the topic's name; 'search topics' lists them)")
	}
	name := env.Args[0]
	if err := topic.CheckName(name); err != nil {
		return cli.Usagef("reindex: %v", err)
	}
	skip, _ := env.FS.GetBool("skip-rebuild")
	only, _ := env.FS.GetBool("rebuild-only")
	if skip && only {
		return cli.UsageError("reindex: --skip-rebuild and --rebuild-only leave nothing to do")
	}
	wait, _ := env.FS.GetBool("wait")
	c, err := dial(env.Cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	id := reindexID(name, time.Now())
	run, err := startReindex(ctx, c, env.Cfg, os.Stderr, id, crawlapi.ReindexInput{Topic: name, SkipRebuild: skip, RebuildOnly: only})
	if err != nil {
		return err
	}
	fmt.Printf("reindex %s started: topic %s\n  pause the topic's crawls and refreshes until it ends: a page they change meanwhile may be written as it was\n  progress: starter status %s\n  %s\n",
		id, name, id, uiLink(env.Cfg, id))
	st, ended, err := result(ctx, run, wait)
	if !ended {
		return nil
	}
	if err != nil {
		// The failed workflow's state says how far it got: a failed
		// rebuild, once the pages were written, is run alone with
		// --rebuild-only after its leftover index is deleted.
		var last crawlapi.ReindexState
		if queryState(ctx, c, id, crawlapi.QueryReindexStatus, &last) == nil {
			endedAbnormally(ctx, c, id, &last.Phase, &last.EndedAt)
			printReindexSummary(os.Stdout, &last, time.Now())
		}
		return endedError("reindex", id, err)
	}
	printReindexSummary(os.Stdout, st, time.Now())
	return nil
}

// startReindex starts reindex id of in.Topic unless a reindex of the
// topic is running already (refuseRunningReindex); warnings go to stderr.
func startReindex(ctx context.Context, c client.Client, cfg *config.Config, stderr io.Writer, id string,
	in crawlapi.ReindexInput) (crawlapi.Run[*crawlapi.ReindexState], error) {
	if err := refuseRunningReindex(ctx, c, cfg, stderr, in.Topic); err != nil {
		return crawlapi.Run[*crawlapi.ReindexState]{}, err
	}
	return startByName(ctx, c, cfg, crawlapi.ReindexWorkflow, crawlapi.KindReindex, id, in.Topic, in)
}

// refuseRunningReindex refuses a reindex of a topic while another runs,
// found in Temporal's visibility store by the search attributes the start
// sets (kind and topic): nothing else keeps two apart (their IDs differ in
// their time), and their rebuilds would both make the topic's next index,
// the second failing with RebuildLeftover while their page writes doubled
// the load for nothing. The check is no lock: two starts in the same
// moment both pass it. When the visibility store cannot answer (the
// search attributes not registered, which the start falls back from too)
// it says so and lets the reindex start: a workflow is never kept from
// starting by an operator convenience (package searchattr).
func refuseRunningReindex(ctx context.Context, c client.Client, cfg *config.Config, stderr io.Writer, topicName string) error {
	// The name goes into the query between quotes: checked here, not only
	// by the caller, so no caller can pass a quote into it.
	if err := topic.CheckName(topicName); err != nil {
		return cli.Usagef("reindex: %v", err)
	}
	q := fmt.Sprintf("%s = '%s' AND %s = '%s' AND ExecutionStatus = 'Running'",
		crawlapi.SearchAttrKind.GetName(), crawlapi.KindReindex, crawlapi.SearchAttrTopic.GetName(), topicName)
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := c.ListWorkflow(lctx, &workflowservice.ListWorkflowExecutionsRequest{Query: q, PageSize: 1})
	switch {
	case searchattr.IsMissing(err):
		fmt.Fprintf(stderr, "warning: cannot check for a reindex of topic %s running already: the Temporal server lacks focuscrawl's search attributes (%v)\n"+
			"  starting anyway: start no other reindex of the topic until this one ends (a worker registers them when it starts; docs/operations.md)\n", topicName, err)
		return nil
	case err != nil:
		fmt.Fprintf(stderr, "warning: cannot check for a reindex of topic %s running already (%v); starting anyway\n", topicName, err)
		return nil
	case len(resp.GetExecutions()) == 0:
		return nil
	}
	id := resp.GetExecutions()[0].GetExecution().GetWorkflowId()
	return fmt.Errorf("reindex %s of topic %s is still running, nothing was started (two at once would collide in the index rebuild)\n"+
		"  watch it: starter status %s   (%s)\n"+
		"  or cancel it: temporal workflow cancel --workflow-id %s", id, topicName, id, uiLink(cfg, id), id)
}

// reindexStatus prints reindex id's status query answer.
func reindexStatus(ctx context.Context, c client.Client, cfg *config.Config, id string) error {
	var st crawlapi.ReindexState
	if err := queryState(ctx, c, id, crawlapi.QueryReindexStatus, &st); err != nil {
		return err
	}
	if st.Phase == crawlapi.PhaseWriting {
		crawlapi.AddReindexProgress(ctx, c, id, &st)
	}
	printStatus(ctx, c, cfg, id, &st.Phase, &st.EndedAt, func() { printReindexSummary(os.Stdout, &st, time.Now()) })
	return nil
}

// printReindexSummary writes a reindex's state; now dates one still
// running (the page counts of a running one are those of its last
// heartbeat, marked "so far").
func printReindexSummary(w io.Writer, st *crawlapi.ReindexState, now time.Time) {
	phase := st.Phase
	if st.FailedIn != "" && phase != st.FailedIn {
		phase += " while " + st.FailedIn
	}
	fmt.Fprintf(w, "\nreindex %s %s %s\n", st.ReindexID, phase, elapsed(st.StartedAt, st.EndedAt, now))
	p := st.Pages
	if p.Accepted > 0 || st.Phase == crawlapi.PhaseCompleted {
		soFar := ""
		if st.Phase == crawlapi.PhaseWriting {
			soFar = " so far"
		}
		fmt.Fprintf(w, "  topic %s: %d accepted pages%s, %d documents written into the index\n", st.Topic, p.Accepted, soFar, p.Written)
		for _, c := range []struct {
			n    int
			what string
		}{
			{p.Shared, "share their document with another page (a redirect's target), which wrote it"},
			{p.NotIndexed, "not flagged indexed (out of the index while their host is down, or an index write to redo): left to the refresh"},
			{p.NoIndex, "asked not to be indexed (robots noindex): any document they still had deleted"},
			{p.NoRecord, "have no stored parse record or no document in it: their documents are as they were"},
			{p.Failed, "have a parse record that cannot be read, or a document the index refused (see the worker's log): skipped"},
		} {
			if c.n > 0 {
				fmt.Fprintf(w, "  %6d %s\n", c.n, c.what)
			}
		}
	}
	if st.Rebuild.Note != "" {
		fmt.Fprintf(w, "  index: %s\n", st.Rebuild.Note)
	}
}
