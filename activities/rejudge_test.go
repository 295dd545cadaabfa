package activities

import (
	"context"
	"sort"
	"strings"
	"testing"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/decision"
	"focuscrawl/internal/index"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
)

// TestRejudgeCrawl crawls the loopback site with split acceptance, then
// stands in for what an unsettled online split does — a poor page accepted
// and indexed, the best one rejected — and checks that RejudgeCrawl
// withdraws the poor page against the whole crawl's split (decision, index
// document and flag), promotes nothing, finishes an interrupted withdrawal
// (a rejected page still indexed), leaves an accepted page that a running
// slice may still be indexing to the final call, counts withdrawals from
// the store, and that repeated calls change nothing. Feedback re-judgement
// is off (the default; TestRejudgeCrawlFeedback has it on).
func TestRejudgeCrawl(t *testing.T) {
	a, r, judged := rejudgeFixture(t, "accept: split")
	ctx := context.Background()
	best, poor, poor2 := judged[0], judged[len(judged)-1], judged[len(judged)-2]
	if best.Decision != store.DecisionAccepted || poor.Decision == store.DecisionAccepted || poor2.Decision == store.DecisionAccepted {
		t.Fatalf("the crawl judged its best page %s (%.3f) %s and its poorest %s (%.3f) %s; want accepted and not",
			best.URL, best.Relevance, best.Decision, poor.URL, poor.Relevance, poor.Decision)
	}
	in := crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	if res, err := a.RejudgeCrawl(ctx, in); err != nil || !res.Applied || res.Demoted != 0 || res.Judged != len(judged) {
		t.Fatalf("re-judging the crawl as it is = %+v, %v; want %d judged, nothing changed", res, err, len(judged))
	}

	// The poorest page accepted and indexed; the second poorest accepted and
	// not yet indexed, as a running slice has it between its decision and
	// its index write; the best one rejected but still in the index, as a
	// withdrawal interrupted between its decision and its index deletion
	// leaves a page.
	if err := a.Store.SetDecision(ctx, r.Topic, poor2.URLHash, store.Decision{Relevance: poor2.Relevance, Filter: poor2.Filter,
		Decision: store.DecisionAccepted, Reason: "in flight"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.SetDecision(ctx, r.Topic, best.URLHash, store.Decision{Relevance: best.Relevance, Filter: best.Filter,
		Decision: store.DecisionRejected, Reason: "unsettled split"}); err != nil {
		t.Fatal(err)
	}
	acceptAndIndex(t, a, poor)
	if err := a.Store.MarkIndexed(ctx, r.Topic, []string{poor.URLHash}); err != nil {
		t.Fatal(err)
	}
	before, err := a.Index.Count(ctx, r.Topic)
	if err != nil {
		t.Fatal(err)
	}

	res, err := a.RejudgeCrawl(ctx, in)
	if err != nil || res.Demoted != 1 || res.Withdrawn != 1 {
		t.Fatalf("RejudgeCrawl = %+v, %v; want 1 withdrawn (the page in flight left alone)", res, err)
	}
	if got, err := a.Store.Page(ctx, r.Topic, poor2.URLHash); err != nil || got.Decision != store.DecisionAccepted {
		t.Errorf("the accepted page not yet indexed is %s (%v); want it left accepted while a slice may hold it", got.Decision, err)
	}
	got, err := a.Store.Page(ctx, r.Topic, poor.URLHash)
	if err != nil || got.Decision != store.DecisionTunnel || got.Indexed || !strings.Contains(got.Reason, "re-judged") {
		t.Errorf("poorest page after re-judging: %s, indexed %v, %q (%v); want tunnel, not indexed, re-judged", got.Decision, got.Indexed, got.Reason, err)
	}
	// LearnLinkModel's training data follows the withdrawal: the page is no
	// longer a result page to learn from (why the workflow re-judges before
	// learning).
	data, err := a.trainingData(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	learned := false
	for _, pi := range data.Pages {
		if pi.Hash == poor.URLHash {
			learned = !pi.Accepted && pi.Rejected
		}
	}
	if !learned {
		t.Errorf("link-model training data does not have the withdrawn page %s as judged and not accepted", poor.URL)
	}
	got, err = a.Store.Page(ctx, r.Topic, best.URLHash)
	if err != nil || got.Decision != store.DecisionRejected {
		t.Errorf("best page after re-judging: %s (%v); want it left rejected (re-judgement never promotes)", got.Decision, err)
	}
	if after, err := a.Index.Count(ctx, r.Topic); err != nil || after != before-2 {
		t.Errorf("index holds %d documents (%v); want %d (the withdrawn page and the rejected one gone)", after, err, before-2)
	}
	if got.Indexed {
		t.Errorf("the rejected page is still flagged indexed")
	}
	hits, err := a.Index.Search(ctx, index.Query{Topic: r.Topic, Text: poor.Title, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits.Hits {
		if h.ID == poor.FinalHash {
			t.Errorf("search for %q still finds the withdrawn page %s", poor.Title, poor.URL)
		}
	}
	// The final re-judgement (no slice running) withdraws the unindexed
	// page too; the count of withdrawals is read from the store, so a
	// call that changes nothing still reports them all.
	final := in
	final.Final = true
	res, err = a.RejudgeCrawl(ctx, final)
	if n, cerr := a.Index.Count(ctx, r.Topic); err != nil || cerr != nil || res.Demoted != 1 || res.Withdrawn != 2 || res.Indexed != n {
		t.Errorf("final RejudgeCrawl = %+v, %v; want 1 more withdrawn, 2 in all, the index's %d documents (%v)", res, err, n, cerr)
	}
	if n := acceptedInStore(t, a, "c1"); res.Accepted != n {
		t.Errorf("final RejudgeCrawl reports %d accepted, the store holds %d", res.Accepted, n)
	}
	if res, err := a.RejudgeCrawl(ctx, final); err != nil || res.Demoted != 0 || res.Withdrawn != 2 {
		t.Errorf("second final RejudgeCrawl = %+v, %v; want nothing changed, 2 in all", res, err)
	}
}

// TestRejudgeCrawlWithdrawsUnflaggedDocument: the final re-judgement
// withdraws an accepted page whose document is in the index although the
// store does not flag it indexed — a slice wrote the document, then failed
// writing the flag on every attempt and was released — and the document
// leaves the index. Before, withdraw deleted only flagged pages, so the
// withdrawn page stayed searchable for good.
func TestRejudgeCrawlWithdrawsUnflaggedDocument(t *testing.T) {
	a, r, judged := rejudgeFixture(t, "accept: split")
	ctx := context.Background()
	poor := judged[len(judged)-1]
	if poor.Decision == store.DecisionAccepted {
		t.Fatalf("the crawl accepted its poorest page %s (%.3f)", poor.URL, poor.Relevance)
	}
	acceptAndIndex(t, a, poor)
	before, err := a.Index.Count(ctx, r.Topic)
	if err != nil {
		t.Fatal(err)
	}
	res := finalRejudgeWithdrawsOne(t, a, r, "the poorest page")
	if got, err := a.Store.Page(ctx, r.Topic, poor.URLHash); err != nil || got.Decision != store.DecisionTunnel || got.Indexed {
		t.Errorf("poorest page after re-judging: %s, indexed %v (%v); want tunnel, not indexed", got.Decision, got.Indexed, err)
	}
	if n, err := a.Index.Count(ctx, r.Topic); err != nil || n != before-1 || res.Indexed != n {
		t.Errorf("index holds %d documents (%v), %d reported; want %d, without the withdrawn page", n, err, res.Indexed, before-1)
	}
}

// finalRejudgeWithdrawsOne runs the final RejudgeCrawl of crawl c1 and
// checks that it withdraws one page, the one what names.
func finalRejudgeWithdrawsOne(t *testing.T, a *Activities, r crawlapi.StartCrawlResult, what string) crawlapi.RejudgeResult {
	t.Helper()
	res, err := a.RejudgeCrawl(context.Background(), crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic,
		TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion, Final: true})
	if err != nil || res.Demoted != 1 {
		t.Fatalf("final RejudgeCrawl = %+v, %v; want %s withdrawn", res, err, what)
	}
	return res
}

// TestRejudgeCrawlThresholdTopic: a topic without split acceptance is not
// re-judged, and says so (Applied false), so the workflow keeps its counts.
func TestRejudgeCrawlThresholdTopic(t *testing.T) {
	_, a, r := siteCrawl(t) // siteTopicYAML: accept: threshold
	res, err := a.RejudgeCrawl(context.Background(), crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic,
		TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion, Final: true})
	if err != nil || res != (crawlapi.RejudgeResult{}) {
		t.Errorf("RejudgeCrawl of a threshold topic = %+v, %v; want nothing done, not applied", res, err)
	}
}

// TestRejudgeCrawlFeedback: the final re-judgement of a vsm topic scores the
// crawl's pages again with feedback (the topic expanded with the accepted
// pages' centroid): it promotes the best page an unsettled split rejected —
// accepted, marked, indexed, found by search — and withdraws the poorest
// one it accepted; the non-final re-judgement never promotes; a retry
// after an interrupted promotion (decision written, index write lost)
// finishes it and counts the promotion once; repeated calls change nothing.
func TestRejudgeCrawlFeedback(t *testing.T) {
	a, r, judged := rejudgeFixture(t, "accept: split, feedback: true")
	ctx := context.Background()
	best, poor := judged[0], judged[len(judged)-1]
	if best.Decision != store.DecisionAccepted || poor.Decision == store.DecisionAccepted {
		t.Fatalf("the crawl judged its best page %s %s and its poorest %s %s; want accepted and not", best.URL, best.Decision, poor.URL, poor.Decision)
	}
	// What an unsettled online split can leave: the best page rejected (and
	// out of the index), the poorest accepted (not indexed yet: the
	// non-final re-judgement leaves it to the final one).
	if err := a.Store.SetDecision(ctx, r.Topic, best.URLHash, store.Decision{Relevance: best.Relevance, Filter: best.Filter,
		Decision: store.DecisionRejected, Reason: "unsettled split"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Index.Delete(ctx, r.Topic, []string{best.FinalHash}); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.UnmarkIndexed(ctx, r.Topic, []string{best.URLHash}); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.SetDecision(ctx, r.Topic, poor.URLHash, store.Decision{Relevance: poor.Relevance, Filter: poor.Filter,
		Decision: store.DecisionAccepted, Reason: "unsettled split"}); err != nil {
		t.Fatal(err)
	}

	in := crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	if res, err := a.RejudgeCrawl(ctx, in); err != nil || res.Feedback || res.Promoted != 0 {
		t.Fatalf("non-final RejudgeCrawl = %+v, %v; want no feedback, nothing promoted", res, err)
	}
	if got, _ := a.Store.Page(ctx, r.Topic, best.URLHash); got.Decision != store.DecisionRejected {
		t.Fatalf("the non-final re-judgement changed the rejected best page to %s", got.Decision)
	}
	if got, _ := a.Store.Page(ctx, r.Topic, poor.URLHash); got.Decision != store.DecisionAccepted {
		t.Fatalf("the non-final re-judgement changed the unindexed accepted page to %s", got.Decision)
	}
	final := in
	final.Final = true
	res, err := a.RejudgeCrawl(ctx, final)
	if err != nil || !res.Feedback || res.Promoted != 1 {
		t.Fatalf("final RejudgeCrawl = %+v, %v; want feedback applied, the best page promoted", res, err)
	}
	got, err := a.Store.Page(ctx, r.Topic, best.URLHash)
	if err != nil || got.Decision != store.DecisionAccepted || !got.Indexed || !strings.Contains(got.Reason, promotedMark) {
		t.Fatalf("best page after the final re-judgement: %s, indexed %v, %q (%v); want accepted, indexed, promoted", got.Decision, got.Indexed, got.Reason, err)
	}
	if got.Relevance != best.Relevance {
		t.Errorf("promotion changed the stored score %.4f to %.4f; want the online score kept", best.Relevance, got.Relevance)
	}
	if !searchFinds(t, a, best) {
		t.Errorf("search for %q does not find the promoted page %s", best.Title, best.URL)
	}
	if got, err := a.Store.Page(ctx, r.Topic, poor.URLHash); err != nil || got.Decision != store.DecisionTunnel || got.Indexed || !strings.Contains(got.Reason, "feedback score") {
		t.Errorf("poorest page after the final re-judgement: %s, indexed %v, %q (%v); want withdrawn by its feedback score", got.Decision, got.Indexed, got.Reason, err)
	}
	n, err := a.Index.Count(ctx, r.Topic)
	if err != nil || res.Indexed != n {
		t.Errorf("final RejudgeCrawl reports %d indexed, the index holds %d (%v)", res.Indexed, n, err)
	}
	if m := acceptedInStore(t, a, "c1"); res.Accepted != m {
		t.Errorf("final RejudgeCrawl reports %d accepted, the store holds %d", res.Accepted, m)
	}

	// An attempt that wrote the promotion but lost its index write: the
	// next one indexes the page and counts the promotion once.
	if err := a.Index.Delete(ctx, r.Topic, []string{best.FinalHash}); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.UnmarkIndexed(ctx, r.Topic, []string{best.URLHash}); err != nil {
		t.Fatal(err)
	}
	res, err = a.RejudgeCrawl(ctx, final)
	if err != nil || res.Promoted != 1 || res.Demoted != 0 || res.Withdrawn != 1 {
		t.Errorf("retried final RejudgeCrawl = %+v, %v; want 1 promoted and 1 withdrawn in all, nothing new", res, err)
	}
	if got, err := a.Store.Page(ctx, r.Topic, best.URLHash); err != nil || !got.Indexed {
		t.Errorf("the promoted page is not indexed after the retry (%v)", err)
	}
	if m, err := a.Index.Count(ctx, r.Topic); err != nil || m != n || res.Indexed != n {
		t.Errorf("after the retry the index holds %d documents, %d reported (%v); want %d", m, res.Indexed, err, n)
	}
	res2, err := a.RejudgeCrawl(ctx, final)
	if err != nil || res2 != res {
		t.Errorf("a further final RejudgeCrawl = %+v, %v; want the same as before: %+v", res2, err, res)
	}
}

// rejudgeFixture crawls the loopback site with the test topic's strategy
// "accept: threshold" replaced by accept, and returns the crawl's judged
// pages, best score first.
func rejudgeFixture(t *testing.T, accept string) (*Activities, crawlapi.StartCrawlResult, []store.Page) {
	t.Helper()
	site := newLoopBackSite(t)
	site.cOnce.Do(func() { close(site.cSeen) }) // b.test's root need not wait for c.test
	a := siteActivities(t, site)
	yml := strings.Replace(siteTopicYAML, "accept: threshold", accept, 1)
	r, err := startCrawl(a, crawlapi.StartCrawlInput{CrawlID: "c1", TopicYAML: yml})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// One host and one page at a time: the pages are judged in one order
	// whatever the machine's timing, so the split and the scores that the
	// tests build on are the same in every run (with hosts served side by
	// side, a run now and then withdrew a second page).
	in := sliceInput(r, "s000001", 100)
	in.Hosts, in.Group = 1, 1
	if _, err := a.CrawlSlice(ctx, in); err != nil {
		t.Fatal(err)
	}
	var judged []store.Page
	if err := a.Store.CrawlLog(ctx, "c1", func(p store.Page) error {
		if decision.Judged(p.Decision) {
			judged = append(judged, p)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.Slice(judged, func(i, j int) bool { return judged[i].Relevance > judged[j].Relevance })
	return a, r, judged
}

// acceptAndIndex makes judged page p accepted, as an unsettled online split
// can, and writes its index document without flagging it indexed.
func acceptAndIndex(t *testing.T, a *Activities, p store.Page) {
	t.Helper()
	ctx := context.Background()
	if err := a.Store.SetDecision(ctx, p.Topic, p.URLHash, store.Decision{Relevance: p.Relevance, Filter: p.Filter,
		Decision: store.DecisionAccepted, Reason: "unsettled split"}); err != nil {
		t.Fatal(err)
	}
	rec, err := a.loadParse(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := a.indexDocument(ctx, p, rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Index.Upsert(ctx, []index.Document{doc}); err != nil {
		t.Fatal(err)
	}
}

// acceptedInStore counts crawl's accepted pages in the store.
func acceptedInStore(t *testing.T, a *Activities, crawl string) int {
	t.Helper()
	n := 0
	if err := a.Store.CrawlLog(context.Background(), crawl, func(p store.Page) error {
		if p.Decision == store.DecisionAccepted {
			n++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRejudgeCrawlFeedbackBeta: strategy.feedback_beta reaches the
// feedback scores: with 0 (no expansion, the whole crawl's in-link
// evidence alone) the poorest page's feedback score differs from the
// default's (β = 1), the crawl being the same.
func TestRejudgeCrawlFeedbackBeta(t *testing.T) {
	score := func(accept string) string {
		a, r, judged := rejudgeFixture(t, accept)
		poor := judged[len(judged)-1]
		ctx := context.Background()
		// Accepted, so the final re-judgement writes its feedback score
		// into the reason when it withdraws it.
		if err := a.Store.SetDecision(ctx, r.Topic, poor.URLHash, store.Decision{Relevance: poor.Relevance, Filter: poor.Filter,
			Decision: store.DecisionAccepted, Reason: "unsettled split"}); err != nil {
			t.Fatal(err)
		}
		in := crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion, Final: true}
		if res, err := a.RejudgeCrawl(ctx, in); err != nil || !res.Feedback {
			t.Fatalf("%s: final RejudgeCrawl = %+v, %v; want feedback applied", accept, res, err)
		}
		got, err := a.Store.Page(ctx, r.Topic, poor.URLHash)
		_, s, ok := strings.Cut(got.Reason, "feedback score ")
		if err != nil || !ok {
			t.Fatalf("%s: poorest page's reason %q (%v); want its feedback score", accept, got.Reason, err)
		}
		return strings.Fields(s)[0]
	}
	withExpansion := score("accept: split, feedback: true")
	inLinksOnly := score("accept: split, feedback: true, feedback_beta: 0")
	if withExpansion == inLinksOnly {
		t.Errorf("feedback score %s with β = 1 and with β = 0; want them to differ", withExpansion)
	}
}

// TestRejudgeCrawlIndexesUnflaggedAcceptedPage: an accepted page the crawl
// kept but never indexed — its slice's index write failed on every attempt
// and the slice was released — is left alone while slices may run (a
// running one may be about to index it) and indexed by the final
// re-judgement, without counting as promoted.
func TestRejudgeCrawlIndexesUnflaggedAcceptedPage(t *testing.T) {
	a, r, judged := rejudgeFixture(t, "accept: split")
	ctx := context.Background()
	best := judged[0]
	if best.Decision != store.DecisionAccepted || !best.Indexed {
		t.Fatalf("the crawl's best page %s: %s, indexed %v; want accepted and indexed", best.URL, best.Decision, best.Indexed)
	}
	if err := a.Index.Delete(ctx, r.Topic, []string{best.FinalHash}); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.UnmarkIndexed(ctx, r.Topic, []string{best.URLHash}); err != nil {
		t.Fatal(err)
	}
	// The crawl's other pages may be withdrawn by the re-judgements (the
	// fixture's judging order, and so its split, varies with timing):
	// only the best page is followed here.
	in := crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	if _, err := a.RejudgeCrawl(ctx, in); err != nil {
		t.Fatal(err)
	}
	if p, err := a.Store.Page(ctx, r.Topic, best.URLHash); err != nil || p.Indexed || p.Decision != store.DecisionAccepted {
		t.Fatalf("%s after a re-judgement while slices may run: %s, indexed %v, %v; want accepted, left unflagged", best.URL, p.Decision, p.Indexed, err)
	}
	in.Final = true
	res, err := a.RejudgeCrawl(ctx, in)
	if err != nil || res.Promoted != 0 {
		t.Fatalf("final re-judgement = %+v, %v; want nothing promoted", res, err)
	}
	checkOneHit(t, a, r.Topic, `"`+best.Title+`"`, best.FinalURL)
	if p, err := a.Store.Page(ctx, r.Topic, best.URLHash); err != nil || !p.Indexed {
		t.Errorf("%s after the final re-judgement: indexed %v, %v; want indexed", best.URL, p.Indexed, err)
	}
}

// TestRejudgeCrawlPromotesBelowSplit: the best page of the crawl stands in
// for one an unsettled online split turned down (a tunnel whose own score
// passed the threshold, relevance.BelowSplitMark). Re-judgements before
// the end leave it; the final one accepts and indexes it (strategy.promote,
// the default), counts it once across retries, and a page rejected on its
// own score is never promoted; with promote: false it stays a tunnel.
func TestRejudgeCrawlPromotesBelowSplit(t *testing.T) {
	for _, promote := range []bool{true, false} {
		accept := "accept: split"
		if !promote {
			accept += ", promote: false"
		}
		t.Run(accept, func(t *testing.T) {
			a, r, judged := rejudgeFixture(t, accept)
			ctx := context.Background()
			best, second := judged[0], judged[1]
			for _, p := range []store.Page{best, second} {
				if p.Decision != store.DecisionAccepted {
					t.Fatalf("the crawl judged %s (%.3f) %s; want accepted", p.URL, p.Relevance, p.Decision)
				}
			}
			if err := a.Store.SetDecision(ctx, r.Topic, best.URLHash, store.Decision{Relevance: best.Relevance, Filter: best.Filter,
				Decision: store.DecisionTunnel, Reason: "cosine 0.5 vs threshold 0.12; split: early" + relevance.BelowSplitMark}); err != nil {
				t.Fatal(err)
			}
			if err := a.Store.SetDecision(ctx, r.Topic, second.URLHash, store.Decision{Relevance: second.Relevance, Filter: second.Filter,
				Decision: store.DecisionRejected, Reason: "cosine 0.01 vs threshold 0.12; irrelevant: not expanded"}); err != nil {
				t.Fatal(err)
			}
			// The call before the end takes both out of the index (pages not
			// accepted, still indexed: as a withdrawal interrupted before
			// its index deletion) and promotes nothing.
			in := crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
			if res, err := a.RejudgeCrawl(ctx, in); err != nil || res.Promoted != 0 {
				t.Fatalf("RejudgeCrawl before the end = %+v, %v; want nothing promoted", res, err)
			}
			if got, err := a.Store.Page(ctx, r.Topic, best.URLHash); err != nil || got.Indexed || got.Decision != store.DecisionTunnel {
				t.Fatalf("below-split page before the end: %s, indexed %v (%v); want a tunnel out of the index", got.Decision, got.Indexed, err)
			}
			in.Final = true
			for call := range 2 { // the second: a retry changes nothing
				res, err := a.RejudgeCrawl(ctx, in)
				want := map[bool]int{true: 1, false: 0}[promote]
				if err != nil || res.Promoted != want {
					t.Fatalf("final RejudgeCrawl (call %d) = %+v, %v; want %d promoted", call+1, res, err, want)
				}
			}
			got, err := a.Store.Page(ctx, r.Topic, best.URLHash)
			if err != nil {
				t.Fatal(err)
			}
			if promote && (got.Decision != store.DecisionAccepted || !got.Indexed || !strings.Contains(got.Reason, promotedMark)) {
				t.Errorf("below-split page after the final re-judgement: %s, indexed %v, %q; want accepted, indexed, promoted", got.Decision, got.Indexed, got.Reason)
			}
			if !promote && got.Decision != store.DecisionTunnel {
				t.Errorf("with promote: false the below-split page is %s; want it left a tunnel", got.Decision)
			}
			if got, err := a.Store.Page(ctx, r.Topic, second.URLHash); err != nil || got.Decision != store.DecisionRejected {
				t.Errorf("page rejected on its own score is %s (%v); want it left rejected", got.Decision, err)
			}
			if n := acceptedInStore(t, a, "c1"); promote {
				if res, err := a.RejudgeCrawl(ctx, in); err != nil || res.Accepted != n {
					t.Errorf("final RejudgeCrawl reports %+v accepted, the store holds %d (%v)", res.Accepted, n, err)
				}
			}
		})
	}
}

// TestRejudgeRestoresIndexDocument: a withdrawal whose flag write failed
// left the page a tunnel, still flagged indexed, its document deleted; a
// final re-judgement at a lower split restores it and writes its document
// again (it had left it flagged, with no document), counting it once —
// also when the restore's own index write fails after its decision write
// and the activity is retried.
func TestRejudgeRestoresIndexDocument(t *testing.T) {
	for _, failFirst := range []bool{false, true} {
		t.Run(map[bool]string{false: "first attempt", true: "retried"}[failFirst], func(t *testing.T) {
			a, r, judged := rejudgeFixture(t, "accept: split")
			ctx := context.Background()
			best := judged[0]
			if best.Decision != store.DecisionAccepted || !best.Indexed {
				t.Fatalf("the crawl judged its best page %s %s, indexed %v; want accepted and indexed", best.URL, best.Decision, best.Indexed)
			}
			if err := a.Store.SetDecision(ctx, r.Topic, best.URLHash, store.Decision{Relevance: best.Relevance, Filter: best.Filter,
				Decision: store.DecisionTunnel, Reason: best.Reason + rejudgedMark + "0.500 below the crawl's split 0.990"}); err != nil {
				t.Fatal(err)
			}
			if err := a.Index.Delete(ctx, r.Topic, []string{best.FinalHash}); err != nil {
				t.Fatal(err)
			}
			failing := &failingUpsert{Index: a.Index, fail: failFirst}
			a.Index = failing
			in := crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion, Final: true}
			if failFirst {
				if _, err := a.RejudgeCrawl(ctx, in); err == nil {
					t.Fatal("RejudgeCrawl succeeded with the index write failing")
				}
				failing.fail = false
			}
			res, err := a.RejudgeCrawl(ctx, in)
			if err != nil || res.Promoted != 1 {
				t.Fatalf("final RejudgeCrawl = %+v, %v; want the page counted restored once", res, err)
			}
			n, err := a.Index.Count(ctx, r.Topic)
			if err != nil || res.Indexed != n {
				t.Errorf("RejudgeCrawl reports %d indexed, the index holds %d (%v)", res.Indexed, n, err)
			}
			if !searchFinds(t, a, best) {
				t.Errorf("the restored page %s is not in the index", best.URL)
			}
		})
	}
}

// searchFinds reports whether a search for p's title in its topic finds
// p's index document.
func searchFinds(t *testing.T, a *Activities, p store.Page) bool {
	t.Helper()
	hits, err := a.Index.Search(context.Background(), index.Query{Topic: p.Topic, Text: p.Title, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits.Hits {
		if h.ID == p.FinalHash {
			return true
		}
	}
	return false
}

// TestRejudgeFeedbackKeepsOffSiteTunnel: the feedback re-judgement, which
// promotes every page its scores keep, leaves a tunnel that split
// acceptance turned down for off-site in-link evidence (relevance.
// OffSiteMark) as it is: feedback mixes in every judged in-linker, so the
// same evidence would lift it again (a review's finding).
func TestRejudgeFeedbackKeepsOffSiteTunnel(t *testing.T) {
	a, r, judged := rejudgeFixture(t, "accept: split, feedback: true")
	ctx := context.Background()
	best := judged[0]
	reason := "cosine 0.010 vs threshold 0.020; split: 0.300 with 1 in-link(s) vs crawl split 0.100" + relevance.OffSiteMark
	if err := a.Store.SetDecision(ctx, r.Topic, best.URLHash, store.Decision{Relevance: best.Relevance, Filter: best.Filter,
		Decision: store.DecisionTunnel, Reason: reason}); err != nil {
		t.Fatal(err)
	}
	if err := a.Index.Delete(ctx, r.Topic, []string{best.FinalHash}); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.UnmarkIndexed(ctx, r.Topic, []string{best.URLHash}); err != nil {
		t.Fatal(err)
	}
	in := crawlapi.RejudgeInput{CrawlID: "c1", Topic: r.Topic, TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion, Final: true}
	res, err := a.RejudgeCrawl(ctx, in)
	if err != nil || !res.Feedback {
		t.Fatalf("final RejudgeCrawl = %+v, %v; want feedback applied", res, err)
	}
	if got, err := a.Store.Page(ctx, r.Topic, best.URLHash); err != nil || got.Decision != store.DecisionTunnel || got.Indexed {
		t.Errorf("off-site tunnel after the feedback re-judgement: %s, indexed %v, %q (%v); want it left a tunnel", got.Decision, got.Indexed, got.Reason, err)
	}
}
