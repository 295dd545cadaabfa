package focus

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
)

// Report is a whole focus evaluation, rendered by WriteMarkdown.
type Report struct {
	Command  string // how to reproduce it
	Machine  string
	Load     string // load average when it started (the machine is shared)
	Date     time.Time
	Settings string // crawl settings
	Runs     int
	// LearnEvery is the worker's crawl.learn_every during the runs.
	LearnEvery int
	Corpora    []*Corpus
	Results    []*TopicResult
}

// Done-when targets of issue 12, checked on the held-out half.
const (
	TargetVsBestFirst = 1.2 // mean ratio of default to plain best-first recall@B/2
	TargetVsBFS       = 2.0 // default recall@B/2 at least this times BFS's
	TargetF1          = 0.8 // accepted-set F1 on every corpus
)

// CorpusCheck is one corpus's line of the done-when table: per-topic means
// of the run means, averaged over the corpus's topics.
type CorpusCheck struct {
	Corpus                      *Corpus
	Default, BestFirst, BFS, F1 float64
	// Perfect bounds the recall@B/2 any crawler can reach, mean over the
	// corpus's topics: min(1, (B/2 − k) / targets), k the pages fetched
	// before the first target at best (nonTargets: the seed, never a
	// target, and a page between unless a seed links to a target), and
	// B/2 can be below the target count (BudgetRule rounds to ten). An
	// upper bound: targets need not be reachable one after another.
	Perfect                     float64
	BestF1                      float64 // the default's F1 at the oracle threshold (metrics.Result.BestF1)
	VsBestFirst, VsBFS          float64 // ratios (Inf when the baseline found nothing and default did)
	BeatsBestFirst, BFSOK, F1OK bool
}

// Check computes the done-when numbers for the results of split.
func Check(results []*TopicResult, split Split) []CorpusCheck {
	var out []CorpusCheck
	idx := map[string]int{} // by corpus name: results read back from JSON do not share pointers
	n := map[string]int{}
	for _, tr := range results {
		if tr.Corpus.Spec.Split != split {
			continue
		}
		i, ok := idx[tr.Corpus.Spec.Name]
		if !ok {
			i = len(out)
			idx[tr.Corpus.Spec.Name] = i
			out = append(out, CorpusCheck{Corpus: tr.Corpus})
		}
		half := func(r RunMetrics) float64 { return r.RecallHalf }
		c := &out[i]
		c.Default += mean(tr.Cell(ConfDefault), half)
		c.BestFirst += mean(tr.Cell(ConfBestFirst), half)
		c.BFS += mean(tr.Cell(ConfBFS), half)
		c.F1 += mean(tr.Cell(ConfDefault), func(r RunMetrics) float64 { return r.F1 })
		perfect := 1.0 // a result without its topic (read back partly) says nothing finer
		if t := tr.Topic; t != nil && len(t.Labels) > 0 && t.Budget > 0 {
			// At least 0: a budget below four leaves no fetch for a target.
			perfect = math.Max(0, math.Min(1, float64(t.Budget/2-nonTargets(t))/float64(len(t.Labels))))
		}
		c.Perfect += perfect
		if d := tr.Cell(ConfDefault); d != nil {
			c.BestF1 += d.OracleStat().Mean // NaN, shown as "—", when not recorded
		} else {
			c.BestF1 = math.NaN()
		}
		n[tr.Corpus.Spec.Name]++
	}
	for i := range out {
		c := &out[i]
		k := float64(n[c.Corpus.Spec.Name])
		c.Default, c.BestFirst, c.BFS, c.F1, c.BestF1, c.Perfect = c.Default/k, c.BestFirst/k, c.BFS/k, c.F1/k, c.BestF1/k, c.Perfect/k
		c.VsBestFirst, c.VsBFS = ratio(c.Default, c.BestFirst), ratio(c.Default, c.BFS)
		c.BeatsBestFirst = c.Default > c.BestFirst
		c.BFSOK = c.VsBFS >= TargetVsBFS
		c.F1OK = c.F1 >= TargetF1
	}
	return out
}

func mean(c *Cell, f func(RunMetrics) float64) float64 {
	if c == nil {
		return math.NaN()
	}
	return c.Stat(f).Mean
}

// ratio is a/b; +Inf when only b is 0, 0 when both are; NaN when either is
// NaN (a configuration that was not run).
func ratio(a, b float64) float64 {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return math.NaN()
	case b > 0:
		return a / b
	case a > 0:
		return math.Inf(1)
	default:
		return 0
	}
}

// WriteMarkdown writes the report.
func (r *Report) WriteMarkdown(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("# Evaluation: focus on unseen real sites (issue 12)\n\n")
	p("Measured %s on %s (%s; the machine was shared with other engineers' builds and tests while this ran, so wall times mean nothing here — fetch order is what is measured).  \n", r.Date.UTC().Format("2006-01-02 15:04 MST"), r.Machine, r.Load)
	p("Reproduce: `%s` (or `bash scripts/eval.sh focus`). Runs per cell: %d. %s\n\n", r.Command, r.Runs, r.Settings)
	p("This is the evaluation the focus work is measured on. The corpora are Debian HTML documentation packages the strategies were never tuned on (except the GIMP manuals, which are therefore in the tuning half), served on loopback by `internal/eval/replay` as virtual hosts. Every off-site link (project sites, bug trackers, mailing lists…) is answered by a loopback catch-all server (`internal/eval/offsite`) with a small deterministic off-topic page linking to other off-site URLs, over HTTP and HTTPS, so straying off the site costs budget and yields rejections, as on the real web. Targets are defined by the site's structure (a chapter's DocBook/Texinfo `rel=\"up\"` subtree, or a directory), seeds are placed off-topic, budgets B follow one a-priori rule (`focus.BudgetRule`: B = 2 × targets, at least 40, at most half the corpus, rounded to ten), and topics are unscoped (any host may be fetched).\n\n")
	p("**The split is fixed in code** (`focus.Registry`): the crawler is tuned on the *tune* half; the headline is the *held-out* half. The held-out half is not untouched: it has been run after most changes, read, and used as a validation set for a few decisions (feedback re-judgement and its β=0 variant rejected on it, the language-alternate rule adopted with its held-out gain quoted, three small tuning topics added because its weakest cells were small topics, its budgets set once after a first run; each disclosed where it was made, below). A third set, the *fresh* corpora, was added on 2026-11-26 for that reason: nothing enforces that it is not read (only `eval pagemodel` refuses it) and this report prints it; a few decisions below quote its cells alongside the held-out ones (the split's 1.3× guard ratio, main-content indexing); no topic text, threshold or budget was changed after its results were seen.\n\n")

	p("## Corpora and topics\n\n")
	p("| split | corpus | package | lang | pages | off-site hosts | topic | targets | budget B | seed | samples |\n|---|---|---|---|---:|---:|---|---:|---:|---|---|\n")
	for _, c := range r.Corpora {
		for _, t := range c.Topics {
			samples := "—"
			if n := len(t.Topic.Samples); n > 0 {
				samples = fmt.Sprintf("%d (%d target(s) excluded from the labels)", n, t.Samples)
			}
			lex := ""
			if t.Topic.Lexicon != "" {
				lex = ", lexicon"
			}
			seed := strings.Join(t.Topic.Seeds, " ")
			if i := strings.Index(seed, ".test/"); i >= 0 {
				seed = seed[i+5:]
			}
			pkg := c.Spec.Package
			if c.Deb != "" {
				pkg = strings.TrimSuffix(c.Deb, ".deb")
			}
			p("| %s | %s | %s | %s | %d | %d | %s%s | %d | %d | %s | %s |\n", c.Spec.Split, c.Spec.Name, pkg, c.Spec.Lang, c.Pages, c.Offsite,
				t.Name, lex, len(t.Labels), t.Budget, seed, samples)
		}
	}
	p("\n")
	for _, c := range r.Corpora {
		if c.Spec.Note != "" {
			p("- %s: pages counts %s.\n", c.Spec.Name, c.Spec.Note)
		}
	}
	p("- Target rules: ")
	var rules []string
	for _, c := range r.Corpora {
		for _, t := range c.Topics {
			if len(t.Spec.UpChains) > 0 {
				rules = append(rules, fmt.Sprintf("%s = up-chain subtree of %s", t.Name, strings.Join(t.Spec.UpChains, ", ")))
			} else {
				rules = append(rules, fmt.Sprintf("%s = pages under %s", t.Name, strings.Join(t.Spec.Paths, ", ")))
			}
		}
	}
	p("%s.\n\n", strings.Join(rules, "; "))

	p("## Metrics and configurations\n\n")
	p("- **recall@B/2**, **recall@B**: labelled targets fetched within the first B/2 and B fetches (failed and off-site fetches count), over all targets. **harvest@B**: targets found / B. **P / R / F1**: the set focuscrawl's page filter accepted, against the targets (baselines have no page filter: —). **F1\\***: the F1 the same crawl's judged pages would give when cut at the best single threshold over their own relevance scores — an oracle (the cut is chosen with the labels), so F1 far below F1\\* is a threshold that chose badly, and a low F1\\* is a score that does not tell the targets from their neighbours. **fetched**: fetches made. **off-site**: share of fetches on other hosts than the corpus's (answered by the off-site server, or failed).\n")
	p("- Every cell is `mean (min–max)` over the runs (`±0`: all runs equal).\n")
	p("- **default**: the topic file as written (default strategies: best-first × vsm with pruning, tunnel probability 0.2, the guarded split acceptance, `strategy.accept: split`, and re-judgement, `strategy.rejudge`: accepted pages below the whole crawl's split are withdrawn at the end). **no lexicon** / **no samples**: the topic without its `lexicon:` / `samples:` (only for topics that have them). **no pruning**: topic `strategy.prune: false`. **no re-judgement**: topic `strategy.rejudge: false` (decisions stay as first made; the default withdraws, at the crawl's end, the accepted pages the whole crawl's split puts below it). **no promotion**: topic `strategy.promote: false` (the final re-judgement only withdraws; the default also accepts the pages the online split turned down whose stored score reaches the whole crawl's split). **on-topic seed**: the topic seeded at its targets' chapter page instead of off topic (a user starting from a page of the topic; topics whose targets are not a chapter are skipped). **feedback**: topic `strategy.feedback: true` (the crawl's final re-judgement scores every judged page again against the topic expanded with the accepted pages' centroid, with in-link evidence from every judged source, and withdraws and promotes; the default keeps the online scores and only withdraws). **bootstrapped** (only when asked for): the topic's keywords, description, samples and language replaced by the draft `search topic bootstrap` writes from three of its targets (`focus.BootstrapExamples`: its chapter page when the targets are a chapter, then targets spread evenly in URL order; the examples' sites' background fetched as the command does), its lexicon dropped, seeds and budget kept; scored with the three examples as neutral pages and the topic file's own samples as targets. **… elsewhere** (only when asked for, e.g. `default elsewhere`, `bootstrapped elsewhere`): that topic seeded on another project's corpus (`focus.Elsewhere`: the first served corpus whose package name's first word differs) and scoped to its host, a negative control: no target can be reached, so every accepted page is a false positive (read the accepted count; P, R and F1 are 0). **… multi-site** (only when asked for, e.g. `default multi-site`): that topic seeded first at the front pages of two other served corpora (`focus.MultiSite`: other projects' before the same project's other languages, in served order; `focus.FrontPage`: the root index.html, else the corpus's first topic's seed), then at its own seeds, as a user who lists several sites; budget, targets and scoring unchanged, so fetches on the other corpora count as off-site (1 − off-site is the share the topic's own site got). **focuscrawl bfs**: the topic with `strategy.link_predictor: bfs` (focuscrawl's own BFS, with its page filter). **sitemaps** (only when asked for): the topic with `sitemaps: true`, run with `eval focus --sitemaps`, which serves every corpus with a robots.txt naming a generated sitemap of all its HTML pages (the packages have none).\n")
	p("- **plain best-first** (`internal/eval/baseline`): single-threaded, deterministic; priority = mean of cosine(topic, anchor + title + alt + surrounding text) and the parent page's cosine to the topic (topic vector from keywords and description via `topic.BuildModel`, project tokenizer); no learning, pruning or page filter; follows every link, off-site ones included. **BFS**: the same crawler in discovery order.\n\n")

	p("## Caveats\n\n")
	p("- Plain best-first is a strong baseline on documentation sites: its anchor texts are chapter titles. Budgets follow `focus.BudgetRule`, fixed before any crawler change was measured on this evaluation; a first run with budgets near half the corpus had plain best-first at recall@B/2 ≈ 1 on most held-out topics, so the rule was set once to 2 × targets (≥ 40) for every topic alike. Even so, small topics (5–13 targets) leave little headroom: see the *reachable ratio* column.\n")
	p("- BFS from an off-topic seed often finds nothing within B; a ×2-over-BFS check against 0 is met by any default that finds one target (∞) and failed by one that finds none (0/0 counts as not met).\n")
	p("- The default link predictor (best-first) reads no learned link model, so a crawl with it never runs LearnLinkModel (only jlse, bfc and anchor-context do, every `crawl.learn_every` = %d accepted pages): the default has no *no learning* cell (it would be the default again). Learning on/off is measured on the three learning predictors instead (*Learning on vs off* below).\n", r.LearnEvery)
	p("- Runs of focuscrawl differ in their tunnel draws (run i crawls with `strategy.seed` = i, unless the configuration sets a seed) and because batches and fetches run concurrently; the baselines are single-threaded and deterministic, so their spread is 0.\n\n")

	for _, split := range []Split{Heldout, Fresh, Tune, Script} {
		if split == Script && len(Check(r.Results, split)) == 0 {
			continue // run only when asked for; no "Not run." section for it
		}
		title := map[Split]string{Heldout: "Held-out half (headline)", Fresh: "Fresh corpora (added 2026-11-26)", Tune: "Tuning half",
			Script: "Across scripts: Chinese corpora in Traditional characters"}[split]
		p("## %s\n\n", title)
		if split == Fresh {
			p("Corpora added after the held-out half had been run many times: their crawls are run with the default of the day and reported (focus.Fresh); they were meant never to be read or used for a decision, which nothing enforces — see the note at the top. English only (Debian has no further Chinese HTML manual of size).\n\n")
		}
		if split == Script {
			p("A Chinese corpus served converted to Traditional Chinese with Taiwan usage (OpenCC's s2twp, `CorpusSpec.Script`), crawled with its topics as written, in Simplified (`eval focus --split script`): a user's topic meeting sites in the other script.\n\n")
		}
		r.writeTable(w, split)
		checks := Check(r.Results, split)
		if len(checks) == 0 {
			p("Not run.\n\n")
			continue
		}
		p("### Issue 12 done-when checks (%s)\n\n", split)
		p("Per corpus: mean over its topics of the run-mean recall@B/2 and of the default's accepted-set F1. *Reachable ratio* = a perfect crawler's recall@B/2 / plain best-first's, the most any crawler can reach: a perfect crawler fetches the off-topic seed, a page between when no seed links to a target (none does in these corpora), and then only targets, so its recall@B/2 is at most min(1, (B/2 − k) / targets) per topic, k = 2 (1 when a seed links to a target; below 1 where B/2 − k is less than the target count; an upper bound, since targets need not be reachable one after another). A ratio against a BFS that found nothing is ∞ (the check is then met by any default that finds a target). *F1 at best threshold*: the default crawl's judged pages ranked by their own relevance scores and cut at the threshold that gives the highest F1 against the targets — an oracle (the cut is chosen with the labels), so it bounds what any acceptance threshold over these scores could reach on these crawls.\n\n")
		p("| corpus | default recall@B/2 | plain best-first | default / best-first | reachable ratio | BFS | default / BFS | default F1 | F1 at best threshold |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		var sum float64
		allBeat, allBFS, allF1 := true, true, true
		// A configuration left out of --configs shows as "—" and its checks
		// as not run, rather than as NaN or ∞.
		ranBF, ranBFS := true, true
		for _, c := range checks {
			ranBF = ranBF && !math.IsNaN(c.BestFirst)
			ranBFS = ranBFS && !math.IsNaN(c.BFS)
		}
		for _, c := range checks {
			p("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Corpus.Spec.Name, fmtNum(c.Default), fmtNum(c.BestFirst), fmtRatio(c.VsBestFirst), fmtRatio(ratio(c.Perfect, c.BestFirst)), fmtNum(c.BFS), fmtRatio(c.VsBFS), fmtNum(c.F1), fmtNum(c.BestF1))
			r := c.VsBestFirst
			if math.IsInf(r, 1) {
				r = 2 // a corpus where the baseline found nothing: count as a clear win, but bounded
			}
			sum += r
			allBeat = allBeat && c.BeatsBestFirst
			allBFS = allBFS && c.BFSOK
			allF1 = allF1 && c.F1OK
		}
		meanRatio := sum / float64(len(checks))
		p("\n")
		if ranBF {
			p("- default beats plain best-first in recall@B/2 on every corpus: **%s**\n", met(allBeat))
			p("- mean ratio default / plain best-first = %.2f (target ≥ %.1f): **%s**\n", meanRatio, TargetVsBestFirst, met(meanRatio >= TargetVsBestFirst))
		} else {
			p("- default vs plain best-first: not checked (%s was not among the configurations run)\n", ConfBestFirst)
		}
		if ranBFS {
			p("- default ≥ %.0f× BFS in recall@B/2 on every corpus: **%s**\n", TargetVsBFS, met(allBFS))
		} else {
			p("- default vs BFS: not checked (%s was not among the configurations run)\n", ConfBFS)
		}
		p("- default accepted-set F1 ≥ %.1f on every corpus: **%s**\n\n", TargetF1, met(allF1))
		if !ranBF {
			r.writeLearning(w, split)
			continue
		}
		var reach float64
		for _, c := range checks {
			reach += math.Min(ratio(c.Perfect, c.BestFirst), 2)
		}
		p("Mean reachable ratio on this set: %.2f× (a perfect crawler's ratio, ∞ counted as 2): the %.1f× target ", reach/float64(len(checks)), TargetVsBestFirst)
		if reach/float64(len(checks)) < TargetVsBestFirst*1.1 {
			p("leaves almost no room here — it asks for nearly every target within B/2 on every corpus.\n\n")
		} else {
			p("is reachable.\n\n")
		}
		r.writeLearning(w, split)
	}
}

// fmtNum is x to three decimals, or "—" for NaN (not run).
func fmtNum(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.3f", x)
}

func fmtRatio(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case math.IsInf(x, 1):
		return "∞"
	}
	return fmt.Sprintf("%.2f×", x)
}

func met(ok bool) string {
	if ok {
		return "MET"
	}
	return "NOT MET"
}

func (r *Report) writeTable(w io.Writer, split Split) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("| corpus / topic (targets, B) | configuration | recall@B/2 | recall@B | harvest@B | P | R | F1 | F1* | fetched | off-site |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var notes []string
	for _, tr := range r.Results {
		if tr.Corpus.Spec.Split != split {
			continue
		}
		name := fmt.Sprintf("%s / %s (%d, %d)", tr.Corpus.Spec.Name, strings.TrimPrefix(tr.Topic.Name, "eval-"), len(tr.Topic.Labels), tr.Topic.Budget)
		label := name
		for _, c := range tr.Cells {
			if isLearner(c.Config) {
				continue // in the learning table
			}
			if c.Skip != "" {
				notes = append(notes, fmt.Sprintf("%s, %s: skipped — %s", name, c.Config, c.Skip))
				continue
			}
			for _, e := range c.Errors {
				notes = append(notes, fmt.Sprintf("%s, %s: a run failed — %s", name, c.Config, strings.ReplaceAll(e, "\n", " ")))
			}
			p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label, c.Config,
				c.Stat(func(m RunMetrics) float64 { return m.RecallHalf }),
				c.Stat(func(m RunMetrics) float64 { return m.Recall }),
				c.Stat(func(m RunMetrics) float64 { return m.Harvest }),
				c.AcceptedStat(func(m RunMetrics) float64 { return m.P }),
				c.AcceptedStat(func(m RunMetrics) float64 { return m.R }),
				c.AcceptedStat(func(m RunMetrics) float64 { return m.F1 }),
				c.OracleStat(),
				c.Stat(func(m RunMetrics) float64 { return float64(m.Fetched) }).Format("%.0f"),
				c.Stat(func(m RunMetrics) float64 { return m.OffSite }).Format("%.2f"))
			label = ""
		}
	}
	p("\n")
	if len(notes) > 0 {
		for _, n := range notes {
			p("- %s\n", n)
		}
		p("\n")
	}
}

// isLearner reports whether conf is a learning on/off cell.
func isLearner(conf string) bool {
	for _, c := range LearnerConfigs() {
		if c == conf {
			return true
		}
	}
	return false
}

// LearningVerdict compares a learning cell with the same predictor's "no
// learning" cell on one metric: the difference of the run means, and
// whether learning is worse beyond run-to-run noise (its best run below
// the no-learning cell's worst run).
func LearningVerdict(on, off *Cell, f func(RunMetrics) float64) (diff float64, worse bool) {
	a, b := on.Stat(f), off.Stat(f)
	if a.N == 0 || b.N == 0 {
		return math.NaN(), false
	}
	return a.Mean - b.Mean, a.Max < b.Min
}

// writeLearning is the second done-when check on the tuning half:
// no learning predictor's learned model may make its crawl worse than the
// same predictor without learning.
func (r *Report) writeLearning(w io.Writer, split Split) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	ran := false
	for _, tr := range r.Results {
		if tr.Corpus.Spec.Split == split && tr.Cell(LearningPredictors[0]+sufNoLearn) != nil {
			ran = true
		}
	}
	if !ran {
		return
	}
	p("### Learning on vs off (%s half, the predictors that learn)\n\n", split)
	p("Each learning predictor (its strategy = the topic's, with `strategy.link_predictor` replaced) without learning (`crawl.learn_every=0`: the predictor's cold-start scores all crawl long), with the worker's cadence (learn@cf: every %d accepted pages, seed 002's cf) and with a short one (learn@10: every %d accepted pages, so every crawl relearns several times). Cells: mean (min–max) over the runs. *Worse* = learning's best run below no-learning's worst run on recall@B/2 or recall@B.\n\n", r.LearnEvery, FastLearnEvery)
	p("| topic (targets, B) | predictor | learning | recall@B/2 | recall@B | harvest@B | F1 | Δ recall@B/2 | Δ recall@B | worse |\n|---|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	worse := map[string]int{}
	for _, tr := range r.Results {
		if tr.Corpus.Spec.Split != split {
			continue
		}
		label := fmt.Sprintf("%s (%d, %d)", strings.TrimPrefix(tr.Topic.Name, "eval-"), len(tr.Topic.Labels), tr.Topic.Budget)
		for _, pred := range LearningPredictors {
			off := tr.Cell(pred + sufNoLearn)
			if off == nil {
				continue
			}
			for _, suf := range []string{sufNoLearn, sufLearn, sufFastLearn} {
				c := tr.Cell(pred + suf)
				if c == nil || len(c.Runs) == 0 {
					continue
				}
				half := func(m RunMetrics) float64 { return m.RecallHalf }
				rec := func(m RunMetrics) float64 { return m.Recall }
				dh, dr, verdict := "", "", ""
				if suf != sufNoLearn {
					d1, w1 := LearningVerdict(c, off, half)
					d2, w2 := LearningVerdict(c, off, rec)
					dh, dr = fmt.Sprintf("%+.3f", d1), fmt.Sprintf("%+.3f", d2)
					if w1 || w2 {
						verdict = "**worse**"
						worse[pred+suf]++
					}
				}
				p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label, pred, strings.TrimSpace(strings.TrimPrefix(suf, " ")),
					c.Stat(half), c.Stat(rec), c.Stat(func(m RunMetrics) float64 { return m.Harvest }),
					c.Stat(func(m RunMetrics) float64 { return m.F1 }), dh, dr, verdict)
				label = ""
			}
		}
	}
	p("\n")
	for _, pred := range LearningPredictors {
		p("- %s: learning worse on %d topic(s) at learn@cf, %d at learn@10.\n", pred, worse[pred+sufLearn], worse[pred+sufFastLearn])
	}
	p("\n")
}

// Save writes the report's data as JSON (<work>/focus/results.json), so the
// Markdown can be re-rendered without crawling again.
func (r *Report) Save(path string) error {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// LoadReport reads a report saved by Save.
func LoadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// Merge adds the cells of o that r lacks (same topic, a configuration r
// did not run), and o's topics that r lacks: one report from runs of
// different configurations (e.g. the ablations of both halves and the
// learning cells of the tuning half, run separately).
func (r *Report) Merge(o *Report) {
	byName := map[string]*TopicResult{}
	for _, tr := range r.Results {
		byName[tr.Topic.Name] = tr
	}
	for _, tr := range o.Results {
		mine, ok := byName[tr.Topic.Name]
		if !ok {
			r.Results = append(r.Results, tr)
			byName[tr.Topic.Name] = tr
			continue
		}
		for _, c := range tr.Cells {
			if mine.Cell(c.Config) == nil {
				mine.Cells = append(mine.Cells, c)
			}
		}
	}
	have := map[string]bool{}
	for _, c := range r.Corpora {
		have[c.Spec.Name] = true
	}
	for _, c := range o.Corpora {
		if !have[c.Spec.Name] {
			r.Corpora = append(r.Corpora, c)
		}
	}
}

// nonTargets is how many pages a crawler that knew the targets fetches
// before its first one: the seed, and a page between when no seed links
// to a target (Topic.SeedLinksTarget). It assumed the first alone before a
// review found that no topic's seed links to a target, which overstated
// the reachable ratio by up to 0.04.
func nonTargets(t *Topic) int {
	if t.SeedLinksTarget {
		return 1
	}
	return 2
}
