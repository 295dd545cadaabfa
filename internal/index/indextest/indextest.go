// Package indextest holds test doubles shared by the index packages' tests.
package indextest

import "strings"

// SearchModeSegmenter cuts the words it lists as gojieba's search mode does
// (a long word's shorter dictionary words, then the word) and everything
// else at spaces, lower-cased: a stand-in for the shared tokenizer's
// segmenter that needs no dictionary.
type SearchModeSegmenter map[string]string

// Segment implements the index packages' Segmenter.
func (s SearchModeSegmenter) Segment(text string) string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(text)) {
		if cut, ok := s[f]; ok {
			f = cut
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}
