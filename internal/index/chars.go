package index

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"focuscrawl/internal/textproc"
)

// ignoredInChars reports whether r is passed over where a Han phrase's or
// word's characters are compared with a page's text: whitespace (a line
// break, an ideographic or a no-break space between two characters of the
// phrase) and the invisible format characters the tokenizer drops inside a
// run of Han characters (textproc.IsFormat: every Unicode Cf). HanPhrases
// strips them from the query and ContainsChars passes over them in the
// page: one definition, so that both sides ignore the same set.
func ignoredInChars(r rune) bool {
	return unicode.IsSpace(r) || textproc.IsFormat(r)
}

// ContainsChars reports whether text holds chars (a HanPhrase's Chars or a
// HanWord's Word: no whitespace or format characters in them) in a row,
// passing over whitespace and invisible format characters between them
// (ignoredInChars): a page's text has line breaks where its HTML had them,
// and the tokenizer reads a Han word across a format character. Text is
// compared in Simplified Chinese as the tokenizer converts it
// (textproc.Simplified), as chars are: a Traditional page found by its
// tokens for 网络设置 holds 網路設定.
func ContainsChars(text, chars string) bool {
	if chars == "" {
		return true
	}
	text = textproc.Simplified(text)
	_, size := utf8.DecodeRuneInString(chars)
	first, rest := chars[:size], chars[size:]
	for i := 0; i < len(text); {
		k := strings.Index(text[i:], first)
		if k < 0 {
			return false
		}
		i += k + size
		if hasPrefixIgnoring(text[i:], rest) {
			return true
		}
	}
	return false
}

// hasPrefixIgnoring reports whether s starts with prefix once the runes
// ignoredInChars are passed over in s.
func hasPrefixIgnoring(s, prefix string) bool {
	for prefix != "" {
		r, n := utf8.DecodeRuneInString(s)
		if n == 0 {
			return false
		}
		s = s[n:]
		if ignoredInChars(r) {
			continue
		}
		p, m := utf8.DecodeRuneInString(prefix)
		if r != p {
			return false
		}
		prefix = prefix[m:]
	}
	return true
}
