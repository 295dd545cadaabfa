package relevance

import (
	"math"
	"testing"

	"focuscrawl/internal/decision"
	"focuscrawl/internal/topic"
)

func dynCfg(t *testing.T) topic.DynamicThreshold {
	t.Helper()
	tp, err := topic.Parse([]byte("name: d\nkeywords: {rose: 1}\nseeds: [http://a.test/]\nstrategy:\n  dynamic_threshold: {enabled: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return tp.Strategy.DynamicThreshold
}

func TestNextFactor(t *testing.T) {
	cfg := dynCfg(t) // window 20, high 0.8, low 0.5, step 0.1, [0.5, 2]
	for _, tc := range []struct {
		name      string
		factor, p float64
		n         int
		want      float64
	}{
		{"unset starts at 1, high precision lowers", 0, 0.9, 20, 0.9},
		{"high precision lowers", 1, 0.8, 10, 0.9},
		{"low precision raises", 1, 0.49, 10, 1.1},
		{"between low and high holds", 1.3, 0.6, 20, 1.3},
		{"too few evaluable pages holds", 1, 0.0, 9, 1},
		{"clamped at min", 0.55, 1, 20, 0.5},
		{"clamped at max", 1.95, 0, 20, 2},
		{"float drift rounded", 0.7000000001, 0.9, 20, 0.6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NextFactor(cfg, tc.factor, tc.p, tc.n); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("NextFactor(%v, %v, %d) = %v, want %v", tc.factor, tc.p, tc.n, got, tc.want)
			}
		})
	}
	// The controller converges to a bound under constant precision and
	// never leaves [min, max].
	f := 1.0
	for range 50 {
		f = NextFactor(cfg, f, 0.95, 20)
		if f < cfg.Min || f > cfg.Max {
			t.Fatalf("factor %v left [%v, %v]", f, cfg.Min, cfg.Max)
		}
	}
	if f != cfg.Min {
		t.Errorf("after 50 high-precision rounds factor = %v, want %v", f, cfg.Min)
	}
}

func TestLinkPrecision(t *testing.T) {
	acc, rej := decision.Accepted, decision.Rejected
	pages := []PrecisionPage{
		{"a", acc, "vsm", 0.5}, // → b (accepted, 0.4 ≥ base): confirmed
		{"b", acc, "vsm", 0.4}, // → c (rejected): evaluable, not confirmed
		{"c", rej, "vsm", 0.01},
		{"d", acc, "vsm", 0.3}, // → e, accepted but 0.15 < base 0.2 (only the lowered threshold let it in): not confirmed
		{"e", acc, "vsm", 0.15},
		{"f", acc, "vsm", 0.3}, // → g, accepted by a cold-start delegate: confirmed by its decision
		{"g", acc, "bayes-delegate", 0.05},
		{"h", acc, "vsm", 0.3}, // → unknown and itself: not evaluable
	}
	children := map[string][]string{"a": {"b"}, "b": {"c"}, "d": {"e"}, "f": {"g"}, "h": {"zz", "h"}}
	for _, tc := range []struct {
		window int
		wantP  float64
		wantN  int
	}{
		{10, 2.0 / 4, 4}, // a, b, d, f evaluable; a, f confirmed
		{2, 1.0 / 2, 2},  // the last two evaluable: f (confirmed), d (not)
		{1, 1, 1},        // f
	} {
		p, n := LinkPrecision(pages, children, tc.window, "vsm", 0.2)
		if n != tc.wantN || math.Abs(p-tc.wantP) > 1e-12 {
			t.Errorf("window %d: precision %v over %d, want %v over %d", tc.window, p, n, tc.wantP, tc.wantN)
		}
	}
	if p, n := LinkPrecision(nil, nil, 10, "vsm", 0.2); p != 0 || n != 0 {
		t.Errorf("empty crawl: %v over %d", p, n)
	}
}

// TestDynamicFactorScalesThreshold: the filter owns its threshold — the
// base one (topic file, else default × breadth) times the controller's
// factor, clamped; a learner's cold-start filter is not scaled.
func TestDynamicFactorScalesThreshold(t *testing.T) {
	tp := topicOf(t, "name: d\nkeywords: {rose: 1}\nseeds: [http://a.test/]\nbreadth: broad\n")
	threshold := func(f Filter) float64 {
		switch f := f.(type) {
		case *VSM:
			return f.Threshold
		case *Semantic:
			return f.Threshold
		case *Bayes:
			return f.Threshold
		case *URLTemplate:
			return f.Fallback.(*Semantic).Threshold
		}
		t.Fatalf("no threshold in %T", f)
		return 0
	}
	for _, tc := range []struct {
		spec         topic.Spec
		factor       float64
		base, scaled float64
	}{
		{topic.Spec{Name: "vsm", Params: map[string]any{"threshold": 0.2}}, 0.5, 0.2, 0.1},
		{topic.Spec{Name: "vsm"}, 1, DefaultVSMThreshold * 0.6, DefaultVSMThreshold * 0.6},  // broad topic: default × 0.6
		{topic.Spec{Name: "semantic", Params: map[string]any{"threshold": 0.8}}, 2, 0.8, 1}, // clamped
		{topic.Spec{Name: "bayes"}, 0.5, DefaultBayesThreshold * 0.6, DefaultBayesThreshold * 0.3},
		{topic.Spec{Name: "url-template", Params: map[string]any{"fallback": "semantic"}}, 1.5,
			DefaultSemanticThreshold * 0.6, DefaultSemanticThreshold * 0.6 * 1.5},
	} {
		s, err := Decode(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if base, err := BaseThreshold(s, tp); err != nil || math.Abs(base-tc.base) > 1e-12 {
			t.Errorf("%s: base threshold %v (%v), want %v", tc.spec.Name, base, err, tc.base)
		}
		f, err := Build(s, Env{Topic: tp, Terms: fields{}, DynamicFactor: tc.factor})
		if err != nil {
			t.Fatal(err)
		}
		if th := threshold(f); math.Abs(th-tc.scaled) > 1e-12 {
			t.Errorf("%s ×%v: threshold %v, want %v", tc.spec.Name, tc.factor, th, tc.scaled)
		}
		if b, ok := f.(*Bayes); ok {
			if cs := b.coldStart.(*VSM).Threshold; math.Abs(cs-DefaultVSMThreshold*0.6) > 1e-12 {
				t.Errorf("bayes cold start threshold %v: scaled by the controller", cs)
			}
		}
	}
	if _, err := Decode(topic.Spec{Name: "no-such"}); err == nil {
		t.Error("unknown filter: no error")
	}
}

func TestDynamicThresholdValidation(t *testing.T) {
	base := "name: d\nkeywords: {rose: 1}\nseeds: [http://a.test/]\nstrategy:\n  dynamic_threshold: "
	for _, bad := range []string{
		"{enabled: true, low: 0.9, high: 0.5}",
		"{enabled: true, step: 2}",
		"{enabled: true, min: 1.5}",
		"{enabled: true, window: 1}",
		"{enabled: true, every: -1}",
	} {
		if _, err := topic.Parse([]byte(base + bad + "\n")); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
