package linkpred

import (
	"testing"

	"focuscrawl/internal/topic"
)

func TestClassifyLink(t *testing.T) {
	const src = "http://docs.test/manual/ch2/index.html"
	cases := []struct {
		dst  string
		want LinkType
	}{
		{"http://docs.test/manual/ch2/sec1/a.html", Downward},
		{"http://docs.test/manual/ch2/sub/", Downward},
		{"http://docs.test/manual/ch2/b.html", Horizontal},
		{"http://docs.test/manual/ch2/", Horizontal},
		{"http://docs.test/manual/c.html", Upward},
		{"http://docs.test/", Upward},
		{"http://docs.test/manual/ch3/d.html", Crosswise},
		{"http://docs.test/source/ch2/e.html", Crosswise},
		{"http://other.test/manual/ch2/b.html", Outward},
		{"http://DOCS.test/manual/ch2/b.html", Horizontal},
		{"http://docs.test:8080/manual/ch2/b.html", Outward},
		// One site but for a leading "www." (urlnorm.SameSite).
		{"http://www.docs.test/manual/ch2/b.html", Horizontal},
		{"http://www.docs.test:8080/manual/ch2/b.html", Outward},
		{"http://wwwdocs.test/manual/ch2/b.html", Outward},
	}
	for _, tc := range cases {
		if got := ClassifyLink(src, tc.dst); got != tc.want {
			t.Errorf("ClassifyLink(%s) = %s, want %s", tc.dst, got, tc.want)
		}
	}
	// A directory page's own directory is itself: its children are downward.
	if got := ClassifyLink("http://docs.test/manual/", "http://docs.test/manual/ch2/x.html"); got != Downward {
		t.Errorf("directory page → child: %s, want downward", got)
	}
}

// TestBestFirstLinkTypeOrder: equally scored links rank downward =
// horizontal > upward = crosswise > outward, and link_type: false turns the
// multiplier off.
func TestBestFirstLinkTypeOrder(t *testing.T) {
	p := mustNew(t, "best-first", nil, env(t))
	par := Parent{URL: "http://docs.test/manual/ch2/index.html", Relevance: 0.6}
	score := func(pr Predictor, u string) float64 { return pr.Score(par, Link{URL: u, Anchor: "next"}) }
	down, horiz := score(p, "http://docs.test/manual/ch2/s/a.html"), score(p, "http://docs.test/manual/ch2/b.html")
	up, cross := score(p, "http://docs.test/c.html"), score(p, "http://docs.test/api/d.html")
	out := score(p, "http://elsewhere.test/manual/ch2/b.html")
	if !(down == horiz && horiz > up && up == cross && cross > out) {
		t.Errorf("down %v horizontal %v up %v cross %v out %v: want down = horizontal > up = cross > out", down, horiz, up, cross, out)
	}
	off := mustNew(t, "best-first", map[string]any{"link_type": false}, env(t))
	if a, b := score(off, "http://docs.test/manual/ch2/b.html"), score(off, "http://elsewhere.test/x.html"); a != b {
		t.Errorf("link_type false: %v vs %v, want equal", a, b)
	}
	if _, err := New(topic.Spec{Name: "best-first", Params: map[string]any{"link_type": "yes"}}, env(t)); err == nil {
		t.Error("link_type: \"yes\" accepted")
	}
}

// TestMetadataHits: AMH = a·UH + b·TeH + c·TiH with 0/1 hits on the URL's
// words, the link text (anchor, alt) and the title attribute.
func TestMetadataHits(t *testing.T) {
	p := mustNew(t, "metadata-hits", map[string]any{"a": 0.3, "b": 0.5, "c": 0.2}, env(t))
	cases := []struct {
		name string
		l    Link
		want float64
	}{
		{"no hit", Link{URL: "http://x/sport/a.html", Anchor: "football", Title: "results"}, 0},
		{"URL only", Link{URL: "http://x/training/a.html", Anchor: "next"}, 0.3},
		{"text only", Link{URL: "http://x/a.html", Anchor: "neural network basics"}, 0.5},
		{"image alt counts as link text", Link{URL: "http://x/a.html", Alt: "机器学习"}, 0.5},
		{"title only", Link{URL: "http://x/a.html", Anchor: "more", Title: "training tips"}, 0.2},
		{"all three", Link{URL: "http://x/training/", Anchor: "neural network", Title: "机器学习"}, 1},
	}
	for _, tc := range cases {
		if got := p.Score(Parent{}, tc.l); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("%s: AMH = %v, want %v", tc.name, got, tc.want)
		}
	}
	th := mustNew(t, "metadata-hits", map[string]any{"threshold": 0.4}, env(t))
	if got := th.Score(Parent{}, Link{URL: "http://x/training/a.html"}); got != Discard {
		t.Errorf("AMH 0.3 below threshold 0.4 = %v, want discard", got)
	}
	if err := Check(topic.Spec{Name: "metadata-hits", Params: map[string]any{"a": 0.6, "b": 0.5}}); err == nil {
		t.Error("a + b + c > 1 accepted")
	}
	// best-first with amh = 1 is AMH times the link-type multiplier.
	bf := mustNew(t, "best-first", map[string]any{"amh": 1.0}, env(t))
	if got := bf.Score(Parent{URL: "http://x/"}, Link{URL: "http://x/a.html", Anchor: "neural network"}); got != 0.5 {
		t.Errorf("best-first amh 1 = %v, want 0.5", got)
	}
}
