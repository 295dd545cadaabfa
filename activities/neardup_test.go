package activities

import (
	"fmt"
	"strings"
	"testing"

	"focuscrawl/internal/store"
	"focuscrawl/internal/textsig"
	"focuscrawl/internal/urlnorm"
)

// roseArticle is a long article of the loopback site's topic: enough
// plain text for a text signature (textsig.MinWords), its terms repeated
// as prose repeats them.
func roseArticle() string {
	var b strings.Builder
	for _, s := range []string{
		"Pruning roses in early spring keeps the bushes healthy and the blooms large.",
		"Cut every dead cane back to healthy wood, just above an outward facing bud.",
		"Climbing roses flower on old wood, so their pruning waits until after the summer bloom.",
		"Feed the roses with compost and a balanced fertiliser once the new shoots appear.",
		"Water deeply at the base of the bush in the morning; wet leaves invite black spot.",
		"Mulch keeps the roots cool, holds the water and smothers the weeds around the roses.",
		"Deadheading spent blooms through the summer brings a second flush of flowers.",
		"Watch for aphids on the new shoots and wash them off before they spread to every bush.",
		"Old garden roses need little pruning beyond thinning the oldest canes every few years.",
		"Standard roses are pruned hard to keep their heads balanced on the stem.",
		"Hybrid teas are cut to five buds, floribundas a little higher, shrub roses lightly.",
		"Burn or bin the prunings: diseased wood left on the bed spreads rust and black spot.",
	} {
		// Each sentence three times, as an article comes back to its
		// points: some 300 words of plain text.
		b.WriteString(strings.Repeat(s+" ", 3))
	}
	return b.String()
}

// neardupPage is the body text of a page of the site's reference
// template: breadcrumb links, the page's own text, a footer.
func neardupPage(crumbs []string, own, footer string) string {
	var b strings.Builder
	for i, c := range crumbs {
		if i > 0 {
			b.WriteString(" › ")
		}
		fmt.Fprintf(&b, `<a href="http://b.test/">%s</a>`, c)
	}
	fmt.Fprintf(&b, "</p><p>%s</p><footer>%s</footer><p>", own, footer)
	return b.String()
}

// TestNearDuplicatePages: the same article under two paths, with another
// breadcrumb, title and footer, is one text — the later one is judged a
// duplicate of the first, by its text signature — while two reference
// pages of one template, whose boilerplate gives them one signature but
// whose own sentences differ, and two short pages of the template are not
// duplicates (the false positives the signature must not make).
func TestNearDuplicatePages(t *testing.T) {
	site, a, r := siteCrawl(t)
	ctx := t.Context()
	const (
		article = "http://b.test/std/guide/pruning"
		mirror  = "http://b.test/core/guide/pruning.print"
		alpha   = "http://b.test/ref/alpha"
		beta    = "http://b.test/ref/beta"
		short1  = "http://b.test/short/1"
		short2  = "http://b.test/short/2"
	)
	// Boilerplate of the reference template, as rustdoc repeats its trait
	// implementations under every item: long, and alike on every page.
	boiler := strings.Repeat("Implementations of garden rose traits: clone returns a copy of the rose value, "+
		"debug formats the rose value using the given formatter, default returns the default rose value, "+
		"from converts the rose value, into performs the rose conversion. ", 4)
	site.pages[article] = sitePage{"Pruning in std::guide", neardupPage([]string{"std", "guide", "pruning"},
		roseArticle(), "Rose Society handbook, edition 2024."), nil, true}
	site.pages[mirror] = sitePage{"Pruning in core::guide (print)", neardupPage([]string{"core", "guide", "pruning", "print"},
		roseArticle(), "Printed on 2024-05-06, session 8c21f."), nil, true}
	site.pages[alpha] = sitePage{"Alpha rose", neardupPage([]string{"std", "ref", "alpha"},
		"A crimson hybrid tea bred in Lyon with a strong scent. "+boiler, ""), nil, true}
	site.pages[beta] = sitePage{"Beta rose", neardupPage([]string{"std", "ref", "beta"},
		"A pale yellow rambler that covers walls quickly in shade. "+boiler, ""), nil, true}
	site.pages[short1] = sitePage{"Roses A to M", neardupPage([]string{"std", "index"},
		"Roses from A to M: the varieties listed below.", "Rose Society handbook."), nil, true}
	site.pages[short2] = sitePage{"Roses N to Z", neardupPage([]string{"std", "index"},
		"Roses from N to Z: the varieties listed below.", "Rose Society handbook."), nil, true}
	b := site.pages["http://b.test/"]
	b.links = append(append([]string(nil), b.links...), article, mirror, alpha, beta, short1, short2)
	site.pages["http://b.test/"] = b

	if _, err := a.CrawlSlice(ctx, sliceInput(r, "s000001", 100)); err != nil {
		t.Fatal(err)
	}
	got := map[string]store.Page{}
	for _, u := range []string{article, mirror, alpha, beta, short1, short2} {
		p, err := a.Store.Page(ctx, r.Topic, urlnorm.Hash(u))
		if err != nil {
			t.Fatalf("page %s: %v", u, err)
		}
		got[u] = p
	}

	// The article and its print copy: one is the other's duplicate.
	art, mir := got[article], got[mirror]
	if art.TextHash == "" || art.TextHash != mir.TextHash || art.ContentHash == mir.ContentHash {
		t.Fatalf("article and copy: text signatures %q and %q, content hashes %q and %q; want one signature, two contents",
			art.TextHash, mir.TextHash, art.ContentHash, mir.ContentHash)
	}
	dup, orig := mir, article
	if art.Decision == store.DecisionDuplicate {
		dup, orig = art, mirror
	}
	if dup.Decision != store.DecisionDuplicate || dup.Reason != "duplicate of "+orig {
		t.Errorf("%s: %q (%s); want a duplicate of %s", dup.URL, dup.Decision, dup.Reason, orig)
	}
	if o := got[orig]; o.Decision == store.DecisionDuplicate {
		t.Errorf("%s: judged a duplicate too (%s)", orig, o.Reason)
	}

	// Two reference pages of one template: one signature (the boilerplate
	// is all their frequent terms), but not one text.
	if got[alpha].TextHash == "" || got[alpha].TextHash != got[beta].TextHash {
		t.Errorf("reference pages: text signatures %q and %q; want one (the test's premise: Near must tell them apart)",
			got[alpha].TextHash, got[beta].TextHash)
	}
	// Two short pages of the template: too little text for a signature.
	for _, u := range []string{short1, short2} {
		if got[u].TextHash != "" {
			t.Errorf("%s: text signature %q; want none (under %d words)", u, got[u].TextHash, textsig.MinWords)
		}
	}
	for _, u := range []string{alpha, beta, short1, short2} {
		if p := got[u]; p.Decision == store.DecisionDuplicate || p.Decision == store.DecisionPending {
			t.Errorf("%s: %q (%s); want judged, no duplicate", u, p.Decision, p.Reason)
		}
	}
}
