package index

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// HanWord is a query word of Han characters that a page can hold without
// the index having a token for it. Documents are cut in search mode, which
// writes before each word the shorter dictionary words of two and three
// characters inside it, and then the word: 中华人民共和国 is indexed as
// 中华 华人 人民 共和 共和国 中华人民共和国, with no token 人民共和国, and
// 中华人民共和国中央人民政府, one dictionary word, has no token
// 中华人民共和国. What such a page does have, wherever the word lies inside
// one of its words, are the word's own shorter words: whether a run of
// characters is a dictionary word does not depend on the text around it.
type HanWord struct {
	// Word is the term (of ParseQuery's terms).
	Word string
	// Parts are the shorter words the index writes before Word, each once,
	// in that order, without those the others make redundant
	// (redundantTokens: 计算机 beside 计算 and 算机, 共和 beside 共和国);
	// together they cover every character of Word.
	Parts []string
}

// Distance is how far apart, in index positions, a backend lets the word's
// Parts be (NearDistance of its length).
func (w HanWord) Distance() int {
	return NearDistance(utf8.RuneCountInString(w.Word))
}

// HanWords splits terms (ParseQuery's) into those a backend requires as
// they are (plain) and the Han words it matches either whole or by their
// parts (words): a term of three or more Han characters whose shorter words
// — what seg writes before it when cutting it alone, which is what the index
// writes before it in a page — cover all of its characters. A backend
// matches such a word where the page has it as a token, or where its Parts
// are within Distance of each other and, where the backend can check it,
// its characters are in a row (sqlitefts reads the stored text,
// ContainsChars; Elasticsearch, which cannot, matches the Parts as a sloppy
// phrase).
//
// The shorter words themselves, which ParseQuery lists as terms beside the
// word, are in neither list: requiring them apart adds nothing (a page with
// the word as a token has them, and the parts are required with it), and a
// shorter word that is itself such a word (计算机 in 计算机科学) is part of
// the longer one's match.
func HanWords(terms []string, seg Segmenter) (plain []string, words []HanWord) {
	var shorter map[string]bool
	found := make(map[string][]string)
	for _, t := range terms {
		sub := shorterWords(t, seg)
		if sub == nil {
			continue
		}
		parts, ok := wordParts(t, sub)
		if !ok {
			continue // a character no part holds: only the word itself says it is there
		}
		found[t] = parts
		if shorter == nil {
			shorter = make(map[string]bool)
		}
		for _, s := range sub {
			shorter[s] = true
		}
	}
	for _, t := range terms {
		switch parts, ok := found[t]; {
		case shorter[t]:
		case ok:
			words = append(words, HanWord{Word: t, Parts: parts})
		default:
			plain = append(plain, t)
		}
	}
	return plain, words
}

// NearDistance is how far apart, in index positions, a backend lets the
// tokens it looks for of a run of n Han characters be (HanPhrase.Tokens,
// HanWord.Parts): the tokens between the first and the last in an FTS5
// NEAR group, the slop of an Elasticsearch phrase. Search mode writes at
// most two shorter words per character of a word before the word, so the
// tokens of a run lie within about 2n positions: for every run of two
// characters or more inside a dictionary word of five characters or more
// (and every twentieth of four) they did, by FTS5's count and by a model
// of Lucene's slop, once the redundant tokens were dropped; with them, a
// quoted “联合国” inside 联合国教科文组织世界遗产委员会 (联合 first, 联合国
// eight positions on) needed more.
func NearDistance(n int) int {
	return 2 * n
}

// shorterWords returns the tokens seg writes before w when cutting it alone
// — in search mode, w's shorter dictionary words — if w is a word of three
// Han characters or more that seg writes so, and nil otherwise.
func shorterWords(w string, seg Segmenter) []string {
	if utf8.RuneCountInString(w) < 3 || !allHan(w) {
		return nil
	}
	toks := searchableTokens(seg.Segment(w))
	if len(toks) < 2 || toks[len(toks)-1] != w {
		return nil // cut alone it is not one word
	}
	sub := toks[:len(toks)-1]
	if slices.ContainsFunc(sub, func(s string) bool { return len(s) >= len(w) || !strings.Contains(w, s) }) {
		return nil
	}
	return sub
}

// wordParts returns sub, w's shorter words, each once and without those
// the others make redundant, and whether sub covers every character of w.
func wordParts(w string, sub []string) (parts []string, covered bool) {
	drop := redundantTokens(sub)
	for _, s := range sub {
		if !drop[s] && !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	return parts, covers(w, sub)
}

// phraseTokens returns the tokens of a Han phrase (toks, as seg cut it) a
// backend looks for, in order, repeats kept: where a word is written after
// its shorter words (search mode), the word if they do not cover it
// (联合国 without 联合, which says nothing more) and else the fewest of
// them (wordParts: 中华 华人 人民 共和国 for 中华人民共和国). A page can hold
// the phrase inside a longer word and so lack a long token of it, while
// the shorter words are written wherever the characters lie inside one of
// its words; and search mode writes a word's two-character words before
// its three-character ones, which puts 联合 and 联合国 eight positions apart
// in 联合国教科文组织世界遗产委员会. Only the occurrences written for the
// word go: in “共和共和国” the first 共和 stays.
func phraseTokens(toks []string, seg Segmenter) []string {
	keep := make([]bool, len(toks))
	for i := range keep {
		keep[i] = true
	}
	for i, w := range toks {
		sub := shorterWords(w, seg)
		k := len(sub)
		if k == 0 || i < k || !slices.Equal(toks[i-k:i], sub) {
			continue
		}
		parts, covered := wordParts(w, sub)
		if covered {
			keep[i] = false
		}
		for j := i - k; j < i; j++ {
			if !covered || !slices.Contains(parts, toks[j]) {
				keep[j] = false
			}
		}
	}
	out := make([]string, 0, len(toks))
	for i, t := range toks {
		if keep[i] {
			out = append(out, t)
		}
	}
	return out
}

// redundantTokens returns the set of the distinct tokens of toks, the
// shorter words of one word, that a backend need not look for as long as
// it requires the others: first each token whose characters are all
// covered by occurrences inside it of shorter tokens of toks (计算机 among
// 计算 算机; not 共和国 beside 共和: 国 is not covered), then, among the
// rest, each token inside a longer one (共和 inside 共和国). What is left
// covers every character of what was dropped.
func redundantTokens(toks []string) map[string]bool {
	drop := make(map[string]bool)
	for _, t := range toks {
		if !drop[t] && covers(t, toks) {
			drop[t] = true
		}
	}
	for _, t := range toks {
		if drop[t] {
			continue
		}
		for _, u := range toks {
			if len(u) > len(t) && !drop[u] && strings.Contains(u, t) {
				drop[t] = true
				break
			}
		}
	}
	return drop
}

// covers reports whether the occurrences in t of the tokens of toks shorter
// than t cover every byte of t (so every character: a token is valid UTF-8,
// and its occurrences start at character boundaries).
func covers(t string, toks []string) bool {
	if len(t) == 0 {
		return false
	}
	marked := make([]bool, len(t))
	for _, u := range toks {
		if len(u) == 0 || len(u) >= len(t) {
			continue
		}
		for i := 0; i < len(t); {
			k := strings.Index(t[i:], u)
			if k < 0 {
				break
			}
			for j := i + k; j < i+k+len(u); j++ {
				marked[j] = true
			}
			i += k + 1
		}
	}
	return !slices.Contains(marked, false)
}

// allHan reports whether s is made of Han characters only.
func allHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.Is(unicode.Han, r) }) < 0
}
