package langalt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ClearLanguage is zh for text mostly in Chinese characters with no kana
// or Hangul, en for unaccented Latin text with at least two English
// function words, and "" otherwise — when the text does not clearly say.
// textproc.DetectLanguage answers only zh or en, so Japanese read as zh
// and Korean, German or Russian as en — and their crawls skipped the
// switcher links into their own language (a code review). A topic left
// at language auto is read by it (from its description and keywords),
// and so are a topic draft's example pages that do not say their language.
func ClearLanguage(text string) string {
	var han, kana, hangul, ascii, other int
	english := map[string]bool{}
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Han, r):
			han++
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			kana++
		case unicode.Is(unicode.Hangul, r):
			hangul++
		case r < utf8.RuneSelf && unicode.IsLetter(r):
			ascii++
		case unicode.IsLetter(r):
			other++
		}
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if englishFunctionWords[w] {
			english[w] = true
		}
	}
	switch {
	case kana > 0 || hangul > 0:
		return ""
	case han > 0 && han*5 >= han+ascii+other:
		return "zh"
	case han == 0 && other == 0 && len(english) >= 2:
		return "en"
	}
	return ""
}

// englishFunctionWords are words English text is full of and other
// Latin-script languages rarely have.
var englishFunctionWords = map[string]bool{"the": true, "and": true, "of": true, "to": true, "in": true, "for": true,
	"with": true, "on": true, "is": true, "are": true, "how": true, "by": true, "from": true, "about": true,
	"using": true, "into": true, "your": true, "this": true, "that": true, "what": true, "which": true}
