package relevance

import (
	"encoding/json"
	"fmt"
	"sort"

	"focuscrawl/internal/decision"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/vsm"
)

// Defaults of the sample-rank filter (focuscrawl's choices: seed 004 lost
// its similarity function and promotion count).
const (
	DefaultSampleRankThreshold = 0.2 // max TF-IDF cosine to a library page
	DefaultSampleRankPromote   = 3   // pages promoted per round
	DefaultSampleRankEvery     = 20  // judged pages per round
	DefaultSampleRankMax       = 60  // library size cap
	sampleRankStateKind        = "filter-sample-rank"
)

func init() { register("sample-rank", decodeSampleRank, newSampleRank) }

// SampleRank is seed 004's bootstrapping focused crawler (BFC) page
// judgement: instead of a trained classifier, a page is ranked by its
// similarity to a library of sample pages, and after every round the most
// relevant crawled pages are promoted into the library.
//
// Similarity (focuscrawl's choice, the seed's is lost): the maximum cosine
// between the page's TF-IDF vector ((1+ln tf)·idf, the crawl's running IDF)
// and any library page's. Rounds: every Every judged pages (in crawl
// order) the Promote accepted pages with the highest relevance not yet in
// the library are added to it, up to Max pages. The library starts with the
// topic's sample pages; a topic without samples starts with an empty library
// and a cold-start vsm filter decides (the crawl log names it) until the
// first round promotes its best accepted pages.
//
// Parameters: threshold (0.2, scaled by breadth), promote (3), every (20),
// max (60), vsm_threshold (cold start).
type SampleRank struct {
	Threshold float64
	Promote   int
	Max       int
	every     int
	idf       vsm.IDF
	samples   []libDoc
	library   []libDoc
	vecs      []vsm.Vector
	coldStart Filter
}

type libDoc struct {
	URL string         `json:"url"`
	TF  map[string]int `json:"tf"`
}

type sampleRankState struct {
	Promoted []libDoc `json:"promoted"`
}

// SampleRankParams are the sample-rank filter's decoded parameters.
type SampleRankParams struct {
	Threshold           *float64 // nil: DefaultSampleRankThreshold scaled by breadth
	Promote, Every, Max int
	ColdStart           VSMParams // vsm_threshold
}

func decodeSampleRank(spec topic.Spec) (SampleRankParams, error) {
	if err := checkParams(spec, "threshold", "promote", "every", "max", "vsm_threshold"); err != nil {
		return SampleRankParams{}, err
	}
	var p SampleRankParams
	var err error
	if p.Threshold, err = thresholdParam(spec); err != nil {
		return p, err
	}
	for _, i := range []struct {
		key string
		def int
		dst *int
	}{{"promote", DefaultSampleRankPromote, &p.Promote}, {"every", DefaultSampleRankEvery, &p.Every},
		{"max", DefaultSampleRankMax, &p.Max}} {
		if *i.dst, err = spec.PositiveInt(i.key, i.def); err != nil {
			return p, err
		}
	}
	p.ColdStart, err = decodeColdStart(spec)
	return p, err
}

func (SampleRankParams) learner() {}

func (p SampleRankParams) baseThreshold(t *topic.Topic) float64 {
	return orDefault(p.Threshold, DefaultSampleRankThreshold, t)
}

func newSampleRank(p SampleRankParams, env Env) (Filter, error) {
	th, err := threshold("sample-rank", p, env)
	if err != nil {
		return nil, err
	}
	f := &SampleRank{Threshold: th, idf: env.IDF, Promote: p.Promote, every: p.Every, Max: p.Max}
	if f.coldStart, err = coldStart(p.ColdStart, env); err != nil {
		return nil, err
	}
	if env.Samples != nil {
		for _, d := range env.Samples.Positive {
			f.samples = append(f.samples, libDoc{d.URL, d.TF})
		}
	}
	f.library = append(f.library, f.samples...)
	if len(env.State) > 0 {
		var st sampleRankState
		if err := json.Unmarshal(env.State, &st); err != nil {
			return nil, fmt.Errorf("sample-rank state: %w", err)
		}
		f.library = append(f.library, st.Promoted...)
	}
	for _, d := range f.library {
		f.vecs = append(f.vecs, vsm.FromTF(d.TF, f.idf))
	}
	return f, nil
}

// Name implements Filter.
func (f *SampleRank) Name() string { return "sample-rank" }

// StateKind implements Learner.
func (f *SampleRank) StateKind() string { return sampleRankStateKind }

// Every implements Learner.
func (f *SampleRank) Every() int { return f.every }

// Library returns the URLs of the sample library (samples, then promoted).
func (f *SampleRank) Library() []string {
	out := make([]string, len(f.library))
	for i, d := range f.library {
		out[i] = d.URL
	}
	return out
}

// Judge implements Filter.
func (f *SampleRank) Judge(p *Page) Verdict {
	if len(f.vecs) == 0 {
		v := f.coldStart.Judge(p)
		v.Reason = "sample library empty (cold start); " + v.Reason
		v.Decider = f.coldStart.Name()
		return v
	}
	pv := vsm.FromTF(p.TF, f.idf)
	best, at := 0.0, -1
	for i, lv := range f.vecs {
		if s := vsm.Cosine(pv, lv); s > best {
			best, at = s, i
		}
	}
	reason := fmt.Sprintf("max cosine %.3f to the %d-page sample library vs threshold %.3f", best, len(f.vecs), f.Threshold)
	if at >= 0 && f.library[at].URL != "" {
		reason += " (nearest " + f.library[at].URL + ")"
	}
	return Verdict{Score: best, Relevant: best >= f.Threshold, Reason: reason}
}

// Learn implements Learner: replays the bootstrapping rounds over the judged
// pages in crawl order — after each full round of Every pages, the Promote
// best accepted pages seen so far and not yet in the library join it.
func (f *SampleRank) Learn(judged []Judged) ([]byte, error) {
	in := map[string]bool{}
	for _, d := range f.samples {
		in[d.URL] = true
	}
	var promoted []libDoc
	for r := 1; r*f.every <= len(judged) && len(f.samples)+len(promoted) < f.Max; r++ {
		var cand []Judged
		for _, j := range judged[:r*f.every] {
			if j.Decision == decision.Accepted && !in[j.URL] && len(j.TF) > 0 {
				cand = append(cand, j)
			}
		}
		sort.SliceStable(cand, func(a, b int) bool { return cand[a].Relevance > cand[b].Relevance })
		for _, j := range cand[:min(f.Promote, len(cand))] {
			if len(f.samples)+len(promoted) >= f.Max {
				break
			}
			in[j.URL] = true
			promoted = append(promoted, libDoc{j.URL, j.TF})
		}
	}
	return json.Marshal(sampleRankState{Promoted: promoted})
}
