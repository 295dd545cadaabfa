package index

import (
	"html"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"focuscrawl/internal/textproc"
	"focuscrawl/internal/textproc/hant"
)

// DefaultSnippetRunes is the snippet length Snippet uses when given
// maxRunes <= 0: about two lines of a result page.
const DefaultSnippetRunes = 240

// snapRunes is how far Snippet moves a window edge to avoid cutting a word in
// half; further than this and the text has no nearby space (CJK), so the cut
// stays where it is.
const snapRunes = 16

// Snippet returns an HTML excerpt of text of at most maxRunes characters
// (DefaultSnippetRunes if maxRunes <= 0), chosen as the window holding the
// most distinct terms, then the most term occurrences, earliest on ties.
// Matches are wrapped in <mark>…</mark>, everything else is HTML-escaped, and
// "…" marks an end where text was cut. Runs of whitespace become one space.
// Without any match it returns the start of the text.
//
// It works on the original, unsegmented text and is backend-neutral.
// Matching folds as the tokenizer and the index do (case, width, Latin
// diacritics; see fold) and passes over invisible format characters, which
// the snippet keeps. A term written in a script without spaces between words (Han, kana,
// Thai, ...) matches anywhere, since its word boundaries are not in the text;
// other terms must match whole words ("art" does not mark "start").
func Snippet(text string, terms []string, maxRunes int) string {
	return SnippetOutside(text, nil, terms, maxRunes)
}

// SnippetOutside is Snippet for a text whose byte ranges linkSpans are
// link text (Document.LinkSpans): the window is chosen among the matches
// outside them — the page's prose rather than its table of contents —
// and among all matches only when none is outside. Matches in link text
// within the chosen window are marked as any.
func SnippetOutside(text string, linkSpans [][2]int, terms []string, maxRunes int) string {
	if maxRunes <= 0 {
		maxRunes = DefaultSnippetRunes
	}
	runes, runeSpans := collapseSpaceAt(text, linkSpans)
	n := len(runes)
	if n == 0 {
		return ""
	}
	// Runes are compared in NFC, the form of the tokenizer's terms: a
	// decomposed page (Hangul jamo, kana with a combining voiced mark) or
	// one with CJK compatibility ideographs was found by a query it showed
	// no match for. The snippet shows the text as it is.
	// Traditional Chinese is compared in Simplified, as the tokenizer's
	// terms are (package hant).
	all := findMatches(simplifiedView(runes), prepareTerms(terms), textproc.NFC(text) != text)
	matches := all // those the window is chosen among
	if len(runeSpans) > 0 {
		if prose := outside(all, runeSpans); len(prose) > 0 {
			matches = prose
		}
	}
	if len(matches) == 0 {
		end := n
		if end > maxRunes {
			end = snapEnd(runes, maxRunes, 0)
		}
		return render(runes, 0, end, nil)
	}

	// Densest window: two pointers over matches sorted by start, keeping the
	// span from the first kept match's start to the last one's end within
	// maxRunes.
	counts := make(map[int]int)
	bestI, bestJ, bestDistinct, bestTotal := 0, 0, 0, 0
	i := 0
	for j, m := range matches {
		counts[m.term]++
		for i < j && m.end-matches[i].start > maxRunes {
			if counts[matches[i].term]--; counts[matches[i].term] == 0 {
				delete(counts, matches[i].term)
			}
			i++
		}
		if d, t := len(counts), j-i+1; d > bestDistinct || (d == bestDistinct && t > bestTotal) {
			bestI, bestJ, bestDistinct, bestTotal = i, j, d, t
		}
	}
	a, b := matches[bestI].start, matches[bestJ].end

	// Place the window around [a,b): spare room split evenly before and
	// after, shifted to stay inside the text.
	start := a
	if slack := maxRunes - (b - a); slack > 0 {
		start = a - slack/2
	}
	if start+maxRunes > n {
		start = n - maxRunes
	}
	if start < 0 {
		start = 0
	}
	end := start + maxRunes
	if end > n {
		end = n
	}
	start = snapStart(runes, start, a)
	end = snapEnd(runes, end, b)
	return render(runes, start, end, all)
}

// outside returns the matches whose first rune is in none of the sorted,
// disjoint rune ranges spans.
func outside(matches []match, spans [][2]int) []match {
	var out []match
	for _, m := range matches {
		i := sort.Search(len(spans), func(i int) bool { return spans[i][1] > m.start })
		if i == len(spans) || m.start < spans[i][0] {
			out = append(out, m)
		}
	}
	return out
}

// collapseSpace returns text's runes with whitespace runs replaced by one
// space and the ends trimmed. Invisible format characters stay (a
// zero-width joiner is part of a Persian word's spelling and of an emoji
// sequence); matching passes over them (matchable).
func collapseSpace(text string) []rune {
	out, _ := collapseSpaceAt(text, nil)
	return out
}

// collapseSpaceAt is collapseSpace that also turns byteSpans, sorted and
// disjoint byte ranges of text, into ranges of the runes it returns: a
// range starts at the first rune at or after its first byte and ends
// before the first rune at or after its end (a collapsed space stands at
// its run's first byte).
func collapseSpaceAt(text string, byteSpans [][2]int) ([]rune, [][2]int) {
	out := make([]rune, 0, len(text))
	var spans [][2]int
	if len(byteSpans) > 0 {
		spans = make([][2]int, len(byteSpans))
	}
	si, ei := 0, 0 // the next range whose start, end is to be placed
	place := func(off int) {
		for si < len(byteSpans) && byteSpans[si][0] <= off {
			spans[si][0] = len(out)
			si++
		}
		for ei < len(byteSpans) && byteSpans[ei][1] <= off {
			spans[ei][1] = len(out)
			ei++
		}
	}
	space, spaceAt := false, 0
	for i, r := range text {
		if unicode.IsSpace(r) {
			if !space {
				spaceAt = i
			}
			space = true
			continue
		}
		if space && len(out) > 0 {
			place(spaceAt)
			out = append(out, ' ')
		}
		space = false
		place(i)
		out = append(out, r)
	}
	place(math.MaxInt) // every range not placed yet ends (or starts) after the last rune
	return out, spans
}

// matchable reports whether matching compares r: invisible format
// characters (dropped by the tokenizer inside a word: a page found by "path"
// for its "pa\u200bth" shows the match marked) and combining diacritical
// marks (the index folds diacritics: "cafe" finds "cafe\u0301") are passed
// over.
func matchable(r rune) bool {
	return !textproc.IsFormat(r) && !isCombiningDiacritic(r)
}

func isCombiningDiacritic(r rune) bool { return r >= 0x0300 && r <= 0x036F }

// fold maps r to the form matching compares: the tokenizer's fold
// (textproc.Fold: width, typographic apostrophes and hyphens, case — so a
// query "GIMP's" marks the text's "GIMP’s", which it matched), then a Latin
// letter's diacritics removed, as the index does (SQLite FTS5's
// remove_diacritics, Elasticsearch's asciifolding): "cafe" marks "café". It
// maps one rune to one rune.
func fold(r rune) rune {
	if r >= 0x4E00 && r <= 0x9FFF {
		return r // the common Han block folds to itself; most of a Chinese page
	}
	r = textproc.Fold(r)
	switch {
	case r >= 0xC0 && r <= 0x24F:
		return latinBase[r-0xC0]
	case r >= 0x1E00 && r <= 0x1EFF:
		return latinBase[r-0x1E00+0x24F-0xC0+1]
	}
	return r // only Latin-1, Latin Extended-A/B and Additional carry them
}

// strokeFolds are the lower-case Latin letters with a stroke or similar mark
// and no decomposition that asciifolding folds to one ASCII letter ("lodz"
// finds "Łódź" on Elasticsearch).
var strokeFolds = map[rune]rune{
	'ł': 'l', 'ø': 'o', 'đ': 'd', 'ð': 'd', 'ħ': 'h', 'ı': 'i', 'ŧ': 't', 'ŀ': 'l', 'ƀ': 'b', 'ƚ': 'l',
}

// latinBase maps the letters of Latin-1 (from U+00C0), Latin Extended-A/B
// and Latin Extended Additional to their base letter when their canonical
// decomposition is that letter and combining diacritics only, or when
// Elasticsearch's asciifolding folds them to one letter though they have
// none (strokeFolds); else to themselves (æ, ß fold to two letters).
// SQLite's remove_diacritics leaves the stroke letters alone, so there a
// snippet may mark a little more than the search matched, never less.
var latinBase = func() []rune {
	var out []rune
	for _, block := range [][2]rune{{0xC0, 0x24F}, {0x1E00, 0x1EFF}} {
		for r := block[0]; r <= block[1]; r++ {
			base := r
			if f, ok := strokeFolds[r]; ok {
				base = f
			} else if d := norm.NFD.String(string(r)); d != string(r) {
				b, size := utf8.DecodeRuneInString(d)
				if strings.IndexFunc(d[size:], func(m rune) bool { return !isCombiningDiacritic(m) }) < 0 {
					base = b
				}
			}
			out = append(out, base)
		}
	}
	return out
}()

type snippetTerm struct {
	runes []rune
	// boundStart and boundEnd: the match must not continue a word on that
	// side (false for scripts written without spaces).
	boundStart, boundEnd bool
}

// prepareTerms folds, de-duplicates and sorts terms longest first, so that at
// any position the longest term wins ("图像滤镜" over "图像").
func prepareTerms(terms []string) []snippetTerm {
	seen := make(map[string]bool)
	var out []snippetTerm
	for _, t := range terms {
		var rs []rune
		for _, r := range collapseSpace(hant.Simplified(textproc.NFC(t))) {
			if matchable(r) {
				rs = append(rs, fold(r))
			}
		}
		if len(rs) == 0 {
			continue
		}
		key := string(rs)
		if seen[key] {
			continue
		}
		seen[key] = true
		first, last := rs[0], rs[len(rs)-1]
		out = append(out, snippetTerm{
			runes:      rs,
			boundStart: isWordRune(first) && !unspaced(first),
			boundEnd:   isWordRune(last) && !unspaced(last),
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].runes) > len(out[j].runes) })
	return out
}

// simplifiedView returns runes with each Han run that holds a
// traditional-only character in Simplified Chinese, rune for rune, so that
// match positions index runes as they are; runes itself when there is none.
// A run whose conversion changes its length (a phrase: 記憶體 → 内存) is
// converted character by character instead, so its phrase-converted terms
// are not marked but its others are.
func simplifiedView(runes []rune) []rune {
	var view []rune
	for i := 0; i < len(runes); {
		if !unicode.Is(unicode.Han, runes[i]) {
			i++
			continue
		}
		j, trad := i, false
		for j < len(runes) && unicode.Is(unicode.Han, runes[j]) {
			// A compatibility ideograph counts as its unified form, as
			// the tokenizer reads it (NFC first): U+F914 is 樂.
			trad = trad || hant.IsTraditional(unifiedIdeograph(runes[j]))
			j++
		}
		if trad {
			if view == nil {
				view = append([]rune(nil), runes...)
			}
			run := make([]rune, j-i)
			for k := range run {
				run[k] = unifiedIdeograph(runes[i+k])
			}
			conv := []rune(hant.Simplified(string(run)))
			if len(conv) == len(run) {
				copy(view[i:j], conv)
			} else {
				for k, r := range run {
					if c := []rune(hant.Simplified(string(r))); len(c) == 1 {
						view[i+k] = c[0]
					}
				}
			}
		}
		i = j
	}
	if view == nil {
		return runes
	}
	return view
}

// unifiedIdeograph returns a CJK compatibility ideograph's unified
// ideograph, its NFC form (always one rune), and any other r as it is.
func unifiedIdeograph(r rune) rune {
	if (r < 0xF900 || r > 0xFAFF) && (r < 0x2F800 || r > 0x2FA1F) {
		return r
	}
	u, _ := utf8.DecodeRuneInString(norm.NFC.String(string(r)))
	return u
}

type match struct{ start, end, term int }

// findMatches returns non-overlapping matches of terms in runes, left to
// right, longest term first at each position. With compose (runes are not
// all in NFC), each NFC segment — a starter and the marks or jamo that
// combine with it — is compared in its NFC form, and a match covers whole
// segments of runes.
func findMatches(runes []rune, terms []snippetTerm, compose bool) []match {
	if len(terms) == 0 {
		return nil
	}
	byFirst := make(map[rune][]int)
	for i, t := range terms {
		byFirst[t.runes[0]] = append(byFirst[t.runes[0]], i)
	}
	// folded holds the runes matching compares; at[k] is folded[k]'s index
	// in runes, and with compose, ends[k] the index past its segment.
	folded := make([]rune, 0, len(runes))
	at := make([]int, 0, len(runes))
	var ends []int
	if compose {
		ends = make([]int, 0, len(runes))
	}
	for i := 0; i < len(runes); {
		j := i + 1
		if compose {
			for j < len(runes) && !norm.NFC.PropertiesString(string(runes[j])).BoundaryBefore() {
				j++
			}
			if seg := string(runes[i:j]); textproc.NFC(seg) != seg {
				for _, r := range textproc.NFC(seg) {
					if matchable(r) {
						folded, at, ends = append(folded, fold(r)), append(at, i), append(ends, j)
					}
				}
				i = j
				continue
			}
			j = i + 1
		}
		if r := runes[i]; matchable(r) {
			folded, at = append(folded, fold(r)), append(at, i)
			if compose {
				ends = append(ends, i+1)
			}
		}
		i = j
	}
	var out []match
	for i := 0; i < len(folded); {
		found := -1
		for _, ti := range byFirst[folded[i]] {
			if termAt(folded, i, terms[ti]) {
				found = ti
				break
			}
		}
		if found < 0 {
			i++
			continue
		}
		end := i + len(terms[found].runes)
		// In runes: from the first matched rune to past the last one (its
		// segment) and the diacritics on it.
		stop := at[end-1] + 1
		if compose {
			stop = ends[end-1]
		}
		for stop < len(runes) && isCombiningDiacritic(runes[stop]) {
			stop++
		}
		out = append(out, match{start: at[i], end: stop, term: found})
		i = end
	}
	return out
}

func termAt(folded []rune, i int, t snippetTerm) bool {
	end := i + len(t.runes)
	if end > len(folded) {
		return false
	}
	for k, r := range t.runes {
		if folded[i+k] != r {
			return false
		}
	}
	if t.boundStart && i > 0 && continuesWord(folded[i-1]) {
		return false
	}
	if t.boundEnd && end < len(folded) && continuesWord(folded[end]) {
		return false
	}
	return true
}

// continuesWord reports whether r, next to a match of a spaced-script term,
// makes the match part of a longer word. Han and the like do not: in
// "用Photoshop做" the word Photoshop stands alone.
func continuesWord(r rune) bool { return isWordRune(r) && !unspaced(r) }

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// unspaced reports whether r belongs to a script written without spaces
// between words, where a term is found as a plain substring.
func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.Tibetan)
}

// snapStart moves a window start that falls inside a word forward to the
// word's end, if that is near and does not pass limit (the first match).
func snapStart(runes []rune, start, limit int) int {
	if start == 0 || !isWordRune(runes[start-1]) || !isWordRune(runes[start]) {
		return skipSpace(runes, start, limit)
	}
	for k := start; k < limit && k-start <= snapRunes; k++ {
		if runes[k] == ' ' {
			return k + 1
		}
	}
	return start
}

func skipSpace(runes []rune, start, limit int) int {
	for start < limit && runes[start] == ' ' {
		start++
	}
	return start
}

// snapEnd moves a window end that falls inside a word back to the word's
// start, if that is near and does not cut limit (the last match's end).
func snapEnd(runes []rune, end, limit int) int {
	if end == len(runes) || !isWordRune(runes[end-1]) || !isWordRune(runes[end]) {
		for end > limit && runes[end-1] == ' ' {
			end--
		}
		return end
	}
	for k := end - 1; k > limit && end-k <= snapRunes; k-- {
		if runes[k] == ' ' {
			return k
		}
	}
	return end
}

// render writes runes[start:end] as escaped HTML, marking the matches that
// lie wholly inside, with "…" at cut ends.
func render(runes []rune, start, end int, matches []match) string {
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	pos := start
	for k := 0; k < len(matches); k++ {
		m := matches[k]
		if m.start < start || m.end > end {
			continue
		}
		// Adjacent matches ("高斯" + "模糊") form one highlighted span.
		for k+1 < len(matches) && matches[k+1].start == m.end && matches[k+1].end <= end {
			k++
			m.end = matches[k].end
		}
		b.WriteString(html.EscapeString(string(runes[pos:m.start])))
		b.WriteString("<mark>")
		b.WriteString(html.EscapeString(string(runes[m.start:m.end])))
		b.WriteString("</mark>")
		pos = m.end
	}
	b.WriteString(html.EscapeString(string(runes[pos:end])))
	if end < len(runes) {
		b.WriteString("…")
	}
	return b.String()
}
