package relevance

import "math"

// StuffedMark begins the reason of a page turned down as keyword stuffing
// (Stuffed): rejected whatever its score, in no split, never promoted by a
// re-judgement (activities.judge).
const StuffedMark = "keyword stuffing"

// stuffMinTerms is the fewest term occurrences a page needs for Stuffed to
// judge it: below it a short page (a title, a few menu words) can have a
// small vocabulary honestly.
const stuffMinTerms = 500

// Stuffed reports whether a page's term frequencies (title and text, as
// the page filter reads them) are keyword stuffing rather than prose: at
// least stuffMinTerms term occurrences n and fewer than √n distinct terms
// d. It returns n and d.
//
// Why: a page of a topic's keywords repeated is a vector parallel to the
// topic's whatever its length — cosine on sublinear term frequencies
// damps a term's count, not the absence of every other word — and a user
// trial's 4 MB page of them was accepted at 0.79. Prose grows its
// vocabulary with its length (Heaps' law: d ≈ K·n^β, β ≈ 0.4–0.6), a
// repeated list does not. The bound is focuscrawl's, set a priori and
// checked against real pages, not tuned: over the 13,724 HTML pages of the
// nine Debian manuals the focus evaluation serves (English and Chinese, 100
// term occurrences or more), the smallest d/√n is 1.61 (liboctave's list
// of Matrix operator signatures: 2,663 occurrences of 83 terms), then
// 2.17; the rule fires at 1. A stuffed page whose keywords come with
// enough prose of their own (a vocabulary above √n) passes: this is a
// filter for pages that are nothing but repetition, not a spam classifier.
func Stuffed(tf map[string]int) (n, d int, stuffed bool) {
	for _, c := range tf {
		if c > 0 {
			n += c
			d++
		}
	}
	return n, d, n >= stuffMinTerms && float64(d) < math.Sqrt(float64(n))
}
