package textproc

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestProtectedTokens: C++, C# and F# are terms wherever they stand as
// words (case and width folded, before punctuation, Han text or, for
// "++", a version number); a letter with the symbols inside a longer run
// (a URL anchor, a++ in code, c+++) gives none. Before, all of these gave
// no term: "c" is a single letter and "+", "#" are punctuation.
func TestProtectedTokens(t *testing.T) {
	tk := Shared()
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"C++", []string{"c++"}},
		{"c++", []string{"c++"}},
		{"C#", []string{"c#"}},
		{"F#", []string{"f#"}},
		{"f#", []string{"f#"}},
		{"Ｃ＋＋ and Ｃ＃ and ｆ＃", []string{"c++", "c#", "f#"}},
		{"C＋+", []string{"c++"}},
		{"Learn C++, C# and F#.", []string{"learn", "c++", "c#", "f#"}},
		{"(C++) [C#] \"F#\" C#/F# C++/CLI", []string{"c++", "c#", "f#", "c#", "f#", "c++", "cli"}},
		{"C#'s generics", []string{"c#", "generics"}},
		{"C++17 and C++20", []string{"c++", "17", "c++", "20"}},
		{"C++编程", []string{"c++", "编程"}},
		{"学习C#语言", []string{"学习", "c#", "语言"}},
		{"学习Ｃ＋＋编程", []string{"学习", "c++", "编程"}},
		// Not protected: other letters, longer words, more symbols, a
		// letter or digit right after the symbols.
		{"a++ i++ x# A# j++", nil},
		{"Chapter 3# notes", []string{"chapter", "notes"}},
		{"see file.c#L10 and page.html#c", []string{"see", "file", "l10", "page", "html"}},
		{"https://example.com/docs#c", []string{"https", "example", "com", "docs"}},
		{"c+++ c## c#x c#1 cc++ abc#", []string{"cc", "abc"}},
		{"c + + c +", nil},
		{"objective-c++ e-c#", []string{"objective-c", "e-c"}},
		{"C", nil},
		{"C+", nil},
	} {
		if got := tk.Tokens(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Tokens(%q)\n got %q\nwant %q", tc.text, got, tc.want)
		}
		// Segment and TermFreqSegment agree with Tokens on these.
		checkTermFreqSegment(t, tk, tc.text)
	}
	// Pages, keywords and queries alike: Segment keeps them.
	if got, want := tk.Segment("C++编程 and C# / F#"), "c++ 编程 c# f#"; got != want {
		t.Errorf("Segment = %q, want %q", got, want)
	}
}

// TestProtectedSymbols: ProtectedSymbols, which the indexes' analysers
// keep inside a token, names exactly the characters of the protected
// tokens that are no letter.
func TestProtectedSymbols(t *testing.T) {
	var syms []rune
	for _, tok := range protectedTokens {
		if tok != strings.ToLower(tok) {
			t.Errorf("protected token %q is not lower case", tok)
		}
		for _, r := range tok {
			if !unicode.IsLetter(r) && !slices.Contains(syms, r) {
				syms = append(syms, r)
			}
		}
	}
	slices.Sort(syms)
	want := []rune(ProtectedSymbols)
	slices.Sort(want)
	if string(syms) != string(want) {
		t.Errorf("symbols of the protected tokens %q, ProtectedSymbols %q", string(syms), ProtectedSymbols)
	}
}
