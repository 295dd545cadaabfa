package index

import (
	"strconv"
	"strings"
)

// EncodeSpans writes byte ranges as the backends store them beside a
// document's text: "start-end" pairs joined by commas ("" for none), a
// few bytes per link.
func EncodeSpans(spans [][2]int) string {
	var b strings.Builder
	for i, s := range spans {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[0]))
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(s[1]))
	}
	return b.String()
}

// DecodeSpans reads what EncodeSpans wrote. The ranges are a hint for
// snippets, so a malformed value, or ranges out of order, overlapping or
// outside textLen bytes, give nil (a snippet cut as before) rather than
// an error.
func DecodeSpans(s string, textLen int) [][2]int {
	if s == "" {
		return nil
	}
	out := make([][2]int, 0, strings.Count(s, ",")+1)
	prev := 0
	for part := range strings.SplitSeq(s, ",") {
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
