package index

import (
	"slices"
	"strings"
	"testing"
)

// TestQueryParts: a query's words and quoted phrases, each once; joined by
// spaces they parse to the query's own terms and phrases.
func TestQueryParts(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"gradient descent data", []string{"gradient", "descent", "data"}},
		{`apache "virtual  host" ssl`, []string{"apache", `"virtual host"`, "ssl"}},
		{`“one” two two`, []string{"one", "two"}}, // a quoted single word is a word; repeats once
		{"高斯 模糊 滤镜", []string{"高斯", "模糊", "滤镜"}},
		{`"!!" word`, []string{"word"}}, // a quoted part with no searchable word is no part
	} {
		got, err := QueryParts(tt.text, spaceSegmenter{})
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("QueryParts(%q) = %q, %v; want %q", tt.text, got, err, tt.want)
			continue
		}
		t1, p1, _ := ParseQuery(tt.text, spaceSegmenter{})
		t2, p2, err := ParseQuery(strings.Join(got, " "), spaceSegmenter{})
		if err != nil || !slices.Equal(t1, t2) || len(p1) != len(p2) {
			t.Errorf("%q: parts parse to %q %q, the query to %q %q (%v)", tt.text, t2, p2, t1, p1, err)
		}
	}
	if _, err := QueryParts("!!! ??", spaceSegmenter{}); err == nil {
		t.Error("a query with no searchable word must be an error, as for ParseQuery")
	}
}

// TestRelaxedNote names what was left out, quoting words and keeping a
// phrase's own quotes.
func TestRelaxedNote(t *testing.T) {
	if n := RelaxedNote(nil); n != "" {
		t.Errorf("nothing missing: %q", n)
	}
	if n, want := RelaxedNote([]string{"data"}), `no page has "data": results without it`; n != want {
		t.Errorf("got %q, want %q", n, want)
	}
	if n, want := RelaxedNote([]string{"data", `"red fox"`}), `no page has "data", "red fox": results without them`; n != want {
		t.Errorf("got %q, want %q", n, want)
	}
}
