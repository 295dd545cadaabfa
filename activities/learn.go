package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/activity"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/decision"
	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// LearnLinkModel rebuilds the learned link models (JLSE link graph,
// Q-values and anchor NB; BFC path discriminator; anchor-context
// predecessor layers — see package linkmodel) from the crawl's pages and
// the topic's crawl graph, and stores them as a new version of
// linkmodel.ModelKind. The workflow runs it every crawl.learn_every new
// result pages (seed 002's cf) and puts the returned version into later
// batches. A retry stores an identical model as another version; batches
// only ever read the version the workflow recorded, so that is harmless.
func (a *Activities) LearnLinkModel(ctx context.Context, in crawlapi.LearnInput) (crawlapi.LearnResult, error) {
	// Reading every edge with its anchor and context, and learning from
	// them, takes minutes on a big topic with nothing between to beat at
	// (the edge loop beat only every so many edges, the learning never).
	defer beatThroughout(ctx, "learn")()
	data, err := a.trainingData(ctx, in.CrawlID)
	if err != nil {
		return crawlapi.LearnResult{}, err
	}
	// The crawl graph is streamed into learning, not loaded: Learn keeps
	// only what it learns from (linkmodel.TrainingData.EachLink).
	var edgesErr error
	data.EachLink = func(yield func(linkmodel.LinkInfo)) {
		edgesErr = a.Store.Edges(ctx, in.Topic, func(l store.Link) error {
			yield(linkmodel.LinkInfo{Src: l.Src, Dst: l.Dst, Anchor: l.Anchor, Context: l.Context})
			return nil
		})
	}
	dc := a.domContexts(ctx, in.Topic)
	data.DOMContext = dc.lookup
	m := linkmodel.Learn(data, a.Tok)
	if edgesErr != nil {
		return crawlapi.LearnResult{}, fmt.Errorf("read crawl graph of %s: %w", in.Topic, edgesErr)
	}
	if dc.err != nil {
		return crawlapi.LearnResult{}, dc.err
	}
	blob, err := m.Encode()
	if err != nil {
		return crawlapi.LearnResult{}, err
	}
	v, err := a.Store.PutModel(ctx, in.Topic, linkmodel.ModelKind, blob)
	if err != nil {
		return crawlapi.LearnResult{}, fmt.Errorf("store link model of %s: %w", in.Topic, err)
	}
	if _, err := a.Store.PruneModels(ctx, in.Topic, linkmodel.ModelKind, keepLearnedVersions); err != nil {
		return crawlapi.LearnResult{}, fmt.Errorf("prune the link models of %s: %w", in.Topic, err)
	}
	return crawlapi.LearnResult{Version: v, Results: m.Results, Vertices: len(m.JLSE.Vertices)}, nil
}

// heartbeat records progress when ctx is an activity's (not in unit tests).
func heartbeat(ctx context.Context, details ...any) {
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx, details...)
	}
}

// trainingData reads the crawl's pages in fetch order (deterministic input
// for learning; the crawl graph is streamed by LearnLinkModel).
func (a *Activities) trainingData(ctx context.Context, crawlID string) (linkmodel.TrainingData, error) {
	var d linkmodel.TrainingData
	byURL := map[string]string{} // normalised URL or final URL → page URL hash
	var parents []string
	n := 0
	err := a.Store.CrawlLog(ctx, crawlID, func(p store.Page) error {
		if n++; n%1000 == 0 {
			heartbeat(ctx, n)
		}
		byURL[p.URL] = p.URLHash
		if p.FinalURL != "" {
			byURL[p.FinalURL] = p.URLHash
		}
		info := linkmodel.PageInfo{Hash: p.URLHash, URL: p.URL, AnchorPath: p.AnchorPath,
			Accepted: p.Decision == store.DecisionAccepted,
			Rejected: decision.Judged(p.Decision) && p.Decision != store.DecisionAccepted}
		if info.Accepted { // seed 002: result pages are target pages, not hubs
			rec, err := a.loadParse(ctx, p)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			info.Target, _ = relevance.IsDetailPage(a.shapeOf(rec))
		}
		d.Pages = append(d.Pages, info)
		parents = append(parents, p.ParentURL)
		return nil
	})
	if err != nil {
		return d, fmt.Errorf("read crawl %s: %w", crawlID, err)
	}
	for i, pu := range parents {
		if pu == "" {
			continue
		}
		if h, ok := byURL[pu]; ok {
			d.Pages[i].Parent = h
		} else {
			d.Pages[i].Parent = urlnorm.Hash(pu)
		}
	}
	return d, nil
}
