package index

import (
	"fmt"
	"math"
)

// Prepared is a document as every backend indexes it: checked, its scores
// clamped to their ranges (Relevance to [0,1], the link scores to ≥ 0) and
// its title, text and anchor texts segmented for matching.
type Prepared struct {
	Document                                  // with the clamped scores
	TitleTerms, TextTerms, AnchorTerms string // segmented Title, Text, AnchorTexts
}

// Prepare checks d (topic and ID set, no NaN or infinite score) and
// prepares it with seg.
func Prepare(d Document, seg Segmenter) (Prepared, error) {
	if d.Topic == "" || d.ID == "" {
		return Prepared{}, fmt.Errorf("document %q of topic %q (%s): topic and id are required", d.ID, d.Topic, d.URL)
	}
	for _, s := range []struct {
		name string
		v    float64
	}{{"relevance", d.Relevance}, {"hub", d.Hub}, {"authority", d.Authority}, {"ipagerank", d.IPageRank}} {
		if math.IsNaN(s.v) || math.IsInf(s.v, 0) {
			return Prepared{}, fmt.Errorf("document %s of topic %q (%s): %s is %v", d.ID, d.Topic, d.URL, s.name, s.v)
		}
	}
	p := Prepared{
		Document:    d,
		TitleTerms:  seg.Segment(d.Title),
		TextTerms:   d.TextSegmented,
		AnchorTerms: seg.Segment(d.AnchorTexts),
	}
	if p.TextTerms == "" {
		p.TextTerms = seg.Segment(d.Text)
	}
	p.Relevance = math.Min(math.Max(d.Relevance, 0), 1)
	p.Hub, p.Authority, p.IPageRank = math.Max(d.Hub, 0), math.Max(d.Authority, 0), math.Max(d.IPageRank, 0)
	return p, nil
}
