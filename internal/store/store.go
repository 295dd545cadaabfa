// Package store defines focuscrawl's crawl store: the durable state of every
// topic crawl that must not travel through Temporal workflow history —
// topic versions, crawls, the frontier with leased claims, fetched pages and
// their bodies, parse results, the link graph, per-host politeness slots,
// running term statistics and learned models.
//
// Activities exchange only IDs and counts; everything else lives here. Every
// write is idempotent on its natural key (topic + normalised-URL hash, batch
// ID, ...) so an activity retried after a crash, or run twice by two workers,
// changes nothing the second time.
//
// Two implementations pass the same contract tests (storetest): package
// store/sqlite, the embedded default (one file, one machine), and package
// store/postgres, for workers on many machines. Processes open the one the
// configuration selects through package store/backend.
package store

import (
	"context"
	"errors"
	"time"

	"focuscrawl/internal/decision"
)

// ErrNotFound is returned (wrapped) when a requested row does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrFenced is returned (wrapped) by a claim or a fence raise whose fence
// token is older than the fence's: a newer claimer superseded this one.
var ErrFenced = errors.New("store: fenced off by a newer claimer")

// Fence names a run of claims that a newer claimer can supersede: a claim
// carrying a Fence fails with ErrFenced once a higher Token was raised for
// the same Name (Frontier.RaiseFence). The streaming fetch path fences each
// slice by its activity attempt, so an attempt the server gave up on — but
// which is still running on a worker that lost contact — stops claiming as
// soon as its retry starts, instead of claiming beside it.
type Fence struct {
	Name  string // "" = no fence
	Token int64
}

// Frontier entry states.
const (
	StateQueued  = "queued"  // waiting to be claimed
	StateClaimed = "claimed" // leased to a batch until LeaseUntil
	StateDone    = "done"    // processed (fetched, failed or skipped)
)

// Crawl states.
const (
	CrawlRunning   = "running"
	CrawlPaused    = "paused"
	CrawlCompleted = "completed"
	CrawlStopped   = "stopped"
	CrawlFailed    = "failed"
	// The states of a crawl whose workflow was closed from outside, recorded
	// by the next crawl of its topic (its own code never ran to say so) —
	// but for canceled, which a cancelled crawl also records itself.
	CrawlTerminated = "terminated"
	CrawlCanceled   = "canceled"
	CrawlTimedOut   = "timed out"
	// CrawlWorkflowFailed: the workflow failed on a path that records no
	// state (its StartCrawl or a memo write gave up), unlike CrawlFailed,
	// which the workflow records itself.
	CrawlWorkflowFailed = "workflow failed"
)

// EndedOutside reports whether a crawl state is one recorded for a crawl
// whose workflow closed without recording it (terminated, cancelled, timed
// out, or failed where it records nothing): a reset of that workflow runs
// the crawl again under its ID.
func EndedOutside(state string) bool {
	return state == CrawlTerminated || state == CrawlCanceled || state == CrawlTimedOut || state == CrawlWorkflowFailed
}

// Page decisions (Page.Decision), as package decision defines them; the
// names here spare the store's callers a second import.
const (
	DecisionPending   = decision.Pending
	DecisionAccepted  = decision.Accepted
	DecisionRejected  = decision.Rejected
	DecisionTunnel    = decision.Tunnel
	DecisionDuplicate = decision.Duplicate
	DecisionError     = decision.Error
)

// Blob kinds stored per page.
const (
	BlobBody  = "body"  // UTF-8 page body
	BlobParse = "parse" // encoded parse result
)

// Topic is one version of a topic file.
type Topic struct {
	Name      string
	Version   int
	YAML      []byte
	Hash      string // SHA-256 of YAML, hex
	CreatedAt time.Time
}

// Crawl is one topic crawl, identified by its Temporal workflow ID.
type Crawl struct {
	ID           string
	Topic        string
	TopicVersion int
	State        string
	StartedAt    time.Time
	UpdatedAt    time.Time
	// LinkModelVersion and RankVersion are the learned link model and rank
	// versions the crawl's workflow last chose (SetCrawlModels; 0: none).
	// Running slices poll them, to pick up a learning or ranking round
	// without the workflow waiting for them to end.
	LinkModelVersion int
	RankVersion      int
}

// FrontierEntry is a URL waiting to be fetched for a topic.
type FrontierEntry struct {
	Topic      string
	URLHash    string // urlnorm.Hash(URL)
	URL        string // normalised
	Host       string
	Priority   float64 // higher is fetched first; ties in insertion order
	Depth      int     // 0 for seeds
	ParentHash string  // URL hash of the page the link was found on; "" for seeds
	ParentURL  string
	Anchor     string
	AnchorPath string  // anchor texts from the seed down to this link, " > "-joined (seed 004)
	LinkScore  float64 // the link predictor's score
	Strategy   string  // the predictor that produced LinkScore ("seed" for seeds)
	State      string
	BatchID    string
	LeaseUntil time.Time
	Attempts   int
	CrawlID    string // crawl that discovered the entry
	// Sink, when in (0, 1), is a demotion the caller knows of (a link into
	// a directory or host it knows is gone): Enqueue stores a new entry at
	// Priority × Sink, keeping Sink as the entry's sink as DemoteQueued's
	// entries do (later priorities — Reprioritize — are scaled by it), and
	// raises a known entry to Priority × min(its sink, Sink). Priority is
	// the link's own score, not scaled down by the caller. 0 (or 1) = no
	// demotion known.
	Sink float64
}

// EnqueueOptions bound what Enqueue admits.
type EnqueueOptions struct {
	// MaxPerHost caps the frontier entries one host may have for the topic
	// (spider-trap defence); 0 means no cap. Every entry of the host
	// counts, whatever its state (queued, claimed, done): the cap bounds
	// how many of a host's URLs the topic ever takes in, which is what
	// stops a trap's endless URLs. Counting only queued entries would bound
	// the host's queue, which a trap refills as fast as it is fetched.
	// Both stores count so (contract test EnqueueMaxPerHost).
	MaxPerHost int
}

// ClaimRequest asks for a batch of frontier entries.
type ClaimRequest struct {
	Topic      string
	CrawlID    string
	BatchID    string // chosen by the workflow; claiming the same BatchID again returns the same batch
	Max        int
	MaxPerHost int // at most this many entries of one host in the batch; 0 = no cap
	// ExcludeHosts are hosts none of whose entries may be claimed: the
	// streaming fetch path passes the hosts it is already serving, so each
	// host has at most one entry in flight and the next one it gets is its
	// best at that moment.
	ExcludeHosts []string
	// MinRatio, when > 0, leaves entries whose priority is below MinRatio
	// times the best queued priority of the topic (excluded hosts' entries
	// included) in the queue: a free host does not take a link scored far
	// below the frontier's best just because the host is free.
	MinRatio float64
	// ExploreHosts are hosts whose best queued entry MinRatio does not
	// bound: each one not excluded gets its best entry into the claim,
	// however low it scores, ahead of the ratio-bounded picks, which then
	// pass over it (at most one entry of an exploring host per claim).
	// The crawl names its seed hosts here until each has a few judged
	// pages (crawl.seed_explore): with seeds on several sites, a site
	// whose entry page scores far below another site's links was never
	// claimed — a trial's three-site crawl gave the site holding the
	// topic 1 fetch of 300 (docs/evaluation.md). HoldUnscored still
	// applies to them. Ignored without a MinRatio.
	ExploreHosts []string
	// HoldUnscored leaves entries whose priority is zero or below in the
	// queue while an entry of the topic is in flight: claimed, by any
	// claimer, less than HoldWindow ago. A score of 0 means the link
	// predictor found no evidence for the link, and the pages in flight —
	// in this worker or another sharing the store — may add links that
	// score above it. Older claims do not hold (a dead worker's claims wait
	// for their lease, and must not stop the crawl meanwhile); with nothing
	// in flight nothing is held, so a crawl whose frontier is all zeros
	// still proceeds. Batch.Held says whether the hold kept a queued entry
	// back. On PostgreSQL the check sees only committed claims, so two
	// claims starting together may both take zeros: best effort there.
	HoldUnscored bool
	// HoldWindow is how recent a claim must be to hold (0:
	// sqlshared.DefaultHoldWindow).
	HoldWindow time.Duration
	Lease      time.Duration
	Now        time.Time
	// Fence, when named, makes the claim fail with ErrFenced if a newer
	// token was raised for it (see Fence).
	Fence Fence
}

// Batch is the result of a claim.
type Batch struct {
	ID   string
	Size int
	// Held: the claim left zero-scored entries queued because entries of
	// the topic were in flight (ClaimRequest.HoldUnscored). An empty batch
	// that was Held means "ask again later", not "the frontier is empty";
	// with no zero-scored entry queued nothing is held.
	Held bool
}

// FrontierStats counts a topic's frontier entries by state.
type FrontierStats struct {
	Queued, Claimed, Done int
}

// BatchStats counts what the batches whose IDs start with one prefix did:
// the frontier entries they hold (claimed or done) and their pages by
// outcome. Derived from the store, the counts are exact however often the
// activity that made the batches was retried.
type BatchStats struct {
	Claimed    int // frontier entries claimed by the batches (the page budget they spent), lapsed claims whose page they saved included (CompleteEntries)
	Fetched    int // pages saved (fetched or failed)
	OK         int // 2xx pages
	Failed     int // pages whose fetch failed
	Parsed     int // pages with a parse record
	Accepted   int
	Rejected   int
	Tunnel     int
	Duplicates int
	Errors     int // decision "error" (fetch or parse failed)
	Indexed    int
}

// Page is one fetched (or failed) URL of a topic.
type Page struct {
	Topic        string
	URLHash      string
	URL          string
	FinalURL     string
	FinalHash    string
	CrawlID      string
	BatchID      string
	Seq          int64 // 1-based fetch order within the crawl, assigned by SavePage
	Depth        int
	ParentURL    string
	AnchorPath   string
	LinkScore    float64
	LinkStrategy string
	Status       int
	ErrorClass   string
	Error        string
	ContentType  string
	Charset      string
	ETag         string
	LastModified string
	ContentHash  string
	Bytes        int
	FetchedAt    time.Time
	// RobotsTag is the response's X-Robots-Tag header values, one per line
	// (parse.ApplyRobotsTags).
	RobotsTag string
	// Set after parsing and filtering.
	Title string
	Lang  string
	// TextHash is the near-duplicate signature of the page's plain text
	// (textsig.Signature), set by its parse write; "" for a page with too
	// little text, one not parsed yet, or one parsed before the store had
	// the column.
	TextHash  string
	Relevance float64
	Filter    string // page filter that decided
	Decision  string // one of the Decision* constants
	Reason    string // short human explanation of the decision
	Indexed   bool
	// Link analysis scores (RecomputeHubAuthority).
	Hub, Authority, IPageRank float64
}

// BestPagesQuery selects the pages Pages.BestPages returns: crawl
// CrawlID's pages with decision Decision, at a depth of at least MinDepth
// and, when MaxDepth > 0, below MaxDepth, whose reason contains ReasonHas
// (when not empty) and none of ReasonLacks (the empty string ignored) — at most Limit
// of them (Limit > 0), and when AfterHash is not empty only those after
// the page (AfterRelevance, AfterHash) in BestPages' order: where an
// earlier call's last page left off.
type BestPagesQuery struct {
	CrawlID, Decision  string
	MinDepth, MaxDepth int
	ReasonHas          string
	ReasonLacks        []string
	Limit              int
	AfterRelevance     float64
	AfterHash          string
}

// Decision is the verdict of the page filter on one page.
type Decision struct {
	Relevance float64
	Filter    string
	Decision  string
	Reason    string
	Title     string
	Lang      string
}

// Link is an edge of a topic's crawl graph.
type Link struct {
	Src     string // URL hash of the linking page
	Dst     string // URL hash of the target
	DstURL  string
	Anchor  string
	Context string
	Score   float64 // link predictor score
}

// InLink is a link into a page with its source page's state: the crawl
// that fetched the source, its decision, relevance and the URL its content
// came from (its final URL after redirects, else its URL) — zero values when
// the source has not been fetched.
type InLink struct {
	Src       string // URL hash of the linking page
	CrawlID   string
	Decision  string
	Relevance float64
	SrcURL    string
}

// OutLink is a link out of a page with what the store knows of its target
// page (zero values for a target never fetched).
type OutLink struct {
	Dst       string // URL hash of the target
	DstURL    string // the target's URL as linked
	CrawlID   string
	Decision  string
	Filter    string
	Relevance float64
}

// CrawlStats are counts over a crawl's pages.
type CrawlStats struct {
	Fetched       int // pages with a row (fetched or failed)
	OK            int // 2xx pages
	Accepted      int
	Rejected      int
	Tunnel        int
	Duplicates    int
	Errors        int
	Indexed       int
	ErrorsByClass map[string]int
}

// Judged is the number of pages the page filter judged (decision.Judged):
// accepted, rejected or kept as tunnels.
func (s CrawlStats) Judged() int { return s.Accepted + s.Rejected + s.Tunnel }

// Topics stores versioned topic files.
type Topics interface {
	// PutTopic stores yaml as the topic's newest version and returns its
	// version number; storing content identical to the latest version
	// returns that version unchanged.
	PutTopic(ctx context.Context, name string, yaml []byte) (int, error)
	// Topic returns a version of a topic; version 0 means the latest.
	Topic(ctx context.Context, name string, version int) (Topic, error)
	// TopicNames lists every topic stored (each crawl stores its topic
	// first), sorted.
	TopicNames(ctx context.Context) ([]string, error)
}

// Crawls stores crawl records.
type Crawls interface {
	// CreateCrawl inserts c; an existing ID is left unchanged (idempotent).
	// A new crawl's LinkModelVersion and RankVersion start at 0 whatever c
	// holds: SetCrawlModels sets them.
	CreateCrawl(ctx context.Context, c Crawl) error
	Crawl(ctx context.Context, id string) (Crawl, error)
	SetCrawlState(ctx context.Context, id, state string) error
	// SetCrawlTopicVersion records that the crawl now uses another topic version.
	SetCrawlTopicVersion(ctx context.Context, id string, version int) error
	// SetCrawlModels records the learned link model and rank versions the
	// crawl's workflow now uses (Crawl.LinkModelVersion, RankVersion).
	SetCrawlModels(ctx context.Context, id string, linkModel, ranks int) error
	// Crawls lists the newest crawls, of one topic or ("" ) of all.
	Crawls(ctx context.Context, topic string, limit int) ([]Crawl, error)
	CrawlStats(ctx context.Context, crawlID string) (CrawlStats, error)
	// CrawlLog calls fn for every page of the crawl in fetch order (Seq).
	CrawlLog(ctx context.Context, crawlID string, fn func(Page) error) error
	// RecentPages returns up to limit pages of the crawl fetched before
	// the page numbered beforeSeq (0: the newest), newest first: what a
	// computation over the crawl's last pages reads without its whole log.
	RecentPages(ctx context.Context, crawlID string, beforeSeq int64, limit int) ([]Page, error)
	// ResetTopic deletes all crawl state of a topic (frontier, pages, blobs,
	// links, term statistics, models); topic versions and crawl records stay,
	// and so does the generation of its term sample, bumped
	// (GroupResult.TermSampleGen).
	ResetTopic(ctx context.Context, topic string) error
}

// Frontier is the priority queue of URLs to fetch, with leased claims.
type Frontier interface {
	// Enqueue inserts entries as queued. An entry whose URL is already known
	// to the topic is not inserted again; if it is still queued and the new
	// priority times the lower of its sink (see DemoteQueued) and the
	// entry's Sink is higher, its priority becomes that (and its link
	// score/strategy the new ones); a URL given more than once in one call
	// is raised by each in turn.
	// It returns how many entries were newly inserted.
	Enqueue(ctx context.Context, entries []FrontierEntry, opt EnqueueOptions) (int, error)
	// ClaimBatch leases up to Max queued entries, highest priority first
	// (insertion order on ties), at most MaxPerHost per host, to BatchID.
	// Entries of expired leases whose pages were never saved are returned to
	// the queue first. Claiming an existing BatchID returns that batch again.
	ClaimBatch(ctx context.Context, req ClaimRequest) (Batch, error)
	// BatchEntries returns a batch's entries in claim order.
	BatchEntries(ctx context.Context, topic, batchID string) ([]FrontierEntry, error)
	// CompleteBatch marks a batch's entries done (idempotent).
	CompleteBatch(ctx context.Context, topic, batchID string) error
	// CompleteEntries marks entries done by URL hash (idempotent): the
	// streaming path finishes entries one page at a time. An entry queued
	// under no batch — its claim's lease ran out under the fetch, a later
	// claim put it back in the queue, and no one has claimed it since —
	// is done in the batch that saved its page (if any): the claim that
	// fetched the page stays counted in BatchStats.Claimed, the crawl's
	// page budget. An entry another batch claimed meanwhile is done in
	// that batch, which counts it.
	CompleteEntries(ctx context.Context, topic string, urlHashes []string) error
	// ReleaseBatches ends the claims of every batch whose ID starts with
	// prefix (a retried streaming activity takes over its dead attempt's
	// work): entries whose page was never saved go back to the queue; the
	// entries whose page was saved stay claimed and are returned, so the
	// caller can finish processing them. So are, left done, the batches'
	// entries that an expired lease closed while the page their batch saved
	// was still unjudged (a retry later than the lease): nothing else ever
	// judges such a page.
	ReleaseBatches(ctx context.Context, topic, prefix string) ([]FrontierEntry, error)
	// RequeueEntry returns one claimed entry to the queue unfetched — its
	// priority and place in line kept — if batchID still holds it, and
	// reports whether it did (a host that asked to be left alone: the
	// entry is fetched after the hold, not failed). The claim stays counted
	// in its Attempts unless uncount (a request that was never sent: the
	// worker stopping, a hold refusing it unsent).
	RequeueEntry(ctx context.Context, topic, urlHash, batchID string, uncount bool) (bool, error)
	// DemoteQueued multiplies by factor (0 <= factor < 1) the priority of
	// the topic's queued and claimed entries of host whose URL starts with
	// prefix, and returns how many it changed: a directory whose links keep
	// failing (a section of a site that is gone) sinks in the frontier. The
	// entries remember it (their sink, 1 until demoted, multiplied by
	// factor too): a priority written later — Reprioritize, or Enqueue
	// raising a known entry — is multiplied by it, so the entry stays sunk,
	// and a claimed one that goes back to the queue (a released or lapsed
	// claim) comes back sunk.
	DemoteQueued(ctx context.Context, topic, host, prefix string, factor float64) (int, error)
	// BatchStats counts the work of the batches whose IDs start with prefix.
	BatchStats(ctx context.Context, topic, prefix string) (BatchStats, error)
	// FailedByClass counts the failed pages of the batches whose IDs start
	// with prefix by their error class (BatchStats.Failed split up): what
	// an operator's metrics show of a crawl's failures.
	FailedByClass(ctx context.Context, topic, prefix string) (map[string]int, error)
	// RaiseFence records token as the fence's newest (see Fence), unless a
	// higher one is recorded, in which case it returns ErrFenced. A claim
	// already running when the fence rises finishes first; every claim
	// after it sees the new token.
	RaiseFence(ctx context.Context, topic string, f Fence) error
	// PruneFences deletes the topic's fences last raised before
	// raisedBefore and returns how many. A fence holds back attempts that
	// started before its last raise; once they have all reached their
	// deadline it holds back nothing, and its row only takes space. The
	// caller picks raisedBefore past the longest an attempt may run. A
	// pruned fence's name starts afresh: any token passes it. Fences with
	// no raise time (written by a release before it was recorded, during a
	// rolling upgrade) are kept.
	PruneFences(ctx context.Context, topic string, raisedBefore time.Time) (int, error)
	FrontierStats(ctx context.Context, topic string) (FrontierStats, error)
	// FrontierBusy reports whether the topic has any entry queued or
	// claimed, read from the entries themselves (an index lookup, no write):
	// a crawl slice asks it whenever its claim finds nothing, to tell a busy
	// frontier from an exhausted one.
	FrontierBusy(ctx context.Context, topic string) (bool, error)
	// Reprioritize sets new priorities for queued entries (by URL hash),
	// each multiplied by its entry's sink (see DemoteQueued).
	Reprioritize(ctx context.Context, topic string, priorities map[string]float64) error
}

// Pages stores fetched pages, their blobs and decisions.
type Pages interface {
	// SavePage records a fetched (or failed) page with its body (nil for
	// failures). Idempotent on (Topic, URLHash): when the page exists, the
	// stored row is returned unchanged with created=false. A new page gets
	// the next Seq of its crawl.
	SavePage(ctx context.Context, p Page, body []byte) (saved Page, created bool, err error)
	Page(ctx context.Context, topic, urlHash string) (Page, error)
	// BatchPages returns the pages saved by a batch, in Seq order.
	BatchPages(ctx context.Context, topic, batchID string) ([]Page, error)
	// ClaimedPages returns, by URL hash, the topic's stored pages of the
	// entries batchID holds (a frontier batch, BatchEntries): the entries
	// of a claim that were fetched already — by an attempt that died after
	// saving them, or under a lease that ran out — whichever batch saved
	// them. One read per claim, where the fetch path read each entry's
	// page (Page) before its request.
	ClaimedPages(ctx context.Context, topic, batchID string) (map[string]Page, error)
	// DuplicateOf returns the URL hash of an earlier page of the topic (lower
	// Seq, or another crawl's judged page) or an accepted one (whatever its
	// order) with the same final URL hash or content hash or, failing
	// both, the same TextHash (a near-duplicate candidate, which the
	// caller confirms), or "". A page
	// judged a duplicate is never the original: a copy of a copy is judged
	// against the first; nor is another crawl's page waiting to be judged
	// (two pages of a refresh batch would each be the other's copy).
	// Accepted pages count in any order because index documents are keyed
	// by final URL hash: a second accepted page there (a refresh that finds
	// an earlier page redirected onto a later one) would share — and
	// overwrite — the first one's document. Pages among skip (URL hashes)
	// are passed over: the caller's choice of pages that are no originals
	// (a page whose X-Robots-Tag forbids indexing is none for its content).
	DuplicateOf(ctx context.Context, p Page, skip ...string) (string, error)
	// IndexHolders returns, by final URL hash, a page of the topic other
	// than those of except (URL hashes) that is accepted and flagged indexed
	// with that final URL hash — the earliest fetched when several are —
	// for each of finalHashes that has one. A page giving up its index
	// document (withdrawn, gone, moved, now a duplicate or noindex) asks it
	// first: the document is keyed by final URL hash, so another page may
	// still hold it.
	IndexHolders(ctx context.Context, topic string, finalHashes, except []string) (map[string]Page, error)
	// SharedFinalHashes returns, sorted, the final URL hashes that two or
	// more of the topic's accepted pages flagged indexed share: the
	// documents whose holder (IndexHolders) a reindex must pick, rare
	// enough to be held in memory where the topic's pages are not.
	SharedFinalHashes(ctx context.Context, topic string) ([]string, error)
	// Blob returns a stored blob of a page (ErrNotFound if absent).
	Blob(ctx context.Context, topic, urlHash, kind string) ([]byte, error)
	// SaveParse stores the encoded parse result of a page and, in the same
	// transaction and only the first time, adds the page's distinct terms to
	// the topic's document-frequency statistics (unless its term sample is
	// full: a GroupWrite with no TermSample). The page's TextHash is set
	// empty (a GroupWrite's ParseWrite carries one). Idempotent.
	SaveParse(ctx context.Context, topic, urlHash string, parsed []byte, title, lang string, terms []string) error
	// DeleteBlob removes a blob (e.g. the body once parsed, unless archiving).
	DeleteBlob(ctx context.Context, topic, urlHash, kind string) error
	SetDecision(ctx context.Context, topic, urlHash string, d Decision) error
	MarkIndexed(ctx context.Context, topic string, urlHashes []string) error
	// AcceptedPages lists a topic's accepted pages (for refresh and reindexing).
	AcceptedPages(ctx context.Context, topic string, fn func(Page) error) error
	// AcceptedPagesAfter is AcceptedPages from the first page whose URL
	// hash is after after: where a walk interrupted there goes on.
	AcceptedPagesAfter(ctx context.Context, topic, after string, fn func(Page) error) error
	// BestPages returns the pages q selects, best first (Relevance
	// descending, URL hash ascending on ties): the pages whose out-links
	// a crawl follows when its frontier ran dry
	// (activities.ExpandPruned). The database reads every page of the
	// crawl (through its index by crawl) and sorts those that match for
	// the best q.Limit, so a call costs O(crawl) in the database but
	// hands over q.Limit pages at most. There is no index by score on
	// purpose: it would cost every page write of the crawl (its hot
	// path), and a dry frontier's rounds, the one caller, are rare next
	// to page writes.
	BestPages(ctx context.Context, q BestPagesQuery) ([]Page, error)
	// DryExpanded counts, by decision, the crawl's pages whose reason
	// contains mark, which tells a retried round of
	// activities.ExpandPruned the pages an earlier attempt of it expanded
	// (its mark holds the round's number). Like BestPages it reads every
	// page of the crawl in the database, O(crawl), once a round.
	DryExpanded(ctx context.Context, crawlID, mark string) (map[string]int, error)
	// SetScores writes link-analysis scores.
	SetScores(ctx context.Context, topic string, scores map[string][3]float64) error
}

// Links stores the crawl graph.
type Links interface {
	// AddLinks inserts edges; an existing (src, dst) edge is kept.
	AddLinks(ctx context.Context, topic string, links []Link) error
	// Edges calls fn for every edge of the topic's graph.
	Edges(ctx context.Context, topic string, fn func(Link) error) error
	// GraphEdges is Edges with only each link's Src, Dst and Score set,
	// for computations over the whole graph.
	GraphEdges(ctx context.Context, topic string, fn func(Link) error) error
	// InAnchors returns up to limit anchor texts of links pointing to dst.
	InAnchors(ctx context.Context, topic, dst string, limit int) ([]string, error)
	// InLinks returns the links into each of dsts with what the store knows
	// of their source pages (InLink), by target, sources in hash order. It
	// reads only the targets' links (an index range per target), so its cost
	// follows len(dsts) and their in-degree, not the topic's graph — what
	// split acceptance reads per processing group (activities/split.go).
	InLinks(ctx context.Context, topic string, dsts []string) (map[string][]InLink, error)
	// OutLinks returns the links out of each of srcs with what the store
	// knows of their target pages (OutLink), by source, targets in hash
	// order; like InLinks its cost follows len(srcs) and their out-degree.
	OutLinks(ctx context.Context, topic string, srcs []string) (map[string][]OutLink, error)
}

// Hosts coordinates politeness across all workers, and keeps what a topic's
// crawls learned about each host.
type Hosts interface {
	// ReserveHostSlot atomically books the next request slot of host: it
	// returns at = max(now, next allowed time) and moves the host's next
	// allowed time to at + delay. The caller waits until at, then fetches.
	ReserveHostSlot(ctx context.Context, host string, delay time.Duration, now time.Time) (time.Time, error)
	// HoldHost records that host asked to be left alone until until (it
	// answered 429 or 503, or sent Retry-After); a later hold than the one
	// recorded wins, an earlier one changes nothing.
	HoldHost(ctx context.Context, host string, until time.Time) error
	// HeldHosts lists the hosts held after now: every worker's claims
	// leave their entries queued (ClaimRequest.ExcludeHosts).
	HeldHosts(ctx context.Context, now time.Time) ([]string, error)
	// HostHeldUntil returns when host's hold (HoldHost) ends, as recorded
	// by any worker; zero when it was never held.
	HostHeldUntil(ctx context.Context, host string) (time.Time, error)
	// HostYields returns the topic's judged and accepted page counts of
	// each of hosts that has any (a PageDecision with YieldHost adds to
	// them); hosts never counted are absent.
	HostYields(ctx context.Context, topic string, hosts []string) (map[string]HostYield, error)
}

// HostYield counts a topic's judged pages of one host (fetch failures
// included) and how many of them were accepted: internal/hostyield turns
// them into a priority factor on links into the host.
type HostYield struct {
	Host     string
	Judged   int
	Accepted int
}

// Terms holds running document-frequency statistics of a topic's pages,
// used for TF-IDF weighting.
type Terms interface {
	// TermStats returns the number of parsed documents, the document
	// frequency of each requested term (DF), and the term sample's
	// generation and size, read together.
	TermStats(ctx context.Context, topic string, terms []string) (TermTotals, error)
	// AllTermStats is TermStats of every term the topic counted: the
	// whole statistics of a topic whose term sample is full
	// (GroupWrite.TermSample), which a worker keeps in memory.
	AllTermStats(ctx context.Context, topic string) (TermTotals, error)
}

// TermTotals is a topic's term statistics as one read saw them
// (Terms.TermStats, AllTermStats).
type TermTotals struct {
	// Docs is the number of parsed documents counted.
	Docs int
	// Gen is the generation of the topic's term sample (GroupResult.
	// TermSampleGen), which tells a sample refilled after a reset from
	// the one before it when both hold as many documents.
	Gen int64
	// Sample is the size fixed for the topic's term sample by the write
	// that started it (GroupWrite.TermSample): 0 while none is fixed (no
	// document counted since the last reset, or counted by a release
	// that kept no size), negative when the sample has no bound.
	Sample int
	// DF is the document frequency of the terms read.
	DF map[string]int
}

// Full reports whether the topic's term sample is full at these
// statistics: past its fixed size, or past sample (a worker's
// GroupWrite.TermSample, which its next write would fix) when none is
// fixed yet. It is what a write beginning now would find (GroupResult.
// TermSampleFull).
func (tt TermTotals) Full(sample int) bool {
	if tt.Sample != 0 {
		sample = tt.Sample
	}
	return sample > 0 && tt.Docs >= sample
}

// Models stores versioned learned models and topic vectors.
type Models interface {
	// PutModel stores data as the newest version of (topic, kind) and
	// returns its number. A number is never handed out twice for a (topic,
	// kind), not even after ResetTopic deleted the versions: workers cache
	// decoded versions by number.
	PutModel(ctx context.Context, topic, kind string, data []byte) (int, error)
	// Model returns a version (0 = latest) of (topic, kind).
	Model(ctx context.Context, topic, kind string, version int) ([]byte, int, error)
	// PruneModels deletes the versions of (topic, kind) but the newest
	// keep (≥ 1) and returns how many it deleted. Their numbers are not
	// handed out again (PutModel).
	PruneModels(ctx context.Context, topic, kind string, keep int) (int, error)
}

// QueryCount is a search query that found nothing, with how often and when
// it was last asked.
type QueryCount struct {
	Query string
	Count int
	Last  time.Time
}

// CandidateKeywordsKind is the model kind (Models) of a topic's candidate
// keywords: search queries that found nothing, recorded by seed expansion
// for the operator, who may add them to the topic with the update-topic
// signal. The topic is never changed automatically.
const CandidateKeywordsKind = "candidate-keywords"

// CandidateKeywords is the stored form (JSON) of a topic's candidate keywords.
type CandidateKeywords struct {
	Topic   string       `json:"topic"`
	Queries []QueryCount `json:"queries"`
}

// Queries records search queries that found no results (seed 003: they
// become candidate keywords of the topic). They are the users' history, not
// crawl state: ResetTopic keeps them.
type Queries interface {
	// RecordNoResultQuery counts one no-result search of topic for query
	// (whitespace-collapsed; empty topic or query is an error).
	RecordNoResultQuery(ctx context.Context, topic, query string, at time.Time) error
	// NoResultQueries lists a topic's no-result queries, most frequent
	// first, then most recent; limit <= 0 means all. A row is a query as
	// typed: readers count the forms of one query once
	// (search.NoResultQueries), as the store cannot run the tokenizer.
	NoResultQueries(ctx context.Context, topic string, limit int) ([]QueryCount, error)
}

// GroupWrite is everything one processing group of the streaming fetch
// path writes, for Groups.WriteGroup to apply in one transaction: a write
// transaction per stage and page was the largest cost of a crawl on fast
// sites. Each part has the semantics of the single-purpose method named
// beside it, and the parts are applied in the order of the fields.
type GroupWrite struct {
	Topic string
	// Pages are pages fetched but not yet saved (SavePage), saved in this
	// order: each gets the next Seq of its crawl. A page of the list that
	// already exists fails the whole write: whoever saved it meanwhile owns
	// it (a claim that outlived its lease), and the caller's view is stale.
	Pages []PageBody
	// Parses are parse results (SaveParse); DropBody also removes the
	// page's body blob (DeleteBlob), if any.
	Parses []ParseWrite
	// Decisions are page filter verdicts (SetDecision).
	Decisions []PageDecision
	// Links are crawl-graph edges (AddLinks).
	Links []Link
	// Entries are new frontier entries (Enqueue with EnqueueOptions).
	Entries        []FrontierEntry
	EnqueueOptions EnqueueOptions
	// Indexed are pages to flag indexed (MarkIndexed).
	Indexed []string
	// Complete are frontier entries to mark done (CompleteEntries).
	Complete []string
	// Fence, when named, makes the write fail with ErrFenced, writing
	// nothing, if a newer token was raised for it (see Fence): a superseded
	// slice attempt's processing stops at its next write, not only at its
	// next claim.
	Fence Fence
	// TermSample, when positive, bounds the topic's term statistics to a
	// sample of its first pages: the Parses count their pages' terms only
	// if fewer than TermSample documents were counted when the write
	// began (so a sample may end up one group larger, on PostgreSQL one
	// group per writer that began before the sample filled). The pages are
	// marked as counted either way, so a retry counts nothing.
	//
	// The size is the sample's, not the write's: the write that starts a
	// sample (the first to count a document of the topic, or since its
	// reset) fixes it — 0 fixing no bound — and every later write, of any
	// worker, goes by the fixed size (TermTotals.Sample), whatever its own
	// TermSample. Workers configured differently would otherwise disagree
	// on when the sample is full: one freezing its statistics while
	// another counts on. A sample counted by a release that kept no size
	// gets this write's.
	TermSample int
}

// PageBody is a page to save with its body (nil for a failed fetch).
type PageBody struct {
	Page Page
	Body []byte
}

// MaxTermBytes is the longest term a ParseWrite may count in the topic's
// document frequencies (checked on both stores by the contract tests):
// PostgreSQL keys them by (topic, term) in a B-tree, whose entries hold at
// most 2704 bytes, and a longer term (a page's 3 kB hex dump) failed the
// whole group's write at every retry. The tokenizer emits no longer word
// (textproc.MaxWordBytes).
const MaxTermBytes = 512

// ParseWrite is one page's parse result (see Pages.SaveParse).
type ParseWrite struct {
	URLHash     string
	Parsed      []byte
	Title, Lang string
	// TextHash is stored as the page's Page.TextHash.
	TextHash string
	Terms    []string
	DropBody bool
}

// PageDecision is one page's verdict (see Pages.SetDecision).
type PageDecision struct {
	URLHash string
	Decision
	// YieldHost, when set, is the page's host: if this decision is the
	// page's first (the page was pending), it counts into the host's yield
	// (Hosts.HostYields) — judged, and accepted when Decision is. Only the
	// first judgement counts, so two attempts judging the same page, or a
	// retried group, count it once.
	YieldHost string
	// RecountHost, when set, is the page's host: if this decision changes
	// whether the page is accepted — re-judgement withdrawing an accepted
	// page, or promoting a judged one — the host's accepted count follows
	// (one less, never below 0, or one more); its judged count stays. For
	// pages whose first judgement was counted (YieldHost).
	RecountHost string
	// YieldAlso, when set with YieldHost or RecountHost, is a second key
	// the same counts go to: a class of pages counted as a whole
	// (hostyield.Outward, the pages reached through a link from another
	// host), read back by HostYields like a host.
	YieldAlso string
}

// Groups writes a processing group's results at once.
type Groups interface {
	// WriteGroup applies g in one transaction (all of it or nothing) and
	// says what it did. Every part is idempotent as its single-purpose
	// method is, except Pages (see GroupWrite).
	WriteGroup(ctx context.Context, g GroupWrite) (GroupResult, error)
}

// GroupResult is what a WriteGroup did.
type GroupResult struct {
	Enqueued int // frontier entries newly inserted
	// Seqs are the Seq numbers the group's Pages were saved with, by URL
	// hash: with them the caller holds its pages as stored, without
	// reading them back.
	Seqs map[string]int64
	// TermDocs and TermDF are the topic's document count and the document
	// frequencies of the terms the group's parse records counted, as this
	// write left them (TermDF nil when it counted no page: none, or all
	// counted before, a retry). The caller's next stage builds its IDF from
	// them instead of reading back what the write just wrote.
	TermDocs int
	TermDF   map[string]int
	// TermSampleFull: the topic's term sample was full when the write
	// began, at TermDocs documents (its fixed size, GroupWrite.TermSample,
	// reached), so its parse records counted
	// nothing, and the topic's term statistics stay as they are until
	// ResetTopic.
	TermSampleFull bool
	// TermSampleGen is the generation of the topic's term sample when
	// TermSampleFull: ResetTopic bumps it, starting a new sample. A worker
	// keeping a full sample's statistics knows them by document count and
	// generation: a topic reset (by another worker, under the same crawl
	// ID) whose new sample filled to the same count differs in the latter.
	// A topic's generations never repeat, not even when a release before
	// them reset the topic (deleting its statistics' row, which restarted
	// them at 0): the store keeps the last one past such a delete.
	TermSampleGen int64
}

// Store is the whole crawl store.
type Store interface {
	Groups
	Topics
	Crawls
	Frontier
	Pages
	Links
	Hosts
	Terms
	Models
	Queries
	Refreshes
	Close() error
}
