package relevance

import (
	"encoding/json"
	"fmt"
	"sort"

	"focuscrawl/internal/decision"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// Defaults of seed 003's URL similarity: a = b = 0.5, r = 0.9.
const (
	DefaultURLA           = 0.5
	DefaultURLB           = 0.5
	DefaultURLR           = 0.9
	DefaultMaxTemplates   = 20 // per host; focuscrawl's bound
	DefaultTemplateEvery  = 10 // judged pages between template rebuilds
	urlTemplateStateKind  = "filter-url-template"
	defaultTemplateFilter = "vsm"
)

func init() { register("url-template", decodeURLTemplate, newURLTemplate) }

// URLSimilarity is seed 003's URL(i,j) = a·sim(i,j)/len(i) + b·sim(i,j)/len(j),
// where sim is the length of the common prefix (in bytes) of the two URL
// strings. Two empty URLs have similarity 0.
func URLSimilarity(i, j string, a, b float64) float64 {
	if len(i) == 0 || len(j) == 0 {
		return 0
	}
	n := 0
	for n < len(i) && n < len(j) && i[n] == j[n] {
		n++
	}
	return a*float64(n)/float64(len(i)) + b*float64(n)/float64(len(j))
}

// URLTemplate is seed 003's combined strategy (docs/algorithms.md
// "url-template"): when the page's host
// has URL templates and the page URL is at least R-similar to one of them,
// the page is relevant without looking at its text; otherwise the content
// filter (Fallback, default vsm) decides, and every page the content filter
// accepts becomes a template of its host (unless it already matches one).
//
// The literal reading of the seed allows one template per host and rejects
// every page of a templated host that does not match it; focuscrawl keeps up
// to MaxTemplates per host and falls back to the content filter instead of
// rejecting, so one template cannot lock a site's other page kinds out.
// Templates are rebuilt from the crawl's judged pages every Every pages
// (focuscrawl's choice), in crawl order, so the rebuild is deterministic.
//
// Parameters: a, b (0.5), r (0.9), fallback (vsm; any non-learning filter),
// max_templates (20), every (10), and the fallback's own threshold as
// "threshold".
type URLTemplate struct {
	A, B, R      float64
	MaxTemplates int
	Fallback     Filter
	every        int
	templates    map[string][]string // host → template URLs
}

type urlTemplateState struct {
	Templates map[string][]string `json:"templates"`
}

// URLTemplateParams are the url-template filter's decoded parameters.
type URLTemplateParams struct {
	A, B, R      float64
	MaxTemplates int
	Every        int
	Fallback     Strategy // the content filter, with the threshold and depth given
}

func decodeURLTemplate(spec topic.Spec) (URLTemplateParams, error) {
	if err := checkParams(spec, "a", "b", "r", "fallback", "max_templates", "every", "threshold", "depth"); err != nil {
		return URLTemplateParams{}, err
	}
	var p URLTemplateParams
	var err error
	get := func(key string, def, lo, hi float64) float64 {
		v, e := spec.Float(key, def)
		if e == nil && (v < lo || v > hi) {
			e = fmt.Errorf("strategy.page_filter url-template: %s %v must be in [%v,%v]", key, v, lo, hi)
		}
		if err == nil {
			err = e
		}
		return v
	}
	p.A, p.B, p.R = get("a", DefaultURLA, 0, 1), get("b", DefaultURLB, 0, 1), get("r", DefaultURLR, 0, 1)
	p.MaxTemplates = int(get("max_templates", DefaultMaxTemplates, 1, 10000))
	p.Every = int(get("every", DefaultTemplateEvery, 1, 1e6))
	if err != nil {
		return p, err
	}
	if p.A+p.B > 1+1e-9 {
		return p, fmt.Errorf("strategy.page_filter url-template: a + b = %v must not exceed 1", p.A+p.B)
	}
	fb := defaultTemplateFilter
	if v, ok := spec.Params["fallback"]; ok {
		s, ok := v.(string)
		if !ok || s == "url-template" {
			return p, fmt.Errorf("strategy.page_filter url-template: fallback %v must name a content filter", v)
		}
		fb = s
	}
	sub := topic.Spec{Name: fb, Params: map[string]any{}}
	for _, k := range []string{"threshold", "depth"} {
		if v, ok := spec.Params[k]; ok {
			sub.Params[k] = v
		}
	}
	if p.Fallback, err = Decode(sub); err != nil {
		return p, fmt.Errorf("strategy.page_filter url-template: fallback: %w", err)
	}
	if _, ok := p.Fallback.Params().(learnerParams); ok {
		return p, fmt.Errorf("strategy.page_filter url-template: fallback %s must not be a learning filter", fb)
	}
	return p, nil
}

func (URLTemplateParams) learner() {}

// baseThreshold is the content fallback's: URL matching keeps its r.
func (p URLTemplateParams) baseThreshold(t *topic.Topic) float64 {
	if th, ok := p.Fallback.Params().(thresholded); ok {
		return th.baseThreshold(t)
	}
	return 0
}

func newURLTemplate(p URLTemplateParams, env Env) (Filter, error) {
	f := &URLTemplate{A: p.A, B: p.B, R: p.R, MaxTemplates: p.MaxTemplates, every: p.Every, templates: map[string][]string{}}
	var err error
	if f.Fallback, err = Build(p.Fallback, env); err != nil {
		return nil, fmt.Errorf("strategy.page_filter url-template: fallback: %w", err)
	}
	if len(env.State) > 0 {
		var st urlTemplateState
		if err := json.Unmarshal(env.State, &st); err != nil {
			return nil, fmt.Errorf("url-template state: %w", err)
		}
		if st.Templates != nil {
			f.templates = st.Templates
		}
	}
	return f, nil
}

// Name implements Filter.
func (f *URLTemplate) Name() string { return "url-template" }

// Positional passes the position classes on to a fallback that needs them.
func (f *URLTemplate) Positional() {}

// StateKind implements Learner.
func (f *URLTemplate) StateKind() string { return urlTemplateStateKind }

// Every implements Learner.
func (f *URLTemplate) Every() int { return f.every }

// Templates returns a host's templates.
func (f *URLTemplate) Templates(host string) []string { return f.templates[host] }

// best returns the host template most similar to u.
func (f *URLTemplate) best(u string, templates []string) (string, float64) {
	bt, bs := "", 0.0
	for _, t := range templates {
		if s := URLSimilarity(u, t, f.A, f.B); s > bs || bt == "" {
			bt, bs = t, s
		}
	}
	return bt, bs
}

// matches reports whether u is R-similar to one of templates, and to which.
// A host without templates matches nothing: with r 0, "similarity 0 to no
// template ≥ 0" accepted every page of such a host unjudged, and no
// template was ever learned.
func (f *URLTemplate) matches(u string, templates []string) (string, float64, bool) {
	t, s := f.best(u, templates)
	return t, s, t != "" && s >= f.R
}

// Judge implements Filter.
func (f *URLTemplate) Judge(p *Page) Verdict {
	if t, s, ok := f.matches(p.URL, f.templates[urlnorm.Host(p.URL)]); ok {
		return Verdict{Score: s, Relevant: true,
			Reason: fmt.Sprintf("URL similarity %.3f to template %s ≥ r %.2f", s, t, f.R)}
	}
	v := f.Fallback.Judge(p)
	v.Reason = "no URL template matched; " + v.Reason
	if v.Decider == "" {
		v.Decider = f.Fallback.Name()
	}
	return v
}

// Learn implements Learner: in crawl order, every page the content fallback
// accepted becomes a template of its host unless it is already R-similar to
// one, up to MaxTemplates per host.
func (f *URLTemplate) Learn(judged []Judged) ([]byte, error) {
	st := urlTemplateState{Templates: map[string][]string{}}
	for _, j := range judged {
		if j.Decision != decision.Accepted || j.Filter != f.Fallback.Name() || j.URL == "" {
			continue
		}
		h := urlnorm.Host(j.URL)
		ts := st.Templates[h]
		if len(ts) >= f.MaxTemplates {
			continue
		}
		if _, _, ok := f.matches(j.URL, ts); ok {
			continue
		}
		st.Templates[h] = append(ts, j.URL)
	}
	for h := range st.Templates {
		sort.Strings(st.Templates[h])
	}
	return json.Marshal(st)
}

// TemplateCounts returns, per host, how many judged accepted pages match one
// of its templates — seed 003's signal for promoting a site root into the
// seed library (used by seed expansion).
func (f *URLTemplate) TemplateCounts(judged []Judged) map[string]int {
	out := map[string]int{}
	for _, j := range judged {
		if j.Decision != decision.Accepted {
			continue
		}
		h := urlnorm.Host(j.URL)
		if _, _, ok := f.matches(j.URL, f.templates[h]); ok {
			out[h]++
		}
	}
	return out
}
