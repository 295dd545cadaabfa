package lexicon

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = `# test lexicon
name: test
机器学习 | hyponym | 深度学习, 监督学习 | 0.9
深度学习 | hyponym | 卷积神经网络 | 0.8
卷积神经网络 | synonym | CNN
神经网络 | near-synonym | 人工神经网络 | 0.9
机器学习 | related | 数据挖掘
`

func parse(t *testing.T, s string) *Lexicon {
	t.Helper()
	l, err := Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestExpand(t *testing.T) {
	l := parse(t, sample)
	if l.Name != "test" || l.Len() != 6 {
		t.Fatalf("name %q len %d", l.Name, l.Len())
	}
	for _, tc := range []struct {
		term  string
		depth int
		want  map[string]float64
	}{
		{"机器学习", 0, map[string]float64{"机器学习": 1}},
		{"机器学习", 1, map[string]float64{"机器学习": 1, "深度学习": 0.9, "监督学习": 0.9}},
		{"机器学习", 2, map[string]float64{"机器学习": 1, "深度学习": 0.9, "监督学习": 0.9, "卷积神经网络": 0.72}},
		{"CNN", 2, map[string]float64{"cnn": 1, "卷积神经网络": 1}},
		{"人工神经网络", 1, map[string]float64{"人工神经网络": 1, "神经网络": 0.9}},
		{"unknown", 3, map[string]float64{"unknown": 1}},
	} {
		got := l.Expand(tc.term, tc.depth)
		if len(got) != len(tc.want) {
			t.Errorf("Expand(%s,%d) = %v, want %v", tc.term, tc.depth, got, tc.want)
			continue
		}
		for k, w := range tc.want {
			if !near(got[k], w) {
				t.Errorf("Expand(%s,%d)[%s] = %v, want %v", tc.term, tc.depth, k, got[k], w)
			}
		}
	}
}

func TestRelatedness(t *testing.T) {
	l := parse(t, sample)
	topic := []string{"机器学习", "神经网络"}
	for _, tc := range []struct {
		word string
		want float64
	}{
		{"机器学习", 1},
		{"深度学习", 0.9},
		{"卷积神经网络", 0.72},
		{"人工神经网络", 0.9},
		{"数据挖掘", 0.5},
		{"足球", 0},
	} {
		if got := l.Relatedness(tc.word, topic); !near(got, tc.want) {
			t.Errorf("Relatedness(%s) = %v, want %v", tc.word, got, tc.want)
		}
	}
	// A broader word than a topic term is related too (hyponym read upwards).
	if got := l.Relatedness("机器学习", []string{"深度学习"}); !near(got, 0.9) {
		t.Errorf("broader word relatedness %v, want 0.9", got)
	}
	var nilLex *Lexicon
	if nilLex.Relatedness("a", []string{"A"}) != 1 || nilLex.Relatedness("b", []string{"a"}) != 0 {
		t.Error("nil lexicon should only match identical terms")
	}
}

func TestParseErrorsNameLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a | synonym | b\na | syn | c", "line 2: unknown relation"},
		{"a | synonym", "line 1:"},
		{"\n\na | synonym | b | 1.5", "line 3: relatedness"},
		{"a | synonym | b | x", "line 1: relatedness"},
		{"a | synonym | a", "line 1: a term is related to itself"},
		{"a | synonym | b,,c", "line 1: empty term"},
		{" | synonym | b", "line 1: empty head"},
		{"a | synonym | b\nname: late", "line 2: the name: header"},
	} {
		_, err := Parse(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) error %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	l := parse(t, sample)
	l2, err := Parse(bytes.NewReader(l.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(l.Encode(), l2.Encode()) || l2.Name != "test" {
		t.Fatalf("round trip differs:\n%s\n---\n%s", l.Encode(), l2.Encode())
	}
	if !near(l2.Relatedness("卷积神经网络", []string{"机器学习"}), 0.72) {
		t.Fatal("relations lost in round trip")
	}
}

func TestRepeatedPairKeepsHigher(t *testing.T) {
	l := parse(t, "a | related | b | 0.3\nb | related | a | 0.6\n")
	if got := l.Relatedness("b", []string{"a"}); !near(got, 0.6) {
		t.Fatalf("got %v, want 0.6", got)
	}
}

func TestHyponymCycleTerminates(t *testing.T) {
	l := parse(t, "a | hyponym | b\nb | hyponym | a\n")
	if got := l.Expand("a", 50); len(got) != 2 {
		t.Fatalf("Expand on a cycle = %v", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		if _, err := Parse(bytes.NewReader(l.Encode())); err != nil {
			t.Fatalf("encoded lexicon does not parse: %v\n%s", err, l.Encode())
		}
	})
}

// TestOpenStaysInsideDir is the regression test for "lexicon:
// /proc/self/environ": a topic could name any file the worker can read and
// got its first line back in the error. Only names and relative paths inside
// the lexicon directory open; nothing else does, and no error quotes a file.
func TestOpenStaysInsideDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "lexicons")
	const secret = "PASSWORD=hunter2 | synonym"
	for name, body := range map[string]string{
		"lexicons/ml.txt":         "a | synonym | b\n",
		"lexicons/team/deep.txt":  "c | synonym | d\n",
		"lexicons/broken.txt":     secret + "\n",
		"outside.txt":             secret + "\n",
		"lexicons/sub/.keep":      "",
		"lexicons/sub/notes.text": secret,
	} {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "outside.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base, filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ref      string
		ok       bool
		notFound bool
	}{
		{ref: "ml", ok: true},
		{ref: "ml.txt", ok: true},
		{ref: "team/deep.txt", ok: true},
		{ref: "./team/deep.txt", ok: true},
		{ref: "missing", notFound: true},
		{ref: "team/missing.txt", notFound: true},
		{ref: "team/deep", notFound: true},
		{ref: filepath.Join(base, "outside.txt")},
		{ref: "/proc/self/environ"},
		{ref: "../outside.txt"},
		{ref: "team/../../outside.txt"},
		{ref: "link.txt"},
		{ref: "up/outside.txt"},
		{ref: "broken"},
		{ref: "team", notFound: true},
		{ref: `..\\outside.txt`},
		{ref: "a\x00b"},
	} {
		l, err := Open(dir, tc.ref)
		switch {
		case tc.ok && err != nil:
			t.Errorf("Open(%q): %v", tc.ref, err)
		case tc.ok && l.Len() != 1:
			t.Errorf("Open(%q) read %d pairs, want 1", tc.ref, l.Len())
		case !tc.ok && err == nil:
			t.Errorf("Open(%q) succeeded, want an error", tc.ref)
		case !tc.ok && errors.Is(err, ErrNotFound) != tc.notFound:
			t.Errorf("Open(%q) error %v: ErrNotFound = %v, want %v", tc.ref, err, !tc.notFound, tc.notFound)
		}
		// A path without its ".txt" is read as written, and the error names the file meant.
		if hint := `did you mean "team/deep.txt"?`; tc.ref == "team/deep" && (err == nil || !strings.Contains(err.Error(), hint)) {
			t.Errorf("Open(%q) error %v does not say %s", tc.ref, err, hint)
		}
		if err != nil && (strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "PASSWORD")) {
			t.Errorf("Open(%q) error quotes the file: %v", tc.ref, err)
		}
	}
}

func TestCheckRef(t *testing.T) {
	for _, tc := range []struct {
		ref string
		ok  bool
	}{
		{"ml-zh", true}, {"team/ml.txt", true}, {"", false}, {"/etc/passwd", false},
		{"../x", false}, {"a/../../x", false}, {"a\\b", false}, {"a\nb", false},
	} {
		if err := CheckRef(tc.ref); (err == nil) != tc.ok {
			t.Errorf("CheckRef(%q) = %v, want ok=%v", tc.ref, err, tc.ok)
		}
	}
}

// TestFullWidthTerms: a term written in full width (a Chinese input
// method's full-width mode) matches the page's word, which the tokenizer
// folds to ASCII.
func TestFullWidthTerms(t *testing.T) {
	l, err := Parse(strings.NewReader("ＡＩ | synonym | 人工智能\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Relatedness("ai", []string{"人工智能"}); got != 1 {
		t.Errorf("Relatedness(ai, 人工智能) = %v; want 1 (the lexicon's ＡＩ)", got)
	}
	if got := Normalize(" Ｇｉｍｐ’s "); got != "gimp's" {
		t.Errorf("Normalize = %q; want gimp's", got)
	}
}

// TestNormalizeAsTheTokenizer: a lexicon term folds as the tokenizer folds
// a page's word: invisible format characters (a soft hyphen, a zero-width
// joiner) are dropped, so the term matches the page's word.
func TestNormalizeAsTheTokenizer(t *testing.T) {
	for in, want := range map[string]string{"e\u00admail": "email", "Ｅ\u200dＭＡＩＬ": "email", " AI ": "ai",
		"\u200b AI": "ai", "AI \u00ad": "ai"} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestNormalizeIsNFC: a lexicon term is in NFC as the tokenizer's terms
// are, so a term a macOS editor saved decomposed ("cafe" + U+0301) matches
// the page's word, as a CJK compatibility ideograph its unified one.
func TestNormalizeIsNFC(t *testing.T) {
	l, err := Parse(strings.NewReader("Cafe\u0301 | synonym | coffee\n\uF9E0经 | synonym | zhouyi\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Relatedness("café", []string{"coffee"}); got != 1 {
		t.Errorf("Relatedness(café, coffee) = %v; want 1 (the lexicon's decomposed Cafe\u0301)", got)
	}
	if got := l.Relatedness("易经", []string{"zhouyi"}); got != 1 {
		t.Errorf("Relatedness(易经, zhouyi) = %v; want 1 (the lexicon's \uF9E0经)", got)
	}
	if got := Normalize(" CAFE\u0301 "); got != "café" {
		t.Errorf("Normalize = %q; want %q", got, "café")
	}
}

// TestNormalizeIsSimplified: a lexicon written in Traditional Chinese
// relates the terms the tokenizer gives pages in either script (Simplified,
// package hant).
func TestNormalizeIsSimplified(t *testing.T) {
	l, err := Parse(strings.NewReader("網路 | synonym | 網際網路\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Relatedness("网络", []string{"互联网"}); got != 1 {
		t.Errorf("Relatedness(网络, 互联网) = %v; want 1 (the lexicon's 網路 | 網際網路)", got)
	}
	if got := Normalize("軟體"); got != "软件" {
		t.Errorf("Normalize(軟體) = %q; want 软件", got)
	}
}
