package topiccheck

import (
	"strings"
	"testing"

	"focuscrawl/internal/topic"
)

const base = "name: t\nkeywords: {rose: 1}\nseeds: [http://a.test/]\n"

// TestParseDecoded: a valid topic's strategies come back decoded, with what
// the crawl derives from them; a bad parameter is an error naming it.
func TestParseDecoded(t *testing.T) {
	tp, d, err := ParseDecoded([]byte(base + "strategy:\n  page_filter: {name: vsm, threshold: 0.1}\n  link_predictor: jlse\n  detail_page: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tp.Name != "t" || d.Filter.Name() != "vsm" || d.Predictor.Name() != "jlse" || !d.LearnsLinks || !d.Loop.DetailPage {
		t.Fatalf("decoded %+v", d)
	}
	if _, err := Parse([]byte(base + "strategy:\n  feedback: true\n")); err != nil {
		t.Errorf("feedback on the default strategies: %v", err)
	}
	if _, d, _ := ParseDecoded([]byte(base)); d.LearnsLinks || d.Filter.Name() != "vsm" || d.Predictor.Name() != "best-first" {
		t.Fatalf("defaults decoded as %+v", d)
	}
	for yaml, want := range map[string]string{
		"strategy:\n  page_filter: {name: vsm, threshold: 2}\n":             "threshold",
		"strategy:\n  link_predictor: {name: best-first, lambda: x}\n":      "lambda",
		"strategy:\n  page_filter: {name: url-template, fallback: bayes}\n": "learning filter",
		"strategy:\n  page_filter: nope\n":                                  "unknown strategy",
		// feedback re-judgement needs the vsm cosine, split acceptance and re-judgement
		"strategy:\n  page_filter: bayes\n  feedback: true\n":                           "needs the vsm page filter",
		"strategy:\n  page_filter: {name: vsm, weighting: seed003}\n  feedback: true\n": "tfidf weighting",
		"strategy:\n  accept: threshold\n  feedback: true\n":                            "needs strategy.accept: split",
		"strategy:\n  rejudge: false\n  feedback: true\n":                               "needs re-judgement",
		// promotion is the final re-judgement's
		"strategy:\n  rejudge: false\n  promote: true\n":    "strategy.promote: true is read only by re-judgement",
		"strategy:\n  accept: threshold\n  promote: true\n": "strategy.promote: true is read only by re-judgement",
	} {
		if _, err := Parse([]byte(base + yaml)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v does not say %q", yaml, err, want)
		}
	}
}

// TestOneReport: a file with a bad field and a misspelt strategy name gets
// both errors at once, not the strategy's after the field is fixed (a user
// trial's complaint).
func TestOneReport(t *testing.T) {
	_, err := Parse([]byte("name: t\nkeywords: {rose: 1}\nseeds: [notaurl]\nstrategy:\n  page_filter: vsn\n  link_predictor: {name: best-frist}\n"))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"seeds[0]", `unknown strategy "vsn"`, `unknown strategy "best-frist"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	// A fractional integer, a bad seed and a misspelt strategy: all three.
	_, err = Parse([]byte("name: t\nkeywords: {rose: 1}\nseeds: [notaurl]\nlimits: {max_depth: 0.5}\nstrategy: {page_filter: vsn}\n"))
	for _, want := range []string{"limits.max_depth", "seeds[0]", `unknown strategy "vsn"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	// A NaN parameter is one error, not one from the field check and
	// another from the strategy's.
	_, err = Parse([]byte("name: t\nkeywords: {rose: 1}\nseeds: [notaurl]\nstrategy: {page_filter: {name: vsm, threshold: .nan}}\n"))
	if err == nil || strings.Count(err.Error(), "NaN") != 1 {
		t.Errorf("NaN parameter: %v; want it named once", err)
	}
	// Field errors alone are reported as before.
	_, err = Parse([]byte("name: t\nkeywords: {rose: 1}\nseeds: [notaurl]\n"))
	if err == nil || strings.Contains(err.Error(), "strategy") {
		t.Errorf("field error only: %v", err)
	}
}

// TestSampleFloorWhereNoneIsComputed: strategy.sample_floor given where no
// floor is computed is an error naming what is missing (as for promote and
// feedback_beta); 0 (off) is fine anywhere.
func TestSampleFloorWhereNoneIsComputed(t *testing.T) {
	const b = "name: t\nkeywords: {rose: 1}\nseeds: [http://a.test/]\nsamples: [http://a.test/s]\n"
	for s, want := range map[string]string{
		"strategy: {accept: threshold, sample_floor: 0.5}\n":        "needs strategy.accept: split",
		"strategy: {page_filter: bayes, sample_floor: 0.5}\n":       "needs the vsm page filter",
		"strategy: {accept: threshold, sample_floor: 0}\n":          "",
		"strategy: {link_predictor: {name: jlse, bm25_scale: 0}}\n": "bm25_scale 0 must be above 0 (default 3)",
	} {
		_, err := Parse([]byte(b + s))
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: error %v, want %q", s, err, want)
		}
	}
}

// TestSampleFloorStoredVersions: a stored topic version is decoded without
// the sample-floor rule for new files (it must stay loadable).
func TestSampleFloorStoredVersions(t *testing.T) {
	tp, err := topic.ParseStored([]byte("name: t\nkeywords: {rose: 1}\nseeds: [http://a.test/]\nstrategy: {accept: threshold, sample_floor: 0.5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(tp); err != nil {
		t.Errorf("stored version: %v", err)
	}
}
