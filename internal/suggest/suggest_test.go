package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"kitten", "sitting", 3},
		{"keywords", "keywrods", 2}, {"HOST_DELAY", "HOST_DELAYS", 1}, {"same", "same", 0},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	cands := []string{"keywords", "seeds", "samples", "lexicon"}
	if got := Closest("keywrods", cands, 2); got != "keywords" {
		t.Errorf("Closest(keywrods) = %q, want keywords", got)
	}
	if got := Closest("sample", cands, 2); got != "samples" {
		t.Errorf("Closest(sample) = %q, want samples", got)
	}
	if got := Closest("budget", cands, 2); got != "" {
		t.Errorf("Closest(budget) = %q, want none (nothing within 2 edits)", got)
	}
	// Ties go to the first candidate.
	if got := Closest("ab", []string{"ax", "ay"}, 1); got != "ax" {
		t.Errorf("Closest(ab, [ax ay]) = %q, want ax", got)
	}
}
