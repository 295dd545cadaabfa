package relevance

import (
	"math"
	"strings"
	"testing"

	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/vsm"
)

func model(t *testing.T, yaml string) *topic.Model {
	t.Helper()
	tp, err := topic.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return topic.BuildModel(tp, 1, textproc.Shared(), nil)
}

func page(text string) *Page {
	return &Page{TF: textproc.Shared().TermFreq(text)}
}

func TestVSMSeparatesOnAndOffTopicEnglish(t *testing.T) {
	m := model(t, "name: ml\nkeywords: {neural network: 1, training: 0.8, gradient: 0.8}\nseeds: [http://x/]")
	f, err := New(topic.Spec{Name: "vsm"}, Env{Model: m, IDF: vsm.Flat})
	if err != nil {
		t.Fatal(err)
	}
	on := f.Judge(page("Training a neural network: the gradient of the loss drives each training step of the network."))
	off := f.Judge(page("Our football club won the league; the striker scored twice in the final match of the season."))
	if !on.Relevant || off.Relevant {
		t.Fatalf("on-topic %+v, off-topic %+v", on, off)
	}
	if on.Score <= off.Score {
		t.Fatalf("on-topic score %v not above off-topic %v", on.Score, off.Score)
	}
	if !strings.Contains(on.Reason, "cosine") {
		t.Fatalf("reason %q does not explain the score", on.Reason)
	}
}

func TestVSMChinese(t *testing.T) {
	m := model(t, "name: ml\nkeywords: {神经网络: 1, 训练: 0.8, 梯度: 0.8}\nseeds: [http://x/]")
	f, _ := New(topic.Spec{Name: "vsm"}, Env{Model: m})
	on := f.Judge(page("神经网络的训练依赖梯度下降，每一轮训练都会更新神经网络的参数。"))
	off := f.Judge(page("这家餐厅的红烧肉很好吃，周末我们一起去旅游吧。"))
	if !on.Relevant || off.Relevant {
		t.Fatalf("on-topic %+v, off-topic %+v", on, off)
	}
}

func TestVSMParameters(t *testing.T) {
	if err := Check(topic.Spec{Name: "vsm", Params: map[string]any{"threshold": 2.0}}); err == nil {
		t.Fatal("threshold 2 accepted")
	}
	if err := Check(topic.Spec{Name: "vsm", Params: map[string]any{"treshold": 0.2}}); err == nil || !strings.Contains(err.Error(), "treshold") {
		t.Fatalf("misspelt parameter not named: %v", err)
	}
	if err := Check(topic.Spec{Name: "nope"}); err == nil || !strings.Contains(err.Error(), "vsm") {
		t.Fatalf("unknown filter error should list known ones: %v", err)
	}
	f, err := New(topic.Spec{Name: "vsm", Params: map[string]any{"threshold": 0}}, Env{})
	if err != nil || f.(*VSM).Threshold != 0 {
		t.Fatalf("integer threshold not accepted: %v", err)
	}
}

// TestVSMPageWeightSeed003: with weighting: seed003 the page vector lives
// in the keyword library's space and the page's weight of keyword i is
// F_i · W_i, F_i = count_i / count_max over the page's keyword counts
// (seed 003 Steps 1-5); the default is the whole-page TF-IDF cosine.
func TestVSMPageWeightSeed003(t *testing.T) {
	m := &topic.Model{Terms: map[string]float64{"rose": 1, "soil": 0.5}}
	p := &Page{TF: map[string]int{"rose": 4, "soil": 1, "football": 9}}
	// seed003: F = (1, 0.25), page (1·1, 0.25·0.5), W = (1, 0.5):
	// cos = (1 + 0.0625) / (sqrt(1 + 0.015625) · sqrt(1.25)).
	s3 := (1 + 0.0625) / (math.Sqrt(1+0.015625) * math.Sqrt(1.25))
	// tfidf: (1+ln4, 1, 1+ln9) against (1, 0.5).
	a, b, c := 1+math.Log(4), 1.0, 1+math.Log(9)
	tfidf := (a + 0.5*b) / (math.Sqrt(a*a+b*b+c*c) * math.Sqrt(1.25))
	cases := []struct {
		params map[string]any
		want   float64
		th     float64
	}{
		{nil, tfidf, DefaultVSMThreshold},
		{map[string]any{"weighting": "tfidf"}, tfidf, DefaultVSMThreshold},
		{map[string]any{"weighting": "seed003"}, s3, DefaultSeed003Threshold},
	}
	for _, tc := range cases {
		f, err := New(topic.Spec{Name: "vsm", Params: tc.params}, Env{Model: m, IDF: vsm.Flat})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Judge(p).Score; math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%v: score %v, want %v", tc.params, got, tc.want)
		}
		if th := f.(*VSM).Threshold; th != tc.th {
			t.Errorf("%v: default threshold %v, want %v", tc.params, th, tc.th)
		}
	}
	if _, err := New(topic.Spec{Name: "vsm", Params: map[string]any{"weighting": "log"}}, Env{Model: m, IDF: vsm.Flat}); err == nil {
		t.Error("weighting: log accepted")
	}
	// A page without any keyword scores 0.
	f, _ := New(topic.Spec{Name: "vsm", Params: map[string]any{"weighting": "seed003"}}, Env{Model: m, IDF: vsm.Flat})
	if got := f.Judge(&Page{TF: map[string]int{"football": 3}}).Score; got != 0 {
		t.Errorf("no keyword: %v, want 0", got)
	}
}

// TestSampleFloor: share × the lowest score the filter gives the sample
// pages; 0 without samples, with share 0, or for another filter.
func TestSampleFloor(t *testing.T) {
	m := model(t, "name: ml\nkeywords: {neural network: 1, training: 0.8, gradient: 0.8}\nseeds: [http://x/]")
	f, err := New(topic.Spec{Name: "vsm"}, Env{Model: m, IDF: vsm.Flat})
	if err != nil {
		t.Fatal(err)
	}
	tf := textproc.Shared().TermFreq
	strong := "Training a neural network: the gradient of the loss drives each training step of the network."
	weak := "A blog post that mentions training once, among many other words about cooking and travel and weather."
	samples := &topic.Samples{Positive: []topic.SampleDoc{{URL: "http://x/a", TF: tf(strong)}, {URL: "http://x/b", TF: tf(weak)}}}
	low := math.Min(f.Judge(page(strong)).Score, f.Judge(page(weak)).Score)
	if got := SampleFloor(f, samples, 0.1); math.Abs(got-0.1*low) > 1e-12 || got <= 0 {
		t.Errorf("SampleFloor = %v, want 0.1 × %v", got, low)
	}
	if SampleFloor(f, nil, 0.1) != 0 || SampleFloor(f, &topic.Samples{}, 0.1) != 0 || SampleFloor(f, samples, 0) != 0 {
		t.Error("no samples or share 0 must give no floor")
	}
	rank, err := New(topic.Spec{Name: "sample-rank"}, Env{Model: m, IDF: vsm.Flat, Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	if SampleFloor(rank, samples, 0.1) != 0 {
		t.Error("a filter other than vsm must give no floor")
	}
}

// TestSampleFloorOf reads back the floor a reason records.
func TestSampleFloorOf(t *testing.T) {
	for reason, want := range map[string]float64{
		"cosine 0.05 vs threshold 0.020; split: 0.045 with 1 in-link(s) vs crawl split 0.031" + SampleFloorMark + "0.0312": 0.0312,
		"x" + SampleFloorMark + "0.0400; re-judged: 0.03 below the crawl's split 0.04":                                     0.04,
	} {
		if got, ok := SampleFloorOf(reason); !ok || got != want {
			t.Errorf("SampleFloorOf(%q) = %v, %v; want %v", reason, got, ok, want)
		}
	}
	for _, reason := range []string{"cosine 0.05 vs threshold 0.020", "x" + SampleFloorMark + "high", "x" + SampleFloorMark + "7"} {
		if got, ok := SampleFloorOf(reason); ok {
			t.Errorf("SampleFloorOf(%q) = %v, want none", reason, got)
		}
	}
}
