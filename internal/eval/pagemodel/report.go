package pagemodel

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"focuscrawl/internal/eval/focus"
)

// Cell is one (topic, scorer, rule) over the replayed runs.
type Cell struct {
	Topic, Scorer, Rule string
	F1s, Ps, Rs         []float64
}

// Run replays every topic's crawl logs "eval-<topic>-<config>-<n>.jsonl" in
// logDir for the corpora and writes one Markdown table per scorer: rows =
// topics, columns = rules (F1 mean over runs), plus the oracle column.
func Run(corpora []*focus.Corpus, logDir, config string, tok Tokenizer, scorers []Scorer, rules []Rule, w io.Writer) error {
	type key struct{ topic, scorer, rule string }
	f1 := map[key][]float64{}
	var topics []string
	for _, c := range corpora {
		for _, t := range c.Topics {
			logs, _ := filepath.Glob(filepath.Join(logDir, fmt.Sprintf("%s-%s-[0-9]*.jsonl", t.Name, config)))
			sort.Strings(logs)
			if len(logs) == 0 {
				return fmt.Errorf("no crawl logs of %s / %s in %s", t.Name, config, logDir)
			}
			topics = append(topics, t.Name)
			for _, l := range logs {
				cr, err := Load(c, t, l, tok)
				if err != nil {
					return err
				}
				for _, s := range scorers {
					scores := Replay(cr, s, tok)
					for _, r := range rules {
						res := Evaluate(cr, scores, r)
						f1[key{t.Name, s.Name, r.Name}] = append(f1[key{t.Name, s.Name, r.Name}], res.F1)
					}
					f1[key{t.Name, s.Name, "oracle"}] = append(f1[key{t.Name, s.Name, "oracle"}], Oracle(cr, scores).F1)
				}
			}
		}
	}
	cols := []string{}
	for _, r := range rules {
		cols = append(cols, r.Name)
	}
	cols = append(cols, "oracle")
	for _, s := range scorers {
		fmt.Fprintf(w, "\n### %s\n\n| topic |", s.Name)
		for _, c := range cols {
			fmt.Fprintf(w, " %s |", c)
		}
		fmt.Fprint(w, "\n|---|")
		for range cols {
			fmt.Fprint(w, "---:|")
		}
		fmt.Fprintln(w)
		means := make([]float64, len(cols))
		for _, t := range topics {
			fmt.Fprintf(w, "| %s |", t)
			for j, c := range cols {
				st := focus.Summarize(f1[key{t, s.Name, c}])
				means[j] += st.Mean / float64(len(topics))
				fmt.Fprintf(w, " %s |", st)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprint(w, "| mean |")
		for _, m := range means {
			fmt.Fprintf(w, " %.3f |", m)
		}
		fmt.Fprintln(w)
	}
	return nil
}
