package activities

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/hostyield"
	"focuscrawl/internal/index"
	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/robots"
	"focuscrawl/internal/store"
	"focuscrawl/internal/textsig"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
	"focuscrawl/internal/vsm"
)

// FilterPages judges the batch's parsed pages with the topic's page filter,
// records each decision with its score and the filter that made it, and
// indexes the accepted pages in one bulk upsert keyed by URL hash (so a
// retry never indexes a page twice).
//
// Only the refresh workflow runs it (a crawl slice judges in its own
// stream, filterPages): its pages are revisited ones, so a page no longer
// indexable — judged not accepted, unparsable, now noindex — gives up the
// document it had here, once its decision is stored. FinishRefresh does
// so too, but a batch that fails before it (its retries spent on an index
// or store outage) left the old document searchable for good: a page no
// longer accepted is never claimed by a refresh again. It keeps the
// batch's claim while it runs (keepClaim) and judges only the pages the
// batch still holds (heldPages).
func (a *Activities) FilterPages(ctx context.Context, in crawlapi.BatchRef) (crawlapi.FilterResult, error) {
	// Beats while it works: its stage runs with the crawl's heartbeat
	// timeout, which a batch's judging or index writes can outlast (a slow
	// index, the store's writer busy with another crawl).
	defer heartbeatEvery(ctx, 2*time.Second, func() any { return "filterpages" })()
	stop, err := a.keepClaim(ctx, in)
	if err != nil {
		return crawlapi.FilterResult{}, err
	}
	defer stop()
	pages, err := a.Store.BatchPages(ctx, in.Topic, in.BatchID)
	if err != nil {
		return crawlapi.FilterResult{}, err
	}
	if pages, err = a.heldPages(ctx, in, pages); err != nil {
		return crawlapi.FilterResult{}, err
	}
	g := newGroup(in.Topic, in.CrawlID)
	res, err := a.filterPages(ctx, in, pages, g)
	if err != nil {
		return res, err
	}
	if err := a.flush(ctx, g); err != nil {
		return res, err
	}
	var drop, leaving []string
	for _, p := range pages {
		if p.Decision != store.DecisionPending && (p.Decision != store.DecisionAccepted || !p.Indexed) {
			drop = append(drop, p.FinalHash)
			leaving = append(leaving, p.URLHash)
		}
	}
	if len(drop) > 0 {
		if err := a.dropDocuments(ctx, in.Topic, drop, leaving); err != nil {
			return res, fmt.Errorf("refresh: %w", err)
		}
	}
	return res, nil
}

// filterPages judges and indexes the given pages (see FilterPages). It
// records each new decision in pages[i] too, for the stage after it. The
// decisions (and whatever else g holds) are flushed before the index
// write; the index flags are left in g for the caller to flush.
func (a *Activities) filterPages(ctx context.Context, in crawlapi.BatchRef, pages []store.Page, g *group) (crawlapi.FilterResult, error) {
	lt, err := a.loadTopic(ctx, in.Topic, in.TopicVersion, in.ModelVersion)
	if err != nil {
		return crawlapi.FilterResult{}, err
	}
	type item struct {
		page *store.Page
		rec  *parseRecord
	}
	var todo []item
	terms := map[string]struct{}{}
	var res crawlapi.FilterResult
	for i := range pages {
		p := pages[i]
		switch {
		case p.Decision == store.DecisionAccepted && !p.Indexed:
			// Judged by an earlier attempt that died before indexing.
		case p.Decision != store.DecisionPending:
			continue
		case !fetchedOK(p):
			g.w.Decisions = append(g.w.Decisions, store.PageDecision{URLHash: p.URLHash, Decision: store.Decision{
				Decision: store.DecisionError, Reason: p.ErrorClass,
			}, YieldHost: yieldHost(in.CrawlID, p), YieldAlso: outwardYield(p)}) // a failed fetch counts against its host
			pages[i].Decision = store.DecisionError
			res.Errors++
			continue
		}
		rec, err := a.parseOf(ctx, g.recs, p)
		if errors.Is(err, store.ErrNotFound) {
			continue // unparsable page, already judged as an error by Parse
		} else if err != nil {
			return res, err
		}
		if rec.TextHash != "" {
			// The row may have been read before the parse write that
			// stores the signature (a page parsed by this stage's group).
			pages[i].TextHash = rec.TextHash
		}
		todo = append(todo, item{&pages[i], rec})
		for t := range rec.TF {
			terms[t] = struct{}{}
		}
	}
	if len(todo) == 0 {
		return res, a.flush(ctx, g)
	}
	for t := range lt.Model.Terms {
		terms[t] = struct{}{}
	}
	// The sample floor judges the sample pages with this IDF: a term of
	// theirs without its frequency would weigh as the rarest there is.
	if err := a.addSampleTerms(ctx, lt, terms); err != nil {
		return res, err
	}
	idf, err := a.idf(ctx, in.Topic, terms, g)
	if err != nil {
		return res, err
	}
	// The dynamic threshold controller's factor, read once (dynamic.go).
	revisited := false // pages of other crawls: a refresh batch
	for _, it := range todo {
		revisited = revisited || judgingCrawl(in.CrawlID, *it.page) != in.CrawlID
	}
	factor, err := a.dynamicFactor(ctx, lt, in.CrawlID, revisited)
	if err != nil {
		return res, err
	}
	filter, err := a.pageFilter(ctx, lt, idf, factor) // filterenv.go
	if err != nil {
		return res, err
	}
	pending := map[string][]string{} // by the crawl that fetched the page
	for _, it := range todo {
		if it.page.Decision == store.DecisionPending {
			id := judgingCrawl(in.CrawlID, *it.page)
			pending[id] = append(pending[id], it.page.URLHash)
		}
	}
	splits, err := a.loadCrawlSplits(ctx, lt, in.Topic, pending) // split.go
	if err != nil {
		return res, err
	}
	if len(splits) > 0 {
		floor, err := a.sampleFloor(ctx, lt, filter)
		if err != nil {
			return res, err
		}
		for _, c := range splits {
			if c != nil {
				c.base, c.floor = max(c.base, floor), floor
			}
		}
	}
	// The seed sites this crawl is still exploring (explore.go): their
	// pages are expanded whatever their decision.
	var exploring []string
	if len(pending[in.CrawlID]) > 0 {
		if exploring, err = a.exploringHosts(ctx, in, lt.Topic); err != nil {
			return res, err
		}
	}
	var docs []index.Document
	var indexed []string
	// Pages of other crawls waiting to be judged (a refresh batch) are no
	// originals for DuplicateOf, which reads the store: the first of them
	// accepted here is, for those after it with its final URL or content
	// (batchOriginals).
	originals := batchOriginals{}
	for _, it := range todo {
		p, doc := it.page, it.rec.Doc
		if p.Decision == store.DecisionPending {
			crawl := judgingCrawl(in.CrawlID, *p)
			revisit := crawl != in.CrawlID
			var d store.Decision
			if orig := originals.of(*p); revisit && orig != "" {
				d = store.Decision{Decision: store.DecisionDuplicate, Filter: filter.Name(), Reason: "duplicate of " + orig,
					Title: doc.Title, Lang: langOf(*p, doc.Lang)}
			} else if err = a.guardPage(p.URL, "judging", func() (err error) {
				explore := !revisit && slices.Contains(exploring, urlnorm.Host(p.URL))
				d, err = a.judge(ctx, lt, filter, *p, it.rec, idf, splits[crawl], explore)
				return err
			}); err != nil {
				var pp *pagePanic
				if !errors.As(err, &pp) {
					return res, err
				}
				// A panic costs this page: judged an error, not indexed or
				// expanded, and its score, if the split recorded it, forgotten.
				splits[crawl].forget(p.URLHash)
				d = store.Decision{Decision: store.DecisionError, Reason: truncate("judge: "+err.Error(), 300),
					Title: doc.Title, Lang: langOf(*p, doc.Lang)}
				err = nil
			}
			// Only an accepted, indexable page: a copy another crawl would
			// have accepted (each crawl has its own split; a noindex header
			// on one copy) must not leave the index for one turned down.
			if revisit && d.Decision == store.DecisionAccepted && !doc.NoIndex {
				originals.add(*p)
			}
			pd := store.PageDecision{URLHash: p.URLHash, Decision: d}
			if d.Decision != store.DecisionDuplicate { // a copy says nothing new about its host
				pd.YieldHost, pd.YieldAlso = yieldHost(in.CrawlID, *p), outwardYield(*p)
			}
			g.w.Decisions = append(g.w.Decisions, pd)
			p.Decision, p.Relevance, p.Filter = d.Decision, d.Relevance, d.Filter
			switch d.Decision {
			case store.DecisionAccepted:
				res.Accepted++
			case store.DecisionDuplicate:
				res.Duplicates++
			default:
				res.Rejected++
			}
		}
		if p.Decision != store.DecisionAccepted || doc.NoIndex {
			continue
		}
		d, err := a.indexDocument(ctx, *p, it.rec)
		if err != nil {
			return res, err
		}
		docs = append(docs, d)
		p.Indexed = true
		indexed = append(indexed, p.URLHash)
	}
	// Decisions are durable before the index holds a page: a retry then
	// finds them and only indexes again what is not flagged indexed.
	if err := a.flush(ctx, g); err != nil {
		return res, err
	}
	for _, split := range splits {
		a.commitCrawlSplit(split)
	}
	if len(docs) > 0 {
		if err := a.Index.Upsert(ctx, docs); err != nil {
			return res, fmt.Errorf("index %d accepted pages of batch %s: %w", len(docs), in.BatchID, err)
		}
		g.w.Indexed = append(g.w.Indexed, indexed...)
	}
	res.Indexed = len(docs)
	// Learning filters (bayes, sample-rank, url-template) rebuild their
	// stored state once per round of judged pages (filterenv.go).
	if err := a.learn(ctx, filter, in); err != nil {
		return res, err
	}
	if err := a.adjustThreshold(ctx, lt, in); err != nil {
		return res, err
	}
	return res, nil
}

// indexDocument is the index document of accepted page p, parsed as rec,
// with the anchor texts of links into it and the link-analysis scores last
// stored for it (a page indexed again, by a refresh or a promotion, keeps
// its authority until the next RecomputeHubAuthority).
func (a *Activities) indexDocument(ctx context.Context, p store.Page, rec *parseRecord) (index.Document, error) {
	doc := rec.Doc
	anchors, err := a.Store.InAnchors(ctx, p.Topic, p.URLHash, 20)
	if err != nil {
		return index.Document{}, err
	}
	return index.Document{
		ID: p.FinalHash, Topic: p.Topic, URL: p.FinalURL, Host: urlnorm.Host(p.FinalURL),
		Title: doc.Title, Text: doc.Text, TextSegmented: rec.segmented, LinkSpans: doc.LinkSpans, Lang: langOf(p, doc.Lang), Relevance: p.Relevance,
		FetchedAt: p.FetchedAt, AnchorTexts: joinAnchors(anchors),
		Hub: p.Hub, Authority: p.Authority, IPageRank: p.IPageRank,
	}, nil
}

// dropDocuments takes out of the topic's index the documents with the
// final URL hashes finals, which the pages leaving (URL hashes) give up:
// withdrawn, gone, moved to another final URL, judged a duplicate or now
// noindex. A document is keyed by final URL hash, which pages of a topic
// can share (two URLs redirecting to one), so deleting it outright could
// take the document of another page that still holds it (accepted and
// flagged indexed; store.Pages.IndexHolders): that one stays, written
// again from the holder's own parse record, since the page leaving may
// have written it last. A holder without a parse record keeps the
// document as it is (logged); one whose page says noindex has it deleted.
func (a *Activities) dropDocuments(ctx context.Context, topicName string, finals, leaving []string) error {
	holders, err := a.Store.IndexHolders(ctx, topicName, finals, leaving)
	if err != nil {
		return err
	}
	var drop []string
	var keep []index.Document
	seen := map[string]bool{}
	for _, f := range finals {
		if seen[f] {
			continue // two pages leaving one document
		}
		seen[f] = true
		h, held := holders[f]
		if !held {
			drop = append(drop, f)
			continue
		}
		rec, err := a.loadParse(ctx, h)
		if errors.Is(err, store.ErrNotFound) {
			// Nothing to write it again from: the document stays as the
			// page leaving may have written it last.
			a.Log.Warn("index document kept as it is: the page still holding it has no parse record",
				"topic", topicName, "holder", h.URL)
			continue
		} else if err != nil {
			return err
		}
		if rec.Doc == nil || rec.Doc.NoIndex {
			drop = append(drop, f) // the holder must have no document
			continue
		}
		d, err := a.indexDocument(ctx, h, rec)
		if err != nil {
			return err
		}
		keep = append(keep, d)
	}
	if len(drop) > 0 {
		if err := a.Index.Delete(ctx, topicName, drop); err != nil {
			return fmt.Errorf("delete %d index documents: %w", len(drop), err)
		}
	}
	if len(keep) > 0 {
		if err := a.Index.Upsert(ctx, keep); err != nil {
			return fmt.Errorf("index again %d documents another page still holds: %w", len(keep), err)
		}
	}
	return nil
}

// maxNoindexOriginals bounds the noindex originals originalOf passes over
// for one page (a site serving one text under many noindex URLs).
const maxNoindexOriginals = 8

// maxNearCandidates bounds the pages with p's text signature that
// originalOf compares p with (textsig.Near) before it gives up: pages of
// one template with little text of their own can share a signature by
// the hundred, and each comparison reads a parse record.
const maxNearCandidates = 4

// originalOf returns the URL of the page p, parsed as rec, is a copy of
// (store DuplicateOf), or "". A page with p's content whose X-Robots-Tag
// forbids indexing is no original for it: p's own URL may be indexed, and
// p judged a copy of it left the content out of the index altogether (the
// tag is a header, so copies of one body differ in it; a <meta> noindex is
// in the body, and every copy has it). The same final URL is the same
// page, noindex or not. A page found by its text signature alone is a
// candidate only: it is p's original when its plain text is p's, nearly
// (nearCopy). The original's URL is returned, which a user reading the
// crawl log can look up; its hash alone ("duplicate of 8c214d7e…") said
// nothing, and a failed lookup keeps it.
func (a *Activities) originalOf(ctx context.Context, p store.Page, rec *parseRecord) (string, error) {
	var skip []string
	noindex, near := 0, 0
	var plain map[string]int // p's plain text, counted once a candidate needs it
	for {
		dup, err := a.Store.DuplicateOf(ctx, p, skip...)
		if err != nil || dup == "" {
			return "", err
		}
		orig, err := a.Store.Page(ctx, p.Topic, dup)
		if err != nil || orig.URL == "" {
			return dup, nil
		}
		if orig.FinalHash != p.FinalHash && a.headerNoindex(orig.RobotsTag) && noindex < maxNoindexOriginals {
			noindex++
			skip = append(skip, dup)
			continue
		}
		if p.FinalHash != "" && orig.FinalHash == p.FinalHash || p.ContentHash != "" && orig.ContentHash == p.ContentHash {
			return orig.URL, nil
		}
		// Found by the text signature alone (the probes are set ones).
		if near >= maxNearCandidates {
			return "", nil
		}
		near++
		if plain == nil {
			plain = a.plainText(rec)
		}
		ok, err := a.nearCopy(ctx, orig, plain)
		if err != nil {
			return "", err
		}
		if ok {
			return orig.URL, nil
		}
		skip = append(skip, dup)
	}
}

// nearCopy reports whether page orig's plain text is nearly plain
// (textsig.Near), reading orig's parse record. A page without a readable
// record is no original: nothing says its text is p's.
func (a *Activities) nearCopy(ctx context.Context, orig store.Page, plain map[string]int) (bool, error) {
	rec, err := a.loadParse(ctx, orig)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, errUnreadableParse) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return textsig.Near(plain, a.plainText(rec)), nil
}

// plainText is the term frequencies of a parsed page's plain text
// (textsig.Plain), counted again from the record's text: the record's TF
// holds the title's terms too, and not the links' apart.
func (a *Activities) plainText(rec *parseRecord) map[string]int {
	if rec == nil || rec.Doc == nil {
		return nil
	}
	return textsig.Plain(a.Tok.TermFreq(rec.Doc.Text), a.Tok.TermFreq(rec.Doc.Anchor))
}

// headerNoindex reports whether X-Robots-Tag values (one per line, as a
// page row keeps them) forbid this crawler to index the page.
func (a *Activities) headerNoindex(robotsTag string) bool {
	if robotsTag == "" {
		return false
	}
	var d parse.Document
	parse.ApplyRobotsTags(&d, robotsTag, robots.ProductToken(a.FetchCfg.UserAgent))
	return d.NoIndex
}

// batchOriginals maps the final URL and content hashes of the pages a
// refresh batch has judged so far to their URLs.
type batchOriginals map[string]string

// of is the URL of the page judged earlier with p's final URL or, failing
// that, its content (DuplicateOf's order), or "".
func (o batchOriginals) of(p store.Page) string {
	for _, k := range []string{"f" + p.FinalHash, "c" + p.ContentHash} {
		if len(k) > 1 && o[k] != "" {
			return o[k]
		}
	}
	return ""
}

// add records p as an original for the pages judged after it.
func (o batchOriginals) add(p store.Page) {
	for _, k := range []string{"f" + p.FinalHash, "c" + p.ContentHash} {
		if _, ok := o[k]; !ok && len(k) > 1 {
			o[k] = p.URL
		}
	}
}

// judge decides one page: duplicate of an earlier page, or the filter's verdict.
// split is nil unless the topic asks for crawl-relative acceptance;
// explore says the page's host is a seed site still being explored
// (exploringHosts): a page that is not accepted is then a tunnel.
func (a *Activities) judge(ctx context.Context, lt *loadedTopic, f relevance.Filter, p store.Page, rec *parseRecord, idf vsm.IDF, split *crawlSplit, explore bool) (store.Decision, error) {
	lang := langOf(p, rec.Doc.Lang)
	dup, err := a.originalOf(ctx, p, rec)
	if err != nil {
		return store.Decision{}, err
	}
	if dup != "" {
		return store.Decision{Decision: store.DecisionDuplicate, Filter: f.Name(), Reason: "duplicate of " + dup,
			Title: rec.Doc.Title, Lang: lang}, nil
	}
	v := f.Judge(a.verdictPage(f, p, rec))
	d := store.Decision{Relevance: v.Score, Filter: f.Name(), Title: rec.Doc.Title, Lang: lang}
	if v.Decider != "" {
		d.Filter = v.Decider // the filter a strategy delegated to decided
	}
	if negativeSample(lt.Topic, p) {
		// The topic's author says this page is off topic: no score
		// overrules that (bayes's cold-start vsm accepted a user trial's
		// own negative samples). Its score is kept for the record, but it
		// enters no split: it says nothing of where the topic ends.
		d.Decision = store.DecisionRejected
		d.Reason = fmt.Sprintf("%s (score %.3f)", relevance.NegativeSampleMark, v.Score)
		return d, nil
	}
	if n, distinct, stuffed := relevance.Stuffed(rec.TF); stuffed {
		// Nothing but repetition (relevance.Stuffed): its score says
		// nothing of the topic, however high, and is not the page's
		// relevance. Rejected, so under pruning its links are not
		// followed either; in no split, never promoted.
		d.Relevance, d.Decision = 0, store.DecisionRejected
		d.Reason = fmt.Sprintf("%s: %d term occurrences, %d distinct terms (score %.3f)", relevance.StuffedMark, n, distinct, v.Score)
		return d, nil
	}
	if split != nil {
		sv, expand := split.judge(v, p.URLHash, contentHost(p))
		d.Relevance = sv.Score
		if expand { // the crawl's path is unchanged (relevance.ScoreDist.Judge; its reason says why)
			d.Decision, d.Reason = store.DecisionTunnel, sv.Reason
			return d, nil
		}
		v = sv
	}
	if explore && !v.Relevant {
		// Fetched because its site is explored, not because its link
		// scored: its score says nothing of where the crawl's topic ends,
		// and near-zero pages of other sites pulled the split below the
		// topic's neighbours (a multi-site evaluation crawl accepted 19
		// pages for 6 targets, against 8).
		split.forget(p.URLHash)
		d.Decision, d.Reason = store.DecisionTunnel, v.Reason+SeedExploreMark
		return d, nil
	}
	shape := a.loopShape(lt.Loop, rec)
	if !v.Relevant && lt.Loop.NeedsBestLink() && rec.Doc != nil { // the topical-hub test reads the page's links
		shape.BestLink = linkpred.BestLinkText(lt.Model, idf, a.Tok, predLinks(rec.Doc.Links))
	}
	d.Decision, d.Reason = lt.Loop.Decide(v, p.URLHash, shape)
	return d, nil
}

// negativeSample reports whether page p (its URL or, after redirects, its
// final URL; both normalised as the topic's URLs are) is one of topic t's
// negative_samples.
func negativeSample(t *topic.Topic, p store.Page) bool {
	for _, u := range t.NegativeSamples {
		if u == p.URL || (p.FinalURL != "" && u == p.FinalURL) {
			return true
		}
	}
	return false
}

// inNoSplit reports whether judged page p's score is left out of every
// split: a page the topic declares off topic (declaredOffTopic), or a seed
// site's exploration page, expanded only because its site was being
// explored (SeedExploreMark).
func inNoSplit(p store.Page) bool {
	return declaredOffTopic(p) || exploredOnly(p)
}

// exploredOnly reports whether judged page p is a tunnel only because its
// seed site was being explored (SeedExploreMark).
func exploredOnly(p store.Page) bool {
	return p.Decision == store.DecisionTunnel && strings.Contains(p.Reason, SeedExploreMark)
}

// declaredOffTopic reports whether judged page p was rejected whatever its
// score (judge): as one of its topic's negative_samples, or as keyword
// stuffing. In no split, never promoted.
func declaredOffTopic(p store.Page) bool {
	return p.Decision == store.DecisionRejected &&
		(strings.HasPrefix(p.Reason, relevance.NegativeSampleMark) || stuffedPage(p))
}

// stuffedPage reports whether judged page p was rejected as keyword
// stuffing (relevance.Stuffed; judge).
func stuffedPage(p store.Page) bool {
	return p.Decision == store.DecisionRejected && strings.HasPrefix(p.Reason, relevance.StuffedMark)
}

func langOf(p store.Page, docLang string) string {
	if p.Lang != "" {
		return p.Lang
	}
	return docLang
}

func joinAnchors(a []string) string {
	out := ""
	for i, s := range a {
		if i > 0 {
			out += " | "
		}
		out += s
	}
	return out
}

// contentHost is the host page p's content came from: its final URL's
// after redirects, else its URL's.
func contentHost(p store.Page) string {
	if p.FinalURL != "" {
		return urlnorm.Host(p.FinalURL)
	}
	return urlnorm.Host(p.URL)
}

// yieldHost is the host whose yield (crawl.host_yield) page p's decision
// counts towards: its host when the batch is the crawl that fetched it; ""
// (not counted) when a refresh judges it again. The store counts a page's
// first judgement only, but a refresh that replaces a changed page clears
// its decision (store.Refreshes.ReplacePage), so without this every
// refreshed page would count a second time.
func yieldHost(batchCrawl string, p store.Page) string {
	if p.CrawlID != "" && p.CrawlID != batchCrawl {
		return ""
	}
	return urlnorm.Host(p.URL)
}

// outwardYield is the class key page p's yield also counts towards:
// hostyield.Outward when p was reached through a link from another site
// (its parent's host is not its own but for a leading "www.",
// urlnorm.SameSite; a port makes another site, as in the link-type
// heuristic), "" otherwise (a seed, a link within its site).
func outwardYield(p store.Page) string {
	if p.ParentURL == "" || urlnorm.SameSite(urlnorm.Host(p.ParentURL), urlnorm.Host(p.URL)) {
		return ""
	}
	return hostyield.Outward
}
