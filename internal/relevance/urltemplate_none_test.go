package relevance

import (
	"testing"

	"focuscrawl/internal/topic"
)

// TestURLTemplateNoTemplateNoMatch: r is accepted in [0,1]; with r: 0
// a page of a host that has no template at all "matches" the empty
// template (similarity 0 ≥ 0) and is accepted without its content being
// judged — an off-topic page included, and no template is ever learned
// (every page is decided by url-template itself, never by the fallback).
func TestURLTemplateNoTemplateNoMatch(t *testing.T) {
	env := envFor(t, "name: g\nkeywords: {rose: 1, garden: 1}\nseeds: [http://x/]")
	f, err := New(topic.Spec{Name: "url-template", Params: map[string]any{"r": 0.0}}, env)
	if err != nil {
		t.Fatal(err)
	}
	v := f.Judge(&Page{URL: "http://sport.test/football", TF: map[string]int{"football": 5, "match": 3}})
	if v.Relevant {
		t.Errorf("off-topic page of a host without templates accepted: %+v", v)
	}
}
