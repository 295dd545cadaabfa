package parse

import (
	"strings"
	"testing"
)

// Link.DOMContext is documented as "the visible text of the text nodes
// within tree distance δ"; Context already leaves hidden keyword stuffing
// out (TestHiddenWordsAreNoContext), DOMContext should too.
func TestHiddenWordsAreNoDOMContext(t *testing.T) {
	body := `<p>Read the whole story on the <span style="display:none">casino poker jackpot</span><a href="/next">next page</a> of this long article about gardens.</p>
<p>` + strings.Repeat("Plenty of visible words about gardens and flowers. ", 4) + `</p>`
	doc, err := Parse("http://example.com/", []byte(body), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc.Text, "casino") {
		t.Fatalf("hidden words in Text %q", doc.Text)
	}
	for _, l := range doc.Links {
		if strings.Contains(l.DOMContext, "casino") {
			t.Errorf("visible link %s: DOMContext %q holds the hidden words (Context %q does not)", l.URL, l.DOMContext, l.Context)
		}
	}
}
