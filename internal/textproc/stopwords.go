package textproc

import (
	_ "embed"
	"strings"
)

// The stop-word lists are plain text so that they can be reviewed and
// extended without touching code.
var (
	//go:embed stopwords_zh.txt
	stopWordsZH string
	//go:embed stopwords_en.txt
	stopWordsEN string
)

// stopWords is the union of both lists; Chinese and English entries cannot
// collide, so one lookup serves both scripts.
var stopWords = func() map[string]struct{} {
	m := make(map[string]struct{}, 512)
	for _, list := range []string{stopWordsZH, stopWordsEN} {
		for line := range strings.Lines(list) {
			w := strings.TrimSpace(line)
			if w == "" || strings.HasPrefix(w, "#") {
				continue
			}
			m[w] = struct{}{}
		}
	}
	return m
}()

// IsStopWord reports whether term is a Chinese or English stop word. The term
// is compared in term form (lower-cased, width-folded, possessive "'s"
// removed), so "The", "ＴＨＥ" and "it's" are all stop words.
func IsStopWord(term string) bool {
	if needsFold(term) {
		folded := make([]rune, 0, len(term))
		for _, r := range term {
			folded = append(folded, fold(r))
		}
		term = string(folded)
	}
	if n := len(term); n > 2 && strings.HasSuffix(term, "'s") {
		term = term[:n-2]
	}
	_, ok := stopWords[term]
	return ok
}
