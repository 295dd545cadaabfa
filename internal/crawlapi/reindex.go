package crawlapi

import (
	"context"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// ReindexWorkflow writes a topic's pages into the search index again from
// the crawl store (workflows.ReindexWorkflow): after an upgrade that
// changed the index's analysis, or to fill a new index backend without
// crawling again.
var ReindexWorkflow = Workflow[ReindexInput, *ReindexState]{Name: "ReindexWorkflow"}

// QueryReindexStatus is ReindexWorkflow's status query (returns
// ReindexState).
const QueryReindexStatus = "status"

// The activities of ReindexWorkflow.
var (
	// RebuildIndex gives a topic's index the analysis the current code
	// defines, where the backend fixes it per index (Elasticsearch: a new
	// index version under the current template, its aliases swapped); a
	// no-op on a backend that needs none.
	RebuildIndex = Activity[RebuildIndexInput, RebuildIndexResult]{Name: "RebuildIndex"}
	// ReindexPages writes every indexed page of a topic into the search
	// index again from its stored parse record, segmented by the current
	// tokenizer.
	ReindexPages = Activity[ReindexPagesInput, ReindexPagesResult]{Name: "ReindexPages"}
)

// ReindexInput starts a ReindexWorkflow.
type ReindexInput struct {
	Topic string
	// SkipRebuild leaves the topic's index as it is and only writes the
	// pages again (a backend's new index would be made for nothing: the
	// analysis did not change).
	SkipRebuild bool `json:",omitempty"`
	// RebuildOnly skips writing the pages: after a rebuild that failed
	// once the pages were written (its error names the index to delete
	// first).
	RebuildOnly bool `json:",omitempty"`
}

// ReindexState is ReindexWorkflow's whole state and its result.
type ReindexState struct {
	ReindexID string
	Topic     string
	// Phase is PhaseStarting, PhaseWriting, PhaseRebuilding, then
	// PhaseCompleted.
	Phase string
	// FailedIn is the phase a failed reindex failed in ("" otherwise).
	FailedIn  string `json:",omitempty"`
	StartedAt time.Time
	EndedAt   time.Time
	// Rebuild says what RebuildIndex did.
	Rebuild RebuildIndexResult
	// Pages is what ReindexPages did (its last result).
	Pages ReindexPagesResult
}

// Phases of ReindexWorkflow besides the common PhaseStarting and
// PhaseCompleted.
const (
	PhaseRebuilding = "rebuilding"
	PhaseWriting    = "writing"
)

// RebuildIndexInput names the topic whose index RebuildIndex rebuilds.
type RebuildIndexInput struct {
	ReindexID string
	Topic     string
}

// RebuildIndexResult is what RebuildIndex did: Index names the topic's new
// index ("" when nothing was rebuilt) and Note says why, for operators.
type RebuildIndexResult struct {
	Index string `json:",omitempty"`
	Note  string `json:",omitempty"`
}

// ReindexPagesInput names the topic whose pages ReindexPages writes.
type ReindexPagesInput struct {
	ReindexID string
	Topic     string
}

// ReindexPagesResult counts what ReindexPages did over the topic's
// accepted pages, each page counted once: Accepted is the sum of the
// others. Written documents went into the index. The others wrote
// nothing: NotIndexed are accepted pages not flagged indexed (left to the
// refresh, which tells a page its host's outage took out of the index from
// one an index write missed), Shared share their document with another
// page, which writes it (a redirect's target: written once, from the
// earliest fetched of its pages that has a record to write it from, so a
// page counted Shared may itself lack one), NoRecord have no stored parse
// record or no document in it (their document is left as it was), NoIndex
// asked not to be indexed (robots noindex: any document they still had is
// deleted, unless another page writes it), Failed have a parse record that
// cannot be read or a document the index refused (logged).
type ReindexPagesResult struct {
	Accepted   int
	Written    int
	NotIndexed int `json:",omitempty"`
	Shared     int `json:",omitempty"`
	NoRecord   int `json:",omitempty"`
	NoIndex    int `json:",omitempty"`
	Failed     int `json:",omitempty"`
}

// ReindexProgress is ReindexPages's heartbeat: its counts so far and the
// URL hash of the last page its written chunks covered, from which a retry
// goes on. 'starter status' reads it while the activity runs.
type ReindexProgress struct {
	After  string
	Result ReindexPagesResult
}

// ErrRebuildLeftover is the type of RebuildIndex's non-retryable error
// when the index it would make exists already, left by a rebuild that did
// not finish: an operator must check and delete it (the error says how).
const ErrRebuildLeftover = "RebuildLeftover"

// AddReindexProgress sets the page counts of a running reindex id from its
// ReindexPages activity's last heartbeat (the workflow has them only when
// the activity ends).
func AddReindexProgress(ctx context.Context, c client.Client, id string, st *ReindexState) {
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return
	}
	dc := converter.GetDefaultDataConverter()
	for _, pa := range desc.GetPendingActivities() {
		if pa.GetActivityType().GetName() != ReindexPages.Name || pa.GetHeartbeatDetails() == nil {
			continue
		}
		var p ReindexProgress
		if dc.FromPayloads(pa.GetHeartbeatDetails(), &p) == nil {
			st.Pages = p.Result
		}
	}
}
