package index

import (
	"slices"
	"strconv"
	"strings"
)

// EncodeSpans writes byte ranges of a text of textLen bytes as the
// backends store them beside it: "textLen;start-end,start-end" ("" for
// none), a few bytes per link. The ranges are sorted and overlapping ones
// merged first, and those outside the text dropped, so one odd input
// cannot make the whole value unreadable. The length lets DecodeSpans
// refuse ranges stored for another version of the text (written by an
// older program that updates the text but not its spans).
func EncodeSpans(spans [][2]int, textLen int) string {
	var clean [][2]int
	for _, s := range spans {
		s[1] = min(s[1], textLen)
		if s[0] >= 0 && s[0] < s[1] {
			clean = append(clean, s)
		}
	}
	if len(clean) == 0 {
		return ""
	}
	slices.SortFunc(clean, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	b.WriteString(strconv.Itoa(textLen))
	b.WriteByte(';')
	last := clean[0]
	write := func(s [2]int, comma bool) {
		if comma {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[0]))
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(s[1]))
	}
	n := 0
	for _, s := range clean[1:] {
		if s[0] < last[1] {
			last[1] = max(last[1], s[1])
			continue
		}
		write(last, n > 0)
		n++
		last = s
	}
	write(last, n > 0)
	return b.String()
}

// DecodeSpans reads what EncodeSpans wrote for a text of textLen bytes.
// The ranges are a hint for snippets, so a malformed value, one stored for
// a text of another length, or ranges out of order, overlapping or outside
// the text give nil (a snippet cut as before) rather than an error.
func DecodeSpans(s string, textLen int) [][2]int {
	n, list, ok := strings.Cut(s, ";")
	if !ok || n != strconv.Itoa(textLen) || list == "" {
		return nil
	}
	out := make([][2]int, 0, strings.Count(list, ",")+1)
	prev := 0
	for part := range strings.SplitSeq(list, ",") {
		a, b, ok := strings.Cut(part, "-")
		if !ok {
			return nil
		}
		start, err1 := strconv.Atoi(a)
		end, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || start < prev || end <= start || end > textLen {
			return nil
		}
		out = append(out, [2]int{start, end})
		prev = end
	}
	return out
}
