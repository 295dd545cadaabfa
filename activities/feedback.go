package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/activity"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/index"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
	"focuscrawl/internal/vsm"
)

// feedbackMaxPages bounds the crawls the final feedback re-judgement scores
// again: every judged page's term frequencies are held in memory at once
// (about 40 kB a page), so a larger crawl keeps the plain re-judgement. A
// crawl that large has a settled online split anyway.
const feedbackMaxPages = 20000

// promotedMark marks the reason of a page feedback re-judgement accepted
// that the crawl had not accepted online; restoredMark one it accepts again
// after an earlier re-judgement withdrew it. Both keep the page's online
// decision readable from the store, which is what makes a retry compute the
// same feedback set (onlineAccepted).
const (
	promotedMark = "; promoted: "
	restoredMark = "; restored: "
)

// onlineAccepted reports whether the crawl accepted p when it judged it
// online, whatever re-judgement did since: the first re-judgement mark in
// its reason tells (withdrawn first: accepted online; promoted first: not),
// and a page without one was decided online.
func onlineAccepted(p store.Page) bool {
	first, online := len(p.Reason)+1, p.Decision == store.DecisionAccepted
	for _, m := range []struct {
		mark   string
		online bool
	}{{rejudgedMark, true}, {promotedMark, false}, {restoredMark, true}} {
		if i := strings.Index(p.Reason, m.mark); i >= 0 && i < first {
			first, online = i, m.online
		}
	}
	return online
}

// feedbackVerdicts scores the crawl's judged pages again with feedback
// re-judgement (relevance.FeedbackScores): the feedback set is the pages
// accepted online that the crawl's settled split (dist, over their stored
// scores) keeps. It returns each page's new score and the split that cuts
// them; ok false when the crawl is too large or has no feedback set (the
// plain re-judgement then applies). The idf is the crawl's own, over its
// judged pages' stored term frequencies, so a retry computes the same
// scores whatever other crawls of the topic added meanwhile. A page
// without a stored parse record (dropped since) scores 0: it has no text
// of its own to be judged on.
func (a *Activities) feedbackVerdicts(ctx context.Context, lt *loadedTopic, in crawlapi.RejudgeInput, pages []judgedPage, dist *relevance.ScoreDist, base float64) (scores map[string]float64, split *relevance.ScoreDist, ok bool, err error) {
	if len(pages) == 0 || len(pages) > feedbackMaxPages {
		return nil, nil, false, nil
	}
	fp := make([]relevance.FeedbackPage, len(pages))
	at := make(map[string]int, len(pages))
	df := map[string]int{}
	positives := 0
	for i, p := range pages {
		at[p.hash] = i
		if p.stuffed {
			// Its text is the topic's keywords repeated (relevance.Stuffed):
			// scored again it came out high and, as in-link evidence,
			// promoted off-topic pages it links to. As online (its stored
			// relevance is 0) it scores 0, in no split's upper group.
			continue
		}
		// judgedPage keeps no URL (a few words a page); loadParse names the
		// page by it only in an error, where the hash does as well.
		rec, err := a.loadParse(ctx, store.Page{Topic: in.Topic, URLHash: p.hash, URL: p.hash})
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue
		case err != nil:
			return nil, nil, false, fmt.Errorf("feedback re-judgement of crawl %s: %w", in.CrawlID, err)
		}
		fp[i].TF = rec.TF
		for t := range rec.TF {
			df[t]++
		}
		if keep, _ := dist.Accepts(p.score, base); keep && p.online && len(rec.TF) > 0 {
			fp[i].Positive = true
			positives++
		}
		if activity.IsActivity(ctx) && i%512 == 511 {
			activity.RecordHeartbeat(ctx, i+1)
		}
	}
	if positives == 0 {
		return nil, nil, false, nil
	}
	if err := a.feedbackSources(ctx, in, pages, at, fp); err != nil {
		return nil, nil, false, err
	}
	beta := relevance.FeedbackBeta
	if b := lt.Topic.Strategy.FeedbackBeta; b != nil {
		beta = *b
	}
	s := relevance.FeedbackScores(lt.Model.Terms, vsm.SmoothIDF(len(pages), df), fp, beta)
	scores = make(map[string]float64, len(pages))
	split = relevance.NewScoreDist()
	split.SetSplitScale(lt.Topic.ThresholdFactor())
	for i, p := range pages {
		if len(fp[i].TF) == 0 {
			s[i] = 0 // in-link evidence alone never accepts a page
		}
		scores[p.hash] = s[i]
		if !p.negative && !p.explored {
			// In no split, as online and in the plain re-judgement
			// (inNoSplit): a declared off-topic page's score says nothing
			// of where the topic ends, nor does an exploration page's.
			split.Add(p.hash, s[i])
		}
	}
	return scores, split, true, nil
}

// feedbackSources fills each page's in-link sources: the judged pages of
// the crawl (at: URL hash → index) linking to it.
func (a *Activities) feedbackSources(ctx context.Context, in crawlapi.RejudgeInput, pages []judgedPage, at map[string]int, fp []relevance.FeedbackPage) error {
	for start := 0; start < len(pages); start += rejudgeChunk {
		part := pages[start:min(start+rejudgeChunk, len(pages))]
		hashes := make([]string, len(part))
		for i, p := range part {
			hashes[i] = p.hash
		}
		links, err := a.Store.InLinks(ctx, in.Topic, hashes)
		if err != nil {
			return fmt.Errorf("feedback re-judgement of crawl %s: in-links: %w", in.CrawlID, err)
		}
		for i, h := range hashes {
			seen := map[int]bool{}
			for _, l := range links[h] {
				j, ok := at[l.Src]
				if ok && l.CrawlID == in.CrawlID && j != start+i && !seen[j] {
					seen[j] = true
					fp[start+i].Sources = append(fp[start+i].Sources, j)
				}
			}
		}
	}
	return nil
}

// promotedWhy says why a page is promoted: its feedback score, or (scores
// nil: the plain final re-judgement) its stored score, reaching the split.
func promotedWhy(scores map[string]float64, hash string, stored, threshold float64) string {
	if scores == nil {
		return fmt.Sprintf("%.3f reaches the crawl's split %.3f", stored, threshold)
	}
	return fmt.Sprintf("feedback score %.3f reaches the split %.3f", scores[hash], threshold)
}

// promote accepts one chunk of pages the final split keeps (the feedback
// split, or the plain one's below-split tunnels) that the crawl had not
// accepted: their decisions in one transaction, then their
// index documents and flags (the order withdraw keeps, so a retry finds the
// decisions and indexes what is not flagged yet).
func (a *Activities) promote(ctx context.Context, topicName string, hashes []string, scores map[string]float64, split *relevance.ScoreDist, base float64, res *crawlapi.RejudgeResult) error {
	_, threshold := split.Accepts(0, base)
	var decisions []store.PageDecision
	var pages []store.Page
	for _, h := range hashes {
		p, err := a.Store.Page(ctx, topicName, h)
		if err != nil {
			return fmt.Errorf("re-judge %s: %w", h, err)
		}
		switch p.Decision {
		case store.DecisionRejected, store.DecisionTunnel:
			mark := promotedMark
			if strings.Contains(p.Reason, rejudgedMark) && p.Decision == store.DecisionTunnel {
				mark = restoredMark
				res.Withdrawn-- // counted withdrawn from the crawl log; no longer
			}
			decisions = append(decisions, store.PageDecision{URLHash: p.URLHash, Decision: store.Decision{
				Relevance: p.Relevance, Filter: p.Filter, Decision: store.DecisionAccepted,
				Reason: p.Reason + mark + promotedWhy(scores, h, p.Relevance, threshold),
			}, RecountHost: urlnorm.Host(p.URL), YieldAlso: outwardYield(p)})
			res.Promoted++
			// Indexed whatever its flag says: a withdrawal whose flag write
			// failed left a restored page flagged with no document.
			pages = append(pages, p)
		case store.DecisionAccepted:
			// Accepted by an earlier attempt: only its index write may be
			// missing — for a restored page whatever its flag says (a
			// withdrawal whose flag write failed left it set).
			if !p.Indexed || strings.Contains(p.Reason, promotedMark) || strings.Contains(p.Reason, restoredMark) {
				pages = append(pages, p)
			}
		default:
			continue // judged again (a refresh) or no longer a judged page
		}
	}
	if len(decisions) > 0 {
		if _, err := a.Store.WriteGroup(ctx, store.GroupWrite{Topic: topicName, Decisions: decisions}); err != nil {
			return err
		}
	}
	var docs []index.Document
	var mark []string
	newly := 0
	for _, p := range pages {
		rec, err := a.loadParse(ctx, p)
		if errors.Is(err, store.ErrNotFound) {
			continue // nothing to index it from; it stays accepted, unindexed
		}
		if err != nil {
			return fmt.Errorf("re-judge %s: %w", p.URL, err)
		}
		if rec.Doc == nil || rec.Doc.NoIndex {
			continue // <meta name=robots content=noindex>: accepted, never indexed (as FilterPages)
		}
		doc, err := a.indexDocument(ctx, p, rec)
		if err != nil {
			return err
		}
		docs, mark = append(docs, doc), append(mark, p.URLHash)
		if !p.Indexed {
			newly++ // RejudgeCrawl counted the flagged ones already
		}
	}
	if len(docs) > 0 {
		if err := a.Index.Upsert(ctx, docs); err != nil {
			return fmt.Errorf("re-judge: index %d promoted pages: %w", len(docs), err)
		}
		if err := a.Store.MarkIndexed(ctx, topicName, mark); err != nil {
			return err
		}
		res.Indexed += newly
	}
	return nil
}
