// Package crawlapi is the contract between focuscrawl's workflows, its
// activities and its clients: the names of the workflows, activities,
// signals and queries, and every type that crosses the Temporal boundary
// (workflow and activity inputs and results, heartbeat details, error types,
// search attributes).
//
// Each activity and workflow is declared once, with its input and output
// types, as an Activity or Workflow value. Workflow code calls an activity
// through it (typed input and result), the worker registers the
// implementation through it — so a method whose signature drifts from the
// contract fails to compile — and clients start workflows through it. The
// package links neither the activities' implementation nor the crawl
// store, index or tokenizer (no cgo): the workflows package and the client
// command build on it alone.
//
// Names and the JSON form of the types are recorded in workflow histories:
// renaming one, or a field, breaks replay of running and recorded crawls
// (workflows/replay_test.go).
package crawlapi

import (
	"context"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"
)

// Activity declares one activity: its name (as operators see it in the
// Temporal UI) and, as type parameters, its input and result.
type Activity[I, O any] struct{ Name string }

// ActivityRegistry is where activities are registered: a worker.Worker or
// a testsuite.TestWorkflowEnvironment.
type ActivityRegistry interface {
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// Register registers fn as the implementation of a. fn is usually a method
// value (acts.StartCrawl), so a method whose signature differs from the
// contract does not compile.
func (a Activity[I, O]) Register(r ActivityRegistry, fn func(context.Context, I) (O, error)) {
	r.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: a.Name})
}

// Execute schedules the activity from workflow code with the activity
// options of ctx and returns its pending result.
func (a Activity[I, O]) Execute(ctx workflow.Context, in I) Future[O] {
	return Future[O]{workflow.ExecuteActivity(ctx, a.Name, in)}
}

// Run executes the activity and waits for its result.
func (a Activity[I, O]) Run(ctx workflow.Context, in I) (O, error) {
	return a.Execute(ctx, in).Get(ctx)
}

// Future is an activity's or child workflow's pending result of type O.
type Future[O any] struct{ f workflow.Future }

// Get waits for the result.
func (f Future[O]) Get(ctx workflow.Context) (O, error) {
	var out O
	err := f.f.Get(ctx, &out)
	return out, err
}

// IsReady reports whether the result has arrived (Get would not block).
func (f Future[O]) IsReady() bool { return f.f.IsReady() }

// AddTo makes sel wake when the result arrives (its Select returns; the
// result is read with Get), so a workflow can wait for it and for signals
// at once.
func (f Future[O]) AddTo(sel workflow.Selector) workflow.Selector {
	return sel.AddFuture(f.f, func(workflow.Future) {})
}

// Workflow declares one workflow type: its name and, as type parameters,
// its input and result.
type Workflow[I, O any] struct{ Name string }

// WorkflowRegistry is where workflows are registered: a worker.Worker, a
// worker.WorkflowReplayer or a testsuite.TestWorkflowEnvironment.
type WorkflowRegistry interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
}

// Register registers fn as the implementation of w.
func (w Workflow[I, O]) Register(r WorkflowRegistry, fn func(workflow.Context, I) (O, error)) {
	r.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: w.Name})
}

// Start starts the workflow from a client.
func (w Workflow[I, O]) Start(ctx context.Context, c client.Client, opts client.StartWorkflowOptions, in I) (Run[O], error) {
	run, err := c.ExecuteWorkflow(ctx, opts, w.Name, in)
	return Run[O]{run}, err
}

// ExecuteChild starts the workflow as a child of the calling workflow, with
// the child options of ctx.
func (w Workflow[I, O]) ExecuteChild(ctx workflow.Context, in I) Future[O] {
	return Future[O]{workflow.ExecuteChildWorkflow(ctx, w.Name, in)}
}

// ContinueAsNew returns the error that ends the calling workflow run and
// starts a new run of w with in.
func (w Workflow[I, O]) ContinueAsNew(ctx workflow.Context, in I) error {
	return workflow.NewContinueAsNewError(ctx, w.Name, in)
}

// Run is a started workflow whose result has type O.
type Run[O any] struct{ client.WorkflowRun }

// Result waits for the workflow's result.
func (r Run[O]) Result(ctx context.Context) (O, error) {
	var out O
	err := r.Get(ctx, &out)
	return out, err
}
