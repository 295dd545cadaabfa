package crawlctl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"
	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/searchattr"
	"focuscrawl/internal/topic"
)

func init() {
	register("refresh", cli.Command{
		Summary: "refresh a topic now, outside its schedule (TOPIC [--all] [--wait])",
		Flags: func(fs *pflag.FlagSet) {
			fs.Bool("all", false, "revisit every page of the topic a refresh may take, not only those whose revisit time has come (after the site changed)")
			fs.Bool("wait", false, "wait for the refresh to end and print its summary")
		},
		Run: runRefresh,
	})
}

// manualRefreshID names a refresh started by 'starter refresh', beside a
// schedule's refresh/<topic>/scheduled-<time>.
func manualRefreshID(topicName string, now time.Time) string {
	return "refresh/" + topicName + "/manual-" + now.UTC().Format("20060102T150405Z")
}

// startByName starts workflow w of kind (a crawlapi.Kind*) under id for
// the topic name, as 'starter refresh' and 'starter reindex' do: with the
// topic's search attributes, or without them after a warning when the
// server lacks them, and refusing an ID taken already (a second start in
// the same second).
func startByName[I, O any](ctx context.Context, c client.Client, cfg *config.Config, w crawlapi.Workflow[I, O],
	kind, id, name string, in I) (crawlapi.Run[O], error) {
	opts := client.StartWorkflowOptions{
		ID: id, TaskQueue: cfg.Temporal.TaskQueue,
		TypedSearchAttributes:                    crawlapi.SearchAttributes(kind, name),
		Memo:                                     map[string]any{"topic": name},
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		WorkflowIDReusePolicy:                    enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}
	run, err := w.Start(ctx, c, opts, in)
	if searchattr.IsMissing(err) {
		warnNoSearchAttributes(err)
		opts.TypedSearchAttributes = temporal.SearchAttributes{}
		run, err = w.Start(ctx, c, opts, in)
	}
	var taken *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &taken) {
		return run, fmt.Errorf("a %s %s was started this second already; try again", kind, id)
	}
	if err != nil {
		return run, fmt.Errorf("start %s of topic %q: %w", kind, name, err)
	}
	return run, nil
}

// runRefresh starts a RefreshWorkflow of a topic by name, as a schedule's
// run does, with RefreshInput.All from --all. It needs no schedule: an
// operator whose site changed wants its pages checked now, and a
// schedule's trigger takes only the pages due. A refresh running beside it
// (a schedule's) takes no page this one holds, nor this one its: claims
// lease the pages.
func runRefresh(ctx context.Context, env *cli.Env) error {
	if len(env.Args) != 1 {
		return cli.UsageError("refresh needs exactly one TOPIC argument (the topic's name, as in 'starter schedule describe TOPIC')")
	}
	name := env.Args[0]
	if err := topic.CheckName(name); err != nil {
		return cli.Usagef("refresh: %v", err)
	}
	all, _ := env.FS.GetBool("all")
	wait, _ := env.FS.GetBool("wait")
	c, err := dial(env.Cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	id := manualRefreshID(name, time.Now())
	run, err := startByName(ctx, c, env.Cfg, crawlapi.RefreshWorkflow, crawlapi.KindRefresh, id, name,
		crawlapi.RefreshInput{Topic: name, All: all})
	if err != nil {
		return err
	}
	what := "the pages whose revisit time has come"
	if all {
		what = "every page a refresh may take (--all)"
	}
	fmt.Printf("refresh %s started: topic %s, %s\n  progress: starter status %s\n  %s\n", id, name, what, id, uiLink(env.Cfg, id))
	st, ended, err := result(ctx, run, wait)
	if !ended {
		return nil
	}
	if st != nil {
		printRefreshSummary(os.Stdout, st, time.Now())
	}
	if err != nil {
		return endedError("refresh", id, err)
	}
	return nil
}

// startCheck is how long 'starter refresh' and 'starter reindex' without
// --wait watch the workflow they started before they return: one that
// cannot run — a topic this worker's crawl store has never crawled —
// fails in its first activity, within a second when a worker is up, and
// printed only "started" before (an operator trial), its error seen only
// by a later 'starter status'.
const startCheck = 2 * time.Second

// result waits for run's result: to its end with wait, else for
// startCheck at most. ended is false when run was still running then.
func result[O any](ctx context.Context, run crawlapi.Run[O], wait bool) (out O, ended bool, err error) {
	if wait {
		// Through a Temporal outage: a crawl of hours outlives one.
		out, err = patientResult(ctx, os.Stderr, run, 5*time.Second)
		return out, true, err
	}
	wctx, cancel := context.WithTimeout(ctx, startCheck)
	defer cancel()
	out, err = run.Result(wctx)
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		return out, false, nil // still running
	}
	return out, true, err
}
