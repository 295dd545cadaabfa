package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/modelstore"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/search"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// expandCandidate is one URL a source proposes.
type expandCandidate struct{ url, source string }

// ExpandSeeds grows a running crawl's frontier from seed 003's sources, as
// configured by the topic's strategy.expand: (1) friend links — out-links of
// the topic's seed pages to other hosts; (2) the root URLs of the TopHosts
// hosts with the most accepted pages of this crawl; (3) the root URL of every
// host whose url-template templates matched more than TemplateMin accepted
// pages (only with the url-template filter: other filters learn no
// templates). New entries get seed priority and strategy "expand:<source>";
// the frontier inserts only unknown URLs (a known queued URL is raised to
// seed priority), so a retried or repeated round adds nothing twice. At most
// MaxNew entries are added, friend links first, then hosts, then templates.
// (4) No-result search queries are stored as candidate keywords (model kind
// store.CandidateKeywordsKind), for the operator to review.
func (a *Activities) ExpandSeeds(ctx context.Context, in crawlapi.ExpandInput) (crawlapi.ExpandResult, error) {
	var res crawlapi.ExpandResult
	defer beatThroughout(ctx, "expandseeds")() // it reads every edge of the topic, in one call
	lt, err := a.loadTopic(ctx, in.Topic, in.TopicVersion, in.ModelVersion)
	if err != nil {
		return res, err
	}
	t := lt.Topic
	cfg := t.Strategy.Expand
	var cands []expandCandidate
	if cfg.FriendLinks {
		fl, err := a.friendLinks(ctx, t)
		if err != nil {
			return res, err
		}
		res.FriendLinks = len(fl)
		cands = append(cands, fl...)
	}
	if cfg.TopHosts > 0 || cfg.TemplateMin > 0 {
		judged, _, _, err := a.judgedPages(ctx, in.CrawlID)
		if err != nil {
			return res, err
		}
		if cfg.TopHosts > 0 {
			th := topHostRoots(judged, cfg.TopHosts)
			res.TopHosts = len(th)
			cands = append(cands, th...)
		}
		if cfg.TemplateMin > 0 {
			tc, err := a.templateRoots(ctx, lt, judged, cfg.TemplateMin)
			if err != nil {
				return res, err
			}
			res.Templates = len(tc)
			cands = append(cands, tc...)
		}
	}
	if res.Enqueued, err = a.enqueueExpansion(ctx, in, t, cands); err != nil {
		return res, err
	}
	if cfg.Keywords > 0 {
		if res.Keywords, res.KeywordsVersion, err = a.recordCandidateKeywords(ctx, t, cfg.Keywords); err != nil {
			return res, err
		}
	}
	a.Log.Info("seeds expanded", "crawl", in.CrawlID, "friend_links", res.FriendLinks, "top_hosts", res.TopHosts,
		"templates", res.Templates, "enqueued", res.Enqueued, "candidate_keywords", res.Keywords)
	return res, nil
}

// friendLinks lists the seed pages' recorded out-links to other sites
// (urlnorm.SameSite), in URL order. Only in-scope links are in the link
// graph. It reads the seeds' out-links only (store.OutLinks); it read the
// topic's whole graph, anchors and contexts included, every round.
func (a *Activities) friendLinks(ctx context.Context, t *topic.Topic) ([]expandCandidate, error) {
	seedHost := map[string]string{}
	var seeds []string
	for _, s := range t.Seeds {
		h := urlnorm.Hash(s)
		if _, dup := seedHost[h]; !dup {
			seeds = append(seeds, h)
		}
		seedHost[h] = urlnorm.Host(s)
	}
	links, err := a.Store.OutLinks(ctx, t.Name, seeds)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []expandCandidate
	for src, ls := range links {
		for _, l := range ls {
			if l.DstURL == "" || urlnorm.SameSite(urlnorm.Host(l.DstURL), seedHost[src]) || seen[l.DstURL] {
				continue
			}
			seen[l.DstURL] = true
			out = append(out, expandCandidate{l.DstURL, "friend-link"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].url < out[j].url })
	return out, nil
}

// rootOf is the root URL of u's host ("scheme://host/"), normalised.
func rootOf(u string) (string, bool) {
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" {
		return "", false
	}
	n, err := urlnorm.Normalize(pu.Scheme + "://" + pu.Host + "/")
	return n, err == nil
}

// topHostRoots returns the root URLs of the n hosts with the most accepted
// pages (ties by host name, so the choice is deterministic).
func topHostRoots(judged []relevance.Judged, n int) []expandCandidate {
	count := map[string]int{}
	root := map[string]string{}
	for _, j := range judged {
		if j.Decision != store.DecisionAccepted {
			continue
		}
		h := urlnorm.Host(j.URL)
		if _, ok := root[h]; !ok {
			r, ok := rootOf(j.URL)
			if !ok {
				continue
			}
			root[h] = r
		}
		count[h]++
	}
	hosts := make([]string, 0, len(count))
	for h := range count {
		hosts = append(hosts, h)
	}
	sort.Slice(hosts, func(i, j int) bool {
		if count[hosts[i]] != count[hosts[j]] {
			return count[hosts[i]] > count[hosts[j]]
		}
		return hosts[i] < hosts[j]
	})
	var out []expandCandidate
	for _, h := range hosts[:min(n, len(hosts))] {
		out = append(out, expandCandidate{root[h], "top-host"})
	}
	return out
}

// templateRoots returns the root URLs of the hosts whose url-template
// templates matched more than min accepted pages (relevance.URLTemplate's
// TemplateCounts over the stored templates). Nothing when the page filter
// is not url-template.
func (a *Activities) templateRoots(ctx context.Context, lt *loadedTopic, judged []relevance.Judged, min int) ([]expandCandidate, error) {
	if lt.Filter.Name() != "url-template" {
		return nil, nil
	}
	f, err := a.pageFilter(ctx, lt, nil, 0) // URL matching needs no IDF nor the dynamic threshold
	if err != nil {
		return nil, err
	}
	ut, ok := f.(*relevance.URLTemplate)
	if !ok {
		return nil, fmt.Errorf("url-template filter is a %T", f)
	}
	counts := ut.TemplateCounts(judged)
	hosts := make([]string, 0, len(counts))
	for h, c := range counts {
		if c > min {
			hosts = append(hosts, h)
		}
	}
	sort.Strings(hosts)
	var out []expandCandidate
	for _, h := range hosts {
		if ts := ut.Templates(h); len(ts) > 0 {
			if r, ok := rootOf(ts[0]); ok {
				out = append(out, expandCandidate{r, "template"})
			}
		}
	}
	return out, nil
}

// enqueueExpansion inserts the candidates with seed priority, one by one so
// that exactly up to MaxNew new entries are added. Out-of-scope URLs and
// repeats are skipped.
func (a *Activities) enqueueExpansion(ctx context.Context, in crawlapi.ExpandInput, t *topic.Topic, cands []expandCandidate) (int, error) {
	maxPerHost := t.Limits.MaxPagesPerHost
	if maxPerHost == 0 {
		maxPerHost = a.CrawlCfg.MaxFrontierPerHost
	}
	added := 0
	seen := map[string]bool{}
	for _, c := range cands {
		if added >= in.MaxNew {
			break
		}
		n, err := urlnorm.Normalize(c.url)
		if err != nil || seen[n] || !t.InScope(urlnorm.Host(n)) {
			continue
		}
		seen[n] = true
		k, err := a.Store.Enqueue(ctx, []store.FrontierEntry{{
			Topic: t.Name, URLHash: urlnorm.Hash(n), URL: n, Host: urlnorm.Host(n),
			Priority: seedPriority, Strategy: "expand:" + c.source, CrawlID: in.CrawlID,
		}}, store.EnqueueOptions{MaxPerHost: maxPerHost})
		if err != nil {
			return added, err
		}
		added += k
	}
	return added, nil
}

// recordCandidateKeywords stores the topic's most frequent no-result
// queries (at most limit) that are not already keywords, as a new version
// of store.CandidateKeywordsKind when they changed. It returns their number and
// the stored version (0 when there are none and none was ever stored).
func (a *Activities) recordCandidateKeywords(ctx context.Context, t *topic.Topic, limit int) (int, int, error) {
	// The forms of one query (網路 and 网络, "Rose" and "rose") are one
	// candidate, and one that is a keyword in any form is none.
	qs, err := search.NoResultQueries(ctx, a.Store, t.Name, 0)
	if err != nil {
		return 0, 0, err
	}
	known := map[string]bool{}
	for k := range t.Keywords {
		known[search.QueryKey(k)] = true
	}
	ck := store.CandidateKeywords{Topic: t.Name, Queries: []store.QueryCount{}}
	for _, q := range qs {
		if len(ck.Queries) >= limit {
			break
		}
		if known[search.QueryKey(q.Query)] {
			continue
		}
		q.Last = q.Last.UTC().Truncate(time.Second) // byte-stable across store backends
		ck.Queries = append(ck.Queries, q)
	}
	if len(ck.Queries) == 0 {
		return 0, 0, nil
	}
	data, err := json.Marshal(ck)
	if err != nil {
		return 0, 0, err
	}
	v, err := modelstore.PutIfChanged(ctx, a.Store, t.Name, store.CandidateKeywordsKind, data)
	return len(ck.Queries), v, err
}
