package relevance

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"focuscrawl/internal/decision"
	"focuscrawl/internal/lexicon"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
	"focuscrawl/lexicons"
)

func bundled(t *testing.T, name string) *lexicon.Lexicon {
	t.Helper()
	data, ok := lexicons.Bundled(name)
	if !ok {
		t.Fatalf("no bundled lexicon %s", name)
	}
	l, err := lexicon.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func envFor(t *testing.T, yaml string) Env {
	tp := topicOf(t, yaml)
	env := Env{Topic: tp, Model: topic.BuildModel(tp, 1, textproc.Shared(), nil), Terms: textproc.Shared()}
	if tp.Lexicon != "" {
		env.Lexicon = bundled(t, tp.Lexicon)
	}
	return env
}

// Every filter separates the on-topic page from the off-topic one, in
// English and in GBK-encoded Chinese.
func TestFiltersOnRealPages(t *testing.T) {
	for _, lc := range langCases(t) {
		for _, spec := range []topic.Spec{
			{Name: "vsm"}, {Name: "semantic"}, {Name: "bayes"}, {Name: "sample-rank"}, {Name: "url-template"},
		} {
			t.Run(lc.lang+"/"+spec.Name, func(t *testing.T) {
				env := envFor(t, lc.topic)
				// bayes: one negative sample so it judges by itself; sample-rank: the
				// on-topic page's sibling as the sample library.
				env.Samples = &topic.Samples{
					Positive: []topic.SampleDoc{{URL: "http://ml.test/sample", TF: lc.on.TF}},
					Negative: []topic.SampleDoc{{URL: "http://x.test/neg", TF: lc.off.TF}},
				}
				if spec.Name == "bayes" {
					spec.Params = map[string]any{"min_negatives": 1}
				}
				f, err := New(spec, env)
				if err != nil {
					t.Fatal(err)
				}
				on, off := f.Judge(lc.on), f.Judge(lc.off)
				if !on.Relevant || off.Relevant || on.Score <= off.Score {
					t.Fatalf("on %+v\noff %+v", on, off)
				}
				if on.Reason == "" || off.Reason == "" {
					t.Fatal("verdict without a reason")
				}
			})
		}
	}
}

// Seed 001 §2.3: with topic features m, n and lexicon neighbours m1, m2,
// n1, n2, the semantic score is never below the keyword score.
func TestSemanticNeverBelowKeywordSeed001(t *testing.T) {
	lex, err := lexicon.Parse(strings.NewReader("m | synonym | m1\nm | hyponym | m2\nn | near-synonym | n1\nn | hyponym | n2\n"))
	if err != nil {
		t.Fatal(err)
	}
	features := map[string]float64{"m": 1, "n": 0.6}
	sem := NewSemantic(features, lex, fields{}, 0.3, 2)
	kw := NewSemantic(features, nil, fields{}, 0.3, 0)
	pages := []map[string]int{
		{"m": 1, "m1": 3, "n2": 2},
		{"m": 2, "n": 2},
		{"m1": 1, "m2": 1, "n": 1, "n1": 4},
		{"m": 3, "n1": 1},
		{"n": 1, "m2": 5},
		{"x": 9},
	}
	for i, tf := range pages {
		for _, pos := range []string{"other", "anchor", "emphasis"} {
			p := &Page{}
			switch pos {
			case "other":
				p.OtherTF = tf
			case "anchor":
				p.AnchorTF = tf
			case "emphasis":
				p.EmphasisTF = tf
			}
			s, k := sem.Judge(p).Score, kw.Judge(p).Score
			if s < k-1e-12 {
				t.Errorf("page %d (%s): semantic %.4f below keyword %.4f", i, pos, s, k)
			}
		}
	}
	// Seed 001's motivating example: "战斗机" never appears, its synonym 歼击机
	// and its hyponym F-22 do. Keyword score 0, semantic score relevant.
	lex2, _ := lexicon.Parse(strings.NewReader("战斗机 | synonym | 歼击机\n战斗机 | hyponym | f-22 | 0.9\n"))
	tok := textproc.Shared()
	p := &Page{OtherTF: tok.TermFreq("歼击机，其特点是机动性好、速度快，空中战斗力强。F-22 的空重为 13.6 吨，最大飞行速度 M2.1。")}
	sem2 := NewSemantic(map[string]float64{"战斗机": 1}, lex2, tok, 0.3, 2)
	kw2 := NewSemantic(map[string]float64{"战斗机": 1}, nil, tok, 0.3, 0)
	if v := sem2.Judge(p); !v.Relevant || kw2.Judge(p).Score != 0 {
		t.Fatalf("semantic %+v, keyword %+v", v, kw2.Judge(p))
	}
}

// Position weights 2 / 1.5 / 1: the same counts in a richer position give
// the same direction but a different mix; a feature seen only in anchor text
// outweighs one seen only in plain text.
func TestSemanticPositionWeights(t *testing.T) {
	f := NewSemantic(map[string]float64{"a": 1, "b": 1}, nil, fields{}, 0.3, 0)
	// a in anchor (2), b in other (1): w_a = 2·1·1 = 2, w_b = 1·1·1 = 1.
	v := f.Judge(&Page{AnchorTF: map[string]int{"a": 1}, OtherTF: map[string]int{"b": 1}})
	want := (2 + 1) / (math.Sqrt(5) * math.Sqrt(2))
	if math.Abs(v.Score-want) > 1e-12 || !strings.Contains(v.Reason, `"a"`) {
		t.Fatalf("score %v want %v (%s)", v.Score, want, v.Reason)
	}
	// emphasis 1.5 vs other 1 with F normalisation: a twice in other, b once
	// in emphasis: w_a = 2·1·1 = 2, w_b = 1.5·0.5·1 = 0.75.
	v = f.Judge(&Page{OtherTF: map[string]int{"a": 2}, EmphasisTF: map[string]int{"b": 1}})
	want = (2 + 0.75) / (math.Sqrt(4+0.5625) * math.Sqrt(2))
	if math.Abs(v.Score-want) > 1e-12 {
		t.Fatalf("score %v want %v", v.Score, want)
	}
}

// Laplace smoothing on a hand-computed case: positive {a:2, b:1}, negative
// {b:1, c:2}; |V| = 3, N_pos = N_neg = 3. P(a|+) = 3/6, P(b|+) = 2/6,
// P(a|-) = 1/6, P(b|-) = 2/6; page {a, b}: posterior (1/6)/(1/6 + 1/18) = 0.75.
func TestBayesLaplaceHandComputed(t *testing.T) {
	m := TrainNB([]map[string]int{{"a": 2, "b": 1}}, []map[string]int{{"b": 1, "c": 2}})
	for _, tc := range []struct {
		w    string
		pos  bool
		want float64
	}{{"a", true, 0.5}, {"b", true, 2.0 / 6}, {"c", true, 1.0 / 6}, {"a", false, 1.0 / 6}, {"c", false, 0.5}, {"zzz", true, 1.0 / 6}} {
		if got := m.WordProb(tc.w, tc.pos); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("P(%s|%v) = %v, want %v", tc.w, tc.pos, got, tc.want)
		}
	}
	if got := m.Posterior(map[string]int{"a": 1, "b": 1}); math.Abs(got-0.75) > 1e-12 {
		t.Errorf("posterior %v, want 0.75", got)
	}
	if got := m.Posterior(map[string]int{"unknown": 3}); got != 0.5 {
		t.Errorf("posterior of unknown words %v, want 0.5", got)
	}
}

func TestBayesColdStartAndLearn(t *testing.T) {
	lc := langCases(t)[0]
	env := envFor(t, lc.topic)
	f, err := New(topic.Spec{Name: "bayes"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if v := f.Judge(lc.on); v.Decider != "vsm" || !strings.Contains(v.Reason, "cold start") {
		t.Fatalf("cold start verdict %+v", v)
	}
	l := f.(Learner)
	var judged []Judged
	for i := 0; i < 6; i++ {
		judged = append(judged, Judged{URL: "http://sport.test/" + string(rune('a'+i)), Decision: decision.Rejected, TF: lc.off.TF})
	}
	state, err := l.Learn(judged)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := l.Learn(judged)
	if !bytes.Equal(state, again) {
		t.Fatal("Learn is not deterministic")
	}
	env.State = state
	f2, _ := New(topic.Spec{Name: "bayes"}, env)
	on, off := f2.Judge(lc.on), f2.Judge(lc.off)
	if on.Decider != "" || !on.Relevant || off.Relevant {
		t.Fatalf("trained bayes: on %+v off %+v", on, off)
	}
}

// Seed 003's worked example of URL similarity (a = b = 0.5).
func TestURLSimilaritySeed003(t *testing.T) {
	const (
		u1 = "http://www.unxue.com/game.php?action=down&bh=shizi-1"
		u8 = "http://www.unxue.com/game.php?action=down&bh=shizi-8"
		ut = "http://www.unxue.com/game.php?type=shizi"
	)
	if got := URLSimilarity(u1, u8, 0.5, 0.5); math.Round(got*1000)/1000 != 0.981 {
		t.Errorf("shizi-1 vs shizi-8 = %v, want 0.981", got)
	}
	if got := URLSimilarity(u1, ut, 0.5, 0.5); math.Round(got*1000)/1000 != 0.663 {
		t.Errorf("shizi-1 vs type=shizi = %v, want 0.663", got)
	}
	if URLSimilarity(u1, u1, 0.5, 0.5) != 1 || URLSimilarity("", u1, 0.5, 0.5) != 0 {
		t.Error("identity / empty")
	}
}

func TestURLTemplateLearnsAndMatches(t *testing.T) {
	env := envFor(t, "name: g\nkeywords: {识字: 1, 游戏: 1}\nseeds: [http://x/]")
	f, err := New(topic.Spec{Name: "url-template"}, env)
	if err != nil {
		t.Fatal(err)
	}
	const base = "http://www.unxue.com/game.php?"
	state, err := f.(Learner).Learn([]Judged{
		{URL: base + "action=down&bh=shizi-1", Decision: decision.Accepted, Filter: "vsm"},
		{URL: base + "action=down&bh=shizi-2", Decision: decision.Accepted, Filter: "vsm"}, // matches the first: no new template
		{URL: base + "type=shizi", Decision: decision.Rejected, Filter: "vsm"},
		{URL: "http://other.test/a", Decision: decision.Accepted, Filter: "url-template"}, // not content-accepted
	})
	if err != nil {
		t.Fatal(err)
	}
	var st urlTemplateState
	if err := json.Unmarshal(state, &st); err != nil || len(st.Templates) != 1 || len(st.Templates["www.unxue.com"]) != 1 {
		t.Fatalf("templates %s (%v)", state, err)
	}
	env.State = state
	f, _ = New(topic.Spec{Name: "url-template"}, env)
	v := f.Judge(&Page{URL: base + "action=down&bh=shizi-8", TF: map[string]int{"足球": 1}})
	if !v.Relevant || v.Decider != "" || math.Round(v.Score*1000)/1000 != 0.981 {
		t.Fatalf("template match %+v", v)
	}
	v = f.Judge(&Page{URL: base + "type=shizi", TF: map[string]int{"足球": 1}})
	if v.Relevant || v.Decider != "vsm" || !strings.Contains(v.Reason, "no URL template") {
		t.Fatalf("fallback %+v", v)
	}
	if err := Check(topic.Spec{Name: "url-template", Params: map[string]any{"fallback": "bayes"}}); err == nil {
		t.Fatal("learning fallback accepted")
	}
	if err := Check(topic.Spec{Name: "url-template", Params: map[string]any{"a": 0.8, "b": 0.5}}); err == nil {
		t.Fatal("a + b > 1 accepted")
	}
}

func TestSampleRankBootstrapping(t *testing.T) {
	lc := langCases(t)[0]
	env := envFor(t, lc.topic)
	f, _ := New(topic.Spec{Name: "sample-rank", Params: map[string]any{"every": 2, "promote": 1}}, env)
	if v := f.Judge(lc.on); v.Decider != "vsm" {
		t.Fatalf("empty library should fall back to vsm: %+v", v)
	}
	judged := []Judged{
		{URL: "http://ml.test/1", Decision: decision.Accepted, Relevance: 0.3, TF: lc.on.TF},
		{URL: "http://sport.test/1", Decision: decision.Rejected, Relevance: 0.01, TF: lc.off.TF},
		{URL: "http://ml.test/2", Decision: decision.Accepted, Relevance: 0.5, TF: map[string]int{"gradient": 2}},
		{URL: "http://ml.test/3", Decision: decision.Accepted, Relevance: 0.9, TF: map[string]int{"training": 1}},
		{URL: "http://ml.test/4", Decision: decision.Accepted, Relevance: 0.1, TF: map[string]int{"x": 1}},
	}
	state, err := f.(Learner).Learn(judged)
	if err != nil {
		t.Fatal(err)
	}
	env.State = state
	f2, _ := New(topic.Spec{Name: "sample-rank"}, env)
	// Round 1 (pages 1-2) promotes ml/1; round 2 (pages 1-4) promotes ml/3.
	if got := strings.Join(f2.(*SampleRank).Library(), " "); got != "http://ml.test/1 http://ml.test/3" {
		t.Fatalf("library %q", got)
	}
	on, off := f2.Judge(lc.on), f2.Judge(lc.off)
	if !on.Relevant || off.Relevant || on.Decider != "" {
		t.Fatalf("on %+v off %+v", on, off)
	}
}

func TestTunnelDrawReproducible(t *testing.T) {
	kept := 0
	for i := 0; i < 2000; i++ {
		h := string(rune('a'+i%26)) + strings.Repeat("x", i%7) + string(rune(i))
		d := TunnelDraw(42, h)
		if d != TunnelDraw(42, h) || d < 0 || d >= 1 {
			t.Fatalf("draw %v not reproducible or out of range", d)
		}
		if KeepAsTunnel(0.1, 42, h) {
			kept++
		}
	}
	if kept < 140 || kept > 260 { // 2000·0.1 = 200, far beyond 4σ
		t.Fatalf("kept %d of 2000 at p = 0.1", kept)
	}
	if TunnelDraw(1, "h") == TunnelDraw(2, "h") || KeepAsTunnel(0, 1, "h") {
		t.Fatal("seed ignored or p = 0 keeps pages")
	}
}

func TestDetailPage(t *testing.T) {
	for _, tc := range []struct {
		s    PageShape
		want bool
	}{
		{PageShape{PlainWords: 600, TotalWords: 700, Links: 20}, true},  // article
		{PageShape{PlainWords: 80, TotalWords: 400, Links: 120}, false}, // directory
		{PageShape{PlainWords: 50, TotalWords: 55, Links: 2}, false},    // too short
		{PageShape{PlainWords: 900, TotalWords: 1000, Links: 200}, false},
	} {
		if got, why := IsDetailPage(tc.s); got != tc.want || why == "" {
			t.Errorf("%+v: %v (%s), want %v", tc.s, got, why, tc.want)
		}
	}
}

func TestBreadthShiftsDefaultThreshold(t *testing.T) {
	for _, tc := range []struct {
		breadth string
		want    float64
	}{{"", DefaultSemanticThreshold}, {"broad", DefaultSemanticThreshold * 0.6}, {"specific", DefaultSemanticThreshold * 1.5}} {
		env := envFor(t, "name: t\nkeywords: {a: 1}\nbreadth: \""+tc.breadth+"\"\nseeds: [http://x/]")
		f, err := New(topic.Spec{Name: "semantic"}, env)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.(*Semantic).Threshold; math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%q: threshold %v want %v", tc.breadth, got, tc.want)
		}
	}
	env := envFor(t, "name: t\nkeywords: {a: 1}\nbreadth: broad\nseeds: [http://x/]")
	f, _ := New(topic.Spec{Name: "semantic", Params: map[string]any{"threshold": 0.4}}, env)
	if f.(*Semantic).Threshold != 0.4 {
		t.Error("explicit threshold scaled")
	}
}

func TestNewFiltersRejectBadParams(t *testing.T) {
	for _, spec := range []topic.Spec{
		{Name: "semantic", Params: map[string]any{"depth": 1.5}},
		{Name: "semantic", Params: map[string]any{"detph": 1}},
		{Name: "bayes", Params: map[string]any{"every": 0}},
		{Name: "sample-rank", Params: map[string]any{"promote": -1}},
		{Name: "url-template", Params: map[string]any{"r": 2}},
		{Name: "url-template", Params: map[string]any{"fallback": "nope"}},
	} {
		if err := Check(spec); err == nil {
			t.Errorf("%+v accepted", spec)
		}
	}
}

// fields counts whitespace-separated lower-cased words: a tokenizer for
// tests whose features are single letters, which the project tokenizer drops.
type fields struct{}

func (fields) TermFreq(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(strings.ToLower(s)) {
		m[w]++
	}
	return m
}

// TestLearnerParamsMarkLearners: a decoded strategy says whether its filter
// learns (url-template refuses a learning fallback by it) exactly when the
// built filter is a Learner.
func TestLearnerParamsMarkLearners(t *testing.T) {
	env := envFor(t, "name: l\nkeywords: {rose: 1}\nseeds: [http://a.test/]\n")
	for _, name := range Names() {
		s, err := Decode(topic.Spec{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		f, err := Build(s, env)
		if err != nil {
			t.Fatal(err)
		}
		_, learns := f.(Learner)
		if _, marked := s.Params().(learnerParams); marked != learns {
			t.Errorf("%s: parameters marked learner %v, filter is a Learner %v", name, marked, learns)
		}
	}
}
