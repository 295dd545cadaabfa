package index

import (
	"math"
	"strings"
	"testing"
)

type upper struct{}

func (upper) Segment(text string) string { return strings.ToUpper(text) }

func TestPrepare(t *testing.T) {
	d := Document{ID: "h", Topic: "t", Title: "ti", Text: "te", AnchorTexts: "an",
		Relevance: 1.5, Hub: -1, Authority: 0.25, IPageRank: -0.5}
	p, err := Prepare(d, upper{})
	if err != nil {
		t.Fatal(err)
	}
	if p.TitleTerms != "TI" || p.TextTerms != "TE" || p.AnchorTerms != "AN" {
		t.Errorf("segmented %q %q %q", p.TitleTerms, p.TextTerms, p.AnchorTerms)
	}
	if p.Relevance != 1 || p.Hub != 0 || p.Authority != 0.25 || p.IPageRank != 0 {
		t.Errorf("clamped scores %v %v %v %v, want 1 0 0.25 0", p.Relevance, p.Hub, p.Authority, p.IPageRank)
	}
	if p.Title != "ti" || p.Text != "te" {
		t.Errorf("document fields changed: %q %q", p.Title, p.Text)
	}
	// A caller's segmentation of the text is taken as it is.
	d.TextSegmented = "TE (from the crawler's pass)"
	if p, err := Prepare(d, upper{}); err != nil || p.TextTerms != d.TextSegmented || p.TitleTerms != "TI" {
		t.Errorf("with TextSegmented: text terms %q, title %q (%v); want the given text terms", p.TextTerms, p.TitleTerms, err)
	}
	for _, bad := range []Document{{Topic: "t"}, {ID: "h"}, {ID: "h", Topic: "t", Hub: math.NaN()}, {ID: "h", Topic: "t", Relevance: math.Inf(1)}} {
		if _, err := Prepare(bad, upper{}); err == nil {
			t.Errorf("Prepare(%+v) accepted", bad)
		}
	}
}
