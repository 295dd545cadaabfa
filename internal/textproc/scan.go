package textproc

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/yanyiwu/gojieba"
	"golang.org/x/text/unicode/norm"

	foldpkg "focuscrawl/internal/textproc/fold"
	"focuscrawl/internal/textproc/hant"
)

// emitFunc receives one term. When owned is false the term lives in a scratch
// buffer that is overwritten after the call returns, so a callback that keeps
// the term must copy it; this spares an allocation per capitalised or
// full-width word for callers that only look terms up (TermFreq) or copy them
// anyway (Segment).
type emitFunc func(term string, owned bool)

// scan splits text into terms and passes each kept term to emit, in order.
// search selects CutForSearch instead of Cut for Han runs. With seg, one
// pass serves both: emit gets Tokens' terms and seg Segment's (every
// non-Han word goes to both; each Han run is cut once in search mode, its
// words to seg and, of those, the ones Cut would give to emit — cutRun).
func (t *Tokenizer) scan(text string, search bool, emit, seg emitFunc) {
	var jb *gojieba.Jieba // acquired at the first Han run; most English text never needs it
	defer func() {
		if jb != nil {
			t.mu.RUnlock()
		}
	}()
	t.scanText(text, search, emit, seg, &jb, true)
}

// scanText is scan's loop. *jb is the gojieba instance, acquired (read lock
// held) at the first Han run and released by scan, so that a converted run
// scanned again (convert false) does not take the read lock twice: a
// second RLock waits behind a pending Close and never returns.
func (t *Tokenizer) scanText(text string, search bool, emit, seg emitFunc, jb **gojieba.Jieba, convert bool) {
	var buf []byte // scratch for words that need folding
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if asciiWord[c] {
				j := protectedEnd(text, i, wordEnd(text, i))
				buf = emitWord(text[i:j], buf, emit, seg)
				i = j
			} else {
				i++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if isHan(r) {
			j, formats, trad := hanRun(text, i, size, convert)
			run := text[i:j]
			if formats {
				run = dropFormat(run)
			}
			if hasCompatIdeograph(run) {
				// A CJK compatibility ideograph (U+F900–U+FAFF,
				// U+2F800–U+2FA1F) is its unified ideograph in NFC, as
				// every term is: EUC-KR's duplicate Hanja decode to them,
				// and 不 (U+F967) was a term where 不 is a stop word.
				run = NFC(run)
				// Its unified form may be traditional-only (U+F914 is
				// 樂): the run is then Traditional as the unified one is.
				trad = trad || (convert && hant.HasTraditional(run))
			}
			if trad {
				// Traditional Chinese is cut and indexed as Simplified
				// (package hant): gojieba's dictionary is Simplified, and
				// a topic in one script must find pages in the other.
				run = hant.Simplified(run)
				if !allHan(run) {
					// A mainland word may hold Latin letters (隨身碟 →
					// U盘): read the run as the Simplified text is read,
					// or gojieba is handed "U" and it becomes a term.
					t.scanText(run, search, emit, seg, jb, false)
					i = j
					continue
				}
			}
			if *jb == nil {
				*jb = t.acquire()
			}
			if seg != nil {
				cutRun(*jb, run, emit, seg)
				i = j
				continue
			}
			var words []string
			if search {
				words = (*jb).CutForSearch(run, true)
			} else {
				words = (*jb).Cut(run, true)
			}
			for _, w := range words {
				if _, stop := stopWords[w]; !stop {
					emit(w, true)
				}
			}
			i = j
			continue
		}
		if isWordStart(fold(r)) {
			j := protectedEnd(text, i, wordEnd(text, i))
			buf = emitWord(text[i:j], buf, emit, seg)
			i = j
			continue
		}
		i += size
	}
}

// cutRun cuts one Han run in search mode (gojieba's CutForSearch, with
// offsets) and sends every kept word to seg and the words of Cut to emit.
// CutForSearch is Cut's segmentation with, before each word longer than two
// runes, its dictionary words of two and three runes (cppjieba's
// QuerySegment): Cut's words tile the run, and a search-only word lies
// inside the Cut word that follows it and is shorter. So, walking back from
// the run's last word (always a Cut word), a word inside the span of the
// last Cut word seen and shorter than it is search-only; any other word is
// the next Cut word.
func cutRun(jb *gojieba.Jieba, run string, emit, seg emitFunc) {
	words := jb.Tokenize(run, gojieba.SearchMode, true)
	cut := make([]bool, len(words))
	start, end := -1, -1
	for k := len(words) - 1; k >= 0; k-- {
		w := words[k]
		if start >= 0 && w.Start >= start && w.End <= end && w.End-w.Start < end-start {
			continue
		}
		cut[k], start, end = true, w.Start, w.End
	}
	for k, w := range words {
		if _, stop := stopWords[w.Str]; stop {
			continue
		}
		seg(w.Str, true)
		if cut[k] {
			emit(w.Str, true)
		}
	}
}

// acquire returns the loaded gojieba instance with the read lock held; the
// caller releases it with t.mu.RUnlock.
func (t *Tokenizer) acquire() *gojieba.Jieba {
	for {
		t.mu.RLock()
		if t.jb != nil {
			return t.jb
		}
		t.mu.RUnlock()
		// Only reachable after Close; a load failure here is the same
		// misconfiguration Shared reports, so it panics the same way.
		if err := t.load(); err != nil {
			panic(err)
		}
	}
}

// wordEnd returns the end offset of the word that starts at text[i], which
// must be a word-start rune. See the package comment for the connector rules.
func wordEnd(text string, i int) int {
	r, size := utf8.DecodeRuneInString(text[i:])
	r = fold(r)
	prevLetter, prevDigit := unicode.IsLetter(r), isDigit(r)
	j := i + size
	for j < len(text) {
		r, size = utf8.DecodeRuneInString(text[j:])
		if isHan(r) {
			break
		}
		f := fold(r)
		if isWordStart(f) {
			prevLetter, prevDigit = unicode.IsLetter(f), isDigit(f)
			j += size
			continue
		}
		if unicode.IsMark(f) { // combining accents belong to the letter before
			j += size
			continue
		}
		if isFormat(r) { // invisible: dropped from the word by emitWord
			j += size
			continue
		}
		if f != '\'' && f != '-' && f != '_' && f != '.' {
			break
		}
		// The connector joins with the next visible rune: "covid-\u200b19".
		k := skipFormat(text, j+size)
		if k >= len(text) {
			break
		}
		r2, size2 := utf8.DecodeRuneInString(text[k:])
		if isHan(r2) {
			break
		}
		f2 := fold(r2)
		var join bool
		switch f {
		case '\'':
			join = prevLetter && unicode.IsLetter(f2)
		case '.':
			join = prevDigit && isDigit(f2)
		default: // '-', '_'
			join = isWordStart(f2)
		}
		if !join {
			break
		}
		prevLetter, prevDigit = unicode.IsLetter(f2), isDigit(f2)
		j = k + size2
	}
	return j
}

// isFormat reports whether r is an invisible format character (Unicode
// category Cf): zero-width space, zero-width (non-)joiner, word joiner,
// BOM, soft hyphen, direction marks. Inside a word they are dropped, not
// taken for a boundary: "pa\u200bth" is "path" — in a page (CMS-inserted
// break opportunities, &shy; hyphenation points, copy-paste residue) and in
// a query pasted from one alike, since both come through here. This is
// what search normalisation (Unicode's NFKC_Casefold) does to the default
// ignorable characters. The cost: scripts written without spaces that mark
// word boundaries with U+200B (Thai, Khmer) lose those boundaries, which
// this tokenizer does not segment anyway.
func isFormat(r rune) bool { return foldpkg.IsFormat(r) }

// IsFormat reports whether r is one of the invisible format characters the
// tokenizer drops inside words (isFormat), for code that must match text the
// way the tokenizer read it (search snippets).
func IsFormat(r rune) bool { return isFormat(r) }

// Fold maps r as the tokenizer folds a term's runes: width (full-width
// ASCII, half-width kana), typographic apostrophes and hyphens, then lower
// case. It maps one rune to one rune.
func Fold(r rune) rune { return fold(r) }

// skipFormat returns the offset of the first rune at or after text[i] that
// is not a format character (len(text) if none).
func skipFormat(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isFormat(r) {
			break
		}
		i += size
	}
	return i
}

// dropFormat returns s without its format characters.
func dropFormat(s string) string {
	return strings.Map(func(r rune) rune {
		if isFormat(r) {
			return -1
		}
		return r
	}, s)
}

// emitWord normalises a raw non-Han word, applies the dropping rules and
// emits it (to seg too, when not nil). It returns buf for reuse.
func emitWord(raw string, buf []byte, emit, seg emitFunc) []byte {
	term, owned := raw, true
	if needsFold(raw) {
		buf = buf[:0]
		for _, r := range raw {
			if !isFormat(r) {
				buf = utf8.AppendRune(buf, fold(r))
			}
		}
		term, owned = unsafe.String(unsafe.SliceData(buf), len(buf)), false
	}
	if n := NFC(term); n != term {
		// A decomposed word (e + U+0301) is the precomposed one's term,
		// or a page and a query that spell "café" differently never meet.
		term, owned = n, true
	}
	if n := len(term); n > 2 && term[n-2] == '\'' && term[n-1] == 's' {
		term = term[:n-2]
	}
	if dropWord(term) {
		return buf
	}
	emit(term, owned)
	if seg != nil {
		seg(term, owned)
	}
	return buf
}

// MaxWordBytes is the longest word the tokenizer emits. A longer run of
// letters and digits (a page's hex dump or base64 blob) is no word anyone
// searches for, and no store or index can take every length: PostgreSQL's
// B-tree key of term_df holds at most 2704 bytes (store.MaxTermBytes),
// Lucene refuses a term over 32,766 bytes (an Elasticsearch document's
// write failed at every retry). A SHA-512 digest in hex (128) is kept.
const MaxWordBytes = 512

// dropWord reports whether a normalised non-Han word is dropped: a single
// character, a pure number of more than four digits, a stop word, or a run
// longer than MaxWordBytes.
func dropWord(term string) bool {
	if len(term) == 1 || len(term) > MaxWordBytes || (len(term) <= utf8.UTFMax && utf8.RuneCountInString(term) == 1) {
		return true
	}
	digits, number := 0, true
	for k := 0; k < len(term) && number; k++ {
		switch c := term[k]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' || c == '-' || c == '_':
		default:
			number = false
		}
	}
	if number && digits > 4 {
		return true
	}
	_, stop := stopWords[term]
	return stop
}

// NFC returns s in Unicode NFC, the form of every term: s itself, with no
// allocation, when it already is — ASCII is, and QuickSpanString checks the
// rest without allocating (IsNormalString allocated once per non-ASCII
// word). Code that must match text the way the tokenizer read it (search
// snippets) normalises with it too.
func NFC(s string) string {
	if isASCII(s) || norm.NFC.QuickSpanString(s) == len(s) {
		return s
	}
	return norm.NFC.String(s)
}

// hasCompatIdeograph reports whether s holds a CJK compatibility
// ideograph (U+F900–U+FAFF: bytes EF A4–AB; U+2F800–U+2FA1F: F0 AF A0–A8),
// the only Han characters NFC changes: a byte scan, where asking NFC of
// every Han run cost a fifth of the Chinese tokenizer's time
// (BenchmarkTokensChinese).
func hasCompatIdeograph(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		switch s[i] {
		case 0xEF:
			if b := s[i+1]; b >= 0xA4 && b <= 0xAB {
				return true
			}
		case 0xF0:
			if s[i+1] == 0xAF && s[i+2] >= 0xA0 && s[i+2] <= 0xA8 {
				return true
			}
		}
	}
	return false
}

// isASCII reports whether s is all ASCII (always in NFC).
func isASCII(s string) bool {
	for k := 0; k < len(s); k++ {
		if s[k] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// needsFold reports whether a word changes under fold, or loses a format
// character (isFormat): upper-case ASCII or any non-ASCII byte (checked
// precisely only by folding).
func needsFold(s string) bool {
	for k := 0; k < len(s); k++ {
		c := s[k]
		if c >= utf8.RuneSelf {
			for _, r := range s[k:] {
				if fold(r) != r || isFormat(r) {
					return true
				}
			}
			return false
		}
		if 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}

// fold is fold.Rune, the tokenizer's folding of a word's characters.
func fold(r rune) rune { return foldpkg.Rune(r) }

// allHan reports whether s is made of Han characters only.
func allHan(s string) bool {
	for _, r := range s {
		if !isHan(r) {
			return false
		}
	}
	return true
}

// isHan reports whether r is a Han (CJK ideograph) character.
func isHan(r rune) bool {
	if r >= 0x4E00 && r <= 0x9FFF { // the common block, without a table search
		return true
	}
	return r >= 0x2E80 && unicode.Is(unicode.Han, r)
}

func isWordStart(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r]
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}

// asciiWord marks ASCII letters and digits.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	return t
}()

// hanRun returns the end of the Han run whose first rune (size bytes) is
// at text[i]: Han characters, and format characters with Han on both sides
// (自然\u200b语言 is one run, 中文\u200bGo ends before the U+200B). formats
// says whether it holds a format character; with checkTrad, trad whether
// it holds a traditional-only character, checked as the run is read so
// that Simplified text pays one bitmap lookup per rune and no second pass.
func hanRun(text string, i, size int, checkTrad bool) (j int, formats, trad bool) {
	r, _ := utf8.DecodeRuneInString(text[i:])
	j, trad = i+size, checkTrad && hant.IsTraditional(r)
	for j < len(text) {
		r2, s2 := utf8.DecodeRuneInString(text[j:])
		if isHan(r2) {
			trad = trad || (checkTrad && hant.IsTraditional(r2))
			j += s2
			continue
		}
		if isFormat(r2) {
			if k := skipFormat(text, j); k < len(text) {
				if r3, _ := utf8.DecodeRuneInString(text[k:]); isHan(r3) {
					j, formats = k, true
					continue
				}
			}
		}
		break
	}
	return j, formats, trad
}

// Simplified returns text with each run of Han characters the tokenizer
// converts to Simplified Chinese (package hant: a run holding a
// traditional-only character, judged after NFC) converted as it converts
// it, with the format characters inside such a run dropped; all else is
// as in text, and text itself is returned when no run is converted. It is
// for code that compares a page's or a query's characters with the terms
// the tokenizer gave them (the search index's check of a Han phrase's
// characters in a row): 網路設定 is 网络设置 there as in the index.
func Simplified(text string) string {
	if !hant.HasTraditional(text) && !hasCompatIdeograph(text) {
		return text // most text: a bitmap lookup per non-ASCII rune
	}
	var b strings.Builder
	last := 0 // text[last:i] is not written yet
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isHan(r) {
			i += size
			continue
		}
		// The run as scan delimits it.
		j, formats, _ := hanRun(text, i, size, false)
		run := text[i:j]
		if formats {
			run = dropFormat(run)
		}
		if hasCompatIdeograph(run) {
			run = NFC(run)
		}
		if hant.HasTraditional(run) {
			b.WriteString(text[last:i])
			b.WriteString(hant.Simplified(run))
			last = j
		}
		i = j
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}
