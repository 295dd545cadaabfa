package textsig

import (
	"fmt"
	"maps"
	"testing"
)

// article is the plain text of a long page: 40 terms, term i occurring
// 2 + i%5 times (160 words).
func article() map[string]int {
	tf := map[string]int{}
	for i := range 40 {
		tf[fmt.Sprintf("term%d", i)] = 2 + i%5
	}
	return tf
}

// with is tf with the given terms' counts added (a negative one removes).
func with(tf map[string]int, add map[string]int) map[string]int {
	out := maps.Clone(tf)
	for t, n := range add {
		out[t] += n
		if out[t] <= 0 {
			delete(out, t)
		}
	}
	return out
}

func TestPlainIsTheTextLessItsLinks(t *testing.T) {
	text := map[string]int{"rose": 5, "std": 2, "home": 1, "garden": 3}
	anchor := map[string]int{"std": 2, "home": 1, "garden": 1, "elsewhere": 4}
	got := Plain(text, anchor)
	if want := map[string]int{"rose": 5, "garden": 2}; !maps.Equal(got, want) {
		t.Errorf("Plain = %v, want %v", got, want)
	}
}

func TestSignature(t *testing.T) {
	a := article()
	sig := Signature(a)
	if len(sig) != 32 {
		t.Fatalf("Signature(article) = %q, want 32 hex digits", sig)
	}
	for _, tc := range []struct {
		name string
		tf   map[string]int
		same bool
	}{
		// One-off words (a footer's date, a session note) are below the
		// quantum of 2.
		{"one-off footer words", with(a, map[string]int{"printed": 1, "2024": 1, "session": 1}), true},
		// A count that stays in its quantum bucket (3 → 2, 2 → 2).
		{"a count within its bucket", with(a, map[string]int{"term1": -1}), true},
		{"a count into the next bucket", with(a, map[string]int{"term0": 2}), false},
		{"a new frequent term", with(a, map[string]int{"pruning": 2}), false},
		{"a frequent term less", with(a, map[string]int{"term0": -2}), false},
	} {
		if got := Signature(tc.tf) == sig; got != tc.same {
			t.Errorf("%s: same signature %v, want %v", tc.name, got, tc.same)
		}
	}
}

// TestSignatureQuantum: the quantum grows with the most frequent term (1%
// of its count): a long page's rare terms are left out.
func TestSignatureQuantum(t *testing.T) {
	a := with(article(), map[string]int{"rose": 400}) // quantum 4
	sig := Signature(a)
	// term0 (2) and term1 (3) are under the quantum; term2 (4) is not.
	if Signature(with(a, map[string]int{"term0": 1})) != sig {
		t.Error("a term under the quantum changed the signature")
	}
	if Signature(with(a, map[string]int{"term2": -1})) == sig {
		t.Error("a term falling under the quantum left the signature as it was")
	}
}

// TestSignatureShortPages: pages with too little plain text, or too few
// frequent terms, get none: their signature would collapse pages that
// share a template but are not copies.
func TestSignatureShortPages(t *testing.T) {
	short := map[string]int{}
	for i := range 30 {
		short[fmt.Sprintf("w%d", i)] = 3 // 90 words
	}
	if sig := Signature(short); sig != "" {
		t.Errorf("Signature(%d words) = %q, want none", 90, sig)
	}
	few := map[string]int{"rose": 60, "garden": 40, "once": 1} // with t0-t4: 111 words, 7 frequent terms
	for i := range 5 {
		few[fmt.Sprintf("t%d", i)] = 2
	}
	if sig := Signature(few); sig != "" {
		t.Errorf("Signature(7 frequent terms) = %q, want none", sig)
	}
	if Signature(map[string]int{}) != "" || Signature(nil) != "" {
		t.Error("Signature(no text) is not empty")
	}
}

func TestNear(t *testing.T) {
	a := article() // 160 words: NearRate allows 8 words of difference
	for _, tc := range []struct {
		name string
		b    map[string]int
		want bool
	}{
		{"the same text", a, true},
		{"a footer of 6 words more", with(a, map[string]int{"printed": 1, "on": 1, "2024": 1, "05": 1, "06": 1, "session": 1}), true},
		{"a breadcrumb word and a title word changed", with(a, map[string]int{"std": 1, "core": 1, "term3": -1}), true},
		{"own sentences of 15 words instead of another 15", with(a, map[string]int{
			"a1": 1, "a2": 1, "a3": 1, "a4": 1, "a5": 1, "a6": 1, "a7": 1, "a8": 1,
			"a9": 1, "a10": 1, "a11": 1, "a12": 1, "a13": 1, "a14": 1, "a15": 1,
			"term0": -2, "term5": -2, "term10": -2, "term15": -2, "term20": -2, "term25": -2, "term30": -2, "term35": -1,
		}), false},
	} {
		if got := Near(a, tc.b); got != tc.want {
			t.Errorf("Near(%s) = %v, want %v", tc.name, got, tc.want)
		}
		if got := Near(tc.b, a); got != tc.want {
			t.Errorf("Near(%s), the other way = %v, want %v", tc.name, got, tc.want)
		}
	}
	short := map[string]int{"rose": 50}
	if Near(short, short) {
		t.Error("Near(a short text, itself) = true; short pages have no near copies")
	}
}
