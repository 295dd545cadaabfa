package activities

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/fetch"
	"focuscrawl/internal/revisit"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// unreachableSite is a crawled loopBackSite with helpers that read one
// page's row, revisit bookkeeping and index count.
type unreachableSite struct {
	t      *testing.T
	site   *loopBackSite
	a      *Activities
	r      crawlapi.StartCrawlResult
	before int    // index documents after the crawl
	u      string // the page watched
	hash   string
	onA    int // a.test's accepted pages
}

func newUnreachableSite(t *testing.T, site *loopBackSite, a *Activities, r crawlapi.StartCrawlResult, before int) *unreachableSite {
	t.Helper()
	s := &unreachableSite{t: t, site: site, a: a, r: r, before: before, u: "http://a.test/roses/2"}
	s.hash = urlnorm.Hash(s.u)
	for pu, p := range site.pages {
		if p.onTopic && strings.HasPrefix(pu, "http://a.test/") {
			s.onA++
		}
	}
	return s
}

func (s *unreachableSite) count() int {
	s.t.Helper()
	c, err := s.a.Index.Count(s.t.Context(), s.r.Topic)
	if err != nil {
		s.t.Fatal(err)
	}
	return c
}

func (s *unreachableSite) info() store.RefreshInfo {
	s.t.Helper()
	ri, err := s.a.Store.RefreshInfo(s.t.Context(), s.r.Topic, s.hash)
	if err != nil {
		s.t.Fatal(err)
	}
	return ri
}

func (s *unreachableSite) page() store.Page {
	s.t.Helper()
	p, err := s.a.Store.Page(s.t.Context(), s.r.Topic, s.hash)
	if err != nil {
		s.t.Fatal(err)
	}
	return p
}

// blob is the page's stored blob of kind, nil when there is none.
func (s *unreachableSite) blob(kind string) []byte {
	s.t.Helper()
	b, err := s.a.Store.Blob(s.t.Context(), s.r.Topic, s.hash, kind)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	} else if err != nil {
		s.t.Fatal(err)
	}
	return b
}

// conditional is how many requests for the page carried validators.
func (s *unreachableSite) conditional() int {
	s.site.mu.Lock()
	defer s.site.mu.Unlock()
	return s.site.conditional[s.u]
}

// lastModifiedSite crawls a loopBackSite that sends every page with a
// Last-Modified header, so that revisits ask conditionally, and watches
// it; a.test's pages leave the index at the third failure in a row of
// their host (an hour and an hour and a half apart: past 2h).
func lastModifiedSite(t *testing.T) *unreachableSite {
	t.Helper()
	site, a, r := siteCrawl(t)
	site.lastModified = "Mon, 02 Jan 2006 15:04:05 GMT"
	if _, err := a.CrawlSlice(t.Context(), sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	before, err := a.Index.Count(t.Context(), r.Topic)
	if err != nil {
		t.Fatal(err)
	}
	a.RefreshCfg.MinInterval, a.RefreshCfg.DropUnreachableAfter = time.Hour, 2*time.Hour
	return newUnreachableSite(t, site, a, r, before)
}

// downUntilUnreachable takes a.test off the network and runs refresh
// batches of the topic from start, each when the page is due again, until
// one takes a.test's pages out of the index; it checks that until then
// every failure counted, the waits grew (revisit.AfterFailure) and the
// index kept every document. It returns that batch's Refetch result, its
// time and the failures in a row.
func (s *unreachableSite) downUntilUnreachable(start time.Time, prefix string) (crawlapi.RefetchResult, time.Time, int) {
	s.t.Helper()
	s.site.setDown("a.test", true)
	now := start
	for k := 1; ; k++ {
		f := refreshStages(s.t, s.a, s.r, fmt.Sprintf("%s-%d", prefix, k), now, "finish")
		ri := s.info()
		if ri.Unreachable != k || !ri.UnreachableSince.Equal(start) {
			s.t.Fatalf("after failure %d: %+v; want %d in a row since %v", k, ri, k, start)
		}
		if _, want := revisit.AfterFailure(s.a.RefreshCfg, 0, k); ri.NextAt.Sub(now) != want {
			s.t.Errorf("failure %d: due again in %s; want %s (1.5× longer per failure, up to max_interval)", k, ri.NextAt.Sub(now), want)
		}
		if f.Unreachable > 0 {
			return f, now, k
		}
		if c := s.count(); c != s.before {
			s.t.Fatalf("failure %d, %s after the first: %d documents; want all %d kept while the host may come back", k, now.Sub(start), c, s.before)
		}
		if k > 20 {
			s.t.Fatalf("still in the index after %d failures over %s: %+v", k, now.Sub(start), ri)
		}
		now = ri.NextAt
	}
}

// TestRefreshUnreachablePageLeavesIndexOnly: the accepted pages of a host
// that goes away (every connection closed unanswered) are revisited after
// waits that grow 1.5× per failure from refresh.min_interval up to
// refresh.max_interval, stay searchable while the host may come back, and
// once their revisits have failed for refresh.drop_unreachable_after
// (three times at least) give up their index documents — and nothing
// else: each stays accepted with its row, validators, parse record and
// body as they were, is never dropped nor given up (here with
// refresh.recheck_dropped 0, which before deleted it for good at once), and
// is revisited at max_interval for as long as the host stays away. When the
// host is back, its next revisit indexes it again although it answers
// with the page unchanged.
func TestRefreshUnreachablePageLeavesIndexOnly(t *testing.T) {
	site, a, r := siteCrawl(t)
	a.CrawlCfg.KeepBodies = true
	if _, err := a.CrawlSlice(t.Context(), sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	before, err := a.Index.Count(t.Context(), r.Topic)
	if err != nil {
		t.Fatal(err)
	}
	s := newUnreachableSite(t, site, a, r, before)
	a.RefreshCfg.MinInterval, a.RefreshCfg.MaxInterval = time.Hour, 24*time.Hour
	a.RefreshCfg.DropUnreachableAfter, a.RefreshCfg.RecheckDropped = 72*time.Hour, 0
	p0, parse0, body0 := s.page(), s.blob(store.BlobParse), s.blob(store.BlobBody)
	if !p0.Indexed || parse0 == nil || body0 == nil {
		t.Fatalf("after the crawl: indexed %v, parse %d bytes, body %d bytes; want indexed, both kept", p0.Indexed, len(parse0), len(body0))
	}

	start := time.Now().Add(365 * 24 * time.Hour) // every page due
	f, now, failures := s.downUntilUnreachable(start, "refresh/down")
	t.Logf("out of the index at failure %d, %s after the first", failures, now.Sub(start))
	if span := now.Sub(start); failures < revisit.MinUnreachableChecks || span < a.RefreshCfg.DropUnreachableAfter || failures > 12 {
		t.Errorf("out of the index at failure %d, %s after the first; want at least %d failures spanning %s, about ten",
			failures, span, revisit.MinUnreachableChecks, a.RefreshCfg.DropUnreachableAfter)
	}
	if f.Unreachable != s.onA || f.Failed != s.onA || f.Gone != 0 {
		t.Errorf("refetch: %+v; want a.test's %d accepted pages failed and unreachable, none gone", f, s.onA)
	}
	if c := s.count(); c != before-s.onA {
		t.Errorf("after the limit: %d documents; want %d, without a.test's", c, before-s.onA)
	}
	checkKept := func(when string) {
		t.Helper()
		p := s.page()
		if p.Decision != p0.Decision || p.Indexed || p.ErrorClass != "" || p.ContentHash != p0.ContentHash ||
			p.LastModified != p0.LastModified || p.ETag != p0.ETag || !p.FetchedAt.Equal(p0.FetchedAt) || p.Relevance != p0.Relevance {
			t.Errorf("page %s: %+v; want it as the crawl stored it (accepted), only unflagged", when, p)
		}
		if !bytes.Equal(s.blob(store.BlobParse), parse0) || !bytes.Equal(s.blob(store.BlobBody), body0) {
			t.Errorf("page %s: its parse record or body changed or went", when)
		}
		if ri := s.info(); ri.Dropped != 0 || ri.NextAt.IsZero() {
			t.Errorf("bookkeeping %s: %+v; want no drop, due again", when, ri)
		}
	}
	checkKept("after the limit")

	// Still away: revisited at max_interval, out of the index, kept.
	for k := 1; k <= 3; k++ {
		now = s.info().NextAt
		site.reset()
		f := refreshStages(t, a, r, fmt.Sprintf("refresh/away-%d", k), now, "finish")
		if f.Unreachable != s.onA || site.pageRequests()[s.u] != 1 {
			t.Errorf("revisit %d past the limit: %+v, %d requests; want a.test's pages asked for and unreachable", k, f, site.pageRequests()[s.u])
		}
		ri := s.info()
		if ri.Unreachable != failures+k || ri.NextAt.Sub(now) != a.RefreshCfg.MaxInterval {
			t.Errorf("revisit %d past the limit: %+v; want %d failures, due again in %s", k, ri, failures+k, a.RefreshCfg.MaxInterval)
		}
		checkKept(fmt.Sprintf("at revisit %d past the limit", k))
	}
	if c := s.count(); c != before-s.onA {
		t.Errorf("still away: %d documents; want %d", c, before-s.onA)
	}

	// The host is back, serving the pages as they were: indexed again.
	site.setDown("a.test", false)
	f = refreshStages(t, a, r, "refresh/back", s.info().NextAt, "finish")
	if f.Failed != 0 || f.Unreachable != 0 {
		t.Errorf("refetch with the host back: %+v; want no failure", f)
	}
	if p := s.page(); p.Decision != store.DecisionAccepted || !p.Indexed {
		t.Errorf("after the host came back: decision %q, indexed %v; want accepted and indexed", p.Decision, p.Indexed)
	}
	if ri := s.info(); ri.Dropped != 0 || ri.Unreachable != 0 || !ri.UnreachableSince.IsZero() {
		t.Errorf("bookkeeping after the host came back: %+v; want no drops, no failures", ri)
	}
	if c := s.count(); c != before {
		t.Errorf("after the host came back: %d documents; want all %d", c, before)
	}
	checkOneHit(t, a, r.Topic, "number 2", s.u)
}

// TestRefreshUnreachablePageBackOn304: a page out of the index as
// unreachable whose host comes back answering 304 is asked for with its
// validators, and the 304 puts its document back from its stored parse,
// its decision and reason kept (judged again from scratch, a page the
// crawl's final re-judgement had accepted could be turned down for an
// outage: a review).
func TestRefreshUnreachablePageBackOn304(t *testing.T) {
	s := lastModifiedSite(t)
	site, a, r, before := s.site, s.a, s.r, s.before
	site.notModified = true
	now := time.Now().Add(365 * 24 * time.Hour)
	if f := refreshStages(t, a, r, "refresh/up", now, "finish"); f.NotModified == 0 || s.conditional() != 1 {
		t.Fatalf("refetch with the host up: %+v, %d conditional requests for the page; want 304s", f, s.conditional())
	}
	// Past every page's revisit (refresh.max_interval), so that a.test's
	// pages are all due together.
	s.downUntilUnreachable(now.Add(a.RefreshCfg.MaxInterval+time.Hour), "refresh/down")
	if p := s.page(); p.Indexed || p.LastModified == "" || s.count() != before-s.onA {
		t.Fatalf("after the limit: indexed %v, Last-Modified %q, %d documents; want out of the index, validators kept", p.Indexed, p.LastModified, s.count())
	}
	asked, reason := s.conditional(), s.page().Reason
	site.setDown("a.test", false)
	f := refreshStages(t, a, r, "refresh/back", s.info().NextAt, "finish")
	if s.conditional() != asked+1 || f.NotModified != s.onA || f.Changed != 0 {
		t.Errorf("refetch with the host back: %+v, %d conditional requests more; want a.test's pages asked with validators, not modified", f, s.conditional()-asked)
	}
	if p := s.page(); p.Decision != store.DecisionAccepted || p.Reason != reason || !p.Indexed || s.count() != before {
		t.Errorf("after the host came back: decision %q (%q), indexed %v, %d documents; want accepted as before (%q), indexed, all %d",
			p.Decision, p.Reason, p.Indexed, s.count(), reason, before)
	}
	if !searchFinds(t, a, s.page()) {
		t.Errorf("search does not find the page back in the index")
	}
	if ri := s.info(); ri.Unreachable != 0 {
		t.Errorf("bookkeeping after the host came back: %+v; want no failures", ri)
	}
	// Indexed again, it is asked conditionally again, and left as it is.
	refreshStages(t, a, r, "refresh/after", s.info().NextAt, "finish")
	if s.conditional() != asked+2 || s.count() != before {
		t.Errorf("the page indexed again: %d conditional requests, %d documents; want 2, %d", s.conditional()-asked, s.count(), before)
	}
}

// TestRefreshUnreachableCountKeptWhenHostIsUp: between failures that say
// a page's host is down, 429s (the host is up and asked for a pause) and a revisit postponed for a hold of the host (nothing asked)
// neither count nor end the row: the next failure of the host is the
// third in a row since the first and takes the page out of the index.
// Counted, the 429 would have taken it out while its host answered; taken
// as answers, they would have started the row over.
func TestRefreshUnreachableCountKeptWhenHostIsUp(t *testing.T) {
	site, a, r, before := crawledSite(t)
	s := newUnreachableSite(t, site, a, r, before)
	ctx := t.Context()
	a.RefreshCfg.MinInterval, a.RefreshCfg.DropUnreachableAfter = time.Hour, 2*time.Hour
	a.FetchCfg.MaxHostHold = 0 // no hold after a 429 or 503: the batches do not wait for one in real time
	start := time.Now().Add(365 * 24 * time.Hour)
	site.setDown("a.test", true)
	now := start
	for k := 1; k <= 2; k++ {
		refreshStages(t, a, r, fmt.Sprintf("refresh/down-%d", k), now, "finish")
		now = s.info().NextAt
	}
	kept := func(what string) {
		t.Helper()
		ri := s.info()
		if ri.Unreachable != 2 || !ri.UnreachableSince.Equal(start) || !s.page().Indexed {
			t.Errorf("after %s: %+v, indexed %v; want 2 failures in a row since %v kept, still indexed", what, ri, s.page().Indexed, start)
		}
	}
	kept("two failures")
	site.setDown("a.test", false)

	site.mu.Lock()
	site.overload = map[string]int{s.u: site.requests[s.u] + 1}
	site.mu.Unlock()
	if f := refreshStages(t, a, r, "refresh/429", now, "finish"); f.ErrorsByClass[string(fetch.ClassHTTPServer)] != 1 || f.Unreachable != 0 {
		t.Fatalf("refetch with the page answering 429: %+v; want one http_server failure, nothing unreachable", f)
	}
	kept("a 429")

	now = s.info().NextAt
	site.mu.Lock()
	site.overload = map[string]int{s.u: site.requests[s.u] + 1} // a 429 with Retry-After: 1
	site.mu.Unlock()
	if f := refreshStages(t, a, r, "refresh/429-again", now, "finish"); f.ErrorsByClass[string(fetch.ClassHTTPServer)] != 1 || f.Unreachable != 0 {
		t.Fatalf("refetch with the page answering 429 again: %+v; want one http_server failure, nothing unreachable", f)
	}
	kept("a second 429")

	now = s.info().NextAt
	until := now.Add(10 * time.Hour)
	if err := a.Store.HoldHost(ctx, "a.test", until); err != nil {
		t.Fatal(err)
	}
	site.reset()
	if f := refreshStages(t, a, r, "refresh/held", now, "refetch"); f.Postponed == 0 || len(site.pageRequests()) != 0 {
		t.Fatalf("refetch with a.test held: %+v, requests %v; want its pages postponed, none asked for", f, site.pageRequests())
	}
	kept("a postponed revisit")
	if ri := s.info(); !ri.NextAt.Equal(until) {
		t.Errorf("postponed: due %v; want at the hold's end %v", ri.NextAt, until)
	}

	site.setDown("a.test", true)
	f := refreshStages(t, a, r, "refresh/down-3", until, "finish")
	if ri := s.info(); ri.Unreachable != 3 || !ri.UnreachableSince.Equal(start) || f.Unreachable == 0 || s.page().Indexed {
		t.Errorf("third failure of the host: %+v, %+v, indexed %v; want 3 in a row since %v, out of the index", f, ri, s.page().Indexed, start)
	}
}

// TestUnreachableRow: which revisit outcomes add to a page's row of
// failures for its host being down, which end it and which leave it as it
// was — the held request never sent and a failure of the worker's own
// (an error that is no fetch error: the store failing to book the host's
// slot; a cancelled wait) among the last.
func TestUnreachableRow(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(5 * time.Hour)
	ri := store.RefreshInfo{Unreachable: 2, UnreachableSince: t0}
	fe := func(class fetch.Class, status int, retryAfter time.Duration) error {
		e := &fetch.Error{URL: "http://a.test/", Class: class, Status: status, RetryAfter: retryAfter, Err: errors.New("x")}
		e.Permanent = class == fetch.ClassHTTPClient || class == fetch.ClassSSRF || class == fetch.ClassBadResponse
		return fmt.Errorf("refetch: %w", e)
	}
	robotsPermanent := &fetch.Error{URL: "http://a.test/", Class: fetch.ClassRobots, Permanent: true}
	robotsAnswered := func(status int) error {
		return &fetch.Error{URL: "http://a.test/", Class: fetch.ClassRobots, RobotsStatus: status, Err: errors.New("x")}
	}
	held := &fetch.Error{URL: "http://a.test/", Class: fetch.ClassHTTPServer, RetryAfter: time.Hour, Err: errors.New("held")}
	const (
		adds = iota
		ends
		keeps
	)
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"answer", nil, ends},
		{"connect", fe(fetch.ClassConnect, 0, 0), adds},
		{"timeout", fe(fetch.ClassTimeout, 0, 0), adds},
		{"dns", fe(fetch.ClassDNS, 0, 0), adds},
		{"tls", fe(fetch.ClassTLS, 0, 0), adds},
		{"body_read", fe(fetch.ClassBodyRead, 0, 0), adds},
		{"500", fe(fetch.ClassHTTPServer, 500, 0), adds},
		{"502", fe(fetch.ClassHTTPServer, 502, 0), adds},
		{"408", fe(fetch.ClassHTTPServer, 408, 0), adds},
		{"robots.txt unreachable", fe(fetch.ClassRobots, 0, 0), adds},
		{"robots.txt answered 503", robotsAnswered(503), adds},
		{"robots.txt answered 429", robotsAnswered(429), keeps},
		{"robots.txt redirected where it may not go", robotsAnswered(301), keeps},
		{"429", fe(fetch.ClassHTTPServer, 429, 0), keeps},
		{"503", fe(fetch.ClassHTTPServer, 503, 0), adds},
		{"503 with Retry-After", fe(fetch.ClassHTTPServer, 503, time.Minute), keeps},
		{"500 with Retry-After", fe(fetch.ClassHTTPServer, 500, time.Minute), keeps},
		{"robots.txt 503 with Retry-After", fe(fetch.ClassRobots, 0, time.Minute), keeps},
		{"held, never sent", unsentHeld{held}, keeps},
		{"held redirect hop", fmt.Errorf("hop: %w", held), keeps},
		{"store error (other)", errors.New("reserve politeness slot for a.test: database is locked"), keeps},
		{"worker stopping", errUnsent, keeps},
		{"canceled", fe(fetch.ClassCanceled, 0, 0), keeps},
		{"context", context.DeadlineExceeded, keeps},
		{"404", fe(fetch.ClassHTTPClient, 404, 0), ends},
		{"403 (a firewall's, or a page gone private: forbiddenStatus)", fe(fetch.ClassHTTPClient, 403, 0), adds},
		{"401", fe(fetch.ClassHTTPClient, 401, 0), ends},
		{"999 (a refusal of crawlers)", fe(fetch.ClassHTTPClient, 999, 0), adds},
		{"ssrf", fe(fetch.ClassSSRF, 0, 0), ends},
		{"bad_response", fe(fetch.ClassBadResponse, 0, 0), ends},
		{"robots.txt disallows", robotsPermanent, ends},
	} {
		down, n, since := unreachableRow(ri, tc.err, forbiddenStatus(tc.err), now)
		var ok bool
		switch tc.want {
		case adds:
			ok = down && n == 3 && since.Equal(t0)
		case ends:
			ok = !down && n == 0 && since.IsZero()
		case keeps:
			ok = !down && n == 2 && since.Equal(t0)
		}
		if !ok {
			t.Errorf("%s (%v): down %v, %d since %v; want %s", tc.name, tc.err, down, n, since, []string{"one more", "the row ended", "the row kept"}[tc.want])
		}
	}
	// The first of a row starts it now.
	if down, n, since := unreachableRow(store.RefreshInfo{}, fe(fetch.ClassConnect, 0, 0), false, now); !down || n != 1 || !since.Equal(now) {
		t.Errorf("a first failure: %v, %d since %v; want 1 since %v", down, n, since, now)
	}
}

// failedTwice crawls loopBackSite and takes a.test off the network for
// two refresh batches an hour apart: its pages have failed twice in a row,
// and a third failure an hour and a half later (2.5h since the first)
// takes them out of the index. It returns the site, watched, and when the
// third revisit is due.
func failedTwice(t *testing.T) (*unreachableSite, time.Time) {
	t.Helper()
	site, a, r, before := crawledSite(t)
	s := newUnreachableSite(t, site, a, r, before)
	a.RefreshCfg.MinInterval, a.RefreshCfg.DropUnreachableAfter = time.Hour, 2*time.Hour
	site.setDown("a.test", true)
	now := time.Now().Add(365 * 24 * time.Hour)
	for _, id := range []string{"refresh/1", "refresh/2"} {
		if f := refreshStages(t, a, r, id, now, "finish"); f.Failed == 0 || f.Unreachable != 0 {
			t.Fatalf("%s: %+v; want a.test's pages failed, kept", id, f)
		}
		now = s.info().NextAt
	}
	return s, now
}

// TestRefetchRetryCountsUnreachable: a Refetch retried after its first
// attempt took pages out of the index as unreachable (and recorded them,
// released from the batch) counts them from the first attempt's
// heartbeat, as failed and unreachable, without asking their host again;
// their count of failures is the first attempt's.
func TestRefetchRetryCountsUnreachable(t *testing.T) {
	s, now := failedTwice(t)
	site, a, r, before := s.site, s.a, s.r, s.before
	first := refreshStages(t, a, r, "refresh/3", now, "refetch")
	if first.Unreachable != s.onA || first.Failed != first.Unreachable || first.Gone != 0 {
		t.Fatalf("third failure: %+v; want a.test's pages failed and unreachable", first)
	}
	site.reset()
	ref := crawlapi.BatchRef{CrawlID: "refresh/3", Topic: r.Topic, BatchID: "refresh/3", TopicVersion: r.TopicVersion, ModelVersion: r.ModelVersion}
	beat := refetchProgress{RefetchResult: first, FailedByClass: map[string]int{string(fetch.ClassConnect): first.Failed}}
	retry := retryRefetch(t, a, ref, beat)
	if retry.Unreachable != first.Unreachable || retry.Failed != first.Failed || retry.Checked != first.Checked {
		t.Errorf("retried Refetch: %+v; want the first attempt's %+v", retry, first)
	}
	if n := len(site.pageRequests()); n != 0 {
		t.Errorf("the retry asked for %d pages again", n)
	}
	for _, stage := range []func(context.Context, crawlapi.BatchRef) error{
		func(ctx context.Context, ref crawlapi.BatchRef) error { _, err := a.Parse(ctx, ref); return err },
		func(ctx context.Context, ref crawlapi.BatchRef) error { _, err := a.FilterPages(ctx, ref); return err },
		func(ctx context.Context, ref crawlapi.BatchRef) error {
			_, err := a.FinishRefresh(ctx, ref)
			return err
		},
	} {
		if err := stage(t.Context(), ref); err != nil {
			t.Fatal(err)
		}
	}
	if ri := s.info(); ri.Unreachable != 3 || ri.Dropped != 0 {
		t.Errorf("after the batch: %+v; want 3 failures in a row, no drop", ri)
	}
	if c := s.count(); c != before-s.onA {
		t.Errorf("index holds %d documents; want %d, without a.test's", c, before-s.onA)
	}
}

// TestRefreshUnreachableHub: a hub (a page not accepted that a refresh
// revisits for its links, refresh.hub_min_score) whose host goes away
// backs off as an accepted page does and, past refresh.drop_unreachable_after,
// stays a hub — judged as it was, its parse kept, never dropped — revisited
// at the growing wait; once its host is back it is on its own schedule
// again, its count of failures gone.
func TestRefreshUnreachableHub(t *testing.T) {
	site, a, r, _ := crawledSite(t)
	ctx := t.Context()
	a.RefreshCfg.MinInterval, a.RefreshCfg.DropUnreachableAfter, a.RefreshCfg.RecheckDropped = time.Hour, 2*time.Hour, 0
	const u = "http://c.test/x"
	hash := urlnorm.Hash(u)
	if err := a.Store.SetScores(ctx, r.Topic, map[string][3]float64{hash: {0.5, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	minHub := 0.3
	stages := func(id string, now time.Time) crawlapi.RefetchResult {
		t.Helper()
		a.Now = func() time.Time { return now }
		ref := crawlapi.BatchRef{CrawlID: id, Topic: r.Topic, BatchID: id, TopicVersion: r.TopicVersion,
			ModelVersion: r.ModelVersion, MinHub: &minHub}
		if n, err := a.ClaimRefresh(ctx, crawlapi.RefreshClaimInput{Topic: r.Topic, BatchID: id, Max: 100, MinHub: minHub}); err != nil || n == 0 {
			t.Fatalf("ClaimRefresh = %d, %v", n, err)
		}
		f, err := a.Refetch(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		finishStages(t, a, ref)
		return f
	}
	info := func() store.RefreshInfo {
		t.Helper()
		ri, err := a.Store.RefreshInfo(ctx, r.Topic, hash)
		if err != nil {
			t.Fatal(err)
		}
		return ri
	}
	p0, err := a.Store.Page(ctx, r.Topic, hash)
	if err != nil || p0.Decision != store.DecisionRejected {
		t.Fatalf("hub after the crawl: %+v, %v; want rejected", p0, err)
	}
	site.setDown("c.test", true)
	now := time.Now().Add(365 * 24 * time.Hour)
	past := 0 // revisits past the limit
	for k := 1; past < 2; k++ {
		f := stages(fmt.Sprintf("refresh/hub-%d", k), now)
		if f.Unreachable > 0 {
			if past == 0 && k != revisit.MinUnreachableChecks {
				t.Errorf("unreachable at failure %d; want %d (an hour and an hour and a half apart: past 2h)", k, revisit.MinUnreachableChecks)
			}
			past++
		}
		ri := info()
		if ri.Unreachable != k || ri.Dropped != 0 || ri.NextAt.IsZero() {
			t.Fatalf("hub after failure %d: %+v; want %d in a row, no drop, due again", k, ri, k)
		}
		if _, want := revisit.AfterFailure(a.RefreshCfg, 0, k); ri.NextAt.Sub(now) != want {
			t.Errorf("hub failure %d: due again in %s; want %s", k, ri.NextAt.Sub(now), want)
		}
		p, err := a.Store.Page(ctx, r.Topic, hash)
		if err != nil || p.Decision != store.DecisionRejected || p.ContentHash != p0.ContentHash || p.ErrorClass != "" {
			t.Fatalf("hub after failure %d: %+v, %v; want it as it was (a hub)", k, p, err)
		}
		if _, err := a.Store.Blob(ctx, r.Topic, hash, store.BlobParse); err != nil {
			t.Fatalf("hub after failure %d: parse record: %v", k, err)
		}
		if k > 6 {
			t.Fatalf("hub not found unreachable after %d failures: %+v", k, ri)
		}
		now = ri.NextAt
	}
	site.setDown("c.test", false)
	stages("refresh/hub-back", now)
	p, err := a.Store.Page(ctx, r.Topic, hash)
	ri := info()
	if err != nil || p.Decision != store.DecisionRejected || ri.Dropped != 0 || ri.Unreachable != 0 || ri.NextAt.Sub(now) < a.RefreshCfg.MinInterval*2 {
		t.Errorf("hub after its host came back: %q, %+v, %v; want rejected (a hub), no drops, no failures, due on its own schedule", p.Decision, ri, err)
	}
}

// TestRefreshHostRefusingEverything: a host that answers every request
// 403, robots.txt included — as a firewall refusing the crawler does —
// has its pages kept: failed, counted as the host unreachable, never gone
// nor dropped, searchable until their refusals in a row span
// refresh.drop_unreachable_after; then they only leave the index, and come
// back once the host serves again. Before, one refresh made every page of
// the host gone and dropped it: a firewall's day emptied the index of it.
func TestRefreshHostRefusingEverything(t *testing.T) {
	site, a, r, before := crawledSite(t)
	s := newUnreachableSite(t, site, a, r, before)
	a.RefreshCfg.MinInterval, a.RefreshCfg.MaxInterval = time.Hour, 24*time.Hour
	a.RefreshCfg.DropUnreachableAfter, a.RefreshCfg.RecheckDropped = 72*time.Hour, 0
	refuse := func(on bool) {
		site.mu.Lock()
		defer site.mu.Unlock()
		site.refuse = nil
		if on {
			site.refuse = map[string]int{"a.test": 403}
		}
	}
	refuse(true)
	start := time.Now().Add(365 * 24 * time.Hour)
	now := start
	var f crawlapi.RefetchResult
	k := 0
	for k = 1; ; k++ {
		f = refreshStages(t, a, r, fmt.Sprintf("refresh/waf-%d", k), now, "finish")
		ri := s.info()
		if f.Gone != 0 || f.Failed != s.onA || ri.Dropped != 0 || ri.Unreachable != k || !ri.UnreachableSince.Equal(start) {
			t.Fatalf("refusal %d: refetch %+v, %s's row %+v; want a.test's %d accepted pages failed, %d refusals in a row since %v, no drop",
				k, f, s.u, ri, s.onA, k, start)
		}
		if f.Unreachable > 0 {
			break
		}
		if c := s.count(); c != before {
			t.Fatalf("refusal %d, %s after the first: %d documents; want all %d kept", k, now.Sub(start), c, before)
		}
		if k > 20 {
			t.Fatalf("still in the index after %d refusals over %s", k, now.Sub(start))
		}
		now = ri.NextAt
	}
	if span := now.Sub(start); k < revisit.MinUnreachableChecks || span < a.RefreshCfg.DropUnreachableAfter {
		t.Errorf("out of the index at refusal %d, %s after the first; want at least %d spanning %s", k, span, revisit.MinUnreachableChecks, a.RefreshCfg.DropUnreachableAfter)
	}
	if c := s.count(); c != before-s.onA {
		t.Errorf("past the limit: %d documents; want %d, without a.test's", c, before-s.onA)
	}
	if p := s.page(); p.Decision != store.DecisionAccepted || p.Indexed {
		t.Errorf("page %s past the limit: decision %q, indexed %v; want accepted, out of the index", s.u, p.Decision, p.Indexed)
	}

	refuse(false)
	f = refreshStages(t, a, r, "refresh/served", s.info().NextAt, "finish")
	if f.Failed != 0 || f.Gone != 0 {
		t.Errorf("refetch with a.test serving again: %+v; want no failure", f)
	}
	if ri := s.info(); ri.Unreachable != 0 || ri.Dropped != 0 {
		t.Errorf("bookkeeping after a.test served again: %+v; want the row ended", ri)
	}
	if c := s.count(); c != before {
		t.Errorf("%d documents after a.test served again; want all %d", c, before)
	}
	checkOneHit(t, a, r.Topic, "number 2", s.u)
}

// TestRefusalLimit: a refused page (403) leaves the index after
// drop_unreachable_after, and after 72 hours when that is 0 — which keeps
// a down host's pages for ever, but must not keep a page gone private a
// search result for good; failures of other kinds keep the setting.
func TestRefusalLimit(t *testing.T) {
	start := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		setting time.Duration
		refused bool
		want    time.Duration
	}{{0, true, 72 * time.Hour}, {0, false, 0}, {24 * time.Hour, true, 24 * time.Hour}, {24 * time.Hour, false, 24 * time.Hour}} {
		c := refusalLimit(config.Refresh{DropUnreachableAfter: tc.setting}, tc.refused)
		if c.DropUnreachableAfter != tc.want {
			t.Errorf("setting %s, refused %v: limit %s; want %s", tc.setting, tc.refused, c.DropUnreachableAfter, tc.want)
		}
		out := revisit.Unreachable(c, revisit.MinUnreachableChecks, start, start.Add(100*time.Hour))
		if out != (tc.want > 0) {
			t.Errorf("setting %s, refused %v: out of the index after 100 h = %v", tc.setting, tc.refused, out)
		}
	}
}
