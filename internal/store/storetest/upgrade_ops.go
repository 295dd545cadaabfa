package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/store"
)

// upgradeRun runs the upgrade test's store operations on one store — the
// upgraded one or the fresh reference — and keeps what each returned, one
// line each, for comparison with the other's.
type upgradeRun struct {
	t     *testing.T
	label string // "upgraded" or "fresh", in failures
	s     store.Store
	db    UpgradeDB
	have  dbSchema // the schema the fixture was written at
	log   []string
}

// exerciseUpgraded runs the operations on s (see upgradeRun) and returns
// their results.
func exerciseUpgraded(t *testing.T, label string, s store.Store, db UpgradeDB, have dbSchema) []string {
	r := &upgradeRun{t: t, label: label, s: s, db: db, have: have}
	r.checkFixture()
	r.snapshot()
	r.crawlOn()
	r.hostsAndRevisits()
	r.rest()
	r.snapshot()
	return r.log
}

// rec records an operation's results.
func (r *upgradeRun) rec(op string, vals ...any) {
	r.log = append(r.log, op+": "+strings.TrimSuffix(fmt.Sprintln(vals...), "\n"))
}

// fail reports a result the fixture does not imply.
func (r *upgradeRun) fail(format string, args ...any) {
	r.t.Helper()
	r.t.Errorf(r.label+": "+format, args...)
}

// must stops the test at an operation's error: what follows depends on it.
func (r *upgradeRun) must(op string, err error) {
	r.t.Helper()
	if err != nil {
		r.t.Fatalf("%s: %s: %v", r.label, op, err)
	}
}

// hasTable reports whether the fixture was written at a version with table.
func (r *upgradeRun) hasTable(table string) bool {
	_, ok := r.have[table]
	return ok
}

// checkFixture reads rows that came through the upgrade through the
// store's own reads and checks them against the fixture: the values, and
// what the store derives from them.
func (r *upgradeRun) checkFixture() {
	ctx, s, h := r.t.Context(), r.s, hash
	tp, err := s.Topic(ctx, fxGo, 0)
	r.must("Topic", err)
	if tp.Version != 2 || !bytes.Equal(tp.YAML, fxTopicYAML(fxGo, 2)) || !tp.CreatedAt.Equal(t0.Add(-2*time.Hour)) {
		r.fail("Topic(go, latest) = %+v, want version 2 of the fixture", tp)
	}
	p1, err := s.Page(ctx, fxGo, h("https://a.test/"))
	r.must("Page", err)
	want := store.Page{Topic: fxGo, URLHash: h("https://a.test/"), URL: "https://a.test/", FinalURL: "https://a.test/",
		FinalHash: h("https://a.test/"), CrawlID: "c-old", BatchID: "c-old/s1/a1/b1", Seq: 1, Depth: 1,
		ParentURL: "https://a.test/", AnchorPath: "Home > Go", LinkScore: 0.5, LinkStrategy: "nb", Status: 200,
		ContentType: "text/html", Charset: "utf-8", ETag: `"e-h-home"`, LastModified: "Mon, 06 May 2024 07:00:00 GMT",
		ContentHash: "h-home", Bytes: len("<h1>Go</h1>"), FetchedAt: t0.Add(-47 * time.Hour), Title: "Title of https://a.test/",
		Lang: "en", Relevance: 0.9, Filter: "vsm", Decision: store.DecisionAccepted, Reason: "fixture", Indexed: true,
		Hub: 0.25, Authority: 0.5, IPageRank: 0.125}
	if r.have.has("pages", "robots_tag") {
		want.RobotsTag = "noarchive"
	}
	if r.have.has("pages", "text_hash") {
		want.TextHash = "sig-h-home"
	}
	samePage(r.t, r.label+": Page(https://a.test/)", p1, want)
	for _, b := range []struct{ url, kind, want string }{
		{"https://a.test/", store.BlobBody, "<h1>Go</h1>"}, {"https://a.test/", store.BlobParse, `{"title":"Go"}`},
		{"https://c.test/copy", store.BlobParse, `{"title":"Copy"}`},
	} {
		got, err := s.Blob(ctx, fxGo, h(b.url), b.kind)
		if err != nil || string(got) != b.want {
			r.fail("Blob(%s, %s) = %q, %v; want %q", b.url, b.kind, got, err, b.want)
		}
	}
	_, err = s.Blob(ctx, fxGo, h("https://b.test/"), store.BlobBody)
	wantNotFound(r.t, r.label+": body of a failed fetch", err)
	live, err := s.BatchEntries(ctx, fxGo, "c-new/s1/a2/b1")
	r.must("BatchEntries", err)
	if got := urls(live); !slices.Equal(got, []string{"https://a.test/live", "https://b.test/live"}) ||
		!live[0].LeaseUntil.Equal(t0.Add(30*time.Minute)) || live[0].State != store.StateClaimed || live[0].ParentURL != "https://a.test/gopher" {
		r.fail("BatchEntries of the live claim = %+v", live)
	}
	ts, err := s.TermStats(ctx, fxGo, []string{"go", "gopher", "concurrency", "absent"})
	r.must("TermStats", err)
	// The sample's size: the fixture's (no bound), or none fixed where
	// the old release kept none (migration 21 / 20).
	wantSample := 0
	if r.have.has("topic_docs", "sample") {
		wantSample = -1
	}
	if wantDF := map[string]int{"go": 4, "gopher": 2, "concurrency": 1, "absent": 0}; ts.Docs != 5 || ts.Sample != wantSample || !reflect.DeepEqual(ts.DF, wantDF) {
		r.fail("TermStats = %+v; want 5, %v, sample size %d", ts, wantDF, wantSample)
	}
	// The term sample's generation: the fixture's, or 0 where the old
	// release had none (migration 20 / 18).
	tt, err := s.AllTermStats(ctx, fxGo)
	r.must("AllTermStats", err)
	wantGen := int64(0)
	if r.have.has("topic_docs", "gen") {
		wantGen = 2
	}
	if wantDF := map[string]int{"go": 4, "gopher": 2, "concurrency": 1}; tt.Docs != 5 || tt.Gen != wantGen || !reflect.DeepEqual(tt.DF, wantDF) {
		r.fail("AllTermStats = %+v; want 5 documents, %v, generation %d", tt, wantDF, wantGen)
	}
	ys, err := s.HostYields(ctx, fxGo, []string{"a.test"})
	r.must("HostYields", err)
	if r.hasTable("host_yield") && ys["a.test"] != (store.HostYield{Host: "a.test", Judged: 3, Accepted: 2}) {
		r.fail("HostYields(a.test) = %+v, want 3 judged, 2 accepted", ys["a.test"])
	}
	held, err := s.HeldHosts(ctx, t0)
	r.must("HeldHosts", err)
	if wantHeld := r.have.has("hosts", "held_until"); slices.Equal(held, []string{"b.test"}) != wantHeld {
		r.fail("HeldHosts(t0) = %v; want b.test held: %v", held, wantHeld)
	}
	m, v, err := s.Model(ctx, fxGo, "link", 0)
	if err != nil || v != 2 || string(m) != "link model 2" {
		r.fail("Model(go, link, latest) = %q, %d, %v; want version 2", m, v, err)
	}
	ri, err := s.RefreshInfo(ctx, fxGo, h("https://a.test/"))
	r.must("RefreshInfo", err)
	if r.hasTable("refresh_state") && ri != (store.RefreshInfo{NextAt: t0.Add(-time.Hour), Interval: 24 * time.Hour, Checks: 2, Changes: 1}) {
		r.fail("RefreshInfo(https://a.test/) = %+v", ri)
	}
	var logged []int64
	r.must("CrawlLog", s.CrawlLog(ctx, "c-old", func(p store.Page) error {
		logged = append(logged, p.Seq)
		return nil
	}))
	if !slices.Equal(logged, []int64{1, 2, 3, 4, 5}) {
		r.fail("CrawlLog(c-old) gave Seqs %v, want 1..5", logged)
	}
	cs, err := s.CrawlStats(ctx, "c-old")
	r.must("CrawlStats", err)
	if cs.Fetched != 5 || cs.Accepted != 2 || cs.Errors != 1 || cs.ErrorsByClass["timeout"] != 1 {
		r.fail("CrawlStats(c-old) = %+v", cs)
	}
	bs, err := s.BatchStats(ctx, fxGo, "c-old/")
	r.must("BatchStats", err)
	if bs.Claimed != 6 || bs.Fetched != 5 || bs.Accepted != 2 {
		r.fail("BatchStats(c-old/) = %+v", bs)
	}
	anchors, err := s.InAnchors(ctx, fxGo, h("https://a.test/q1"), 5)
	r.must("InAnchors", err)
	if !slices.Equal(anchors, []string{"Go"}) {
		r.fail("InAnchors(q1) = %v, want [Go]", anchors)
	}
	dup, err := s.DuplicateOf(ctx, store.Page{Topic: fxGo, URLHash: h("https://e.test/mirror"), CrawlID: "c-new", ContentHash: "h-home"})
	r.must("DuplicateOf", err)
	if dup != h("https://a.test/") {
		r.fail("DuplicateOf(a copy of the home page) = %q, want the home page's hash", dup)
	}
	// A near copy is found by the signature the old release stored; a
	// page of an older release has none, and none is found.
	near, err := s.DuplicateOf(ctx, store.Page{Topic: fxGo, URLHash: h("https://e.test/print"), CrawlID: "c-new",
		ContentHash: "h-print", TextHash: "sig-h-home"})
	r.must("DuplicateOf", err)
	if want := map[bool]string{true: h("https://a.test/"), false: ""}[r.have.has("pages", "text_hash")]; near != want {
		r.fail("DuplicateOf(a near copy of the home page) = %q, want %q", near, want)
	}
}

// snapshot records everything the store's reads return about the
// fixture's topics, crawls and hosts.
func (r *upgradeRun) snapshot() {
	ctx, s := r.t.Context(), r.s
	names, err := s.TopicNames(ctx)
	r.must("TopicNames", err)
	r.rec("TopicNames", names)
	for _, topic := range names {
		tp, err := s.Topic(ctx, topic, 0)
		r.must("Topic", err)
		r.rec("Topic", tp.Name, tp.Version, string(tp.YAML), tp.Hash)
	}
	crawls, err := s.Crawls(ctx, "", 10)
	r.must("Crawls", err)
	for _, c := range crawls {
		r.rec("Crawl", c.ID, c.Topic, c.TopicVersion, c.State, c.StartedAt) // UpdatedAt: the wall clock's
		var pages []string
		r.must("CrawlLog", s.CrawlLog(ctx, c.ID, func(p store.Page) error {
			pages = append(pages, fmt.Sprintf("%+v", p))
			return nil
		}))
		r.rec("CrawlLog", pages)
		cs, err := s.CrawlStats(ctx, c.ID)
		r.must("CrawlStats", err)
		r.rec("CrawlStats", cs)
		bs, err := s.BatchStats(ctx, c.Topic, c.ID+"/")
		r.must("BatchStats", err)
		r.rec("BatchStats", bs)
	}
	for _, topic := range []string{fxGo, fxRust} {
		r.rec("FrontierStats", topic, frontierStats(r.t, s, topic))
		busy, err := s.FrontierBusy(ctx, topic)
		r.must("FrontierBusy", err)
		r.rec("FrontierBusy", busy)
		var edges, dsts []string
		r.must("Edges", s.Edges(ctx, topic, func(l store.Link) error {
			edges = append(edges, fmt.Sprintf("%+v", l))
			dsts = append(dsts, l.Dst)
			return nil
		}))
		r.rec("Edges", edges)
		var graph []string
		r.must("GraphEdges", s.GraphEdges(ctx, topic, func(l store.Link) error {
			graph = append(graph, fmt.Sprintf("%+v", l))
			return nil
		}))
		r.rec("GraphEdges", graph)
		in, err := s.InLinks(ctx, topic, dsts)
		r.must("InLinks", err)
		r.rec("InLinks", in)
		var accepted []string
		r.must("AcceptedPages", s.AcceptedPages(ctx, topic, func(p store.Page) error {
			accepted = append(accepted, p.URL)
			ri, err := s.RefreshInfo(ctx, topic, p.URLHash)
			r.rec("RefreshInfo", p.URL, ri)
			return err
		}))
		r.rec("AcceptedPages", accepted)
		tt, err := s.TermStats(ctx, topic, []string{"go", "gopher", "concurrency", "rust", "new0", "new1"})
		r.must("TermStats", err)
		r.rec("TermStats", tt.Docs, tt.Gen, tt.Sample, tt.DF)
		ys, err := s.HostYields(ctx, topic, []string{"a.test", "b.test", "c.test", "d.test", "e.test", "r.test"})
		r.must("HostYields", err)
		r.rec("HostYields", ys)
		qs, err := s.NoResultQueries(ctx, topic, 0)
		r.must("NoResultQueries", err)
		r.rec("NoResultQueries", qs)
		for _, kind := range []string{"link", "topic-vector"} {
			m, v, err := s.Model(ctx, topic, kind, 0)
			if !errors.Is(err, store.ErrNotFound) {
				r.must("Model", err)
			}
			r.rec("Model", topic, kind, string(m), v)
		}
	}
	held, err := s.HeldHosts(ctx, t0)
	r.must("HeldHosts", err)
	slices.Sort(held)
	r.rec("HeldHosts", held)
}

// crawlOn goes on with the running crawl: fences, claims (the live one
// again, a new one that expires the lapsed claim), a processing group,
// completions, a release, a requeue, enqueues and priority changes.
func (r *upgradeRun) crawlOn() {
	ctx, s, h := r.t.Context(), r.s, hash
	err := s.RaiseFence(ctx, fxGo, store.Fence{Name: "c-new/s1", Token: 1})
	if r.hasTable("fences") != errors.Is(err, store.ErrFenced) {
		r.fail("RaiseFence below the stored token: %v; want ErrFenced if the fixture had fences", err)
	}
	r.rec("RaiseFence", errors.Is(err, store.ErrFenced))
	b, err := s.ClaimBatch(ctx, store.ClaimRequest{Topic: fxGo, CrawlID: "c-new", BatchID: "c-new/s1/a2/b1", Max: 5, Lease: time.Hour, Now: t0})
	r.must("ClaimBatch (again)", err)
	if b.Size != 2 {
		r.fail("ClaimBatch of the live batch again = %+v, want its 2 entries", b)
	}
	held, err := s.HeldHosts(ctx, t0)
	r.must("HeldHosts", err)
	claimed := claim(r.t, s, store.ClaimRequest{Topic: fxGo, CrawlID: "c-new", BatchID: "c-new/s2/a1/b1", Max: 4, MaxPerHost: 1,
		ExcludeHosts: held, Lease: time.Hour, Now: t0, Fence: store.Fence{Name: "c-new/s2", Token: 1}})
	if len(claimed) == 0 || claimed[0].URL != "https://d.test/expired" {
		r.fail("claim after the lease ran out = %v; want the requeued https://d.test/expired first", urls(claimed))
	}
	r.rec("ClaimBatch", claimed)
	rows, err := r.db.Query(ctx, `SELECT state, batch_id FROM frontier WHERE topic = ? AND url_hash = ?`, fxGo, h("https://c.test/expired"))
	if err != nil || len(rows) != 1 || rows[0][0] != store.StateDone || rows[0][1] != "c-new/s1/a1/b1" {
		r.fail("expired claim with a saved page: %v, %v; want done in its batch", rows, err)
	}
	_, err = s.ClaimBatch(ctx, store.ClaimRequest{Topic: fxGo, BatchID: "c-new/s1/a3/b1", Max: 1, Now: t0, Fence: store.Fence{Name: "c-new/s1", Token: 1}})
	r.rec("ClaimBatch fenced", errors.Is(err, store.ErrFenced))

	g := store.GroupWrite{Topic: fxGo, Fence: store.Fence{Name: "c-new/s2", Token: 1}, EnqueueOptions: store.EnqueueOptions{MaxPerHost: 8}}
	for i, e := range claimed {
		p := store.Page{Topic: fxGo, URLHash: e.URLHash, URL: e.URL, FinalURL: e.URL, FinalHash: e.URLHash, CrawlID: "c-new",
			BatchID: e.BatchID, Depth: e.Depth, ParentURL: e.ParentURL, Status: 200, ContentType: "text/html",
			ContentHash: "new-" + e.URL, FetchedAt: t0.Add(time.Minute)}
		g.Pages = append(g.Pages, store.PageBody{Page: p, Body: []byte("<p>" + e.URL + "</p>")})
		g.Parses = append(g.Parses, store.ParseWrite{URLHash: e.URLHash, Parsed: []byte("parse " + e.URL), Title: e.URL,
			Lang: "en", Terms: []string{"go", "concurrency", fmt.Sprint("new", i)}, DropBody: i == 0})
		d := store.DecisionRejected
		if i == 0 {
			d = store.DecisionAccepted
		}
		g.Decisions = append(g.Decisions, store.PageDecision{URLHash: e.URLHash, YieldHost: e.Host,
			Decision: store.Decision{Relevance: 0.5, Filter: "vsm", Decision: d, Reason: "group"}})
		g.Links = append(g.Links, store.Link{Src: e.URLHash, Dst: h("https://a.test/"), DstURL: "https://a.test/", Anchor: "home", Score: 0.3},
			store.Link{Src: e.URLHash, Dst: h("https://e.test/new"), DstURL: "https://e.test/new", Anchor: "new", Score: 0.9})
		g.Complete = append(g.Complete, e.URLHash)
	}
	if len(claimed) > 0 {
		g.Indexed = []string{claimed[0].URLHash}
	}
	g.Entries = []store.FrontierEntry{entry(fxGo, "https://e.test/new", 9), entry(fxGo, "https://a.test/q1", 9),
		entry(fxGo, "https://a.test/", 99)}
	res, err := s.WriteGroup(ctx, g)
	r.must("WriteGroup", err)
	var seqs []int64
	for _, q := range res.Seqs {
		seqs = append(seqs, q)
	}
	slices.Sort(seqs)
	if n := int64(len(claimed)); int64(len(seqs)) != n || n > 0 && (seqs[0] != 3 || seqs[n-1] != 2+n) {
		r.fail("WriteGroup Seqs = %v; want the running crawl's to go on from 3", seqs)
	}
	if res.Enqueued != 1 || res.TermDocs != 5+len(claimed) || res.TermDF["go"] != 4+len(claimed) {
		r.fail("WriteGroup = %+v; want 1 enqueued and the fixture's term counts grown by %d pages", res, len(claimed))
	}
	r.rec("WriteGroup", res)
	again, created, err := s.SavePage(ctx, store.Page{Topic: fxGo, URLHash: h("https://a.test/live"), URL: "https://a.test/live", CrawlID: "c-new"}, nil)
	r.must("SavePage", err)
	if created || again.Seq != 1 || again.ContentHash != "h-live" {
		r.fail("SavePage of a page from before the upgrade = %+v, created %v; want the stored row", again, created)
	}
	r.must("CompleteEntries", s.CompleteEntries(ctx, fxGo, []string{h("https://a.test/live")}))
	r.must("CompleteBatch", s.CompleteBatch(ctx, fxGo, "c-new/s1/a2/b1"))
	r.rec("Released", claim(r.t, s, store.ClaimRequest{Topic: fxGo, BatchID: "c-new/s3/a1/b1", Max: 2, Now: t0.Add(time.Minute)}))
	released, err := s.ReleaseBatches(ctx, fxGo, "c-new/s3/")
	r.must("ReleaseBatches", err)
	r.rec("ReleaseBatches", released)
	one := claim(r.t, s, store.ClaimRequest{Topic: fxGo, BatchID: "c-new/s4/a1/b1", Max: 1, Now: t0.Add(2 * time.Minute)})
	r.rec("Requeue claim", one)
	if len(one) == 1 {
		ok, err := s.RequeueEntry(ctx, fxGo, one[0].URLHash, "c-new/s4/a1/b1", false)
		r.must("RequeueEntry", err)
		r.rec("RequeueEntry", ok)
	}
	n, err := s.DemoteQueued(ctx, fxGo, "c.test", "https://c.test/q", 0.5)
	r.must("DemoteQueued", err)
	r.rec("DemoteQueued", n)
	n, err = s.Enqueue(ctx, []store.FrontierEntry{entry(fxGo, "https://a.test/", 50), entry(fxGo, "https://c.test/copy", 50)}, store.EnqueueOptions{})
	r.must("Enqueue", err)
	if n != 0 {
		r.fail("Enqueue of URLs fetched before the upgrade inserted %d entries, want 0", n)
	}
	n, err = s.Enqueue(ctx, []store.FrontierEntry{entry(fxGo, "https://b.test/zero", 1.5), entry(fxGo, "https://a.test/more/1", 1),
		entry(fxGo, "https://a.test/more/2", 1), entry(fxGo, "https://a.test/more/3", 1)}, store.EnqueueOptions{MaxPerHost: 8})
	r.must("Enqueue", err)
	r.rec("Enqueue", n)
	r.must("Reprioritize", s.Reprioritize(ctx, fxGo, map[string]float64{h("https://a.test/old/x"): 2.5, h("https://d.test/q5"): 2.2}))
	r.rec("Next claim", claim(r.t, s, store.ClaimRequest{Topic: fxGo, BatchID: "c-new/s5/a1/b1", Max: 3, Now: t0.Add(3 * time.Minute)}))
}

// hostsAndRevisits books host slots and holds on the fixture's hosts and
// claims and records revisits of its pages.
func (r *upgradeRun) hostsAndRevisits() {
	ctx, s, h := r.t.Context(), r.s, hash
	for range 2 {
		at, err := s.ReserveHostSlot(ctx, "a.test", time.Second, t0)
		r.must("ReserveHostSlot", err)
		r.rec("ReserveHostSlot", at)
	}
	if at, _ := s.ReserveHostSlot(ctx, "c.test", time.Second, t0); !at.Equal(t0) {
		r.fail("ReserveHostSlot(c.test) = %v, want now (its slot and hold are past)", at)
	}
	r.must("HoldHost", s.HoldHost(ctx, "c.test", t0.Add(2*time.Hour)))
	r.must("HoldHost", s.HoldHost(ctx, "b.test", t0.Add(time.Minute)))

	// The home page is due; the gopher page's claim ran out twice.
	req := store.RefreshClaim{Topic: fxGo, BatchID: "refresh/new", Max: 5, Lease: 10 * time.Minute, Now: t0.Add(5 * time.Minute),
		NewPageDelay: time.Hour, RetryDelay: time.Minute, RetryMax: time.Hour}
	due, err := s.RefreshDue(ctx, req)
	r.must("RefreshDue", err)
	r.rec("RefreshDue", due)
	n, err := s.ClaimRefresh(ctx, req)
	r.must("ClaimRefresh", err)
	if n != 2 {
		r.fail("ClaimRefresh = %d, want the 2 accepted pages from before the upgrade", n)
	}
	items, err := s.RefreshBatch(ctx, fxGo, "refresh/new")
	r.must("RefreshBatch", err)
	r.rec("RefreshBatch", items)
	// The new claim holds the gopher page, and the final URL it gave up
	// in the claim that ran out.
	gaveUp, err := s.GivenUpFinals(ctx, fxGo, "refresh/new")
	r.must("GivenUpFinals", err)
	r.rec("GivenUpFinals", gaveUp)
	var want []string
	if r.hasTable("refresh_given_up") {
		want = []string{h("https://a.test/gopher.html")}
	}
	if !slices.Equal(gaveUp, want) {
		r.fail("GivenUpFinals(refresh/new) = %v, want %v", gaveUp, want)
	}
	r.must("ForgetGivenUp", s.ForgetGivenUp(ctx, fxGo, "refresh/new"))
	if gaveUp, err := s.GivenUpFinals(ctx, fxGo, "refresh/new"); err != nil || len(gaveUp) > 0 {
		r.fail("GivenUpFinals(refresh/new) after ForgetGivenUp = %v, %v; want none", gaveUp, err)
	}
	r.must("RecordRefresh", s.RecordRefresh(ctx, fxGo, h("https://a.test/"), store.RefreshResult{BatchID: "refresh/new", Changed: true,
		NextAt: t0.Add(24 * time.Hour), Interval: 24 * time.Hour}))
	r.must("RenewRefresh", s.RenewRefresh(ctx, fxGo, "refresh/new", t0.Add(time.Hour)))
	held, err := s.HoldRefresh(ctx, fxGo, h("https://a.test/gopher"), "refresh/new", t0.Add(time.Hour))
	r.must("HoldRefresh", err)
	if !held {
		r.fail("HoldRefresh(gopher page, refresh/new) = false, want true: claimed, not replaced yet")
	}
	r.must("ReplacePage", s.ReplacePage(ctx, store.Page{Topic: fxGo, URLHash: h("https://a.test/gopher"), URL: "https://a.test/gopher",
		FinalURL: "https://a.test/gopher", FinalHash: h("https://a.test/gopher"), BatchID: "refresh/new", Status: 200,
		ContentHash: "h-gopher-2", FetchedAt: t0.Add(6 * time.Minute)}, []byte("<p>gopher, changed</p>")))
	ri, err := s.RefreshInfo(ctx, fxGo, h("https://a.test/gopher"))
	r.must("RefreshInfo", err)
	r.rec("RefreshInfo", ri)
	// A later claim after that one's lease: the gopher page's retry delay
	// has grown with every claim that ran out.
	req.BatchID, req.Now = "refresh/later", t0.Add(20*time.Minute)
	n, err = s.ClaimRefresh(ctx, req)
	r.must("ClaimRefresh", err)
	r.rec("ClaimRefresh later", n)
}

// rest covers the remaining writes: page flags and scores, fences, models,
// topic versions, no-result queries, crawl records, and a reset of the
// other topic.
func (r *upgradeRun) rest() {
	ctx, s, h := r.t.Context(), r.s, hash
	r.must("SetScores", s.SetScores(ctx, fxGo, map[string][3]float64{h("https://a.test/"): {0.5, 0.25, 0.125}}))
	r.must("MarkIndexed", s.MarkIndexed(ctx, fxGo, []string{h("https://a.test/go/")}))
	r.must("UnmarkIndexed", s.UnmarkIndexed(ctx, fxGo, []string{h("https://a.test/")}))
	r.must("SetDecision", s.SetDecision(ctx, fxGo, h("https://a.test/live"), store.Decision{Relevance: 0.6, Filter: "vsm", Decision: store.DecisionAccepted}))
	r.must("DeleteBlob", s.DeleteBlob(ctx, fxGo, h("https://a.test/go/"), store.BlobBody))
	n, err := s.PruneFences(ctx, fxGo, t0)
	r.must("PruneFences", err)
	r.rec("PruneFences", n)
	err = s.RaiseFence(ctx, fxGo, store.Fence{Name: "c-old/s1", Token: 0})
	r.rec("RaiseFence unstamped", errors.Is(err, store.ErrFenced))
	mv, err := s.PutModel(ctx, fxGo, "link", []byte("link model 3"))
	r.must("PutModel", err)
	if mv != 3 {
		r.fail("PutModel after two stored versions = %d, want 3", mv)
	}
	for _, y := range [][]byte{fxTopicYAML(fxGo, 2), fxTopicYAML(fxGo, 3)} {
		tv, err := s.PutTopic(ctx, fxGo, y)
		r.must("PutTopic", err)
		r.rec("PutTopic", tv)
	}
	r.must("RecordNoResultQuery", s.RecordNoResultQuery(ctx, fxGo, "go   generics", t0))
	r.must("CreateCrawl", s.CreateCrawl(ctx, store.Crawl{ID: "c-old", Topic: fxGo, TopicVersion: 9}))
	r.must("SetCrawlState", s.SetCrawlState(ctx, "c-new", store.CrawlCompleted))
	r.must("SetCrawlTopicVersion", s.SetCrawlTopicVersion(ctx, "c-new", 3))
	r.must("SetCrawlModels", s.SetCrawlModels(ctx, "c-new", 2, 5))
	if c, err := s.Crawl(ctx, "c-new"); err != nil {
		r.must("Crawl", err)
	} else if c.LinkModelVersion != 2 || c.RankVersion != 5 {
		r.fail("Crawl after SetCrawlModels = %+v, want link model 2, ranks 5", c)
	}
	r.must("ResetTopic", s.ResetTopic(ctx, fxRust))
	if st := frontierStats(r.t, s, fxRust); st != (store.FrontierStats{}) {
		r.fail("FrontierStats(rust) after ResetTopic = %+v, want zero", st)
	}
	// The reset starts the topic's next term sample.
	tt, err := s.AllTermStats(ctx, fxRust)
	r.must("AllTermStats", err)
	if tt.Docs != 0 || tt.Gen != 1 || tt.Sample != 0 || len(tt.DF) != 0 {
		r.fail("AllTermStats(rust) after ResetTopic = %+v; want no documents, generation 1, no size fixed", tt)
	}
	r.rec("AllTermStats(rust) after ResetTopic", tt.Docs, tt.Gen, tt.Sample, len(tt.DF))
	checkFrontierCounts(r.t, r.label+" after the operations", s, r.db)
}
