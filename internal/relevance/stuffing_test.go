package relevance

import (
	"fmt"
	"strings"
	"testing"

	"focuscrawl/internal/textproc"
)

// TestStuffed: a page that is a topic's keywords repeated is stuffing
// however long; prose, a short page and a long real listing are not.
func TestStuffed(t *testing.T) {
	tok := textproc.Shared()
	prose := func(words int) string {
		var b strings.Builder
		for i := range words {
			fmt.Fprintf(&b, "rose%d garden ", i) // a new word every other word: a growing vocabulary
		}
		return b.String()
	}
	listing := func(terms, times int) string { // terms names, each times
		var b strings.Builder
		for range times {
			for i := range terms {
				fmt.Fprintf(&b, "operator%d ", i)
			}
		}
		return b.String()
	}
	for _, c := range []struct {
		name string
		text string
		want bool
	}{
		{"keywords repeated", strings.Repeat("rose roses pruning garden climbing ", 2000), true},
		{"keywords repeated, a paragraph of prose beside", prose(20) + strings.Repeat("rose roses pruning garden climbing ", 2000), true},
		{"prose", prose(2000), false},
		{"a short page", strings.Repeat("rose garden ", 50), false},
		{"a listing: 80 terms, 2,400 occurrences (as liboctave's operator list)", listing(80, 30), false},
		{"a listing of 40 terms 100 times", listing(40, 100), true},
	} {
		n, d, got := Stuffed(tok.TermFreq(c.text))
		if got != c.want {
			t.Errorf("%s: Stuffed = %v (%d occurrences, %d distinct), want %v", c.name, got, n, d, c.want)
		}
	}
}
