package topic

import (
	"strings"
	"testing"
)

func TestStrategyExpandAndDynamic(t *testing.T) {
	base := "name: x\nkeywords: {rose: 1}\nseeds: [http://a.test/]\nstrategy:\n"
	for _, tc := range []struct {
		yaml, wantErr string
		check         func(*Topic) bool
	}{
		{"  expand: {friend_links: true, top_hosts: 3, template_min: 5, keywords: 20}\n", "",
			func(t *Topic) bool {
				e := t.Strategy.Expand
				return e.Enabled() && e.TopHosts == 3 && e.TemplateMin == 5
			}},
		{"  tunnel: 0\n", "", func(t *Topic) bool { return !t.Strategy.Expand.Enabled() && !t.Strategy.DynamicThreshold.Enabled }},
		{"  expand: {top_hosts: -1}\n", "strategy.expand.top_hosts", nil},
		{"  expand: {keywords: 5000}\n", "strategy.expand.keywords", nil},
		{"  expand: {templates: 3}\n", "templates", nil}, // unknown key
		{"  dynamic_threshold: {enabled: true}\n", "", func(t *Topic) bool {
			d := t.Strategy.DynamicThreshold
			return d.Every == DefaultDynamicEvery && d.Window == DefaultDynamicWindow && d.High == DefaultDynamicHigh &&
				d.LowT() == DefaultDynamicLow && d.Step == DefaultDynamicStep && d.Min == DefaultDynamicMin && d.Max == DefaultDynamicMax
		}},
		{"  dynamic_threshold: {enabled: true, high: 0.9, low: 0.2, step: 0.05}\n", "", func(t *Topic) bool {
			return t.Strategy.DynamicThreshold.Step == 0.05 && t.Strategy.DynamicThreshold.LowT() == 0.2
		}},
		{"  dynamic_threshold: {enabled: true, max: 20}\n", "strategy.dynamic_threshold", nil},
		// low: 0 is a value the docs allow, not "absent" (it became 0.5)
		{"  dynamic_threshold: {enabled: true, low: 0}\n", "", func(t *Topic) bool { return t.Strategy.DynamicThreshold.LowT() == 0 }},
		{"  dynamic_threshold: {enabled: true, low: 0, high: 0.3}\n", "", func(t *Topic) bool { return t.Strategy.DynamicThreshold.High == 0.3 }},
		{"  feedback: true\n  feedback_beta: 0\n", "", func(t *Topic) bool { return t.Strategy.FeedbackBeta != nil && *t.Strategy.FeedbackBeta == 0 }},
		{"  feedback_beta: 0.5\n", "strategy.feedback_beta: is read only by feedback re-judgement", nil},
		{"  sample_floor: 0\n", "", func(t *Topic) bool { return t.Strategy.SampleFloorShare() == 0 }},
		{"  prune: true\n", "", func(t *Topic) bool { return t.Strategy.SampleFloorShare() == DefaultSampleFloor }},
		{"  sample_floor: 1.5\n", "strategy.sample_floor: 1.5 must be a share in [0, 1]", nil},
		{"  feedback: true\n  feedback_beta: -1\n", "strategy.feedback_beta: -1 must be a weight", nil},
	} {
		tp, err := Parse([]byte(base + tc.yaml))
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want one naming %s", tc.yaml, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.yaml, err)
		case !tc.check(tp):
			t.Errorf("%q: parsed %+v %+v", tc.yaml, tp.Strategy.Expand, tp.Strategy.DynamicThreshold)
		}
	}
}
