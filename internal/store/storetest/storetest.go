// Package storetest is the contract test suite of store.Store. Every backend
// runs it from its own tests:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { ... })
//	}
//
// The suite checks the semantics documented on the store interfaces,
// including the idempotency guarantees activity retries rely on and the
// atomicity of sequence numbers, claims and host slots under concurrency.
// Time-dependent behaviour is checked on the times passed in and returned,
// never against the wall clock.
//
// RunUpgrade is the SQL backends' upgrade test: a database filled at each
// older schema version, opened by the current code, must keep its rows and
// behave like a new one (upgrade.go).
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// Run runs the contract suite. open must return a new, empty store for each
// call and arrange (with t.Cleanup) for it to be closed.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"TopicVersions", testTopicVersions},
		{"Crawls", testCrawls},
		{"EnqueueDedupe", testEnqueueDedupe},
		{"EnqueueRaisesPriorityWhileQueued", testEnqueueRaise},
		{"EnqueueRaisesInOneCall", testEnqueueRaiseInOneCall},
		{"EnqueueMaxPerHost", testEnqueueMaxPerHost},
		{"ClaimOrder", testClaimOrder},
		{"ClaimMaxPerHost", testClaimMaxPerHost},
		{"ClaimSkipsFullHostsDeepInQueue", testClaimDeepQueue},
		{"ClaimSameBatchIDIdempotent", testClaimIdempotent},
		{"ClaimExpiredLease", testClaimExpiredLease},
		{"ClaimConcurrent", testClaimConcurrent},
		{"CompleteBatch", testCompleteBatch},
		{"ClaimExcludeHosts", testClaimExcludeHosts},
		{"ClaimMatchesModel", testClaimMatchesModel},
		{"ClaimMinRatio", testClaimMinRatio},
		{"ClaimExploreHosts", testClaimExploreHosts},
		{"ClaimHoldUnscored", testClaimHoldUnscored},
		{"CompleteEntries", testCompleteEntries},
		{"ReleaseBatches", testReleaseBatches},
		{"ReleaseBatchesAfterExpiry", testReleaseBatchesAfterExpiry},
		{"LapsedClaimStaysCounted", testLapsedClaimStaysCounted},
		{"RequeueEntry", testRequeueEntry},
		{"DemoteQueued", testDemoteQueued},
		{"DemotionOutlastsNewPriorities", testDemotionOutlastsNewPriorities},
		{"EnqueueMergesKnownBySink", testEnqueueMergesKnownBySink},
		{"ClaimFence", testClaimFence},
		{"PruneFences", testPruneFences},
		{"FrontierBusy", testFrontierBusy},
		{"BatchStats", testBatchStats},
		{"Reprioritize", testReprioritize},
		{"NonFinitePriorities", testNonFinitePriorities},
		{"SavePageIdempotent", testSavePageIdempotent},
		{"SavePageConcurrentSeq", testSavePageConcurrentSeq},
		{"BatchPages", testBatchPages},
		{"DuplicateOf", testDuplicateOf},
		{"DuplicateOfText", testDuplicateOfText},
		{"DuplicateOfAcceptedAnyOrder", testDuplicateOfAccepted},
		{"IndexHolders", testIndexHolders},
		{"SharedFinalHashes", testSharedFinalHashes},
		{"Blobs", testBlobs},
		{"SaveParseCountsOnce", testSaveParse},
		{"DecisionsAndIndexing", testDecisions},
		{"CrawlStats", testCrawlStats},
		{"CrawlLog", testCrawlLog},
		{"BestPages", testBestPages},
		{"DryExpanded", testDryExpanded},
		{"SetScores", testSetScores},
		{"Links", testLinks},
		{"EdgesMany", testEdgesMany},
		{"InLinks", testInLinks},
		{"OutLinksAndRecentPages", testOutLinksAndRecentPages},
		{"HostYields", testHostYields},
		{"ReserveHostSlot", testReserveHostSlot},
		{"HoldHost", testHoldHost},
		{"ReserveHostSlotConcurrent", testReserveHostSlotConcurrent},
		{"Models", testModels},
		{"ResetTopic", testResetTopic},
		{"ResetTopicRacingEnqueue", testResetTopicRacingEnqueue},
		{"NoResultQueries", testNoResultQueries},
		{"Refresh", testRefresh},
		{"RefreshUnjudged", testRefreshUnjudged},
		{"RefreshDropped", testRefreshDropped},
		{"RefreshRenew", testRefreshRenew},
		{"RefreshClaimAfterRenew", testRefreshClaimAfterRenew},
		{"RefreshHold", testRefreshHold},
		{"RefreshRelease", testRefreshRelease},
		{"RefreshReclaimReleased", testRefreshReclaimReleased},
		{"RefreshBackoff", testRefreshBackoff},
		{"RefreshDueBy", testRefreshDueBy},
		{"RefreshMakeDue", testRefreshMakeDue},
		{"RefreshMakeDueOrder", testRefreshMakeDueOrder},
		{"RefreshOutlook", testRefreshOutlook},
		{"RefreshGivenUp", testRefreshGivenUp},
		{"RefreshReleaseCopies", testRefreshReleaseCopies},
		{"RefreshConcurrentClaims", testRefreshConcurrentClaims},
		{"RefreshPostponed", testRefreshPostponed},
		{"RefreshUnreachable", testRefreshUnreachable},
		{"RefreshClaimOrder", testRefreshClaimOrder},
		{"WriteGroup", testWriteGroup},
		{"TermSample", testTermSample},
		{"TermSampleSize", testTermSampleSize},
		{"InvalidUTF8Text", testInvalidUTF8Text},
		{"EmptyBatchID", testEmptyBatchID},
		{"LongTerms", testLongTerms},
		{"TermsEscaped", testTermsEscaped},
		{"ClaimedPages", testClaimedPages},
		{"WriteGroupAtomic", testWriteGroupAtomic},
		{"WriteGroupKnownLinkKeepsPriority", testWriteGroupKnownLink},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, open(t))
		})
	}
}

// t0 has nanoseconds so that precision loss shows.
var t0 = time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)

func u(host string, i int) string { return fmt.Sprintf("https://%s/page/%d", host, i) }

func hash(url string) string { return urlnorm.Hash(url) }

func entry(topic, url string, prio float64) store.FrontierEntry {
	return store.FrontierEntry{
		Topic: topic, URL: url, URLHash: urlnorm.Hash(url), Host: urlnorm.Host(url),
		Priority: prio, Strategy: "test", CrawlID: "crawl-1",
	}
}

func page(topic, crawl, url string) store.Page {
	return store.Page{
		Topic: topic, URLHash: urlnorm.Hash(url), URL: url, FinalURL: url, FinalHash: urlnorm.Hash(url),
		CrawlID: crawl, Status: 200, ContentType: "text/html", FetchedAt: t0, RobotsTag: "noarchive",
	}
}

func enqueue(t *testing.T, s store.Store, opt store.EnqueueOptions, es ...store.FrontierEntry) int {
	t.Helper()
	n, err := s.Enqueue(t.Context(), es, opt)
	if err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	return n
}

func claim(t *testing.T, s store.Store, req store.ClaimRequest) []store.FrontierEntry {
	t.Helper()
	if req.Lease == 0 {
		req.Lease = time.Hour
	}
	if req.Now.IsZero() {
		req.Now = t0
	}
	b, err := s.ClaimBatch(t.Context(), req)
	if err != nil {
		t.Fatalf("ClaimBatch(%+v): %v", req, err)
	}
	es, err := s.BatchEntries(t.Context(), req.Topic, req.BatchID)
	if err != nil {
		t.Fatalf("BatchEntries(%q): %v", req.BatchID, err)
	}
	if b.ID != req.BatchID || b.Size != len(es) {
		t.Fatalf("ClaimBatch(%q) = %+v, but BatchEntries has %d entries", req.BatchID, b, len(es))
	}
	return es
}

func urls(es []store.FrontierEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.URL
	}
	return out
}

func savePage(t *testing.T, s store.Store, p store.Page, body []byte) store.Page {
	t.Helper()
	saved, created, err := s.SavePage(t.Context(), p, body)
	if err != nil {
		t.Fatalf("SavePage(%s): %v", p.URL, err)
	}
	if !created {
		t.Fatalf("SavePage(%s): created = false for a new page", p.URL)
	}
	return saved
}

func wantNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("%s: error = %v, want store.ErrNotFound", what, err)
	}
}

// checkBusy checks FrontierBusy(topic) against want.
func checkBusy(t *testing.T, s store.Store, topic string, want bool) {
	t.Helper()
	if busy, err := s.FrontierBusy(t.Context(), topic); err != nil || busy != want {
		t.Errorf("FrontierBusy(%q) = %v, %v; want %v", topic, busy, err, want)
	}
}

func frontierStats(t *testing.T, s store.Store, topic string) store.FrontierStats {
	t.Helper()
	st, err := s.FrontierStats(t.Context(), topic)
	if err != nil {
		t.Fatalf("FrontierStats(%q): %v", topic, err)
	}
	return st
}

// samePage compares pages field by field, times with Equal.
func samePage(t *testing.T, what string, got, want store.Page) {
	t.Helper()
	if !got.FetchedAt.Equal(want.FetchedAt) {
		t.Errorf("%s: FetchedAt = %v, want %v", what, got.FetchedAt, want.FetchedAt)
	}
	if loc := got.FetchedAt.Location(); !got.FetchedAt.IsZero() && loc != time.UTC {
		t.Errorf("%s: FetchedAt in %v, want UTC", what, loc)
	}
	got.FetchedAt, want.FetchedAt = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

func testTopicVersions(t *testing.T, s store.Store) {
	ctx := t.Context()
	a, b := []byte("name: a\n"), []byte("name: b\n")
	steps := []struct {
		yaml []byte
		want int
	}{
		{a, 1}, {a, 1}, {b, 2}, {b, 2}, {a, 3},
	}
	for i, st := range steps {
		v, err := s.PutTopic(ctx, "go", st.yaml)
		if err != nil {
			t.Fatalf("step %d: PutTopic: %v", i, err)
		}
		if v != st.want {
			t.Errorf("step %d: PutTopic(%q) = %d, want %d", i, st.yaml, v, st.want)
		}
	}
	latest, err := s.Topic(ctx, "go", 0)
	if err != nil {
		t.Fatalf("Topic(go, 0): %v", err)
	}
	sum := sha256.Sum256(a)
	if latest.Name != "go" || latest.Version != 3 || string(latest.YAML) != string(a) || latest.Hash != hex.EncodeToString(sum[:]) {
		t.Errorf("Topic(go, 0) = %+v, want version 3 of %q", latest, a)
	}
	if latest.CreatedAt.IsZero() || latest.CreatedAt.Location() != time.UTC {
		t.Errorf("Topic(go, 0).CreatedAt = %v, want a UTC time", latest.CreatedAt)
	}
	v2, err := s.Topic(ctx, "go", 2)
	if err != nil || v2.Version != 2 || string(v2.YAML) != string(b) {
		t.Errorf("Topic(go, 2) = %+v, %v; want version 2 of %q", v2, err, b)
	}
	_, err = s.Topic(ctx, "go", 9)
	wantNotFound(t, "Topic(go, 9)", err)
	if _, err := s.PutTopic(ctx, "ant", []byte("name: ant\n")); err != nil {
		t.Fatal(err)
	}
	if names, err := s.TopicNames(ctx); err != nil || fmt.Sprint(names) != "[ant go]" {
		t.Errorf("TopicNames = %v, %v; want [ant go], each once", names, err)
	}
	_, err = s.Topic(ctx, "nope", 0)
	wantNotFound(t, "Topic(nope, 0)", err)
	// Versions are per topic.
	if v, err := s.PutTopic(ctx, "rust", b); err != nil || v != 1 {
		t.Errorf("PutTopic(rust) = %d, %v; want 1", v, err)
	}
}

func testCrawls(t *testing.T, s store.Store) {
	ctx := t.Context()
	c1 := store.Crawl{ID: "wf-1", Topic: "go", TopicVersion: 1, State: store.CrawlRunning, StartedAt: t0, UpdatedAt: t0}
	if err := s.CreateCrawl(ctx, c1); err != nil {
		t.Fatalf("CreateCrawl: %v", err)
	}
	again := c1
	again.TopicVersion, again.State = 7, store.CrawlFailed
	if err := s.CreateCrawl(ctx, again); err != nil {
		t.Fatalf("CreateCrawl again: %v", err)
	}
	got, err := s.Crawl(ctx, "wf-1")
	if err != nil {
		t.Fatalf("Crawl: %v", err)
	}
	if got.ID != c1.ID || got.Topic != c1.Topic || got.TopicVersion != 1 || got.State != store.CrawlRunning ||
		!got.StartedAt.Equal(t0) || got.StartedAt.Location() != time.UTC {
		t.Errorf("Crawl after second CreateCrawl = %+v, want %+v unchanged", got, c1)
	}
	_, err = s.Crawl(ctx, "wf-missing")
	wantNotFound(t, "Crawl(wf-missing)", err)

	if err := s.SetCrawlState(ctx, "wf-1", store.CrawlPaused); err != nil {
		t.Fatalf("SetCrawlState: %v", err)
	}
	if err := s.SetCrawlTopicVersion(ctx, "wf-1", 2); err != nil {
		t.Fatalf("SetCrawlTopicVersion: %v", err)
	}
	got, _ = s.Crawl(ctx, "wf-1")
	if got.State != store.CrawlPaused || got.TopicVersion != 2 {
		t.Errorf("after updates Crawl = %+v, want state paused, topic version 2", got)
	}
	wantNotFound(t, "SetCrawlState(wf-missing)", s.SetCrawlState(ctx, "wf-missing", store.CrawlStopped))
	wantNotFound(t, "SetCrawlTopicVersion(wf-missing)", s.SetCrawlTopicVersion(ctx, "wf-missing", 3))
	if got.LinkModelVersion != 0 || got.RankVersion != 0 {
		t.Errorf("new crawl's model versions = %d, %d, want 0, 0", got.LinkModelVersion, got.RankVersion)
	}
	if err := s.SetCrawlModels(ctx, "wf-1", 4, 7); err != nil {
		t.Fatalf("SetCrawlModels: %v", err)
	}
	got, _ = s.Crawl(ctx, "wf-1")
	if got.LinkModelVersion != 4 || got.RankVersion != 7 || got.State != store.CrawlPaused || got.TopicVersion != 2 {
		t.Errorf("after SetCrawlModels Crawl = %+v, want link model 4, ranks 7, the rest unchanged", got)
	}
	wantNotFound(t, "SetCrawlModels(wf-missing)", s.SetCrawlModels(ctx, "wf-missing", 1, 1))

	for _, c := range []store.Crawl{
		{ID: "wf-2", Topic: "go", TopicVersion: 1, State: store.CrawlRunning, StartedAt: t0.Add(time.Hour)},
		{ID: "wf-3", Topic: "rust", TopicVersion: 1, State: store.CrawlRunning, StartedAt: t0.Add(2 * time.Hour)},
	} {
		if err := s.CreateCrawl(ctx, c); err != nil {
			t.Fatalf("CreateCrawl(%s): %v", c.ID, err)
		}
	}
	ids := func(topic string, limit int) []string {
		cs, err := s.Crawls(ctx, topic, limit)
		if err != nil {
			t.Fatalf("Crawls(%q, %d): %v", topic, limit, err)
		}
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	for _, tc := range []struct {
		topic string
		limit int
		want  []string
	}{
		{"go", 0, []string{"wf-2", "wf-1"}},
		{"go", 1, []string{"wf-2"}},
		{"", 2, []string{"wf-3", "wf-2"}},
		{"", 0, []string{"wf-3", "wf-2", "wf-1"}},
		{"java", 0, nil},
	} {
		if got := ids(tc.topic, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("Crawls(%q, %d) = %v, want %v", tc.topic, tc.limit, got, tc.want)
		}
	}
}

func testEnqueueDedupe(t *testing.T, s store.Store) {
	es := []store.FrontierEntry{entry("go", u("a.test", 1), 1), entry("go", u("a.test", 2), 1), entry("go", u("b.test", 1), 1)}
	if n := enqueue(t, s, store.EnqueueOptions{}, es...); n != 3 {
		t.Errorf("first Enqueue inserted %d, want 3", n)
	}
	if n := enqueue(t, s, store.EnqueueOptions{}, es...); n != 0 {
		t.Errorf("second Enqueue inserted %d, want 0", n)
	}
	// The same URL twice in one call counts once.
	dup := entry("go", u("c.test", 1), 1)
	if n := enqueue(t, s, store.EnqueueOptions{}, dup, dup); n != 1 {
		t.Errorf("Enqueue of one URL twice inserted %d, want 1", n)
	}
	// The same URL in another topic is another entry.
	if n := enqueue(t, s, store.EnqueueOptions{}, entry("rust", u("a.test", 1), 1)); n != 1 {
		t.Errorf("Enqueue in another topic inserted %d, want 1", n)
	}
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{Queued: 4}) {
		t.Errorf("FrontierStats(go) = %+v, want 4 queued", st)
	}
	// Done entries are still known: enqueueing them again inserts nothing.
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 10})
	if err := s.CompleteBatch(t.Context(), "go", "b1"); err != nil {
		t.Fatalf("CompleteBatch: %v", err)
	}
	if n := enqueue(t, s, store.EnqueueOptions{}, es...); n != 0 {
		t.Errorf("Enqueue of done URLs inserted %d, want 0", n)
	}
}

func testEnqueueRaise(t *testing.T, s store.Store) {
	a, b := entry("go", u("a.test", 1), 1), entry("go", u("b.test", 1), 2)
	enqueue(t, s, store.EnqueueOptions{}, a, b)

	higher := a
	higher.Priority, higher.LinkScore, higher.Strategy = 5, 0.9, "better"
	lower := b
	lower.Priority, lower.Strategy = 0.5, "worse"
	if n := enqueue(t, s, store.EnqueueOptions{}, higher, lower); n != 0 {
		t.Errorf("Enqueue of known URLs inserted %d, want 0", n)
	}
	got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 1})
	if len(got) != 1 || got[0].URL != a.URL || got[0].Priority != 5 || got[0].LinkScore != 0.9 || got[0].Strategy != "better" {
		t.Fatalf("claim after raise = %+v, want %s with priority 5, link score 0.9, strategy better", got, a.URL)
	}
	// Claimed entries are not touched any more.
	higher.Priority = 100
	enqueue(t, s, store.EnqueueOptions{}, higher)
	got = claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 1})
	if got[0].Priority != 5 {
		t.Errorf("priority of claimed entry after Enqueue = %v, want 5", got[0].Priority)
	}
	// A lower priority never lowers.
	got = claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b2", Max: 1})
	if len(got) != 1 || got[0].Priority != 2 || got[0].Strategy != "test" {
		t.Errorf("entry after lower Enqueue = %+v, want priority 2, strategy test", got)
	}
}

// testEnqueueRaiseInOneCall: the same URL again later in one Enqueue call
// is a known entry: a higher priority raises the one just inserted, a
// lower one changes nothing.
func testEnqueueRaiseInOneCall(t *testing.T, s store.Store) {
	first, again, lower := entry("go", u("a.test", 1), 1), entry("go", u("a.test", 1), 4), entry("go", u("a.test", 1), 2)
	again.Strategy = "better"
	other := entry("go", u("b.test", 1), 3)
	if n := enqueue(t, s, store.EnqueueOptions{}, first, other, again, lower); n != 2 {
		t.Errorf("Enqueue inserted %d, want 2", n)
	}
	got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 2})
	if len(got) != 2 || got[0].URL != first.URL || got[0].Priority != 4 || got[0].Strategy != "better" || got[1].URL != other.URL {
		t.Errorf("claim = %+v; want %s at priority 4 (strategy better), then %s", got, first.URL, other.URL)
	}
}

func testEnqueueMaxPerHost(t *testing.T, s store.Store) {
	opt := store.EnqueueOptions{MaxPerHost: 2}
	n := enqueue(t, s, opt,
		entry("go", u("a.test", 1), 1), entry("go", u("a.test", 2), 1), entry("go", u("a.test", 3), 1),
		entry("go", u("b.test", 1), 1))
	if n != 3 {
		t.Errorf("Enqueue with MaxPerHost 2 inserted %d, want 3", n)
	}
	// Existing entries count, in any state: claimed...
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 10})
	if n := enqueue(t, s, opt, entry("go", u("a.test", 4), 1), entry("go", u("b.test", 2), 1), entry("go", u("b.test", 3), 1)); n != 1 {
		t.Errorf("second Enqueue inserted %d, want 1 (b.test/2)", n)
	}
	// ... and done: the cap bounds the URLs a host gives the topic, not
	// its queue, which a spider trap would refill as fast as it is
	// fetched (store.EnqueueOptions).
	if err := s.CompleteBatch(t.Context(), "go", "b1"); err != nil {
		t.Fatal(err)
	}
	if n := enqueue(t, s, opt, entry("go", u("a.test", 6), 1)); n != 0 {
		t.Errorf("Enqueue after the host's entries were done inserted %d, want 0", n)
	}
	// No cap without the option.
	if n := enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", 5), 1)); n != 1 {
		t.Errorf("Enqueue without MaxPerHost inserted %d, want 1", n)
	}
	// The cap is per topic.
	if n := enqueue(t, s, opt, entry("rust", u("a.test", 1), 1), entry("rust", u("a.test", 2), 1)); n != 2 {
		t.Errorf("Enqueue in another topic inserted %d, want 2", n)
	}
}

func testClaimOrder(t *testing.T, s store.Store) {
	e := func(i int, p float64) store.FrontierEntry { return entry("go", u(fmt.Sprintf("h%d.test", i), i), p) }
	enqueue(t, s, store.EnqueueOptions{}, e(1, 1), e(2, 3), e(3, 2), e(4, 3), e(5, 1))
	enqueue(t, s, store.EnqueueOptions{}, e(6, 3)) // a later call: after 2 and 4
	lease := 10 * time.Minute
	got := claim(t, s, store.ClaimRequest{Topic: "go", CrawlID: "crawl-2", BatchID: "b1", Max: 10, Lease: lease, Now: t0})
	want := []string{e(2, 0).URL, e(4, 0).URL, e(6, 0).URL, e(3, 0).URL, e(1, 0).URL, e(5, 0).URL}
	if !slices.Equal(urls(got), want) {
		t.Errorf("claim order = %v, want %v", urls(got), want)
	}
	for _, g := range got {
		if g.State != store.StateClaimed || g.BatchID != "b1" || g.Attempts != 1 || !g.LeaseUntil.Equal(t0.Add(lease)) ||
			g.CrawlID != "crawl-1" || g.URLHash != hash(g.URL) || g.Host != urlnorm.Host(g.URL) || g.Topic != "go" {
			t.Errorf("claimed entry = %+v, want claimed by b1, attempts 1, lease until %v, discovered by crawl-1", g, t0.Add(lease))
		}
	}
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{Claimed: 6}) {
		t.Errorf("FrontierStats = %+v, want 6 claimed", st)
	}
	// An empty queue gives an empty batch.
	if got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b2", Max: 10}); len(got) != 0 {
		t.Errorf("claim from empty queue = %v, want none", urls(got))
	}
}

func testClaimMaxPerHost(t *testing.T, s store.Store) {
	a := func(i int, p float64) store.FrontierEntry { return entry("go", u("a.test", i), p) }
	b := func(i int, p float64) store.FrontierEntry { return entry("go", u("b.test", i), p) }
	c := func(i int, p float64) store.FrontierEntry { return entry("go", u("c.test", i), p) }
	enqueue(t, s, store.EnqueueOptions{}, a(1, 10), a(2, 9), a(3, 8), a(4, 7), b(1, 5), b(2, 4), c(1, 1))
	got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 5, MaxPerHost: 2})
	want := []string{a(1, 0).URL, a(2, 0).URL, b(1, 0).URL, b(2, 0).URL, c(1, 0).URL}
	if !slices.Equal(urls(got), want) {
		t.Errorf("first batch = %v, want %v", urls(got), want)
	}
	got = claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b2", Max: 5, MaxPerHost: 2})
	if want := []string{a(3, 0).URL, a(4, 0).URL}; !slices.Equal(urls(got), want) {
		t.Errorf("second batch = %v, want %v", urls(got), want)
	}
}

// testClaimDeepQueue puts hundreds of entries of one host before the others,
// so a claim with MaxPerHost 1 must look far past the first candidates, both
// within one priority (FIFO) and across lower priorities.
func testClaimDeepQueue(t *testing.T, s store.Store) {
	var es []store.FrontierEntry
	for i := 0; i < 300; i++ {
		es = append(es, entry("go", u("big.test", i), 10))
	}
	var want []string
	want = append(want, es[0].URL)
	for i := 1; i <= 5; i++ {
		e := entry("go", u(fmt.Sprintf("h%d.test", i), 0), 10)
		es = append(es, e)
		want = append(want, e.URL)
	}
	for i := 6; i <= 10; i++ {
		e := entry("go", u(fmt.Sprintf("h%d.test", i), 0), 1)
		es = append(es, e)
		if i <= 7 {
			want = append(want, e.URL)
		}
	}
	enqueue(t, s, store.EnqueueOptions{}, es...)
	got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 8, MaxPerHost: 1})
	if !slices.Equal(urls(got), want) {
		t.Errorf("batch = %v, want %v", urls(got), want)
	}
	if st := frontierStats(t, s, "go"); st.Claimed != 8 || st.Queued != len(es)-8 {
		t.Errorf("FrontierStats = %+v, want 8 claimed, %d queued", st, len(es)-8)
	}
}

func testClaimIdempotent(t *testing.T, s store.Store) {
	for i := 0; i < 5; i++ {
		enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", i), float64(10-i)))
	}
	first := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 2, Now: t0})
	again := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 4, Now: t0.Add(time.Minute)})
	if len(first) != 2 || !reflect.DeepEqual(first, again) {
		t.Errorf("claiming b1 twice: first %v, then %v; want the same 2 entries", urls(first), urls(again))
	}
	for _, e := range again {
		if e.Attempts != 1 {
			t.Errorf("attempts of %s after repeated claim = %d, want 1", e.URL, e.Attempts)
		}
	}
	second := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b2", Max: 2})
	for _, e := range second {
		if slices.Contains(urls(first), e.URL) {
			t.Errorf("%s is in both b1 and b2", e.URL)
		}
	}
	if len(second) != 2 {
		t.Errorf("b2 has %d entries, want 2", len(second))
	}
	// The same batch ID in another topic is another batch.
	enqueue(t, s, store.EnqueueOptions{}, entry("rust", u("a.test", 1), 1))
	if got := claim(t, s, store.ClaimRequest{Topic: "rust", BatchID: "b1", Max: 2}); len(got) != 1 || got[0].Topic != "rust" {
		t.Errorf("b1 of topic rust = %+v, want the one rust entry", got)
	}
}

func testClaimExpiredLease(t *testing.T, s store.Store) {
	ctx := t.Context()
	a, b, c := entry("go", u("a.test", 1), 3), entry("go", u("b.test", 1), 2), entry("go", u("c.test", 1), 1)
	enqueue(t, s, store.EnqueueOptions{}, a, b, c)
	got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 3, Lease: time.Minute, Now: t0})
	if len(got) != 3 {
		t.Fatalf("b1 = %v, want all 3 entries", urls(got))
	}
	// a was fetched before the worker died.
	p := page("go", "crawl-1", a.URL)
	p.BatchID = "b1"
	savePage(t, s, p, []byte("<html>a</html>"))

	// Lease still running: nothing to claim.
	if got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b2", Max: 3, Now: t0.Add(30 * time.Second)}); len(got) != 0 {
		t.Errorf("claim during lease = %v, want none", urls(got))
	}
	// Lease expired: b and c return to the queue, a (saved) never does.
	got = claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b3", Max: 3, Now: t0.Add(2 * time.Minute)})
	if want := []string{b.URL, c.URL}; !slices.Equal(urls(got), want) {
		t.Errorf("claim after expiry = %v, want %v", urls(got), want)
	}
	for _, e := range got {
		if e.Attempts != 2 {
			t.Errorf("attempts of re-claimed %s = %d, want 2", e.URL, e.Attempts)
		}
	}
	rest, err := s.BatchEntries(ctx, "go", "b1")
	if err != nil {
		t.Fatalf("BatchEntries(b1): %v", err)
	}
	if want := []string{a.URL}; !slices.Equal(urls(rest), want) {
		t.Errorf("b1 after expiry = %v, want %v", urls(rest), want)
	}
	// Much later, with b3 expired as well and nothing saved for it, the
	// entries come back once more; a still never does.
	got = claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b4", Max: 3, Now: t0.Add(5 * time.Hour)})
	if want := []string{b.URL, c.URL}; !slices.Equal(urls(got), want) {
		t.Errorf("claim after second expiry = %v, want %v", urls(got), want)
	}
}

func testClaimConcurrent(t *testing.T, s store.Store) {
	const n = 120
	var es []store.FrontierEntry
	for i := 0; i < n; i++ {
		es = append(es, entry("go", u(fmt.Sprintf("h%d.test", i%7), i), float64(i%5)))
	}
	enqueue(t, s, store.EnqueueOptions{}, es...)
	seen := ClaimAll(t, []store.Store{s, s, s, s}, "go", 7)
	if len(seen) != n {
		t.Errorf("claimed %d distinct entries, want %d", len(seen), n)
	}
}

// ClaimAll drains topic's queue from several goroutines, one per element of
// stores (which may all be one store, or several stores opened on one
// database as by several worker processes), each claiming batches of size
// until it gets an empty one. It fails the test if any entry is handed to two
// batches, and returns the batch of each claimed URL hash.
func ClaimAll(t *testing.T, stores []store.Store, topic string, size int) map[string]string {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]string{} // URL hash -> batch
	var errs []error
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for w, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				id := fmt.Sprintf("w%d-b%d", w, i)
				b, err := s.ClaimBatch(context.Background(), store.ClaimRequest{
					Topic: topic, BatchID: id, Max: size, Lease: time.Hour, Now: t0,
				})
				if err != nil {
					fail(fmt.Errorf("ClaimBatch(%s): %w", id, err))
					return
				}
				if b.Size == 0 {
					return
				}
				es, err := s.BatchEntries(context.Background(), topic, id)
				if err != nil {
					fail(fmt.Errorf("BatchEntries(%s): %w", id, err))
					return
				}
				mu.Lock()
				for _, e := range es {
					if prev, dup := seen[e.URLHash]; dup {
						errs = append(errs, fmt.Errorf("%s claimed by both %s and %s", e.URL, prev, id))
					}
					seen[e.URLHash] = id
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	return seen
}

func testCompleteBatch(t *testing.T, s store.Store) {
	ctx := t.Context()
	for i := 0; i < 4; i++ {
		enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", i), 1))
	}
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 3})
	for i := 0; i < 2; i++ { // idempotent
		if err := s.CompleteBatch(ctx, "go", "b1"); err != nil {
			t.Fatalf("CompleteBatch #%d: %v", i+1, err)
		}
	}
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{Queued: 1, Done: 3}) {
		t.Errorf("FrontierStats = %+v, want 1 queued, 3 done", st)
	}
	checkBusy(t, s, "go", true) // one queued
	checkBusy(t, s, "nothing-here", false)
	es, err := s.BatchEntries(ctx, "go", "b1")
	if err != nil || len(es) != 3 {
		t.Fatalf("BatchEntries(b1) = %d entries, %v; want 3", len(es), err)
	}
	for _, e := range es {
		if e.State != store.StateDone {
			t.Errorf("%s state = %q, want done", e.URL, e.State)
		}
	}
	// Re-claiming a completed batch still returns it, and claims nothing new.
	if got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 3}); len(got) != 3 {
		t.Errorf("re-claim of completed b1 = %d entries, want 3", len(got))
	}
	if st := frontierStats(t, s, "go"); st.Queued != 1 {
		t.Errorf("queued after re-claim = %d, want 1", st.Queued)
	}
	if err := s.CompleteBatch(ctx, "go", "unknown"); err != nil {
		t.Errorf("CompleteBatch(unknown): %v", err)
	}
}

func testReprioritize(t *testing.T, s store.Store) {
	a, b, c := entry("go", u("a.test", 1), 1), entry("go", u("b.test", 1), 2), entry("go", u("c.test", 1), 3)
	enqueue(t, s, store.EnqueueOptions{}, a, b, c)
	claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 1}) // c
	err := s.Reprioritize(t.Context(), "go", map[string]float64{a.URLHash: 10, b.URLHash: 0.5, c.URLHash: 0, hash(u("x.test", 1)): 4})
	if err != nil {
		t.Fatalf("Reprioritize: %v", err)
	}
	got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b2", Max: 5})
	if want := []string{a.URL, b.URL}; !slices.Equal(urls(got), want) || got[0].Priority != 10 || got[1].Priority != 0.5 {
		t.Errorf("after Reprioritize claim = %+v, want %v with priorities 10, 0.5", got, want)
	}
	b1, _ := s.BatchEntries(t.Context(), "go", "b1")
	if len(b1) != 1 || b1[0].Priority != 3 {
		t.Errorf("claimed entry after Reprioritize = %+v, want priority 3 unchanged", b1)
	}
	if st := frontierStats(t, s, "go"); st.Queued+st.Claimed+st.Done != 3 {
		t.Errorf("FrontierStats = %+v: Reprioritize must not create entries", st)
	}
}

// testNonFinitePriorities: NaN and ±Inf priorities and link scores are
// refused where they would enter the frontier, and the refused call
// changes nothing (an infinite priority demoted by a factor 0 became NaN,
// which the stores keep as NULL).
func testNonFinitePriorities(t *testing.T, s store.Store) {
	ctx := t.Context()
	ok := entry("go", u("a.test", 1), 0.5)
	enqueue(t, s, store.EnqueueOptions{}, ok)
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		e := entry("go", u("b.test", 1), bad)
		if _, err := s.Enqueue(ctx, []store.FrontierEntry{entry("go", u("c.test", 1), 0.4), e}, store.EnqueueOptions{}); err == nil {
			t.Errorf("Enqueue with priority %v: no error", bad)
		}
		e = entry("go", u("b.test", 1), 0.3)
		e.LinkScore = bad
		if _, err := s.Enqueue(ctx, []store.FrontierEntry{e}, store.EnqueueOptions{}); err == nil {
			t.Errorf("Enqueue with link score %v: no error", bad)
		}
		if err := s.Reprioritize(ctx, "go", map[string]float64{ok.URLHash: bad}); err == nil {
			t.Errorf("Reprioritize to %v: no error", bad)
		}
	}
	if st := frontierStats(t, s, "go"); st.Queued != 1 {
		t.Errorf("FrontierStats = %+v after refused calls, want the one entry queued", st)
	}
	if n, err := s.DemoteQueued(ctx, "go", "a.test", "https://a.test/", 0); err != nil || n != 1 {
		t.Fatalf("DemoteQueued by 0 = %d, %v; want 1 entry", n, err)
	}
	got := claim(t, s, store.ClaimRequest{Topic: "go", BatchID: "b1", Max: 5})
	if len(got) != 1 || got[0].URL != ok.URL || got[0].Priority != 0 {
		t.Errorf("claim after the refused calls = %+v, want %s at priority 0", got, ok.URL)
	}
}

func fullPage(url string) store.Page {
	return store.Page{
		Topic: "go", URLHash: hash(url), URL: url, FinalURL: url + "?final", FinalHash: hash(url + "?final"),
		CrawlID: "crawl-1", BatchID: "b1", Depth: 2, ParentURL: "https://parent.test/", AnchorPath: "go > docs",
		LinkScore: 0.75, LinkStrategy: "naive-bayes", Status: 200, ContentType: "text/html", Charset: "utf-8",
		ETag: `"abc"`, LastModified: "Mon, 06 May 2024 07:08:09 GMT", ContentHash: "c0ffee", Bytes: 1234,
		FetchedAt: t0, Title: "Title", Lang: "en", Relevance: 0.5, Filter: "cosine", Decision: store.DecisionAccepted,
		Reason: "close to topic", Indexed: true, Hub: 0.1, Authority: 0.2, IPageRank: 0.3,
	}
}

func testSavePageIdempotent(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := fullPage(u("a.test", 1))
	saved, created, err := s.SavePage(ctx, p, []byte("<html>a</html>"))
	if err != nil || !created {
		t.Fatalf("SavePage = created %v, %v; want created", created, err)
	}
	want := p
	want.Seq = 1
	samePage(t, "SavePage result", saved, want)
	got, err := s.Page(ctx, "go", p.URLHash)
	if err != nil {
		t.Fatalf("Page: %v", err)
	}
	samePage(t, "Page", got, want)

	retry := p
	retry.Status, retry.Title, retry.CrawlID = 500, "changed", "crawl-2"
	saved, created, err = s.SavePage(ctx, retry, []byte("other"))
	if err != nil || created {
		t.Fatalf("second SavePage = created %v, %v; want not created", created, err)
	}
	samePage(t, "second SavePage result", saved, want)
	if body, _ := s.Blob(ctx, "go", p.URLHash, store.BlobBody); string(body) != "<html>a</html>" {
		t.Errorf("body after second SavePage = %q, want the first", body)
	}

	second := savePage(t, s, page("go", "crawl-1", u("a.test", 2)), nil)
	if second.Seq != 2 {
		t.Errorf("second page of crawl-1 has Seq %d, want 2", second.Seq)
	}
	other := savePage(t, s, page("go", "crawl-2", u("a.test", 3)), nil)
	if other.Seq != 1 {
		t.Errorf("first page of crawl-2 has Seq %d, want 1", other.Seq)
	}
	// Seq is per crawl, not per topic.
	other = savePage(t, s, page("rust", "crawl-1", u("a.test", 1)), nil)
	if other.Seq != 3 {
		t.Errorf("third page of crawl-1 (another topic) has Seq %d, want 3", other.Seq)
	}
	_, err = s.Page(ctx, "go", hash(u("a.test", 99)))
	wantNotFound(t, "Page(missing)", err)
	_, err = s.Page(ctx, "java", p.URLHash)
	wantNotFound(t, "Page(other topic)", err)
}

func testSavePageConcurrentSeq(t *testing.T, s store.Store) {
	const workers, per = 8, 70 // more than one CrawlLog chunk in the SQLite backend
	var wg sync.WaitGroup
	seqs := make(chan int64, workers*per*2)
	errs := make(chan error, workers*per*2)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				p := page("go", "crawl-1", u(fmt.Sprintf("w%d.test", w), i))
				// Every page is saved twice, as by a retried activity.
				for try := 0; try < 2; try++ {
					saved, created, err := s.SavePage(context.Background(), p, []byte("body"))
					if err != nil {
						errs <- err
						return
					}
					if created != (try == 0) {
						errs <- fmt.Errorf("%s try %d: created = %v", p.URL, try, created)
					}
					if created {
						seqs <- saved.Seq
					}
				}
			}
		}()
	}
	wg.Wait()
	close(seqs)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var got []int64
	for q := range seqs {
		got = append(got, q)
	}
	slices.Sort(got)
	for i, q := range got {
		if q != int64(i+1) {
			t.Fatalf("sorted Seqs of %d concurrent saves: position %d holds %d; want 1..%d without gaps or repeats", len(got), i, q, workers*per)
		}
	}
	if len(got) != workers*per {
		t.Fatalf("%d pages created, want %d", len(got), workers*per)
	}
	var logged []int64
	err := s.CrawlLog(t.Context(), "crawl-1", func(p store.Page) error {
		logged = append(logged, p.Seq)
		return nil
	})
	if err != nil {
		t.Fatalf("CrawlLog: %v", err)
	}
	if !slices.Equal(logged, got) {
		t.Errorf("CrawlLog returned %d pages, want Seqs 1..%d in order", len(logged), len(got))
	}
}

func testBatchPages(t *testing.T, s store.Store) {
	var want []string
	for i := 0; i < 6; i++ {
		p := page("go", "crawl-1", u("a.test", i))
		p.BatchID = "b1"
		if i%2 == 1 {
			p.BatchID = "b2"
		} else {
			want = append(want, p.URL)
		}
		savePage(t, s, p, nil)
	}
	got, err := s.BatchPages(t.Context(), "go", "b1")
	if err != nil {
		t.Fatalf("BatchPages: %v", err)
	}
	var gotURLs []string
	for i, p := range got {
		gotURLs = append(gotURLs, p.URL)
		if i > 0 && p.Seq <= got[i-1].Seq {
			t.Errorf("BatchPages not in Seq order: %d after %d", p.Seq, got[i-1].Seq)
		}
	}
	if !slices.Equal(gotURLs, want) {
		t.Errorf("BatchPages(b1) = %v, want %v", gotURLs, want)
	}
	if got, err := s.BatchPages(t.Context(), "rust", "b1"); err != nil || len(got) != 0 {
		t.Errorf("BatchPages of another topic = %d pages, %v; want none", len(got), err)
	}
}

// testClaimedPages: a claim's entries with a stored page — whatever batch
// saved it — are found by the claim's batch ID, the others not.
func testClaimedPages(t *testing.T, s store.Store) {
	ctx := t.Context()
	var es []store.FrontierEntry
	for i := range 4 {
		es = append(es, entry("go", u(fmt.Sprintf("h%d.test", i), 1), float64(10-i)))
	}
	if _, err := s.Enqueue(ctx, es, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	old := page("go", "crawl-1", es[1].URL)
	old.BatchID = "an-earlier-batch"
	savePage(t, s, old, nil)
	savePage(t, s, page("go", "crawl-1", es[3].URL), nil)   // not claimed below
	savePage(t, s, page("rust", "crawl-2", es[0].URL), nil) // another topic's
	if b, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: "go", CrawlID: "crawl-1", BatchID: "b1", Max: 3}); err != nil || b.Size != 3 {
		t.Fatalf("ClaimBatch = %+v, %v; want 3 entries", b, err)
	}
	got, err := s.ClaimedPages(ctx, "go", "b1")
	if err != nil || len(got) != 1 || got[es[1].URLHash].BatchID != "an-earlier-batch" {
		t.Errorf("ClaimedPages(b1) = %v, %v; want the page of %s only, as stored", got, err, es[1].URL)
	}
	for _, batch := range []string{"", "unknown"} {
		if got, err := s.ClaimedPages(ctx, "go", batch); err != nil || len(got) != 0 {
			t.Errorf("ClaimedPages(%q) = %v, %v; want none", batch, got, err)
		}
	}
}

func testDuplicateOf(t *testing.T, s store.Store) {
	ctx := t.Context()
	mk := func(crawl string, i int, final, content string) store.Page {
		p := page("go", crawl, u("a.test", i))
		p.FinalHash, p.ContentHash = final, content
		return p
	}
	p1 := savePage(t, s, mk("crawl-1", 1, "F1", "C1"), nil)
	p2 := savePage(t, s, mk("crawl-1", 2, "F2", "C1"), nil) // same content as p1
	p3 := savePage(t, s, mk("crawl-1", 3, "F1", "C3"), nil) // same final URL as p1
	p4 := savePage(t, s, mk("crawl-1", 4, "F4", "C4"), nil)
	q1 := savePage(t, s, mk("crawl-2", 11, "G1", "C4"), nil) // same content as p4, other crawl
	other := mk("crawl-1", 5, "F1", "C1")
	other.Topic = "rust"
	other = savePage(t, s, other, nil)
	unsaved := mk("crawl-1", 6, "F6", "C3")
	// Two pages of two crawls, both waiting to be judged (a refresh batch
	// replaced them, and they became the same page): neither is the
	// other's original.
	r1 := savePage(t, s, mk("crawl-1", 7, "H7", "C7"), nil)
	r2 := savePage(t, s, mk("crawl-2", 12, "H7", "C7"), nil)
	if err := s.SetDecision(ctx, "go", p4.URLHash, store.Decision{Decision: store.DecisionRejected}); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		p    store.Page
		want string
	}{
		{"first page", p1, ""},
		{"same content", p2, p1.URLHash},
		{"same final URL", p3, p1.URLHash},
		{"judged page of another crawl", q1, p4.URLHash},
		{"unsaved page", unsaved, p3.URLHash},
		{"waiting page of another crawl", r1, ""},
		{"waiting page of another crawl, the other way", r2, ""},
		{"another topic", other, ""},
	} {
		got, err := s.DuplicateOf(ctx, tc.p)
		if err != nil {
			t.Fatalf("DuplicateOf(%s): %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("DuplicateOf(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
	// Pages the caller passes over are no originals (a noindex original of
	// a content); the next candidate is, on either probe.
	p8 := savePage(t, s, mk("crawl-1", 8, "F8", "C1"), nil) // p1's content, after p2
	for _, tc := range []struct {
		name string
		p    store.Page
		skip []string
		want string
	}{
		{"same content, the first passed over", p8, []string{p1.URLHash}, p2.URLHash},
		{"same content, both earlier passed over", p8, []string{p1.URLHash, p2.URLHash}, ""},
		{"same final URL, the first passed over", p3, []string{p1.URLHash}, ""},
	} {
		if got, err := s.DuplicateOf(ctx, tc.p, tc.skip...); err != nil || got != tc.want {
			t.Errorf("DuplicateOf(%s) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

// testDuplicateOfAccepted: an accepted page is an original whatever its
// order (index documents are keyed by final URL, so a second accepted page
// there would share its document), and a duplicate is never one.
func testDuplicateOfAccepted(t *testing.T, s store.Store) {
	ctx := t.Context()
	mk := func(i int, final, content string) store.Page {
		p := page("go", "crawl-1", u("a.test", i))
		p.FinalHash, p.ContentHash = final, content
		return p
	}
	p1 := savePage(t, s, mk(1, "F1", "C1"), nil)
	p2 := savePage(t, s, mk(2, "F2", "C2"), nil)
	p3 := savePage(t, s, mk(3, "F3", "C3"), nil)
	p4 := savePage(t, s, mk(4, "F4", "C4"), nil)
	for h, d := range map[string]string{p2.URLHash: store.DecisionAccepted, p3.URLHash: store.DecisionDuplicate,
		p4.URLHash: store.DecisionRejected} {
		if err := s.SetDecision(ctx, "go", h, store.Decision{Decision: d}); err != nil {
			t.Fatal(err)
		}
	}
	p5 := savePage(t, s, mk(5, "F3", "C5"), nil)
	moved := func(final, content string) store.Page {
		p := p1
		p.FinalHash, p.ContentHash = final, content
		return p
	}
	for _, tc := range []struct {
		name string
		p    store.Page
		want string
	}{
		{"onto a later accepted page", moved("F2", "C1"), p2.URLHash},
		{"the content of a later accepted page", moved("F1", "C2"), p2.URLHash},
		{"onto a later rejected page", moved("F4", "C1"), ""},
		{"onto an earlier duplicate", p5, ""},
	} {
		if got, err := s.DuplicateOf(ctx, tc.p); err != nil || got != tc.want {
			t.Errorf("DuplicateOf(%s) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

// testIndexHolders: the accepted, indexed pages of a topic with a final
// URL hash, other than those excepted, the earliest fetched first.
func testIndexHolders(t *testing.T, s store.Store) {
	ctx := t.Context()
	mk := func(topic string, i int, final string, d store.Decision, indexed bool) store.Page {
		p := page(topic, "crawl-1", u("a.test", i))
		p.FinalHash = final
		p = savePage(t, s, p, nil)
		if err := s.SetDecision(ctx, topic, p.URLHash, d); err != nil {
			t.Fatal(err)
		}
		if indexed {
			if err := s.MarkIndexed(ctx, topic, []string{p.URLHash}); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	accepted := store.Decision{Decision: store.DecisionAccepted}
	a := mk("go", 1, "F1", accepted, true)
	b := mk("go", 2, "F1", accepted, true)
	mk("go", 3, "F2", accepted, false)                                      // in flight: no document yet
	mk("go", 4, "F3", store.Decision{Decision: store.DecisionTunnel}, true) // withdrawal under way
	mk("rust", 5, "F4", accepted, true)
	finals := []string{"F1", "F2", "F3", "F4", "F9", "F1"}
	for _, tc := range []struct {
		name   string
		except []string
		want   map[string]string
	}{
		{"none excepted", nil, map[string]string{"F1": a.URLHash}},
		{"the first excepted", []string{a.URLHash}, map[string]string{"F1": b.URLHash}},
		{"both excepted", []string{a.URLHash, b.URLHash}, map[string]string{}},
	} {
		got, err := s.IndexHolders(ctx, "go", finals, tc.except)
		if err != nil {
			t.Fatalf("IndexHolders(%s): %v", tc.name, err)
		}
		hashes := map[string]string{}
		for f, p := range got {
			hashes[f] = p.URLHash
			if p.FinalHash != f {
				t.Errorf("IndexHolders(%s)[%s] is a page of final hash %s", tc.name, f, p.FinalHash)
			}
		}
		if !reflect.DeepEqual(hashes, tc.want) {
			t.Errorf("IndexHolders(%s) = %v, want %v", tc.name, hashes, tc.want)
		}
	}
}

// testSharedFinalHashes: only the final URL hashes that two or more
// accepted pages of the topic flagged indexed share, sorted; pages not
// accepted, not flagged, or of another topic do not make a hash shared.
func testSharedFinalHashes(t *testing.T, s store.Store) {
	ctx := t.Context()
	i := 0
	mk := func(topic, final, decision string, indexed bool) {
		i++
		p := page(topic, "crawl-1", u("a.test", i))
		p.FinalHash = final
		p = savePage(t, s, p, nil)
		if err := s.SetDecision(ctx, topic, p.URLHash, store.Decision{Decision: decision}); err != nil {
			t.Fatal(err)
		}
		if indexed {
			if err := s.MarkIndexed(ctx, topic, []string{p.URLHash}); err != nil {
				t.Fatal(err)
			}
		}
	}
	acc := store.DecisionAccepted
	mk("go", "F9", acc, true) // shared by three, listed once
	mk("go", "F9", acc, true)
	mk("go", "F9", acc, true)
	mk("go", "F1", acc, true)
	mk("go", "F1", acc, true)
	mk("go", "F2", acc, true) // one holder: no choice to make
	mk("go", "F3", acc, true) // the other sharer not flagged indexed
	mk("go", "F3", acc, false)
	mk("go", "F4", acc, true) // the other sharer withdrawn
	mk("go", "F4", store.DecisionTunnel, true)
	mk("rust", "F2", acc, true) // another topic's page
	got, err := s.SharedFinalHashes(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"F1", "F9"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SharedFinalHashes(go) = %v, want %v", got, want)
	}
	if got, err := s.SharedFinalHashes(ctx, "none"); err != nil || len(got) != 0 {
		t.Errorf("SharedFinalHashes of an unknown topic = %v, %v; want none", got, err)
	}
}

func testBlobs(t *testing.T, s store.Store) {
	ctx := t.Context()
	big := make([]byte, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = byte(r.IntN(256))
	}
	bodies := map[string][]byte{
		u("a.test", 1): big,
		u("a.test", 2): []byte("<html><body>héllo 世界</body></html>"),
		u("a.test", 3): {},
	}
	for url, body := range bodies {
		savePage(t, s, page("go", "crawl-1", url), body)
	}
	for url, body := range bodies {
		got, err := s.Blob(ctx, "go", hash(url), store.BlobBody)
		if err != nil {
			t.Fatalf("Blob(%s): %v", url, err)
		}
		if !slices.Equal(got, body) {
			t.Errorf("Blob(%s) = %d bytes, differs from the %d bytes saved", url, len(got), len(body))
		}
	}
	// Failed fetch: no body.
	savePage(t, s, page("go", "crawl-1", u("a.test", 4)), nil)
	_, err := s.Blob(ctx, "go", hash(u("a.test", 4)), store.BlobBody)
	wantNotFound(t, "Blob of page saved without body", err)
	_, err = s.Blob(ctx, "go", hash(u("a.test", 1)), store.BlobParse)
	wantNotFound(t, "Blob(parse) before SaveParse", err)

	h := hash(u("a.test", 2))
	for i := 0; i < 2; i++ { // idempotent
		if err := s.DeleteBlob(ctx, "go", h, store.BlobBody); err != nil {
			t.Fatalf("DeleteBlob #%d: %v", i+1, err)
		}
	}
	_, err = s.Blob(ctx, "go", h, store.BlobBody)
	wantNotFound(t, "Blob after DeleteBlob", err)
	if _, err := s.Page(ctx, "go", h); err != nil {
		t.Errorf("Page after DeleteBlob: %v", err)
	}
}

func testSaveParse(t *testing.T, s store.Store) {
	ctx := t.Context()
	p1 := savePage(t, s, page("go", "crawl-1", u("a.test", 1)), []byte("body"))
	p2 := savePage(t, s, page("go", "crawl-1", u("a.test", 2)), []byte("body"))
	stats := func(terms ...string) (int, map[string]int) {
		t.Helper()
		docs, df, err := termStats(ctx, s, "go", terms)
		if err != nil {
			t.Fatalf("TermStats: %v", err)
		}
		return docs, df
	}
	for i := 0; i < 2; i++ { // the retry must not count again
		if err := s.SaveParse(ctx, "go", p1.URLHash, []byte("parsed-1"), "One", "en", []string{"go", "gopher", "go"}); err != nil {
			t.Fatalf("SaveParse(p1) #%d: %v", i+1, err)
		}
		docs, df := stats("go", "gopher", "rust")
		if want := map[string]int{"go": 1, "gopher": 1, "rust": 0}; docs != 1 || !reflect.DeepEqual(df, want) {
			t.Errorf("after SaveParse(p1) #%d: TermStats = %d, %v; want 1, %v", i+1, docs, df, want)
		}
	}
	if err := s.SaveParse(ctx, "go", p2.URLHash, []byte("parsed-2"), "Two", "de", []string{"go", "rust"}); err != nil {
		t.Fatalf("SaveParse(p2): %v", err)
	}
	docs, df := stats("go", "gopher", "rust", "java")
	if want := map[string]int{"go": 2, "gopher": 1, "rust": 1, "java": 0}; docs != 2 || !reflect.DeepEqual(df, want) {
		t.Errorf("after SaveParse(p2): TermStats = %d, %v; want 2, %v", docs, df, want)
	}
	if parsed, err := s.Blob(ctx, "go", p1.URLHash, store.BlobParse); err != nil || string(parsed) != "parsed-1" {
		t.Errorf("Blob(parse) = %q, %v; want parsed-1", parsed, err)
	}
	if got, _ := s.Page(ctx, "go", p2.URLHash); got.Title != "Two" || got.Lang != "de" {
		t.Errorf("page after SaveParse: title %q, lang %q; want Two, de", got.Title, got.Lang)
	}
	wantNotFound(t, "SaveParse(missing page)", s.SaveParse(ctx, "go", hash(u("a.test", 9)), []byte("x"), "", "", []string{"go"}))
	if docs, _ := stats("go"); docs != 2 {
		t.Errorf("docs after failed SaveParse = %d, want 2", docs)
	}
	if docs, df, err := termStats(ctx, s, "rust", []string{"go"}); err != nil || docs != 0 || df["go"] != 0 {
		t.Errorf("TermStats(rust) = %d, %v, %v; want 0 docs", docs, df, err)
	}
}

func testDecisions(t *testing.T, s store.Store) {
	ctx := t.Context()
	var hashes []string
	for i := 0; i < 4; i++ {
		p := savePage(t, s, page("go", "crawl-1", u("a.test", i)), nil)
		hashes = append(hashes, p.URLHash)
	}
	if err := s.SaveParse(ctx, "go", hashes[0], []byte("p"), "Parsed title", "en", nil); err != nil {
		t.Fatalf("SaveParse: %v", err)
	}
	decisions := []store.Decision{
		{Relevance: 0.9, Filter: "cosine", Decision: store.DecisionAccepted, Reason: "on topic"},
		{Relevance: 0.1, Filter: "cosine", Decision: store.DecisionRejected, Reason: "off topic", Title: "T1", Lang: "fr"},
		{Relevance: 0.8, Filter: "classifier", Decision: store.DecisionAccepted, Reason: "on topic", Title: "T2"},
		{Relevance: 0.2, Filter: "cosine", Decision: store.DecisionTunnel, Reason: "tunnel"},
	}
	for i, d := range decisions {
		if err := s.SetDecision(ctx, "go", hashes[i], d); err != nil {
			t.Fatalf("SetDecision(%d): %v", i, err)
		}
	}
	wantNotFound(t, "SetDecision(missing)", s.SetDecision(ctx, "go", hash(u("a.test", 99)), decisions[0]))
	p0, _ := s.Page(ctx, "go", hashes[0])
	if p0.Decision != store.DecisionAccepted || p0.Relevance != 0.9 || p0.Filter != "cosine" || p0.Reason != "on topic" ||
		p0.Title != "Parsed title" || p0.Lang != "en" {
		t.Errorf("page 0 after SetDecision = %+v; want accepted by cosine at 0.9, title and language from SaveParse kept", p0)
	}
	p1, _ := s.Page(ctx, "go", hashes[1])
	if p1.Decision != store.DecisionRejected || p1.Title != "T1" || p1.Lang != "fr" {
		t.Errorf("page 1 after SetDecision = %+v; want rejected, title T1, lang fr", p1)
	}
	for i := 0; i < 2; i++ { // idempotent; unknown hashes ignored
		if err := s.MarkIndexed(ctx, "go", []string{hashes[0], hash(u("a.test", 99))}); err != nil {
			t.Fatalf("MarkIndexed: %v", err)
		}
	}
	var accepted []store.Page
	err := s.AcceptedPages(ctx, "go", func(p store.Page) error {
		accepted = append(accepted, p)
		return nil
	})
	if err != nil {
		t.Fatalf("AcceptedPages: %v", err)
	}
	got := map[string]bool{}
	for _, p := range accepted {
		got[p.URLHash] = p.Indexed
	}
	if want := map[string]bool{hashes[0]: true, hashes[2]: false}; !reflect.DeepEqual(got, want) {
		t.Errorf("AcceptedPages (hash -> indexed) = %v, want %v", got, want)
	}
	// From a key: the pages after it only (the first one's hash, and a
	// key before every hash).
	first := min(hashes[0], hashes[2])
	for _, tc := range []struct{ after, want string }{{first, max(hashes[0], hashes[2])}, {"", first}} {
		var from []string
		if err := s.AcceptedPagesAfter(ctx, "go", tc.after, func(p store.Page) error {
			from = append(from, p.URLHash)
			return nil
		}); err != nil {
			t.Fatalf("AcceptedPagesAfter: %v", err)
		}
		if len(from) == 0 || from[0] != tc.want || tc.after != "" && len(from) != 1 {
			t.Errorf("AcceptedPagesAfter(%q) = %v; want from %s", tc.after, from, tc.want)
		}
	}
	stop := errors.New("stop")
	calls := 0
	err = s.AcceptedPages(ctx, "go", func(store.Page) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("AcceptedPages with failing callback: %d calls, error %v; want 1 call and the callback's error", calls, err)
	}
}

func testCrawlStats(t *testing.T, s store.Store) {
	ctx := t.Context()
	pages := []struct {
		status   int
		class    string
		decision string
		indexed  bool
	}{
		{200, "", store.DecisionAccepted, true},
		{200, "", store.DecisionRejected, false},
		{203, "", store.DecisionTunnel, false},
		{200, "", store.DecisionDuplicate, false},
		{404, "http_status", store.DecisionError, false},
		{0, "timeout", store.DecisionError, false},
		{0, "timeout", store.DecisionError, false},
		{301, "", store.DecisionPending, false},
	}
	for i, pg := range pages {
		p := page("go", "crawl-1", u("a.test", i))
		p.Status, p.ErrorClass, p.Decision, p.Indexed = pg.status, pg.class, pg.decision, pg.indexed
		if pg.class != "" {
			p.Error = "failed: " + pg.class
		}
		savePage(t, s, p, nil)
	}
	savePage(t, s, page("go", "crawl-2", u("b.test", 1)), nil)
	got, err := s.CrawlStats(ctx, "crawl-1")
	if err != nil {
		t.Fatalf("CrawlStats: %v", err)
	}
	want := store.CrawlStats{
		Fetched: 8, OK: 4, Accepted: 1, Rejected: 1, Tunnel: 1, Duplicates: 1, Errors: 3, Indexed: 1,
		ErrorsByClass: map[string]int{"http_status": 1, "timeout": 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CrawlStats(crawl-1) =\n %+v, want\n %+v", got, want)
	}
	// Decisions and indexing made after saving count too.
	if err := s.SetDecision(ctx, "go", hash(u("a.test", 7)), store.Decision{Decision: store.DecisionAccepted}); err != nil {
		t.Fatalf("SetDecision: %v", err)
	}
	if err := s.MarkIndexed(ctx, "go", []string{hash(u("a.test", 7))}); err != nil {
		t.Fatalf("MarkIndexed: %v", err)
	}
	if got, _ := s.CrawlStats(ctx, "crawl-1"); got.Accepted != 2 || got.Indexed != 2 {
		t.Errorf("after SetDecision and MarkIndexed: Accepted %d, Indexed %d; want 2, 2", got.Accepted, got.Indexed)
	}
	empty, err := s.CrawlStats(ctx, "crawl-none")
	if err != nil || empty.Fetched != 0 || len(empty.ErrorsByClass) != 0 {
		t.Errorf("CrawlStats of a crawl without pages = %+v, %v; want zero counts", empty, err)
	}
}

func testCrawlLog(t *testing.T, s store.Store) {
	ctx := t.Context()
	var want []string
	for i := 0; i < 5; i++ {
		url := u(fmt.Sprintf("h%d.test", 5-i), i)
		savePage(t, s, page("go", "crawl-1", url), nil)
		want = append(want, url)
		savePage(t, s, page("go", "crawl-2", url+"/x"), nil) // another crawl
	}
	var got []string
	err := s.CrawlLog(ctx, "crawl-1", func(p store.Page) error {
		got = append(got, p.URL)
		if p.Seq != int64(len(got)) {
			t.Errorf("page %d of CrawlLog has Seq %d", len(got), p.Seq)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("CrawlLog: %v", err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("CrawlLog = %v, want %v", got, want)
	}
	stop := errors.New("stop")
	calls := 0
	err = s.CrawlLog(ctx, "crawl-1", func(store.Page) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 2 {
		t.Errorf("CrawlLog with callback failing on call 2: %d calls, error %v", calls, err)
	}
	if err := s.CrawlLog(ctx, "crawl-none", func(store.Page) error { return stop }); err != nil {
		t.Errorf("CrawlLog of crawl without pages: %v", err)
	}
}

func testSetScores(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := savePage(t, s, page("go", "crawl-1", u("a.test", 1)), nil)
	q := savePage(t, s, page("go", "crawl-1", u("a.test", 2)), nil)
	err := s.SetScores(ctx, "go", map[string][3]float64{
		p.URLHash:             {0.5, 0.25, 0.125},
		hash(u("x.test", 99)): {1, 1, 1}, // a graph node never fetched
	})
	if err != nil {
		t.Fatalf("SetScores: %v", err)
	}
	got, _ := s.Page(ctx, "go", p.URLHash)
	if got.Hub != 0.5 || got.Authority != 0.25 || got.IPageRank != 0.125 {
		t.Errorf("scores = %v, %v, %v; want 0.5, 0.25, 0.125", got.Hub, got.Authority, got.IPageRank)
	}
	if got, _ := s.Page(ctx, "go", q.URLHash); got.Hub != 0 || got.Authority != 0 || got.IPageRank != 0 {
		t.Errorf("page without scores has %v, %v, %v", got.Hub, got.Authority, got.IPageRank)
	}
	if _, err := s.Page(ctx, "go", hash(u("x.test", 99))); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetScores created a page for an unknown hash (Page error %v)", err)
	}
}

func testLinks(t *testing.T, s store.Store) {
	ctx := t.Context()
	a, b, c := hash(u("a.test", 1)), hash(u("b.test", 1)), hash(u("c.test", 1))
	links := []store.Link{
		{Src: a, Dst: b, DstURL: u("b.test", 1), Anchor: "to b", Context: "see to b here", Score: 0.5},
		{Src: a, Dst: c, DstURL: u("c.test", 1), Anchor: "c from a", Score: 0.25},
		{Src: b, Dst: c, DstURL: u("c.test", 1), Anchor: "c from b", Score: 0.75},
	}
	if err := s.AddLinks(ctx, "go", links); err != nil {
		t.Fatalf("AddLinks: %v", err)
	}
	changed := links[0]
	changed.Anchor, changed.Score = "changed", 1
	if err := s.AddLinks(ctx, "go", []store.Link{changed, links[1]}); err != nil {
		t.Fatalf("AddLinks again: %v", err)
	}
	if err := s.AddLinks(ctx, "rust", []store.Link{{Src: c, Dst: a, Anchor: "other topic"}}); err != nil {
		t.Fatalf("AddLinks(rust): %v", err)
	}
	var edges []store.Link
	if err := s.Edges(ctx, "go", func(l store.Link) error { edges = append(edges, l); return nil }); err != nil {
		t.Fatalf("Edges: %v", err)
	}
	sortLinks := func(ls []store.Link) {
		sort.Slice(ls, func(i, j int) bool { return ls[i].Src+ls[i].Dst < ls[j].Src+ls[j].Dst })
	}
	sortLinks(edges)
	want := slices.Clone(links)
	sortLinks(want)
	if !reflect.DeepEqual(edges, want) {
		t.Errorf("Edges =\n %+v, want\n %+v", edges, want)
	}
	anchors, err := s.InAnchors(ctx, "go", c, 10)
	if err != nil {
		t.Fatalf("InAnchors: %v", err)
	}
	slices.Sort(anchors)
	if want := []string{"c from a", "c from b"}; !slices.Equal(anchors, want) {
		t.Errorf("InAnchors(c) = %v, want %v", anchors, want)
	}
	if anchors, _ := s.InAnchors(ctx, "go", c, 1); len(anchors) != 1 {
		t.Errorf("InAnchors(c, limit 1) = %v, want one anchor", anchors)
	}
	if anchors, _ := s.InAnchors(ctx, "go", a, 10); len(anchors) != 0 {
		t.Errorf("InAnchors(a) = %v, want none (the link to a is in another topic)", anchors)
	}
	stop := errors.New("stop")
	if err := s.Edges(ctx, "go", func(store.Link) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("Edges with failing callback returned %v, want the callback's error", err)
	}
}

func testEdgesMany(t *testing.T, s store.Store) {
	const srcs, per = 30, 40 // 1200 edges: several chunks in a chunked backend
	var links []store.Link
	for i := 0; i < srcs; i++ {
		for j := 0; j < per; j++ {
			links = append(links, store.Link{Src: hash(u("s.test", i)), Dst: hash(u("d.test", j)),
				DstURL: u("d.test", j), Anchor: "x", Context: "around x", Score: float64(i*per+j) / 2000})
		}
	}
	if err := s.AddLinks(t.Context(), "go", links); err != nil {
		t.Fatalf("AddLinks: %v", err)
	}
	var full, light []store.Link
	if err := s.Edges(t.Context(), "go", func(l store.Link) error { full = append(full, l); return nil }); err != nil {
		t.Fatalf("Edges: %v", err)
	}
	if err := s.GraphEdges(t.Context(), "go", func(l store.Link) error { light = append(light, l); return nil }); err != nil {
		t.Fatalf("GraphEdges: %v", err)
	}
	seen := map[[2]string]int{}
	for _, l := range full {
		seen[[2]string{l.Src, l.Dst}]++
	}
	if len(seen) != len(links) || len(full) != len(links) {
		t.Errorf("Edges returned %d edges, %d distinct, want %d", len(full), len(seen), len(links))
	}
	// GraphEdges: the same edges in the same order, with only Src, Dst and
	// Score set.
	if len(light) != len(full) {
		t.Fatalf("GraphEdges returned %d edges, Edges %d", len(light), len(full))
	}
	for i, l := range full {
		want := store.Link{Src: l.Src, Dst: l.Dst, Score: l.Score}
		if light[i] != want || l.Anchor != "x" || l.Context != "around x" || l.DstURL == "" {
			t.Fatalf("edge %d: Edges %+v, GraphEdges %+v; want GraphEdges %+v", i, l, light[i], want)
		}
	}
}

func testReserveHostSlot(t *testing.T, s store.Store) {
	ctx := t.Context()
	d := 2 * time.Second
	steps := []struct {
		host string
		now  time.Time
		want time.Time
	}{
		{"a.test", t0, t0},                                       // first request: now
		{"a.test", t0, t0.Add(d)},                                // booked: wait for the slot
		{"a.test", t0.Add(time.Second), t0.Add(2 * d)},           // still booked ahead
		{"b.test", t0, t0},                                       // hosts are independent
		{"a.test", t0.Add(time.Minute), t0.Add(time.Minute)},     // idle host: now again
		{"a.test", t0.Add(time.Minute), t0.Add(time.Minute + d)}, //
	}
	for i, st := range steps {
		got, err := s.ReserveHostSlot(ctx, st.host, d, st.now)
		if err != nil {
			t.Fatalf("step %d: ReserveHostSlot: %v", i, err)
		}
		if !got.Equal(st.want) || got.Location() != time.UTC {
			t.Errorf("step %d: ReserveHostSlot(%s, now %v) = %v, want %v (UTC)", i, st.host, st.now, got, st.want)
		}
	}
}

func testReserveHostSlotConcurrent(t *testing.T, s store.Store) {
	const workers, per = 8, 6
	d := 1500 * time.Millisecond
	var mu sync.Mutex
	var slots []time.Time
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				at, err := s.ReserveHostSlot(context.Background(), "busy.test", d, t0)
				if err != nil {
					t.Errorf("ReserveHostSlot: %v", err)
					return
				}
				mu.Lock()
				slots = append(slots, at)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(slots, func(a, b time.Time) int { return a.Compare(b) })
	if len(slots) != workers*per {
		t.Fatalf("got %d slots, want %d", len(slots), workers*per)
	}
	// Every caller passed the same now, so the slots are exactly now + k*d.
	for k, at := range slots {
		if want := t0.Add(time.Duration(k) * d); !at.Equal(want) {
			t.Fatalf("slot %d = %v, want %v (distinct slots %v apart)", k, at, want, d)
		}
	}
}

func testModels(t *testing.T, s store.Store) {
	ctx := t.Context()
	_, _, err := s.Model(ctx, "go", "nb", 0)
	wantNotFound(t, "Model before PutModel", err)
	for i, data := range []string{"m1", "m2", "m3"} {
		v, err := s.PutModel(ctx, "go", "nb", []byte(data))
		if err != nil || v != i+1 {
			t.Fatalf("PutModel(%s) = %d, %v; want %d", data, v, err, i+1)
		}
	}
	if v, err := s.PutModel(ctx, "go", "vector", []byte("v1")); err != nil || v != 1 {
		t.Errorf("PutModel(vector) = %d, %v; want 1 (versions are per kind)", v, err)
	}
	if v, err := s.PutModel(ctx, "rust", "nb", []byte("r1")); err != nil || v != 1 {
		t.Errorf("PutModel(rust) = %d, %v; want 1 (versions are per topic)", v, err)
	}
	for _, tc := range []struct {
		version, wantVersion int
		want                 string
	}{{0, 3, "m3"}, {1, 1, "m1"}, {2, 2, "m2"}, {3, 3, "m3"}} {
		data, v, err := s.Model(ctx, "go", "nb", tc.version)
		if err != nil || v != tc.wantVersion || string(data) != tc.want {
			t.Errorf("Model(go, nb, %d) = %q, %d, %v; want %q, %d", tc.version, data, v, err, tc.want, tc.wantVersion)
		}
	}
	_, _, err = s.Model(ctx, "go", "nb", 4)
	wantNotFound(t, "Model(version 4)", err)

	// ResetTopic (a crawl started with --fresh) deletes the topic's models,
	// but a version number is never handed out again: workers cache decoded
	// versions by number, and version 1 after a reset served the model of
	// the topic file before it.
	if err := s.ResetTopic(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Model(ctx, "go", "nb", 0)
	wantNotFound(t, "Model after ResetTopic", err)
	if v, err := s.PutModel(ctx, "go", "nb", []byte("after reset")); err != nil || v != 4 {
		t.Errorf("PutModel after ResetTopic = %d, %v; want 4 (1-3 named the models before the reset)", v, err)
	}
	if data, v, err := s.Model(ctx, "go", "nb", 0); err != nil || v != 4 || string(data) != "after reset" {
		t.Errorf("Model after ResetTopic = %q, %d, %v; want the new version 4", data, v, err)
	}
	_, _, err = s.Model(ctx, "go", "nb", 1)
	wantNotFound(t, "Model(version 1) after ResetTopic", err)
	if v, err := s.PutModel(ctx, "rust", "nb", []byte("r2")); err != nil || v != 2 {
		t.Errorf("PutModel(rust) = %d, %v; want 2 (another topic's reset leaves it alone)", v, err)
	}

	// PruneModels keeps the newest versions of one (topic, kind) and hands
	// no pruned number out again.
	for _, data := range []string{"r3", "r4", "r5"} {
		if _, err := s.PutModel(ctx, "rust", "nb", []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.PruneModels(ctx, "rust", "nb", 2); err != nil || n != 3 {
		t.Errorf("PruneModels(rust, nb, 2) = %d, %v; want 3 of 5 deleted", n, err)
	}
	for v := 1; v <= 3; v++ {
		_, _, err := s.Model(ctx, "rust", "nb", v)
		wantNotFound(t, fmt.Sprintf("Model(rust, nb, %d) after PruneModels", v), err)
	}
	if data, v, err := s.Model(ctx, "rust", "nb", 4); err != nil || v != 4 || string(data) != "r4" {
		t.Errorf("Model(rust, nb, 4) after PruneModels = %q, %d, %v; want r4 kept", data, v, err)
	}
	if n, err := s.PruneModels(ctx, "rust", "nb", 2); err != nil || n != 0 {
		t.Errorf("PruneModels again = %d, %v; want 0", n, err)
	}
	if _, v, err := s.Model(ctx, "go", "nb", 0); err != nil || v != 4 {
		t.Errorf("another topic's versions pruned: Model(go, nb) = %d, %v", v, err)
	}
	if _, err := s.PruneModels(ctx, "rust", "nb", 0); err == nil {
		t.Error("PruneModels keeping 0 must be an error")
	}
	if v, err := s.PutModel(ctx, "rust", "nb", []byte("r6")); err != nil || v != 6 {
		t.Errorf("PutModel after PruneModels = %d, %v; want 6", v, err)
	}
}

// testResetTopicRacingEnqueue: an Enqueue racing a ResetTopic (a worker of
// an earlier crawl still writing while a fresh crawl resets the topic) is
// deleted whole or kept whole: FrontierStats counts exactly the entries a
// claim can take, and never a negative queue once they are
// claimed. (PostgreSQL's reset deleted the frontier and its counts in two
// statements, and an Enqueue committed between them kept its entries but
// lost their count.)
func testResetTopicRacingEnqueue(t *testing.T, s store.Store) {
	ctx := t.Context()
	for round := range 5 {
		topic := fmt.Sprintf("race%d", round)
		enqueue(t, s, store.EnqueueOptions{}, entry(topic, u("old.test", 1), 1))
		done := make(chan error, 1)
		go func() { done <- s.ResetTopic(ctx, topic) }()
		var es []store.FrontierEntry
		for i := range 3 {
			es = append(es, entry(topic, u("new.test", i), 1))
		}
		if _, err := s.Enqueue(ctx, es, store.EnqueueOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("ResetTopic: %v", err)
		}
		st := frontierStats(t, s, topic)
		b, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: topic, BatchID: "b1", Max: 10})
		if err != nil {
			t.Fatal(err)
		}
		// The old entry goes; the new ones go too if the reset came last.
		if st.Queued != b.Size || (b.Size != 0 && b.Size != 3) {
			t.Errorf("round %d: FrontierStats.Queued = %d before a claim that took %d; want equal, 3 or 0", round, st.Queued, b.Size)
		}
		if st := frontierStats(t, s, topic); st.Queued != 0 || st.Claimed != b.Size {
			t.Errorf("round %d: after the claim: %+v; want 0 queued, %d claimed", round, st, b.Size)
		}
	}
}

func testResetTopic(t *testing.T, s store.Store) {
	ctx := t.Context()
	populate := func(topic, crawl string) []string {
		t.Helper()
		var hashes []string
		for i := 0; i < 3; i++ {
			enqueue(t, s, store.EnqueueOptions{}, entry(topic, u("a.test", i), 1))
		}
		claim(t, s, store.ClaimRequest{Topic: topic, BatchID: "b1", Max: 2})
		for i := 0; i < 2; i++ {
			p := savePage(t, s, page(topic, crawl, u("a.test", i)), []byte("body"))
			if err := s.SaveParse(ctx, topic, p.URLHash, []byte("parse"), "t", "en", []string{"go"}); err != nil {
				t.Fatalf("SaveParse: %v", err)
			}
			hashes = append(hashes, p.URLHash)
		}
		if err := s.AddLinks(ctx, topic, []store.Link{{Src: hashes[0], Dst: hashes[1], Anchor: "x"}}); err != nil {
			t.Fatalf("AddLinks: %v", err)
		}
		if _, err := s.PutModel(ctx, topic, "nb", []byte("m")); err != nil {
			t.Fatalf("PutModel: %v", err)
		}
		if _, err := s.WriteGroup(ctx, store.GroupWrite{Topic: topic, Decisions: []store.PageDecision{
			{URLHash: hashes[0], Decision: store.Decision{Decision: store.DecisionAccepted}, YieldHost: "a.test"},
			{URLHash: hashes[1], Decision: store.Decision{Decision: store.DecisionRejected}, YieldHost: "a.test"},
		}}); err != nil {
			t.Fatalf("WriteGroup(decisions with yields): %v", err)
		}
		return hashes
	}
	if _, err := s.PutTopic(ctx, "go", []byte("name: go")); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateCrawl(ctx, store.Crawl{ID: "crawl-1", Topic: "go", TopicVersion: 1, StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	goHashes := populate("go", "crawl-1")
	rustHashes := populate("rust", "crawl-r")

	for i := 0; i < 2; i++ { // idempotent
		if err := s.ResetTopic(ctx, "go"); err != nil {
			t.Fatalf("ResetTopic #%d: %v", i+1, err)
		}
	}
	if st := frontierStats(t, s, "go"); st != (store.FrontierStats{}) {
		t.Errorf("FrontierStats after reset = %+v, want empty", st)
	}
	_, err := s.Page(ctx, "go", goHashes[0])
	wantNotFound(t, "Page after reset", err)
	_, err = s.Blob(ctx, "go", goHashes[0], store.BlobBody)
	wantNotFound(t, "Blob(body) after reset", err)
	_, err = s.Blob(ctx, "go", goHashes[0], store.BlobParse)
	wantNotFound(t, "Blob(parse) after reset", err)
	if docs, df, err := termStats(ctx, s, "go", []string{"go"}); err != nil || docs != 0 || df["go"] != 0 {
		t.Errorf("TermStats after reset = %d, %v, %v; want zeros", docs, df, err)
	}
	_, _, err = s.Model(ctx, "go", "nb", 0)
	wantNotFound(t, "Model after reset", err)
	n := 0
	if err := s.Edges(ctx, "go", func(store.Link) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("Edges after reset: %d edges, %v; want none", n, err)
	}
	if got, _ := s.BatchEntries(ctx, "go", "b1"); len(got) != 0 {
		t.Errorf("BatchEntries after reset = %v, want none", urls(got))
	}
	if got, err := s.HostYields(ctx, "go", []string{"a.test"}); err != nil || len(got) != 0 {
		t.Errorf("HostYields after reset = %v, %v; want none", got, err)
	}
	if got, err := s.HostYields(ctx, "rust", []string{"a.test"}); err != nil || got["a.test"].Judged != 2 {
		t.Errorf("HostYields(rust) after resetting go = %v, %v; want the 2 judged kept", got, err)
	}
	if _, err := s.Topic(ctx, "go", 0); err != nil {
		t.Errorf("Topic after reset: %v (topic versions must stay)", err)
	}
	if _, err := s.Crawl(ctx, "crawl-1"); err != nil {
		t.Errorf("Crawl after reset: %v (crawl records must stay)", err)
	}
	// The other topic is untouched.
	if st := frontierStats(t, s, "rust"); st.Queued+st.Claimed != 3 {
		t.Errorf("FrontierStats(rust) after resetting go = %+v, want 3 entries", st)
	}
	if _, err := s.Blob(ctx, "rust", rustHashes[0], store.BlobBody); err != nil {
		t.Errorf("Blob(rust) after resetting go: %v", err)
	}
	if docs, _, _ := termStats(ctx, s, "rust", nil); docs != 2 {
		t.Errorf("TermStats(rust) docs after resetting go = %d, want 2", docs)
	}
	// A reset topic starts afresh.
	if n := enqueue(t, s, store.EnqueueOptions{}, entry("go", u("a.test", 0), 1)); n != 1 {
		t.Errorf("Enqueue after reset inserted %d, want 1", n)
	}
	if _, created, err := s.SavePage(ctx, page("go", "crawl-1", u("a.test", 0)), nil); err != nil || !created {
		t.Errorf("SavePage after reset: created %v, %v; want created", created, err)
	}
}

// testInLinks: InLinks returns only the asked targets' links of the topic,
// with the source page's crawl, decision and relevance when it was fetched.
func testInLinks(t *testing.T, s store.Store) {
	ctx := t.Context()
	a, b, c, d := u("a.test", 1), u("b.test", 1), u("c.test", 1), u("d.test", 1)
	pa := page("go", "crawl-1", a)
	pa.FinalURL, pa.FinalHash = "", "" // a row without a final URL: its URL is where its links came from
	savePage(t, s, pa, []byte("a"))
	pb := page("go", "crawl-2", b)
	pb.FinalURL, pb.FinalHash = u("b2.test", 1), hash(u("b2.test", 1)) // redirected: its links came from there
	savePage(t, s, pb, []byte("b"))
	if err := s.SetDecision(ctx, "go", hash(a), store.Decision{Decision: store.DecisionAccepted, Relevance: 0.25}); err != nil {
		t.Fatalf("SetDecision: %v", err)
	}
	if err := s.AddLinks(ctx, "go", []store.Link{
		{Src: hash(a), Dst: hash(c)}, {Src: hash(b), Dst: hash(c)}, {Src: hash(d), Dst: hash(c)},
		{Src: hash(a), Dst: hash(d)}, {Src: hash(c), Dst: hash(a)},
	}); err != nil {
		t.Fatalf("AddLinks: %v", err)
	}
	if err := s.AddLinks(ctx, "rust", []store.Link{{Src: hash(b), Dst: hash(d)}}); err != nil {
		t.Fatalf("AddLinks(rust): %v", err)
	}
	got, err := s.InLinks(ctx, "go", []string{hash(c), hash(d), hash(b)})
	if err != nil {
		t.Fatalf("InLinks: %v", err)
	}
	toC := []store.InLink{
		{Src: hash(a), CrawlID: "crawl-1", Decision: store.DecisionAccepted, Relevance: 0.25, SrcURL: a},
		{Src: hash(b), CrawlID: "crawl-2", Decision: store.DecisionPending, SrcURL: u("b2.test", 1)},
		{Src: hash(d)}, // not fetched
	}
	sort.Slice(toC, func(i, j int) bool { return toC[i].Src < toC[j].Src })
	want := map[string][]store.InLink{
		hash(c): toC,
		hash(d): {{Src: hash(a), CrawlID: "crawl-1", Decision: store.DecisionAccepted, Relevance: 0.25, SrcURL: a}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("InLinks =\n %+v, want\n %+v", got, want)
	}
	if got, err := s.InLinks(ctx, "go", nil); err != nil || len(got) != 0 {
		t.Errorf("InLinks(none) = %v, %v; want empty", got, err)
	}
}

// testOutLinksAndRecentPages: OutLinks returns only the asked sources'
// links of the topic, with the target page's crawl, decision, filter and
// relevance when it was fetched; RecentPages pages through a crawl newest
// first.
func testOutLinksAndRecentPages(t *testing.T, s store.Store) {
	ctx := t.Context()
	a, b, c, d := u("a.test", 1), u("b.test", 1), u("c.test", 1), u("d.test", 1)
	var seqs []int64
	for _, p := range []store.Page{page("go", "crawl-1", a), page("go", "crawl-1", b), page("go", "crawl-1", c), page("go", "crawl-2", d)} {
		saved, _, err := s.SavePage(ctx, p, nil)
		if err != nil {
			t.Fatalf("SavePage: %v", err)
		}
		seqs = append(seqs, saved.Seq)
	}
	if err := s.SetDecision(ctx, "go", hash(c), store.Decision{Decision: store.DecisionAccepted, Filter: "vsm", Relevance: 0.5}); err != nil {
		t.Fatalf("SetDecision: %v", err)
	}
	if err := s.AddLinks(ctx, "go", []store.Link{
		{Src: hash(a), Dst: hash(c), DstURL: c}, {Src: hash(a), Dst: hash(d), DstURL: d},
		{Src: hash(a), Dst: hash(u("e.test", 1)), DstURL: u("e.test", 1)}, {Src: hash(b), Dst: hash(a), DstURL: a},
	}); err != nil {
		t.Fatalf("AddLinks: %v", err)
	}
	if err := s.AddLinks(ctx, "rust", []store.Link{{Src: hash(a), Dst: hash(b)}}); err != nil {
		t.Fatalf("AddLinks(rust): %v", err)
	}
	got, err := s.OutLinks(ctx, "go", []string{hash(a), hash(c)})
	if err != nil {
		t.Fatalf("OutLinks: %v", err)
	}
	fromA := []store.OutLink{
		{Dst: hash(c), DstURL: c, CrawlID: "crawl-1", Decision: store.DecisionAccepted, Filter: "vsm", Relevance: 0.5},
		{Dst: hash(d), DstURL: d, CrawlID: "crawl-2", Decision: store.DecisionPending},
		{Dst: hash(u("e.test", 1)), DstURL: u("e.test", 1)}, // not fetched
	}
	sort.Slice(fromA, func(i, j int) bool { return fromA[i].Dst < fromA[j].Dst })
	if want := map[string][]store.OutLink{hash(a): fromA}; !reflect.DeepEqual(got, want) {
		t.Errorf("OutLinks =\n %+v, want\n %+v", got, want)
	}
	if got, err := s.OutLinks(ctx, "go", nil); err != nil || len(got) != 0 {
		t.Errorf("OutLinks(none) = %v, %v; want empty", got, err)
	}
	urls := func(ps []store.Page) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.URL)
		}
		return out
	}
	if ps, err := s.RecentPages(ctx, "crawl-1", 0, 2); err != nil || !slices.Equal(urls(ps), []string{c, b}) {
		t.Errorf("RecentPages(crawl-1, newest 2) = %q, %v; want c, b", urls(ps), err)
	}
	if ps, err := s.RecentPages(ctx, "crawl-1", seqs[1], 10); err != nil || !slices.Equal(urls(ps), []string{a}) {
		t.Errorf("RecentPages(crawl-1, before b) = %q, %v; want a", urls(ps), err)
	}
	if ps, err := s.RecentPages(ctx, "crawl-3", 0, 10); err != nil || len(ps) != 0 {
		t.Errorf("RecentPages(no such crawl) = %q, %v; want none", urls(ps), err)
	}
}

// testHostYields: a group's decisions with a YieldHost count into the
// topic's host yields on a page's first judgement only — not when the
// group is retried, nor when a decision is overwritten — per topic and host,
// and a group that fails counts nothing.
func testHostYields(t *testing.T, s store.Store) {
	ctx := t.Context()
	var hs []string
	for i, host := range []string{"a.test", "a.test", "a.test", "b.test", "b.test"} {
		hs = append(hs, savePage(t, s, page("go", "c1", u(host, i)), nil).URLHash)
	}
	rust := savePage(t, s, page("rust", "c2", u("a.test", 0)), nil).URLHash
	dec := func(hash, decision, host string) store.PageDecision {
		return store.PageDecision{URLHash: hash, Decision: store.Decision{Decision: decision, Relevance: 0.5}, YieldHost: host}
	}
	write := func(topic string, ds ...store.PageDecision) error {
		_, err := s.WriteGroup(ctx, store.GroupWrite{Topic: topic, Decisions: ds})
		return err
	}
	yields := func(topic string, hosts ...string) map[string]store.HostYield {
		t.Helper()
		got, err := s.HostYields(ctx, topic, hosts)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := yields("go", "a.test"); len(got) != 0 {
		t.Fatalf("HostYields before any decision = %v, want none", got)
	}
	// hs[0] and hs[3] were reached from another host: counted under the
	// class key too (YieldAlso).
	also := func(d store.PageDecision) store.PageDecision { d.YieldAlso = "~out"; return d }
	group := []store.PageDecision{
		also(dec(hs[0], store.DecisionAccepted, "a.test")),
		dec(hs[1], store.DecisionRejected, "a.test"),
		also(dec(hs[3], store.DecisionError, "b.test")),
		dec(hs[4], store.DecisionDuplicate, ""), // no YieldHost: not counted
	}
	for i := range 2 { // the second time is a retry: nothing counts again
		if err := write("go", group...); err != nil {
			t.Fatalf("WriteGroup #%d: %v", i+1, err)
		}
	}
	if err := write("rust", dec(rust, store.DecisionRejected, "a.test")); err != nil {
		t.Fatal(err)
	}
	// An overwrite (a re-judgement) of a judged page: decision written, not counted.
	if err := write("go", dec(hs[0], store.DecisionTunnel, "a.test")); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Page(ctx, "go", hs[0]); err != nil || p.Decision != store.DecisionTunnel {
		t.Errorf("page after the overwrite: decision %q, %v; want %q", p.Decision, err, store.DecisionTunnel)
	}
	want := map[string]store.HostYield{
		"a.test": {Host: "a.test", Judged: 2, Accepted: 1},
		"b.test": {Host: "b.test", Judged: 1},
	}
	if got := yields("go", "a.test", "b.test", "never.test"); !reflect.DeepEqual(got, want) {
		t.Errorf("HostYields(go) = %v, want %v", got, want)
	}
	if got := yields("rust", "a.test"); got["a.test"] != (store.HostYield{Host: "a.test", Judged: 1}) {
		t.Errorf("HostYields(rust) = %v, want a.test judged once", got)
	}
	if got := yields("go", "~out")["~out"]; got != (store.HostYield{Host: "~out", Judged: 2, Accepted: 1}) {
		t.Errorf("the class key's yield = %+v; want the two first judgements given YieldAlso, once (judged 2, accepted 1)", got)
	}
	// More hosts than fit one statement's parameters in some backends.
	many := []string{"a.test"}
	for i := range 1100 {
		many = append(many, fmt.Sprintf("h%d.test", i))
	}
	if got := yields("go", many...); len(got) != 1 || got["a.test"].Judged != 2 {
		t.Errorf("HostYields of %d hosts = %v; want a.test's counts only", len(many), got)
	}
	// A group that fails (a decision for a page that does not exist)
	// counts none of its first judgements.
	if err := write("go", dec(hs[2], store.DecisionAccepted, "a.test"), dec("no-such-page", store.DecisionAccepted, "a.test")); err == nil {
		t.Fatal("WriteGroup with a decision for a missing page: no error")
	}
	if got := yields("go", "a.test"); got["a.test"].Judged != 2 {
		t.Errorf("HostYields after a failed group = %v; want a.test unchanged", got)
	}
	// Re-judgement recounts acceptance: a promotion (hs[0] is a tunnel now)
	// adds one, a withdrawal takes one off, each only when the decision
	// changes whether the page is accepted (a repeat changes nothing), and
	// the count never goes below 0 (b.test had none accepted).
	recount := func(hash, decision, host string) store.PageDecision {
		return store.PageDecision{URLHash: hash, Decision: store.Decision{Decision: decision, Relevance: 0.5}, RecountHost: host}
	}
	for _, step := range []struct {
		d    store.PageDecision
		want store.HostYield
	}{
		{recount(hs[0], store.DecisionAccepted, "a.test"), store.HostYield{Host: "a.test", Judged: 2, Accepted: 2}},
		{recount(hs[0], store.DecisionAccepted, "a.test"), store.HostYield{Host: "a.test", Judged: 2, Accepted: 2}},
		{recount(hs[0], store.DecisionTunnel, "a.test"), store.HostYield{Host: "a.test", Judged: 2, Accepted: 1}},
		{recount(hs[0], store.DecisionTunnel, "a.test"), store.HostYield{Host: "a.test", Judged: 2, Accepted: 1}},
	} {
		if err := write("go", also(step.d)); err != nil {
			t.Fatal(err)
		}
		if got := yields("go", "a.test")["a.test"]; got != step.want {
			t.Errorf("after %s with RecountHost: a.test's yield %+v, want %+v", step.d.Decision.Decision, got, step.want)
		}
		// The class key follows the host's acceptance changes.
		if got, want := yields("go", "~out")["~out"], (store.HostYield{Host: "~out", Judged: 2, Accepted: step.want.Accepted}); got != want {
			t.Errorf("after %s with RecountHost: the class key's yield %+v, want %+v", step.d.Decision.Decision, got, want)
		}
	}
	// hs[4] is accepted without having been counted (a decision written
	// without YieldHost): withdrawing it would take b.test below 0.
	if err := write("go", dec(hs[4], store.DecisionAccepted, "")); err != nil {
		t.Fatal(err)
	}
	if err := write("go", recount(hs[4], store.DecisionTunnel, "b.test")); err != nil {
		t.Fatal(err)
	}
	if got := yields("go", "b.test")["b.test"]; got != (store.HostYield{Host: "b.test", Judged: 1}) {
		t.Errorf("b.test's yield after withdrawing an uncounted acceptance = %+v; want judged 1, accepted 0", got)
	}
	if p, err := s.Page(ctx, "go", hs[4]); err != nil || p.Decision != store.DecisionTunnel {
		t.Errorf("page after the recounted withdrawal: %q, %v; want tunnel", p.Decision, err)
	}
}

func testHoldHost(t *testing.T, s store.Store) {
	ctx := t.Context()
	now := time.Unix(1_800_000_000, 0)
	// A host never booked, and one with a booked slot that must survive.
	at, err := s.ReserveHostSlot(ctx, "booked.test", time.Second, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []struct {
		host  string
		until time.Time
	}{
		{"fresh.test", now.Add(time.Hour)}, {"booked.test", now.Add(time.Minute)},
		{"booked.test", now.Add(time.Second)}, // earlier: the minute stays
		{"gone.test", now.Add(-time.Second)},  // over already
	} {
		if err := s.HoldHost(ctx, h.host, h.until); err != nil {
			t.Fatalf("HoldHost(%s): %v", h.host, err)
		}
	}
	held := func(at time.Time) string {
		t.Helper()
		hs, err := s.HeldHosts(ctx, at)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(hs)
		return fmt.Sprint(hs)
	}
	if got := held(now); got != "[booked.test fresh.test]" {
		t.Errorf("HeldHosts(now) = %s; want [booked.test fresh.test]", got)
	}
	if got := held(now.Add(30 * time.Second)); got != "[booked.test fresh.test]" {
		t.Errorf("HeldHosts(now+30s) = %s; want booked.test still held (the later hold wins)", got)
	}
	if got := held(now.Add(2 * time.Minute)); got != "[fresh.test]" {
		t.Errorf("HeldHosts(now+2m) = %s; want [fresh.test]", got)
	}
	// The hold leaves the politeness schedule alone.
	next, err := s.ReserveHostSlot(ctx, "booked.test", 0, now)
	if err != nil || !next.Equal(at.Add(time.Second)) {
		t.Errorf("next slot of booked.test = %v, %v; want %v, as booked before the hold", next, err, at.Add(time.Second))
	}
}

// testInvalidUTF8Text: a page whose header-borne fields (a Latin-1 ETag,
// X-Robots-Tag) or error text hold invalid UTF-8 is saved, and replaced,
// with those bytes replaced — PostgreSQL refused it, and with it the whole
// group the page was written in.
func testInvalidUTF8Text(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := page("go", "crawl-1", u("latin1.test", 1))
	p.ETag, p.RobotsTag, p.Error = "W/\"caf\xe9\"", "noarchive \xff", "read: caf\xe9"
	if _, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go", Pages: []store.PageBody{{Page: p}}}); err != nil {
		t.Fatalf("WriteGroup with invalid UTF-8 in header fields: %v", err)
	}
	got, err := s.Page(ctx, "go", p.URLHash)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(got.ETag+got.RobotsTag+got.Error) || !strings.HasPrefix(got.ETag, "W/\"caf") {
		t.Errorf("stored ETag %q, robots tag %q, error %q; want them kept, as valid UTF-8", got.ETag, got.RobotsTag, got.Error)
	}
	got.ETag, got.BatchID = "\"v2\xe9\"", "r1"
	if err := s.ReplacePage(ctx, got, nil); err != nil {
		t.Fatalf("ReplacePage with invalid UTF-8: %v", err)
	}

	// A NUL is valid UTF-8 that PostgreSQL refuses as well: a TLS error
	// names a certificate's DNS names as they are ("evil\x00.example"), and
	// the page, with its whole group, failed at every retry.
	nul := page("go", "crawl-1", u("nul.test", 1))
	nul.ErrorClass, nul.Error = "tls", "x509: certificate is valid for evil\x00.example, not nul.test"
	ok := page("go", "crawl-1", u("nul.test", 2))
	if _, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go", Pages: []store.PageBody{{Page: ok}, {Page: nul}}}); err != nil {
		t.Fatalf("WriteGroup with a NUL in a page's error: %v", err)
	}
	if got, err := s.Page(ctx, "go", nul.URLHash); err != nil || got.Error != "x509: certificate is valid for evil\uFFFD.example, not nul.test" {
		t.Errorf("stored error %q, %v; want the NUL replaced by U+FFFD", got.Error, err)
	}
}

// testLongTerms: a term of store.MaxTermBytes is counted on both stores
// (PostgreSQL's B-tree key of term_df holds at most 2704 bytes).
func testLongTerms(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := page("go", "crawl-1", u("long.test", 1))
	long := strings.Repeat("é", store.MaxTermBytes/2) // two bytes each
	if _, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go", Pages: []store.PageBody{{Page: p}},
		Parses: []store.ParseWrite{{URLHash: p.URLHash, Parsed: []byte("{}"), Terms: []string{long, "short"}}}}); err != nil {
		t.Fatalf("WriteGroup with a %d-byte term: %v", len(long), err)
	}
	if _, df, err := termStats(ctx, s, "go", []string{long}); err != nil || df[long] != 1 {
		t.Errorf("document frequency of the %d-byte term = %v, %v; want 1", len(long), df[long], err)
	}
}

// testTermsEscaped: terms with characters JSON escapes (SQLite passes a
// group's term counts as one JSON object) are counted as they are.
func testTermsEscaped(t *testing.T, s store.Store) {
	ctx := t.Context()
	terms := []string{`say "hi"`, `back\slash`, "tab\tnew\nline\x01", "\u2028sep", "中文", "😀", "<&>", "plain"}
	p := page("go", "crawl-1", u("escaped.test", 1))
	res, err := s.WriteGroup(ctx, store.GroupWrite{Topic: "go", Pages: []store.PageBody{{Page: p}},
		Parses: []store.ParseWrite{{URLHash: p.URLHash, Parsed: []byte("{}"), Terms: append(terms, terms[0])}}})
	if err != nil {
		t.Fatalf("WriteGroup: %v", err)
	}
	want := map[string]int{}
	for _, term := range terms {
		want[term] = 1
	}
	if !reflect.DeepEqual(res.TermDF, want) {
		t.Errorf("WriteGroup counted %v; want %v", res.TermDF, want)
	}
	if _, df, err := termStats(ctx, s, "go", terms); err != nil || !reflect.DeepEqual(df, want) {
		t.Errorf("TermStats = %v, %v; want %v", df, err, want)
	}
}

// testEmptyBatchID: the empty batch ID is no batch — queued entries carry
// it — so completing or counting it touches nothing (SQLite marked a
// topic's whole queue done).
func testEmptyBatchID(t *testing.T, s store.Store) {
	ctx := t.Context()
	if _, err := s.Enqueue(ctx, []store.FrontierEntry{entry("go", u("empty.test", 1), 1), entry("go", u("empty.test", 2), 1)}, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.CompleteBatch(ctx, "go", ""); err != nil {
		t.Fatal(err)
	}
	if st, err := s.FrontierStats(ctx, "go"); err != nil || st.Queued != 2 || st.Done != 0 {
		t.Errorf("after CompleteBatch(\"\"): %+v, %v; want 2 queued, none done", st, err)
	}
	if st, err := s.BatchStats(ctx, "go", ""); err != nil || st.Claimed != 0 {
		t.Errorf("BatchStats(\"\") = %+v, %v; want 0 claimed", st, err)
	}
	if es, err := s.BatchEntries(ctx, "go", ""); err != nil || len(es) != 0 {
		t.Errorf("BatchEntries(\"\") = %d entries, %v; want none", len(es), err)
	}
}

// termStats is s.TermStats as its document count and frequencies.
func termStats(ctx context.Context, s store.Store, topic string, terms []string) (int, map[string]int, error) {
	tt, err := s.TermStats(ctx, topic, terms)
	return tt.Docs, tt.DF, err
}
