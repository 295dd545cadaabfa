package crawlapi

import "time"

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
	// tokenizer, and repairs the index flag of accepted pages the index
	// lacked.
	ReindexPages = Activity[ReindexPagesInput, ReindexPagesResult]{Name: "ReindexPages"}
)

// ReindexInput starts a ReindexWorkflow.
type ReindexInput struct {
	Topic string
	// SkipRebuild leaves the topic's index as it is and only writes the
	// pages again (a backend's new index would be made for nothing: the
	// analysis did not change).
	SkipRebuild bool `json:",omitempty"`
}

// ReindexState is ReindexWorkflow's whole state and its result.
type ReindexState struct {
	ReindexID string
	Topic     string
	// Phase is PhaseStarting, PhaseRebuilding, PhaseWriting, then
	// PhaseCompleted.
	Phase     string
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

// ReindexPagesResult counts what ReindexPages did over the topic's accepted
// pages: Written went into the index (Repaired of them were accepted pages
// not flagged indexed, now flagged), NoRecord have no stored parse record
// to build a document from (they keep whatever the index holds), NoIndex
// asked not to be indexed (robots noindex) and were left out.
type ReindexPagesResult struct {
	Accepted int
	Written  int
	Repaired int `json:",omitempty"`
	NoRecord int `json:",omitempty"`
	NoIndex  int `json:",omitempty"`
}
