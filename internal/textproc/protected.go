package textproc

import (
	"strings"
	"unicode/utf8"
)

// protectedTokens are the terms the tokenizer keeps although they end in
// symbols: the names of the programming languages C++, C# and F#, which are
// a single letter (dropped as noise, see dropWord) followed by "++" or "#"
// (punctuation, a word boundary). Without them a page about C++ has no term
// for its subject and a search for "C++" has no searchable word.
//
// It is an explicit list, not a rule such as "a letter followed by ++ or #",
// on purpose: a rule would also keep "i++" and "x++" from every page of code
// and every "A#" list label, terms no one searches for that only grow the
// vocabulary. Adding a name here (J#, G++) is a tokenizer change like any
// other: pages indexed before keep their old terms until re-indexed (see
// docs/search.md).
//
// A protected token is recognised only where it stands as a word of its own
// (protectedEnd): the letter is a whole word, it is followed by the symbols
// (full-width ＋ and ＃ fold to them, as the letter's case does), and what
// follows the symbols is no letter, digit, "+" or "#" — so "file.c#L10" (a
// URL anchor), "c#x" and "c+++" give no protected token, while "C#.",
// "C++/CLI" and "C++编程" (the Han run cut by gojieba as usual) do. After
// "++" a digit may follow: "C++17" is the terms "c++" and "17", as C++
// standards are written. C# and F# are also musical notes; the terms are
// the same, which a search for "C#" cannot tell apart anyway.
//
// Every term holds letters, digits and the word connectors of the package
// comment and, in a protected token only, the characters of
// ProtectedSymbols.
var protectedTokens = [...]string{"c++", "c#", "f#"}

// ProtectedSymbols are the characters that occur in terms only inside the
// protected tokens "c++", "c#" and "f#" (protectedTokens). The full-text
// indexes' own analysers, which re-split the segmented text at every
// character that is no letter or digit, must keep them inside a token
// (sqlitefts' tokenchars, the Elasticsearch template's pattern), or "c++"
// is indexed as "c" and matches "c#" and "c-section".
const ProtectedSymbols = "+#"

// protectedEnd returns the end of the protected token (protectedTokens)
// that starts with the word text[i:j] (from wordEnd), or j when there is
// none.
func protectedEnd(text string, i, j int) int {
	// The word must be one letter: one ASCII byte, or one full-width
	// letter (three bytes).
	if j-i > 3 || j >= len(text) {
		return j
	}
	if c := text[j]; c != '+' && c != '#' && c != 0xEF { // 0xEF starts ＋ and ＃
		return j
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	if i+size != j {
		return j
	}
	letter := fold(r)
	for _, tok := range protectedTokens {
		if rune(tok[0]) != letter {
			continue
		}
		if k, ok := symbolsAt(text, j, tok[1:]); ok && protectedBoundary(text, k, tok) {
			return k
		}
	}
	return j
}

// symbolsAt reports whether text at j holds the symbols syms (each folded
// as the tokenizer folds a word's characters, so ＋ is +) and where they
// end.
func symbolsAt(text string, j int, syms string) (int, bool) {
	for _, s := range syms {
		if j >= len(text) {
			return j, false
		}
		r, size := utf8.DecodeRuneInString(text[j:])
		if fold(r) != s {
			return j, false
		}
		j += size
	}
	return j, true
}

// protectedBoundary reports whether the protected token tok that ends at
// text[k] stands as a word: the text ends there or goes on with no letter,
// digit or protected symbol — but for Han characters, which are segmented
// apart ("C++编程"), and digits after "++" ("C++17").
func protectedBoundary(text string, k int, tok string) bool {
	if k >= len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[k:])
	if isHan(r) {
		return true
	}
	f := fold(r)
	if isDigit(f) {
		return tok[len(tok)-1] == '+'
	}
	return !isWordStart(f) && !strings.ContainsRune(ProtectedSymbols, f)
}
