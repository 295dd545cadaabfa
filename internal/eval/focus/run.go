package focus

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"focuscrawl/internal/crawllog"
	"focuscrawl/internal/eval/baseline"
	"focuscrawl/internal/eval/harness"
	"focuscrawl/internal/eval/metrics"
	"focuscrawl/internal/topic"
)

// The configurations run on every topic. The first six are focuscrawl
// crawls (TopicCrawlWorkflow; "focuscrawl bfs" is the topic with the bfs
// link predictor); the last two are the standalone baselines.
const (
	ConfDefault   = "default"
	ConfNoLearn   = "no learning"
	ConfNoLexicon = "no lexicon"
	ConfNoSamples = "no samples"
	ConfNoPrune   = "no pruning"
	ConfFocusBFS  = "focuscrawl bfs"
	ConfBestFirst = "plain best-first"
	ConfBFS       = "BFS"
)

// Configs lists the configuration names in report order.
var Configs = []string{ConfDefault, ConfNoLearn, ConfNoLexicon, ConfNoSamples, ConfNoPrune, ConfFocusBFS, ConfBestFirst, ConfBFS}

// RunMetrics are the numbers of one crawl.
type RunMetrics struct {
	RecallHalf, Recall, Harvest float64 // recall@B/2, recall@B, harvest@B
	P, R, F1                    float64 // accepted set; 0 and meaningless for baselines
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
}

// Run runs every configuration of topic t of corpus c Runs times.
func (r *Runner) Run(ctx context.Context, c *Corpus, t *Topic) (*TopicResult, error) {
	res := &TopicResult{Corpus: c, Topic: t}
	for _, conf := range Configs {
		cell := &Cell{Config: conf}
		res.Cells = append(res.Cells, cell)
		yml, learn, skip, err := variant(t, conf)
		if err != nil {
			return nil, err
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
			log, err := r.once(ctx, t, conf, yml, learn, i)
			if err != nil {
				cell.Errors = append(cell.Errors, err.Error())
				fmt.Fprintf(r.Progress, "[%s / %s / %s run %d] FAILED: %v\n", c.Spec.Name, t.Name, conf, i+1, err)
				continue
			}
			m := score(log, t, conf, c.Spec.Host)
			cell.Runs = append(cell.Runs, m)
			fmt.Fprintf(r.Progress, "[%s / %s / %s run %d] %d fetched, recall@%d %.3f, recall@%d %.3f, F1 %.3f (%s)\n",
				c.Spec.Name, t.Name, conf, i+1, m.Fetched, t.Budget/2, m.RecallHalf, t.Budget, m.Recall, m.F1, time.Since(start).Round(time.Millisecond))
		}
	}
	return res, nil
}

// variant returns the topic YAML of a focuscrawl configuration, whether
// learning stays on, or why the configuration does not apply.
func variant(t *Topic, conf string) (yml []byte, learn bool, skip string, err error) {
	switch conf {
	case ConfBestFirst, ConfBFS:
		return nil, false, "", nil
	case ConfDefault:
		return t.YAML, true, "", nil
	case ConfNoLearn:
		return t.YAML, false, "", nil
	case ConfNoLexicon:
		if t.Topic.Lexicon == "" {
			return nil, false, "topic has no lexicon (same as default)", nil
		}
		yml, err = edit(t.YAML, func(m map[string]any) { delete(m, "lexicon") })
		return yml, true, "", err
	case ConfNoSamples:
		if len(t.Topic.Samples) == 0 {
			return nil, false, "topic has no samples (same as default)", nil
		}
		yml, err = edit(t.YAML, func(m map[string]any) { delete(m, "samples") })
		return yml, true, "", err
	case ConfFocusBFS:
		yml, err = setStrategy(t.YAML, "link_predictor", "bfs")
		return yml, true, "", err
	case ConfNoPrune:
		if yml, err = setStrategy(t.YAML, "prune", false); err != nil {
			return nil, false, "", err
		}
		if _, perr := topic.Parse(yml); perr != nil {
			return nil, false, "strategy.prune is not a topic key in this build (it is being added on branch i12fid)", nil
		}
		return yml, true, "", nil
	}
	return nil, false, "", fmt.Errorf("unknown configuration %q", conf)
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
func (r *Runner) once(ctx context.Context, t *Topic, conf string, yml []byte, learn bool, run int) ([]crawllog.Entry, error) {
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
		if !learn {
			cc.LearnEvery = 0
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
	m := metrics.Compute(log, t.Labels)
	out := RunMetrics{
		RecallHalf: m.At(t.Budget / 2).Recall, Recall: m.At(t.Budget).Recall, Harvest: m.At(t.Budget).Harvest,
		P: m.Precision, R: m.Recall, F1: m.F1, Fetched: m.Fetched,
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
		out.P, out.R, out.F1, out.Baseline = 0, 0, 0, true
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
