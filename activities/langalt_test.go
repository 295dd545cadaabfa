package activities

import (
	"context"
	"slices"
	"testing"

	"focuscrawl/internal/langalt"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// TestLanguageSwitcherSkipped: an English topic's crawl follows a page's
// ordinary links and its English version, and skips its language switcher's
// French and German versions (a GBK user trial: 48% of a crawl's fetches
// went to a manual's translations).
func TestLanguageSwitcherSkipped(t *testing.T) {
	ctx := context.Background()
	_, a, r := siteCrawl(t)
	ref := acceptedPage(t, a, r, "c1/lang", "http://a.test/guide/roses.html", `<html><title>Rose garden</title><body><p>`+roseText(3)+`</p>
		<a href="pruning.html">pruning roses</a>
		<p>Other languages: <a href="roses.fr.html">Français</a> <a href="roses.en.html">English</a>
		<a href="/de/guide/roses.html" hreflang="de">de</a></p></body></html>`)
	res, err := a.PredictLinks(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if res.Links != 4 || res.Dropped != 2 || res.Enqueued != 2 {
		t.Errorf("PredictLinks = %+v; want 4 links, the French and German versions dropped", res)
	}
	var dsts []string
	for _, d := range []string{"pruning.html", "roses.en.html", "roses.fr.html"} {
		dsts = append(dsts, urlnorm.Hash("http://a.test/guide/"+d))
	}
	in, err := a.Store.InLinks(ctx, r.Topic, dsts)
	if err != nil {
		t.Fatal(err)
	}
	if len(in[dsts[0]]) != 1 || len(in[dsts[1]]) != 1 || len(in[dsts[2]]) != 0 {
		t.Errorf("in-links recorded: pruning %d, English %d, French %d; want 1, 1, 0", len(in[dsts[0]]), len(in[dsts[1]]), len(in[dsts[2]]))
	}
}

// TestPageOwnLanguageFollowed: a German page an English topic's crawl
// reached (parsed through the activities, as in a crawl) follows its
// German hreflang link: its own language is one the crawl may go on in.
// Before, Parse narrowed the page's "de" to "" before PredictLinks read
// it, and the link was dropped.
func TestPageOwnLanguageFollowed(t *testing.T) {
	ctx := context.Background()
	_, a, r := siteCrawl(t)
	ref := acceptedPage(t, a, r, "c1/de", "http://a.test/de/guide/roses.html", `<html lang="de"><title>Rosen</title><body><p>`+roseText(3)+`</p>
		<a href="/de/guide/pflege.html" hreflang="de">Rosenpflege</a></body></html>`)
	res, err := a.PredictLinks(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if res.Links != 1 || res.Dropped != 0 || res.Enqueued != 1 {
		t.Errorf("PredictLinks = %+v; want the German link enqueued", res)
	}
}

// TestCrawlLanguages: the languages a crawl follows switchers into.
func TestCrawlLanguages(t *testing.T) {
	en := &topic.Topic{Language: "auto", Keywords: map[string]float64{"rose": 1}, Description: "pruning roses in the garden"}
	zh := &topic.Topic{Language: "auto", Keywords: map[string]float64{"玫瑰": 1}}
	all := &topic.Topic{Language: "zh", Scope: topic.Scope{OtherLanguages: true}}
	unknown := &topic.Topic{Language: "auto", Keywords: map[string]float64{"42": 1}}
	// Languages DetectLanguage cannot name follow every switcher link, so
	// their crawls reach their own language's pages (a code review).
	ko := &topic.Topic{Language: "auto", Keywords: map[string]float64{"장미": 1, "가지치기": 1}}
	ja := &topic.Topic{Language: "auto", Keywords: map[string]float64{"バラ": 1, "剪定": 1}}
	de := &topic.Topic{Language: "auto", Keywords: map[string]float64{"rosen": 1}, Description: "Rosen schneiden im Frühling"}
	deASCII := &topic.Topic{Language: "auto", Keywords: map[string]float64{"rosen": 1, "schneiden": 1}}
	explicit := &topic.Topic{Language: "en", Keywords: map[string]float64{"rose": 1}}
	for _, c := range []struct {
		t    *topic.Topic
		doc  parse.Document
		want []string
	}{
		{en, parse.Document{Title: "Roses", Other: "pruning roses in spring"}, []string{"en"}},
		{en, parse.Document{Lang: "de-de", Other: "Rosen schneiden im Frühling"}, []string{"en", "de"}},
		{zh, parse.Document{Other: "pruning roses in spring"}, []string{"zh", "en"}},
		{zh, parse.Document{Lang: "zh-cn", Other: "修剪玫瑰"}, []string{"zh"}},
		{all, parse.Document{Other: "修剪玫瑰"}, nil},
		{unknown, parse.Document{Other: "pruning"}, nil},
		{ko, parse.Document{Other: "pruning roses"}, nil},
		{ja, parse.Document{Other: "pruning roses"}, nil},
		{de, parse.Document{Other: "pruning roses"}, nil},
		{deASCII, parse.Document{Other: "pruning roses"}, nil},
		{explicit, parse.Document{Other: "pruning roses"}, []string{"en"}},
	} {
		if got := pageLanguages(topicLanguages(c.t), &c.doc, "", "http://h/x.html"); !slices.Equal(got, c.want) {
			t.Errorf("topic %v, page lang %q: %v, want %v", c.t.Keywords, c.doc.Lang, got, c.want)
		}
	}
}

// TestPageLanguageFromURL: a page whose URL carries its language where its
// switcher's links carry theirs is in that language, whatever its text
// reads as — a user trial (the Chinese LilyPond manual, GBK, untranslated
// English chapters, no <html lang>) followed every "English" link into
// the English manual when the page's text said English.
func TestPageLanguageFromURL(t *testing.T) {
	zh := &topic.Topic{Language: "zh", Keywords: map[string]float64{"歌词": 1}}
	doc := parse.Document{Other: "Looking at the music, we see that the extra lyrics do not align properly with the notes.",
		Links: []parse.Link{
			{URL: "http://h/learning/songs.zh.html", Anchor: "Songs"},
			{URL: "http://h/learning/lyrics.html", Anchor: "English"},
			{URL: "http://h/learning/lyrics.de.html", Anchor: "Deutsch"},
			{URL: "http://h/learning/lyrics.fr.html", Anchor: "Francais"},
		}}
	page := "http://h/learning/lyrics.zh.html"
	langs := pageLanguages(topicLanguages(zh), &doc, "", page)
	if !slices.Equal(langs, []string{"zh"}) {
		t.Errorf("languages followed from %s: %v, want [zh]", page, langs)
	}
	for i, want := range []bool{false, true, true, true} {
		if got := langalt.Foreign(doc.Links[i], page, langs); got != want {
			t.Errorf("%s: foreign %v, want %v", doc.Links[i].URL, got, want)
		}
	}
	// Without a switcher the text's language still counts.
	doc.Links = doc.Links[:1]
	if langs := pageLanguages(topicLanguages(zh), &doc, "", page); !slices.Equal(langs, []string{"zh", "en"}) {
		t.Errorf("no switcher: %v, want [zh en]", langs)
	}
}

// TestMediaLinksSkipped: links whose extension names a format the fetcher's
// content-type allowlist refuses (an image, an archive, a PDF) are dropped
// before they cost a request; a user trial's crawl of a manual spent 4 of
// 60 fetches on its pictures' links.
func TestMediaLinksSkipped(t *testing.T) {
	ctx := context.Background()
	_, a, r := siteCrawl(t)
	ref := acceptedPage(t, a, r, "c1/media", "http://a.test/guide/roses.html", `<html><title>Rose garden</title><body><p>`+roseText(3)+`</p>
		<a href="pruning.html">pruning roses</a> <a href="img/rose-large.PNG"><img src="img/rose.png" alt="a pruned rose"></a>
		<a href="roses-guide.pdf">rose pruning guide (PDF)</a> <a href="download.php?f=roses.zip">roses archive</a></body></html>`)
	res, err := a.PredictLinks(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if res.Enqueued != 2 || res.Dropped != res.Links-2 {
		t.Errorf("PredictLinks = %+v; want the page and the script's link enqueued, the picture and the PDF dropped", res)
	}
	if res.Links < 4 {
		t.Errorf("PredictLinks saw %d links, want at least the 4 <a> links", res.Links)
	}
}

// TestRobotsDisallowedLinksSkipped: links its host's robots.txt disallows
// are dropped once that file is cached (it is, for a page just fetched from
// the host): a wiki's "edit" and "?action=history" links on every page were
// queued, claimed and refused one by one, 8 of a trial crawl's 12 pages of
// budget spent without a request.
func TestRobotsDisallowedLinksSkipped(t *testing.T) {
	ctx := context.Background()
	site := newLoopBackSite(t)
	site.robots = "User-agent: *\nDisallow: /wiki/edit/\nDisallow: /*?action=\n"
	a := siteActivities(t, site)
	r := startSiteCrawl(t, a)
	if _, err := a.Fetcher.Robots(ctx, "http://a.test/"); err != nil {
		t.Fatal(err)
	}
	ref := acceptedPage(t, a, r, "c1/robots", "http://a.test/wiki/Roses.html", `<html><title>Rose garden</title><body><p>`+roseText(3)+`</p>
		<a href="Pruning.html">pruning roses</a> <a href="edit/Roses.html">edit</a> <a href="Roses.html?action=history">history</a>
		<a href="http://b.test/wiki/edit/Roses.html">another site's edit page</a></body></html>`)
	res, err := a.PredictLinks(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	// b.test's robots.txt is not read yet: its link is queued, and its
	// fetch will check it.
	if res.Enqueued != 2 || res.Dropped != res.Links-2 {
		t.Errorf("PredictLinks = %+v; want Pruning.html and b.test's link enqueued, the edit and history links dropped", res)
	}
}
