package linkpred

import (
	"focuscrawl/internal/topic"
)

func init() { register("ipagerank", decodeIPageRank, newIPageRank) }

// IPageRank is the frontier priority of focuscrawl's IPageRank design
// (seed 000's lost chapter; see graph.IPageRank): between recomputations a
// new link scores
//
//	λ · RWB(link) + (1 − λ) · IPR(parent)
//
// where RWB is the rwb predictor's score (0 when it would discard: nothing
// is discarded here, IPageRank decides later) and IPR the parent page's
// IPageRank from the last RecomputeHubAuthority, scaled to max 1 (the
// parent's relevance before the first recomputation). Each recomputation
// then re-prioritises every queued URL as λ · RWB(best in-link) + (1 − λ)
// · IPR(URL) — the URL's own topic-sensitive rank, into which the parent's
// rank flows: the crawl graph keeps each link's RWB score (ScoreOwn), not
// the mix, so the parent's rank counts once there.
//
// Parameters: lambda (default 0.5), c, d, min_term_weight (as rwb).
type IPageRank struct {
	Lambda float64
	rwb    *RW
	ranks  map[string]float64
}

// IPageRankParams are the ipagerank predictor's decoded parameters.
type IPageRankParams struct {
	Lambda float64
	RWB    RWParams // c, d, min_term_weight
}

func decodeIPageRank(spec topic.Spec) (IPageRankParams, error) {
	if err := checkParams(spec, "lambda", "c", "d", "min_term_weight"); err != nil {
		return IPageRankParams{}, err
	}
	l, err := spec.Float("lambda", 0.5)
	if err != nil {
		return IPageRankParams{}, err
	}
	if err := unit(spec.Name, "lambda", l); err != nil {
		return IPageRankParams{}, err
	}
	params := map[string]any{}
	for k, v := range spec.Params {
		if k != "lambda" {
			params[k] = v
		}
	}
	rwb, err := decodeRW(topic.Spec{Name: "rwb", Params: params}, true)
	return IPageRankParams{Lambda: l, RWB: rwb}, err
}

func newIPageRank(p IPageRankParams, env Env) (Predictor, error) {
	r, err := newRW(p.RWB, env)
	if err != nil {
		return nil, err
	}
	ip := &IPageRank{Lambda: p.Lambda, rwb: r.(*RW)}
	if env.Ranks != nil {
		ip.ranks = env.Ranks.Scores
	}
	return ip, nil
}

// Name implements Predictor.
func (ip *IPageRank) Name() string { return "ipagerank" }

// Score implements Predictor.
func (ip *IPageRank) Score(p Parent, l Link) float64 {
	prio, _ := ip.ScoreOwn(p, l)
	return prio
}

// ScoreOwn implements OwnScorer: the priority λ·RWB + (1−λ)·IPR(parent)
// and the link's own part, RWB (its discard as 0).
func (ip *IPageRank) ScoreOwn(p Parent, l Link) (priority, own float64) {
	link := max(0, ip.rwb.Score(p, l))
	pr, ok := ip.ranks[p.Hash]
	if !ok {
		pr = p.Relevance
	}
	return ip.Lambda*link + (1-ip.Lambda)*pr, link
}
