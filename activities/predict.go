package activities

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/hostyield"
	"focuscrawl/internal/langalt"
	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// PredictLinks scores the out-links of the batch's judged pages with the
// topic's link predictor, records the edges of the crawl graph, admits new
// URLs to the frontier (raising the priority of known ones) and completes
// the batch. All writes are idempotent. A refresh batch's stage (only the
// refresh workflow runs it), it keeps the batch's claim while it runs
// (keepClaim) and expands only the pages the batch still holds
// (heldPages).
func (a *Activities) PredictLinks(ctx context.Context, in crawlapi.BatchRef) (crawlapi.PredictResult, error) {
	// Beats while it works: its stage runs with the crawl's heartbeat
	// timeout, which a batch's judging or index writes can outlast (a slow
	// index, the store's writer busy with another crawl).
	defer heartbeatEvery(ctx, 2*time.Second, func() any { return "predictlinks" })()
	stop, err := a.keepClaim(ctx, in)
	if err != nil {
		return crawlapi.PredictResult{}, err
	}
	defer stop()
	pages, err := a.Store.BatchPages(ctx, in.Topic, in.BatchID)
	if err != nil {
		return crawlapi.PredictResult{}, err
	}
	if pages, err = a.heldPages(ctx, in, pages); err != nil {
		return crawlapi.PredictResult{}, err
	}
	g := newGroup(in.Topic, in.CrawlID)
	res, err := a.predictLinks(ctx, in, pages, g)
	if err != nil {
		return res, err
	}
	if err := a.flush(ctx, g); err != nil {
		return res, err
	}
	res.Enqueued = g.enqueued
	return res, a.Store.CompleteBatch(ctx, in.Topic, in.BatchID)
}

// predictLinks scores the out-links of the given judged pages (see
// PredictLinks) and leaves the edges and frontier entries in g for the
// caller to flush (Enqueued counts what the flush inserts); it does not
// complete their frontier entries.
func (a *Activities) predictLinks(ctx context.Context, in crawlapi.BatchRef, pages []store.Page, g *group) (crawlapi.PredictResult, error) {
	lt, err := a.loadTopic(ctx, in.Topic, in.TopicVersion, in.ModelVersion)
	if err != nil {
		return crawlapi.PredictResult{}, err
	}
	t := lt.Topic
	type item struct {
		page store.Page
		rec  *parseRecord
	}
	var todo []item
	policy := lt.Loop
	terms := map[string]struct{}{}
	for _, p := range pages {
		if !policy.MayExpand(p.Decision, p.Depth) {
			continue // pruned, a duplicate or a failure: its parse record is not even read
		}
		rec, err := a.parseOf(ctx, g.recs, p)
		if errors.Is(err, store.ErrNotFound) {
			continue
		} else if err != nil {
			return crawlapi.PredictResult{}, err
		}
		if rec.Doc.NoFollow {
			continue
		}
		if !g.expandAnyway[p.URLHash] && !policy.Expand(p.Decision, p.Depth, a.loopShape(policy, rec)) { // pruning, tunnels, seed 002
			continue
		}
		todo = append(todo, item{p, rec})
		for term := range rec.TF {
			terms[term] = struct{}{}
		}
	}
	var res crawlapi.PredictResult
	if len(todo) > 0 {
		for term := range lt.Model.Terms {
			terms[term] = struct{}{}
		}
		idf, err := a.idf(ctx, in.Topic, terms, g)
		if err != nil {
			return res, err
		}
		env, err := a.predictorEnv(ctx, in, lt)
		if err != nil {
			return res, err
		}
		env.IDF = idf
		pred, err := linkpred.Build(lt.Predictor, env)
		if err != nil {
			return res, err
		}
		maxPerHost := t.Limits.MaxPagesPerHost
		if maxPerHost == 0 {
			maxPerHost = a.CrawlCfg.MaxFrontierPerHost
		}
		// The whole group's edges and frontier entries go to the store in the
		// group's one transaction (flush): SQLite write transactions
		// dominate the crawl's cost on fast sites.
		//
		// First the links that survive the scope, depth and trap checks,
		// scored; then the yields of the hosts whose links scored above 0
		// (the only ones the factor changes), read once for the group.
		type scored struct {
			page  *store.Page
			link  parse.Link
			host  string
			score float64
			// own is the link's score for the crawl graph: its own part
			// for a predictor that mixes in its parent's (ipagerank,
			// linkpred.OwnScorer), else score.
			own   float64
			depth int
			// outward: the link leaves its page's site (host yield's
			// outward prior; urlnorm.SameSite).
			outward bool
		}
		var kept []scored
		yieldHosts := map[string]struct{}{}
		now := a.now()
		topicLangs := topicLanguages(t)
		for _, it := range todo {
			p, doc := it.page, it.rec.Doc
			// A panic on one page's links (hostile URLs, anchors) costs that
			// page's links, not the group (guardPage); no store call here.
			n := len(kept)
			if err := a.guardPage(p.URL, "predicting the links of", func() error {
				langs := pageLanguages(topicLangs, doc, it.rec.Declared, p.FinalURL)
				parent := linkpred.Parent{URL: p.FinalURL, Hash: p.URLHash, Relevance: p.Relevance,
					Relevant: p.Decision == store.DecisionAccepted, Depth: p.Depth,
					AnchorPath: p.AnchorPath, Terms: it.rec.TF}
				scores, own := scoreLinks(pred, parent, doc.Links)
				depth := p.Depth + 1
				pageHost := urlnorm.Host(p.FinalURL) // once a page, not once a link
				for i, l := range doc.Links {
					res.Links++
					host := urlnorm.Host(l.URL)
					if l.Nofollow || !t.InScope(host) || (t.Limits.MaxDepth > 0 && depth > t.Limits.MaxDepth) ||
						calendarTrap(l.URL, now, a.CrawlCfg.CalendarPastYears, a.CrawlCfg.CalendarFutureYears) ||
						urlnorm.RepeatedSegments(l.URL) || langalt.Foreign(l, p.FinalURL, langs) ||
						a.Fetcher.RefusesExtension(l.URL) || a.Fetcher.RobotsDisallows(l.URL) {
						res.Dropped++
						continue
					}
					kept = append(kept, scored{page: &it.page, link: l, host: host, score: scores[i], own: own[i], depth: depth, outward: !urlnorm.SameSite(host, pageHost)})
					if scores[i] > 0 || own[i] > 0 {
						yieldHosts[host] = struct{}{}
					}
				}
				return nil
			}); err != nil {
				kept = kept[:n] // the page's links are given up (its hosts in yieldHosts only ask a factor)
			}
		}
		factor := func(string, bool) float64 { return 1 }
		if a.CrawlCfg.HostYield && len(yieldHosts) > 0 { // hosts that yield nothing relevant sink (internal/hostyield)
			if factor, err = a.hostYieldFactor(ctx, in.Topic, slices.Collect(maps.Keys(yieldHosts))); err != nil {
				return res, err
			}
		}
		var entries []store.FrontierEntry
		var edges []store.Link
		for _, k := range kept {
			p, l, score, own := k.page, k.link, k.score, max(k.own, 0)
			sink := 0.0
			// The host's factor scales the edge's score as it does the
			// priority: every stored edge score carries the factor of its
			// scoring (for ipagerank too, whose edge keeps RWB alone).
			f := 1.0
			if score > 0 || own > 0 {
				f = factor(k.host, k.outward)
			}
			own *= f
			if score > 0 {
				score *= f
				if a.gone.sunk(in.Topic, l.URL) { // a link into a directory that is gone (gone.go)
					// The store scales the entry by it (FrontierEntry.Sink)
					// and keeps it, as DemoteQueued's entries keep theirs,
					// under later priorities (hub/authority recomputation);
					// the link's own score stays as scored.
					sink = goneFactor
				}
			}
			h := urlnorm.Hash(l.URL)
			edges = append(edges, store.Link{Src: p.URLHash, Dst: h, DstURL: l.URL, Anchor: l.Anchor,
				Context: l.Context, Score: own})
			if score < 0 { // the predictor discards it (seed 000: below threshold)
				res.Dropped++
				continue
			}
			entries = append(entries, store.FrontierEntry{
				Topic: in.Topic, URLHash: h, URL: l.URL, Host: k.host, Priority: score, Depth: k.depth,
				ParentHash: p.URLHash, ParentURL: p.FinalURL, Anchor: l.Anchor,
				AnchorPath: linkpred.ExtendAnchorPath(p.AnchorPath, l.Anchor), LinkScore: score, Strategy: pred.Name(),
				CrawlID: in.CrawlID, Sink: sink,
			})
		}
		g.w.Links = append(g.w.Links, edges...)
		g.w.Entries = append(g.w.Entries, entries...)
		g.w.EnqueueOptions = store.EnqueueOptions{MaxPerHost: maxPerHost}
	}
	return res, nil
}

// topicLanguages is the language of t's text as the crawl follows
// language switchers (langalt.Foreign): its language: field, or for auto
// the language its keywords and description are clearly written in
// (langalt.ClearLanguage); nil when the topic follows every language
// (scope.other_languages) or its language cannot be told.
func topicLanguages(t *topic.Topic) []string {
	if t.Scope.OtherLanguages {
		return nil
	}
	if t.Language == "zh" || t.Language == "en" {
		return []string{t.Language}
	}
	var b strings.Builder
	b.WriteString(t.Description)
	for kw := range t.Keywords {
		b.WriteString(" ")
		b.WriteString(kw)
	}
	if l := langalt.ClearLanguage(b.String()); l != "" {
		return []string{l}
	}
	return nil
}

// pageLanguages adds a page's own language to the topic's: a page links
// its translations, and whatever language the crawl reached it in is one
// the crawl may go on in (a German page of an English-keyword topic). Nil
// stays nil: every language followed. declared is the primary subtag of the
// page's <html lang> (parseRecord.Declared); "" reads doc.Lang, which a
// parsed page's record narrows to zh, en or "" — so a German page's "de"
// was lost in crawls, and its same-language hreflang links dropped. A page
// whose URL carries its language where its switcher's links carry theirs
// (langalt.Own) is in that language, whatever its text reads as: the
// Chinese LilyPond manual's untranslated pages read as English, and their
// crawl followed every "English" link into the English manual.
func pageLanguages(topicLangs []string, doc *parse.Document, declared, page string) []string {
	if len(topicLangs) == 0 {
		return nil
	}
	if declared == "" {
		declared = langalt.Primary(doc.Lang)
	}
	langs := slices.Clone(topicLangs)
	own := []string{declared, pageLanguage(doc)}
	if code := langalt.Own(page, doc.Links); code != "" {
		own = []string{code, declared}
	}
	for _, l := range own {
		if l != "" && !slices.Contains(langs, l) {
			langs = append(langs, l)
		}
	}
	return langs
}

// calendarTrap reports whether u carries a date too far from now: more than
// past years before it or future years after it (0 = no bound on that
// side). Calendars link to the next and previous period for ever; bounding
// the distance from the present bounds each calendar to a finite window
// (docs/security.md) without any per-host state.
func calendarTrap(u string, now time.Time, past, future int) bool {
	if past == 0 && future == 0 {
		return false
	}
	y := now.Year()
	for _, year := range urlnorm.CalendarYears(u) {
		if (past > 0 && year < y-past) || (future > 0 && year > y+future) {
			return true
		}
	}
	return false
}

// hostYieldFactor reads the topic's yields of hosts from the store — what
// every worker's crawls of the topic judged there — and returns the
// priority factor of a link into host (internal/hostyield; 1 for a host
// never judged). A link that leaves its page's host (outward) starts from
// the topic's outward rate instead of 1/2 (hostyield.FactorWithPrior): how
// often the pages reached by leaving a site were relevant.
func (a *Activities) hostYieldFactor(ctx context.Context, topic string, hosts []string) (func(host string, outward bool) float64, error) {
	yields, err := a.Store.HostYields(ctx, topic, append(hosts, hostyield.Outward))
	if err != nil {
		return nil, err
	}
	out := yields[hostyield.Outward]
	outRate := hostyield.Rate(out.Accepted, out.Judged)
	return func(host string, outward bool) float64 {
		y := yields[host]
		if outward {
			return hostyield.FactorWithPrior(y.Accepted, y.Judged, outRate)
		}
		return hostyield.Factor(y.Accepted, y.Judged)
	}, nil
}
