package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/crawllog"
	"focuscrawl/internal/eval/metrics"
	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/topic"
)

// DefaultParams are the parameters the comparison gives a strategy the
// topic file does not configure itself; a strategy missing here runs with
// its built-in defaults. (A topic file's own parameters win for the
// strategy it names, e.g. the vsm threshold.)
var DefaultParams = map[string]map[string]any{}

// CompareOptions select the crawls of a comparison.
type CompareOptions struct {
	Pages int // page budget of every crawl (limits.max_pages)
	// Full crosses every predictor with every filter; otherwise each
	// predictor runs with the default filter and each filter with the
	// default predictor.
	Full       bool
	Predictors []string      // nil: every registered link predictor
	Filters    []string      // nil: every registered page filter
	LogDir     string        // if set, each crawl log is written there as JSON Lines
	Timeout    time.Duration // per crawl; 0 means 30 minutes
	Progress   io.Writer
}

// Combo is one predictor × filter pair.
type Combo struct{ Predictor, Filter Spec }

// RunResult is one crawl of a comparison.
type RunResult struct {
	Combo
	Default bool // the topic file's own strategies (focuscrawl's default)
	State   *crawlapi.CrawlState
	Metrics metrics.Result
	Elapsed time.Duration
	Err     string // why the combination was skipped or failed
}

// Combos lists the combinations to run on a corpus whose topic file names
// defPred and defFilter (with their parameters).
func Combos(opt CompareOptions, defPred, defFilter Spec) []Combo {
	preds, filters := opt.Predictors, opt.Filters
	if preds == nil {
		preds = linkpred.Names()
	}
	if filters == nil {
		filters = relevance.Names()
	}
	spec := func(name string, def Spec) Spec {
		if name == def.Name {
			return def
		}
		return Spec{Name: name, Params: DefaultParams[name]}
	}
	var out []Combo
	seen := map[string]bool{}
	add := func(p, f string) {
		if k := p + "\x00" + f; !seen[k] {
			seen[k] = true
			out = append(out, Combo{spec(p, defPred), spec(f, defFilter)})
		}
	}
	// The default pair first: it is the reference of every table.
	add(defPred.Name, defFilter.Name)
	for _, p := range preds {
		if opt.Full {
			for _, f := range filters {
				add(p, f)
			}
		} else {
			add(p, defFilter.Name)
		}
	}
	if !opt.Full {
		for _, f := range filters {
			add(defPred.Name, f)
		}
	}
	return out
}

var unsafeID = regexp.MustCompile(`[^a-z0-9._-]+`)

// Compare crawls the corpus once per combination and scores each crawl.
// A combination whose strategies do not validate, or whose crawl fails, is
// reported with Err and the comparison goes on.
func (h *Harness) Compare(ctx context.Context, c *Corpus, opt CompareOptions) ([]RunResult, error) {
	defPred, defFilter, err := TopicStrategies(c.TopicYAML)
	if err != nil {
		return nil, err
	}
	if defPred.Name == "" {
		defPred.Name = topic.DefaultLinkPredictor
	}
	if defFilter.Name == "" {
		defFilter.Name = topic.DefaultPageFilter
	}
	progress := opt.Progress
	if progress == nil {
		progress = io.Discard
	}
	if opt.LogDir != "" {
		if err := os.MkdirAll(opt.LogDir, 0o755); err != nil {
			return nil, err
		}
	}
	combos := Combos(opt, defPred, defFilter)
	var out []RunResult
	for i, cb := range combos {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r := RunResult{Combo: cb, Default: cb.Predictor.Name == defPred.Name && cb.Filter.Name == defFilter.Name}
		fmt.Fprintf(progress, "[%s %d/%d] %s × %s: ", c.Name, i+1, len(combos), cb.Predictor, cb.Filter)
		r.State, r.Metrics, r.Elapsed, err = h.runOne(ctx, c, cb, opt)
		if err != nil {
			r.Err = err.Error()
			fmt.Fprintf(progress, "SKIPPED: %v\n", err)
		} else {
			m := r.Metrics
			fmt.Fprintf(progress, "%d fetched, %d targets, harvest@%d %.3f, F1 %.3f, %s\n",
				m.Fetched, m.TargetsFound, opt.Pages, m.At(opt.Pages).Harvest, m.F1, r.Elapsed.Round(time.Millisecond))
		}
		out = append(out, r)
	}
	return out, nil
}

func (h *Harness) runOne(ctx context.Context, c *Corpus, cb Combo, opt CompareOptions) (*crawlapi.CrawlState, metrics.Result, time.Duration, error) {
	if err := errors.Join(linkpred.Check(topic.Spec{Name: cb.Predictor.Name, Params: cb.Predictor.Params}),
		relevance.Check(topic.Spec{Name: cb.Filter.Name, Params: cb.Filter.Params})); err != nil {
		return nil, metrics.Result{}, 0, err
	}
	name := unsafeID.ReplaceAllString(fmt.Sprintf("eval-%s-%s-%s", c.Name, cb.Predictor.Name, cb.Filter.Name), "-")
	if len(name) > 64 {
		name = name[:64]
	}
	yml, err := WithStrategy(c.TopicYAML, name, opt.Pages, cb.Predictor, cb.Filter)
	if err != nil {
		return nil, metrics.Result{}, 0, err
	}
	id := fmt.Sprintf("%s/%d", name, time.Now().UnixNano())
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	st, log, err := h.Crawl(ctx, id, yml)
	elapsed := time.Since(start)
	if err != nil {
		return st, metrics.Result{}, elapsed, err
	}
	if st.FailedSlices > 0 && len(log) == 0 {
		return st, metrics.Result{}, elapsed, fmt.Errorf("every batch failed: %s", st.LastError)
	}
	if opt.LogDir != "" {
		if err := WriteLog(filepath.Join(opt.LogDir, name+".jsonl"), log); err != nil {
			return st, metrics.Result{}, elapsed, err
		}
	}
	return st, metrics.Compute(log, c.Labels), elapsed, nil
}

// WriteLog writes a crawl log to path as JSON Lines (crawllog's format).
func WriteLog(path string, log []crawllog.Entry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := newEncoder(f)
	for _, e := range log {
		if err := enc.Encode(e); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
