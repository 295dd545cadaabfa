// Package fold is the tokenizer's case and width folding of one character,
// apart from the tokenizer: packages that fold words as pages' words are
// folded (lexicon terms) but must build without cgo — the starter, which
// validates topic files and their lexicons, does not link gojieba.
package fold

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Rune folds r as the tokenizer folds a word's characters: lower case,
// full-width and half-width forms to their usual width, typographic
// apostrophes and hyphens to ASCII.
func Rune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}
	if f := width.LookupRune(r).Folded(); f != 0 {
		r = f
	}
	switch r {
	case '\u2019', '\u02bc': // right single quotation mark, modifier apostrophe
		return '\''
	case '\u2010', '\u2011': // hyphen, non-breaking hyphen
		return '-'
	}
	return unicode.ToLower(r)
}

// IsFormat reports whether r is one of the invisible format characters
// (Unicode Cf: soft hyphen, zero-width joiners, bidi marks) the tokenizer
// drops inside words.
func IsFormat(r rune) bool { return r >= 0xAD && unicode.Is(unicode.Cf, r) }

// Word folds a word as the tokenizer folds a page's: each character by
// Rune, format characters dropped.
func Word(s string) string {
	return strings.Map(func(r rune) rune {
		if IsFormat(r) {
			return -1
		}
		return Rune(r)
	}, s)
}
