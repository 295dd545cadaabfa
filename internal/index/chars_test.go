package index

import (
	"slices"
	"testing"
	"unicode"
)

// TestContainsChars: the characters in a row, whatever whitespace and
// format characters lie between them, and nothing else between them.
func TestContainsChars(t *testing.T) {
	for _, tt := range []struct {
		text, chars string
		want        bool
	}{
		{"他在北京大学读书", "大学读书", true},
		{"他在北京大学\u200e读书", "大学读书", true},
		{"他在北京大学\u2063读书", "大学读书", true},
		{"他在北京大学\r\n读书", "大学读书", true},
		{"他在北京大\u3000学\u00a0 读书", "大学读书", true},
		{"大大学读书", "大学读书", true}, // the first character again: the next one starts the match
		{"大学的读书", "大学读书", false},
		{"读书大学", "大学读书", false},
		{"大学读", "大学读书", false},
		{"", "大学", false},
	} {
		if got := ContainsChars(tt.text, tt.chars); got != tt.want {
			t.Errorf("ContainsChars(%+q, %s) = %v, want %v", tt.text, tt.chars, got, tt.want)
		}
	}
}

// TestHanPhraseCharsIgnoreTheSameRunes: every character a quoted Han
// phrase is stripped of (HanPhrases) is passed over in a page's text
// (ContainsChars), and the other way round: the query stripped every
// format character while the index's check passed over six, so
// “大学读书” missed a page with 北京大学\u200e读书 that 大学读书 found.
func TestHanPhraseCharsIgnoreTheSameRunes(t *testing.T) {
	n := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !unicode.Is(unicode.Cf, r) && !unicode.IsSpace(r) {
			continue
		}
		n++
		s := string(r)
		key := "大学 读" + s + "书" // spaceSegmenter keeps a format character in its word
		if unicode.IsSpace(r) {
			key = "大学 读 书"
		}
		if got := HanPhrases("“大学 读"+s+"书”", spaceSegmenter{}); !slices.Equal(got[key].Chars, []string{"大学读书"}) {
			t.Errorf("HanPhrases(“大学 读%+q书”) = %q: %U not stripped", s, got, r)
		}
		if !ContainsChars("北京大学"+s+"读书", "大学读书") {
			t.Errorf("ContainsChars does not pass over %U", r)
		}
	}
	if n < 150 {
		t.Fatalf("only %d format and space characters tried", n)
	}
	if ContainsChars("北京大学,读书", "大学读书") {
		t.Error("ContainsChars passes over a comma")
	}
}
