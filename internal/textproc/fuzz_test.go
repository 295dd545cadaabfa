package textproc

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func FuzzTokens(f *testing.F) {
	for _, s := range []string{
		"", "Go语言的goroutine调度", chineseSample, englishSample, "ＡＰＩ　２０２４", "don't e-mail 3.14 __x__ '-'",
		"\xff\xfe\xc3\x28 invalid 中\xff文", "𠀀𠀁 ext-B ideographs", "ǅungla İstanbul ΣΊΣΥΦΟΣ",
		"pa\u200bth e\u200b-\u2060mail 自然\u200b语言\ufeff \u200d", "hyphen\u00adation ＡＰ\u200bＩ\u200b中",
		"C++17 c# Ｆ＃ C++编程 file.c#L10 a++ c+++",
	} {
		f.Add(s)
	}
	tk := Shared()
	f.Fuzz(func(t *testing.T, text string) {
		tokens := tk.Tokens(text)
		n := 0
		for _, tok := range tokens {
			if tok == "" || strings.IndexFunc(tok, unicode.IsSpace) >= 0 || strings.IndexFunc(tok, isFormat) >= 0 {
				t.Fatalf("Tokens(%q) has bad token %q", text, tok)
			}
			// Only a protected token holds a protected symbol.
			if strings.ContainsAny(tok, ProtectedSymbols) && !slices.Contains(protectedTokens[:], tok) {
				t.Fatalf("Tokens(%q) has token %q with a protected symbol", text, tok)
			}
			if IsStopWord(tok) {
				t.Fatalf("Tokens(%q) kept stop word %q", text, tok)
			}
		}
		for _, c := range tk.TermFreq(text) {
			n += c
		}
		if n != len(tokens) {
			t.Fatalf("TermFreq(%q) counts %d terms, Tokens has %d", text, n, len(tokens))
		}
		seg := tk.Segment(text)
		if strings.Contains(seg, "  ") || strings.TrimSpace(seg) != seg {
			t.Fatalf("Segment(%q) = %q: not single-spaced", text, seg)
		}
		if strings.IndexFunc(seg, isFormat) >= 0 {
			t.Fatalf("Segment(%q) = %q keeps a format character", text, seg)
		}
		if (seg == "") != (len(tokens) == 0) {
			t.Fatalf("Segment(%q) = %q but Tokens = %q", text, seg, tokens)
		}
		checkTermFreqSegment(t, tk, text)
	})
}

// checkTermFreqSegment: the one-pass TermFreqSegment gives exactly what
// TermFreq and Segment give separately.
func checkTermFreqSegment(t *testing.T, tk *Tokenizer, text string) {
	t.Helper()
	tf, seg := tk.TermFreqSegment(text)
	if want := tk.TermFreq(text); !maps.Equal(tf, want) {
		t.Fatalf("TermFreqSegment(%q) terms %v, TermFreq %v", text, tf, want)
	}
	if want := tk.Segment(text); seg != want {
		t.Fatalf("TermFreqSegment(%q) text %q, Segment %q", text, seg, want)
	}
}
