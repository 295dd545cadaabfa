package focus

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"focuscrawl/internal/crawllog"
	"focuscrawl/internal/eval/baseline"
	"focuscrawl/internal/eval/harness"
	"focuscrawl/internal/eval/metrics"
	"focuscrawl/internal/topic"
)

// The configurations run on every topic. The first ones are focuscrawl
// crawls (TopicCrawlWorkflow; "focuscrawl bfs" is the topic with the bfs
// link predictor); the last two are the standalone baselines.
const (
	ConfDefault   = "default"
	ConfNoLearn   = "no learning"
	ConfNoLexicon = "no lexicon"
	ConfNoSamples = "no samples"
	ConfNoPrune   = "no pruning"
	ConfNoRejudge = "no re-judgement"
	// ConfNoPromote is the topic with strategy.promote: false (the final
	// re-judgement withdraws only).
	ConfNoPromote = "no promotion"
	ConfFeedback  = "feedback"
	// ConfFeedbackInLinks is feedback re-judgement without expansion
	// (strategy.feedback_beta: 0): the whole crawl's in-link evidence.
	ConfFeedbackInLinks = "feedback β=0"
	ConfFocusBFS        = "focuscrawl bfs"
	// ConfSitemaps is the topic with sitemaps: true; run it with the web
	// serving sitemaps (eval focus --sitemaps), or it reads none.
	ConfSitemaps = "sitemaps"
	// ConfOnTopicSeed is the topic seeded at its targets' chapter page
	// (the first UpChains entry, on the seed's host) instead of off topic:
	// a user who starts from a page of the topic, whose first judged pages
	// are all on topic (the crawl's early split then sits among them).
	ConfOnTopicSeed = "on-topic seed"
	ConfBestFirst   = "plain best-first"
	ConfBFS         = "BFS"
)

// Configs lists the configuration names of a full evaluation in report
// order. The default's "no learning" is not among them: the default link
// predictor reads no learned model, so it would be the default again.
// Learning is measured on the predictors that learn (LearnerConfigs).
var Configs = []string{ConfDefault, ConfNoLexicon, ConfNoSamples, ConfNoPrune, ConfNoRejudge, ConfNoPromote, ConfFeedback, ConfOnTopicSeed, ConfFocusBFS, ConfBestFirst, ConfBFS}

// LearningPredictors are the link predictors that read the learned link
// model (linkpred.ReadsLinkModel): the ones a learning on/off ablation
// means something for.
var LearningPredictors = []string{"jlse", "bfc", "anchor-context"}

// FastLearnEvery is the short learning cadence of the "learn@N" cells: the
// evaluation's budgets (40–340 fetches) rarely reach the worker's default
// cadence (crawl.learn_every = 150 accepted pages), so a cell at that
// cadence mostly measures a crawl that never learned; at this one every
// crawl relearns its model several times.
const FastLearnEvery = 10

// Learner configuration suffixes: "<predictor> no learning", "<predictor>
// learn@<worker cadence>" (the worker's crawl.learn_every) and
// "<predictor> learn@10" (FastLearnEvery).
const (
	sufNoLearn   = " no learning"
	sufLearn     = " learn@cf"
	sufFastLearn = " learn@10"
)

// LearnerConfigs are the learning on/off cells of every learning
// predictor: without learning, at the worker's cadence, at FastLearnEvery.
func LearnerConfigs() []string {
	var out []string
	for _, p := range LearningPredictors {
		out = append(out, p+sufNoLearn, p+sufLearn, p+sufFastLearn)
	}
	return out
}

// ExpandConfigs turns a --configs list into configuration names: "all"
// is Configs and LearnerConfigs, "learning" is LearnerConfigs, anything
// else a configuration name (variant rejects unknown ones). Empty: Configs.
func ExpandConfigs(names []string) []string {
	var out []string
	for _, n := range names {
		switch n {
		case "all":
			out = append(out, Configs...)
			out = append(out, LearnerConfigs()...)
		case "learning":
			out = append(out, LearnerConfigs()...)
		default:
			out = append(out, n)
		}
	}
	return out
}

// RunMetrics are the numbers of one crawl.
type RunMetrics struct {
	RecallHalf, Recall, Harvest float64 // recall@B/2, recall@B, harvest@B
	P, R, F1                    float64 // accepted set; 0 and meaningless for baselines
	BestF1                      float64 `json:",omitempty"` // metrics.Result.BestF1: F1 at the oracle threshold over the crawl's own scores
	Accepted, Judged, BestCut   int     `json:",omitempty"` // accepted and judged pages, and how many the oracle threshold accepts
	Fetched                     int
	OffSite                     float64 // share of fetches that left the corpus's host
	Baseline                    bool    // a standalone baseline: no page filter, so P/R/F1 do not apply
}

// Cell is one (topic, configuration): its runs, or why it was skipped.
type Cell struct {
	Config string
	Runs   []RunMetrics
	Skip   string // not run, and why
	Errors []string
}

// Stat summarises field f over the cell's runs.
func (c *Cell) Stat(f func(RunMetrics) float64) Stat {
	xs := make([]float64, len(c.Runs))
	for i, r := range c.Runs {
		xs[i] = f(r)
	}
	return Summarize(xs)
}

// AcceptedStat is Stat for an accepted-set metric (P, R, F1): no data for
// a baseline, which has no page filter.
func (c *Cell) AcceptedStat(f func(RunMetrics) float64) Stat {
	if len(c.Runs) > 0 && c.Runs[0].Baseline {
		return Stat{Mean: math.NaN()}
	}
	return c.Stat(f)
}

// OracleStat is AcceptedStat for BestF1: also no data for runs that did
// not record it (a report saved before F1* existed reads it as 0, which
// would show, and average, as a real 0).
func (c *Cell) OracleStat() Stat {
	for _, r := range c.Runs {
		if r.Judged == 0 && r.BestF1 == 0 {
			return Stat{Mean: math.NaN()}
		}
	}
	return c.AcceptedStat(func(m RunMetrics) float64 { return m.BestF1 })
}

// TopicResult holds every cell of one topic.
type TopicResult struct {
	Corpus *Corpus
	Topic  *Topic
	Cells  []*Cell
}

// Cell returns the cell of configuration name (nil if absent).
func (t *TopicResult) Cell(name string) *Cell {
	for _, c := range t.Cells {
		if c.Config == name {
			return c
		}
	}
	return nil
}

// Runner runs the configurations of topics on a harness.
type Runner struct {
	H        *harness.Harness
	Web      *Web
	Tok      topic.TermCounter // the project tokenizer, for the best-first baseline
	Runs     int               // runs per cell (≥ 3)
	LogDir   string            // crawl logs, one JSON Lines file per run; "" keeps none
	Timeout  time.Duration     // per focuscrawl crawl
	Progress io.Writer
	// Configs are the configurations to run, in report order (nil: Configs).
	Configs []string
	// Bootstrap drafts the ConfBootstrapped topics (nil: that configuration
	// fails).
	Bootstrap Bootstrapper
	// Corpora are every corpus the web serves, for SufElsewhere.
	Corpora []*Corpus
}

// Run runs every configuration of topic t of corpus c Runs times.
func (r *Runner) Run(ctx context.Context, c *Corpus, t *Topic) (*TopicResult, error) {
	res := &TopicResult{Corpus: c, Topic: t}
	confs := r.Configs
	if len(confs) == 0 {
		confs = Configs
	}
	for _, conf := range confs {
		cell := &Cell{Config: conf}
		res.Cells = append(res.Cells, cell)
		ct := t // the topic the cell is crawled and scored as
		var yml []byte
		var learn int
		var skip string
		var err error
		base, away, multi, err := placeSuffix(conf)
		if err != nil {
			return nil, err
		}
		if base == ConfBootstrapped {
			learn = learnWorker
			if yml, ct, err = r.bootstrapped(ctx, t); err != nil {
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				// A draft that cannot be made (an example that fails to
				// fetch) costs this cell, not the evaluation.
				cell.Errors = append(cell.Errors, err.Error())
				fmt.Fprintf(r.Progress, "[%s / %s / %s] FAILED: %v\n", c.Spec.Name, t.Name, conf, err)
				continue
			}
			fmt.Fprintf(r.Progress, "[%s / %s / %s] drafted from %v: %s\n", c.Spec.Name, t.Name, conf,
				ct.Topic.Samples, draftSummary(ct.Topic))
		} else if yml, learn, skip, err = variant(t, base); err != nil {
			return nil, err
		}
		if away && skip == "" {
			o := Elsewhere(c, r.Corpora)
			if yml == nil {
				return nil, fmt.Errorf("configuration %q: a baseline is not a topic to seed elsewhere", conf)
			} else if o == nil {
				skip = "no other project's corpus is served"
			} else if yml, err = elsewhere(yml, o); err != nil {
				return nil, err
			}
		}
		if multi && skip == "" {
			others := MultiSite(c, r.Corpora)
			if yml == nil {
				return nil, fmt.Errorf("configuration %q: a baseline is not a topic to seed on several sites", conf)
			} else if len(others) == 0 {
				skip = "no other corpus is served"
			} else if yml, err = multiSite(yml, others); err != nil {
				return nil, err
			} else {
				var names []string
				for _, o := range others {
					names = append(names, o.Spec.Name)
				}
				fmt.Fprintf(r.Progress, "[%s / %s / %s] seeded on %s before its own site\n", c.Spec.Name, t.Name, conf, strings.Join(names, ", "))
			}
		}
		if skip != "" {
			cell.Skip = skip
			continue
		}
		for i := 0; i < r.Runs; i++ {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			start := time.Now()
			runYML, err := runSeed(yml, i)
			if err != nil {
				return nil, err
			}
			log, err := r.once(ctx, ct, conf, runYML, learn, i)
			if err != nil {
				cell.Errors = append(cell.Errors, err.Error())
				fmt.Fprintf(r.Progress, "[%s / %s / %s run %d] FAILED: %v\n", c.Spec.Name, t.Name, conf, i+1, err)
				continue
			}
			m := score(log, ct, conf, c.Spec.Host)
			cell.Runs = append(cell.Runs, m)
			fmt.Fprintf(r.Progress, "[%s / %s / %s run %d] %d fetched, recall@%d %.3f, recall@%d %.3f, F1 %.3f (%d of %d judged accepted; best threshold %d, F1 %.3f) (%s)\n",
				c.Spec.Name, t.Name, conf, i+1, m.Fetched, t.Budget/2, m.RecallHalf, t.Budget, m.Recall, m.F1, m.Accepted, m.Judged, m.BestCut, m.BestF1, time.Since(start).Round(time.Millisecond))
			if multi {
				// Whether the topic's own site was starved is what the
				// configuration asks; the report's off-site share merges
				// the other corpora with the off-site server.
				fmt.Fprintf(r.Progress, "[%s / %s / %s run %d] fetches by host: %s\n", c.Spec.Name, t.Name, conf, i+1, hostCounts(log))
			}
		}
	}
	return res, nil
}

// placeSuffix splits conf into the configuration it varies and where that
// topic is seeded: SufElsewhere (away) or SufMultiSite (multi), in either
// order. The two together are refused: a crawl kept on another corpus
// has no own site to look for among several.
func placeSuffix(conf string) (base string, away, multi bool, err error) {
	base = conf
	for {
		if b, ok := strings.CutSuffix(base, SufElsewhere); ok {
			base, away = b, true
		} else if b, ok := strings.CutSuffix(base, SufMultiSite); ok {
			base, multi = b, true
		} else {
			break
		}
	}
	if away && multi {
		return "", false, false, fmt.Errorf("configuration %q: %q and %q do not combine (elsewhere keeps the crawl on one other corpus)", conf, strings.TrimSpace(SufElsewhere), strings.TrimSpace(SufMultiSite))
	}
	return base, away, multi, nil
}

// hostCounts lists the fetches of log per host, most first (ties by
// name): "gimp-en.docs.test 112, install-zh.docs.test 60".
func hostCounts(log []crawllog.Entry) string {
	n := map[string]int{}
	for _, e := range log {
		h := "?"
		if u, err := url.Parse(e.URL); err == nil {
			h = strings.ToLower(u.Hostname())
		}
		n[h]++
	}
	hosts := slices.Collect(maps.Keys(n))
	slices.SortFunc(hosts, func(a, b string) int {
		if n[a] != n[b] {
			return n[b] - n[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(hosts))
	for i, h := range hosts {
		parts[i] = fmt.Sprintf("%s %d", h, n[h])
	}
	return strings.Join(parts, ", ")
}

// Learning settings a variant asks for (variant's learnEvery).
const (
	learnWorker = -1 // the worker's crawl.learn_every
	learnOff    = 0
)

// variant returns the topic YAML of a focuscrawl configuration, its
// learning cadence (learnWorker, learnOff or a number of accepted pages),
// or why the configuration does not apply. Configurations joined by " + "
// ("sitemaps + feedback β=0") apply in turn, each to the topic the ones
// before it made; the first cadence other than the worker's holds.
func variant(t *Topic, conf string) (yml []byte, learnEvery int, skip string, err error) {
	if parts := strings.Split(conf, " + "); len(parts) > 1 {
		if slices.Contains(parts, ConfBootstrapped) {
			return nil, 0, "", fmt.Errorf("configuration %q: %q combines with nothing", conf, ConfBootstrapped)
		}
		cur := *t
		cadence := learnWorker
		for _, p := range parts {
			if yml, learnEvery, skip, err = variant(&cur, p); err != nil || skip != "" || yml == nil {
				if err == nil && skip == "" {
					err = fmt.Errorf("configuration %q: %q is a baseline, not a topic variant", conf, p)
				}
				return nil, 0, skip, err
			}
			if cur.Topic, err = topic.Parse(yml); err != nil {
				return nil, 0, "", fmt.Errorf("configuration %q: %w", conf, err)
			}
			cur.YAML = yml
			if cadence == learnWorker {
				cadence = learnEvery
			}
		}
		return yml, cadence, "", nil
	}
	switch conf {
	case ConfBestFirst, ConfBFS:
		return nil, learnOff, "", nil
	case ConfDefault:
		return t.YAML, learnWorker, "", nil
	case ConfNoLearn:
		return t.YAML, learnOff, "", nil
	case ConfNoLexicon:
		if t.Topic.Lexicon == "" {
			return nil, 0, "topic has no lexicon (same as default)", nil
		}
		yml, err = edit(t.YAML, func(m map[string]any) { delete(m, "lexicon") })
		return yml, learnWorker, "", err
	case ConfNoSamples:
		if len(t.Topic.Samples) == 0 {
			return nil, 0, "topic has no samples (same as default)", nil
		}
		yml, err = edit(t.YAML, func(m map[string]any) { delete(m, "samples") })
		return yml, learnWorker, "", err
	case ConfFocusBFS:
		yml, err = setStrategy(t.YAML, "link_predictor", "bfs")
		return yml, learnWorker, "", err
	case ConfNoPrune:
		yml, err = setStrategy(t.YAML, "prune", false)
		return yml, learnWorker, "", err
	case ConfNoRejudge:
		yml, err = setStrategy(t.YAML, "rejudge", false)
		return yml, learnWorker, "", err
	case ConfNoPromote:
		yml, err = setStrategy(t.YAML, "promote", false)
		return yml, learnWorker, "", err
	case ConfFeedback:
		yml, err = setStrategy(t.YAML, "feedback", true)
		return yml, learnWorker, "", err
	case ConfFeedbackInLinks:
		yml, err = edit(t.YAML, func(m map[string]any) {
			s, _ := m["strategy"].(map[string]any)
			if s == nil {
				s = map[string]any{}
			}
			s["feedback"], s["feedback_beta"] = true, 0.0
			m["strategy"] = s
		})
		return yml, learnWorker, "", err
	case ConfSitemaps:
		yml, err = edit(t.YAML, func(m map[string]any) { m["sitemaps"] = true })
		return yml, learnWorker, "", err
	case ConfOnTopicSeed:
		if len(t.Spec.UpChains) == 0 || len(t.Topic.Seeds) == 0 {
			return nil, 0, "targets are not a chapter (no UpChains page to seed at)", nil
		}
		u, perr := url.Parse(t.Topic.Seeds[0])
		if perr != nil {
			return nil, 0, "", perr
		}
		u.Path, u.RawQuery, u.Fragment = "/"+t.Spec.UpChains[0], "", ""
		yml, err = edit(t.YAML, func(m map[string]any) { m["seeds"] = []any{u.String()} })
		return yml, learnWorker, "", err
	}
	if v, ok := strings.CutPrefix(conf, "breadth="); ok {
		// An experiment: the topic with a breadth (broad, specific).
		if yml, err = edit(t.YAML, func(m map[string]any) { m["breadth"] = v }); err != nil {
			return nil, 0, "", err
		}
		if _, err := topic.Parse(yml); err != nil {
			return nil, 0, "", fmt.Errorf("configuration %q: %w", conf, err)
		}
		return yml, learnWorker, "", nil
	}
	if k, v, ok := strings.Cut(conf, "="); ok && strings.HasPrefix(k, "strategy.") {
		// An experiment: the topic with one strategy key set
		// ("strategy.hub=0.2"); the value is YAML.
		var val any
		if err := yaml.Unmarshal([]byte(v), &val); err != nil {
			return nil, 0, "", fmt.Errorf("configuration %q: %w", conf, err)
		}
		if yml, err = setStrategy(t.YAML, strings.TrimPrefix(k, "strategy."), val); err != nil {
			return nil, 0, "", err
		}
		if _, err := topic.Parse(yml); err != nil {
			return nil, 0, "", fmt.Errorf("configuration %q: %w", conf, err)
		}
		return yml, learnWorker, "", nil
	}
	for _, p := range LearningPredictors {
		for suf, every := range map[string]int{sufNoLearn: learnOff, sufLearn: learnWorker, sufFastLearn: FastLearnEvery} {
			if conf == p+suf {
				spec := map[string]any{"name": p}
				if p == "bfc" && every != learnOff {
					spec["learn"] = true // bfc reads its learned model only when asked (off by default)
				}
				yml, err = setStrategy(t.YAML, "link_predictor", spec)
				return yml, every, "", err
			}
		}
	}
	return nil, 0, "", fmt.Errorf("unknown configuration %q", conf)
}

// edit applies f to the topic YAML as a map.
func edit(yml []byte, f func(map[string]any)) ([]byte, error) {
	var m map[string]any
	if err := yaml.Unmarshal(yml, &m); err != nil {
		return nil, err
	}
	f(m)
	return yaml.Marshal(m)
}

// runSeed returns a focuscrawl configuration's topic YAML for run i of a
// cell: strategy.seed = i, unless the configuration sets a seed itself
// (the "strategy.seed=N" experiments), so a cell's runs differ in the
// tunnel draws (seed 000's probability p: a hash of the seed and the URL)
// as well as in timing. Before, every run used seed 0, and a cell's
// spread showed only timing: "±0" where another seed moves F1 by 0.02. Run
// 0 is the topic as it is. Baselines (yml nil) take no seed.
func runSeed(yml []byte, i int) ([]byte, error) {
	if yml == nil || i == 0 {
		return yml, nil
	}
	return edit(yml, func(m map[string]any) {
		s, _ := m["strategy"].(map[string]any)
		if s == nil {
			s = map[string]any{}
		}
		if _, set := s["seed"]; !set {
			s["seed"] = i
		}
		m["strategy"] = s
	})
}

// setStrategy sets strategy.<key> in the topic YAML.
func setStrategy(yml []byte, key string, v any) ([]byte, error) {
	return edit(yml, func(m map[string]any) {
		s, _ := m["strategy"].(map[string]any)
		if s == nil {
			s = map[string]any{}
		}
		s[key] = v
		m["strategy"] = s
	})
}

// once runs one crawl and returns its log.
func (r *Runner) once(ctx context.Context, t *Topic, conf string, yml []byte, learnEvery int, run int) ([]crawllog.Entry, error) {
	var log []crawllog.Entry
	switch conf {
	case ConfBFS:
		log = baseline.BFS(ctx, t.Topic.Seeds, baseline.Options{Budget: t.Budget, Resolve: r.Web.Resolve, Roots: r.Web.Roots})
	case ConfBestFirst:
		log = baseline.BestFirst(ctx, t.Topic.Seeds, baseline.NewTopicScorer(t.Topic, r.Tok),
			baseline.Options{Budget: t.Budget, Resolve: r.Web.Resolve, Roots: r.Web.Roots})
	default:
		cc := r.H.Worker.CrawlConfig()
		saved := cc.LearnEvery
		if learnEvery != learnWorker {
			cc.LearnEvery = learnEvery
		}
		defer func() { cc.LearnEvery = saved }()
		id := fmt.Sprintf("%s-%s/%d", t.Name, unsafe(conf), time.Now().UnixNano())
		timeout := r.Timeout
		if timeout <= 0 {
			timeout = 15 * time.Minute
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		var err error
		if _, log, err = r.H.Crawl(cctx, id, yml); err != nil {
			return nil, err
		}
	}
	if r.LogDir != "" {
		if err := os.MkdirAll(r.LogDir, 0o755); err != nil {
			return nil, err
		}
		if err := harness.WriteLog(filepath.Join(r.LogDir, fmt.Sprintf("%s-%s-%d.jsonl", t.Name, unsafe(conf), run+1)), log); err != nil {
			return nil, err
		}
	}
	return log, nil
}

// score computes a run's metrics; baselines have no page filter, so their
// accepted-set numbers are zero and flagged (shown as "—").
func score(log []crawllog.Entry, t *Topic, conf, host string) RunMetrics {
	m := metrics.ComputeNeutral(log, t.Labels, t.Neutral)
	out := RunMetrics{
		RecallHalf: m.At(t.Budget / 2).Recall, Recall: m.At(t.Budget).Recall, Harvest: m.At(t.Budget).Harvest,
		P: m.Precision, R: m.Recall, F1: m.F1, BestF1: m.BestF1, Fetched: m.Fetched,
		Accepted: m.Accepted, Judged: m.Judged, BestCut: m.BestCut,
	}
	off := 0
	for _, e := range log {
		if u, err := url.Parse(e.URL); err == nil && !strings.EqualFold(u.Hostname(), host) {
			off++
		}
	}
	if len(log) > 0 {
		out.OffSite = float64(off) / float64(len(log))
	}
	if conf == ConfBFS || conf == ConfBestFirst {
		out.P, out.R, out.F1, out.BestF1, out.Baseline = 0, 0, 0, 0, true
		out.Accepted, out.Judged, out.BestCut = 0, 0, 0
	}
	return out
}

func unsafe(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			b[i] = '-'
		}
	}
	return string(b)
}
