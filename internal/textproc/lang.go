package textproc

import "unicode"

// DetectLanguage returns "zh" when Han characters make up at least a fifth of
// the letters in text, "en" when there are letters but fewer Han ones, and ""
// when text has no letters at all. A fifth, not a half, because a Chinese
// page counts one letter per character while the Latin words mixed into it
// (product names, code, URLs) count one per letter. Japanese text with many
// kanji also reports "zh"; the crawler only distinguishes these two.
func DetectLanguage(text string) string {
	letters, han := 0, 0
	for _, r := range text {
		switch {
		case isHan(r):
			han++
			letters++
		case unicode.IsLetter(r):
			letters++
		}
	}
	switch {
	case letters == 0:
		return ""
	case han*5 >= letters:
		return "zh"
	default:
		return "en"
	}
}
