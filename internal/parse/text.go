package parse

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// textBuf accumulates whitespace-collapsed text: words separated by single
// spaces, no leading or trailing space. A separator is only pending until the
// next word, so adjacent inline text ("foo<b>bar</b>") stays one word.
type textBuf struct {
	b     []byte
	space bool // a separator is due before the next word
	full  bool // max reached; later words are dropped so text stays a prefix
	max   int
	// lastWide: the last character written is wide and of a script written
	// without spaces (wideNoSpace). breakOnly: the separator due came only
	// from source line breaks after such a character, which browsers drop
	// before another one (CSS Text 3, segment break transformation), so
	// the next word drops it if it starts with one too. keepBreaks: inside
	// <pre>, where line breaks are shown.
	lastWide, breakOnly, keepBreaks bool
}

// longWord is the length in bytes above which a word that does not fit in
// a textBuf is cut rather than dropped (textBuf.word).
const longWord = 64

// separate makes the next word start after a space.
func (t *textBuf) separate() {
	if len(t.b) > 0 {
		t.space, t.breakOnly = true, false
	}
}

// separateWhite is separate for a run of whitespace in the text: lineBreak
// says it holds a line break, wideBefore that the character before it is
// wide (in the same text node, or t's last when the run starts the node).
func (t *textBuf) separateWhite(lineBreak, wideBefore bool) {
	if len(t.b) == 0 {
		return
	}
	joinable := lineBreak && wideBefore && !t.keepBreaks
	if !t.space {
		t.space, t.breakOnly = true, joinable
		return
	}
	t.breakOnly = t.breakOnly && joinable
}

func (t *textBuf) word(s string) {
	if t.full {
		return
	}
	if t.space && t.breakOnly {
		if r, _ := utf8.DecodeRuneInString(s); wideNoSpace(r) {
			t.space = false // a wrapped line of Chinese: no space between
		}
	}
	t.breakOnly = false
	last, _ := utf8.DecodeLastRuneInString(s)
	t.lastWide = wideNoSpace(last)
	n := len(s)
	if t.space {
		n++
	}
	if len(t.b)+n > t.max {
		t.full = true
		// A long "word" is mostly a run of Chinese, which has no spaces:
		// a whole title or description. Dropped, a 4,200-byte Chinese
		// title became "". Its beginning is kept, cut at a rune boundary;
		// a short word that does not fit is dropped, not cut in half.
		room := t.max - len(t.b)
		if t.space {
			room--
		}
		if len(s) <= longWord || room <= 0 {
			return
		}
		for room > 0 && !utf8.RuneStart(s[room]) {
			room--
		}
		if room > 0 {
			if t.space {
				t.b = append(t.b, ' ')
				t.space = false
			}
			t.b = append(t.b, s[:room]...)
		}
		return
	}
	if t.space {
		t.b = append(t.b, ' ')
		t.space = false
	}
	t.b = append(t.b, s...)
}

// addText appends the words of s; whitespace at either end of s separates it
// from what comes before and after.
func (t *textBuf) addText(s string) {
	addText2(s, t, nil)
}

// String returns the text collected.
func (t *textBuf) String() string {
	return string(t.b)
}

// addText2 appends the words of s to a and, unless nil, b, splitting s once.
func addText2(s string, a, b *textBuf) {
	if a.full && (b == nil || b.full) {
		return
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	for i := 0; i < len(s); {
		// Nothing more can be written: the rest of s is not even read (a
		// megabyte attribute repeated by the parser's reconstruction of an
		// open <a> in every paragraph took minutes).
		if a.full && (b == nil || b.full) {
			return
		}
		start := i
		for i < len(s) {
			r, size := rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[i:])
			}
			if !isSpace(r) {
				break
			}
			i += size
		}
		if i > start {
			lineBreak := strings.IndexAny(s[start:i], "\n\r") >= 0
			var before rune
			if start > 0 {
				before, _ = utf8.DecodeLastRuneInString(s[:start])
			}
			a.separateWhite(lineBreak, wideBefore(a, start, before))
			if b != nil {
				b.separateWhite(lineBreak, wideBefore(b, start, before))
			}
		}
		j := i
		for j < len(s) {
			r, size := rune(s[j]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[j:])
			}
			if isSpace(r) {
				break
			}
			j += size
		}
		if j > i {
			a.word(s[i:j])
			if b != nil {
				b.word(s[i:j])
			}
		}
		i = j
	}
}

// wideBefore reports whether the character before a whitespace run at
// offset start of a text node is wide: before, when the run is inside the
// node, else the buffer's last character.
func wideBefore(t *textBuf, start int, before rune) bool {
	if start > 0 {
		return wideNoSpace(before)
	}
	return t.lastWide
}

// wideNoSpace reports whether r is East Asian wide or full-width and of a
// script written without spaces between words.
func wideNoSpace(r rune) bool {
	if r < 0x1100 || unicode.Is(unicode.Hangul, r) {
		return false
	}
	k := width.LookupRune(r).Kind()
	return k == width.EastAsianWide || k == width.EastAsianFullwidth
}

// collapse returns s whitespace-collapsed, valid UTF-8 and at most limit bytes
// (cut at a word boundary, or inside a word longer than longWord bytes:
// textBuf.word).
func collapse(s string, limit int) string {
	t := textBuf{max: limit}
	t.addText(capInput(s, limit))
	return t.String()
}

// capInput cuts s, at a rune boundary, to what can matter for a result of
// at most limit bytes — 8 × limit, room for the whitespace collapse drops —
// so that an attribute of megabytes (repeated on every copy the HTML
// parser makes of an unclosed <a>) is not scanned whole each time.
func capInput(s string, limit int) string {
	max := 8 * limit
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

// isSpace reports whether r separates words. Besides ASCII white space this
// includes no-break and ideographic spaces, which pages use as plain spaces.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\v':
		return true
	}
	return r >= 0x80 && unicode.IsSpace(r)
}
