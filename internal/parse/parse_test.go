package parse

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

const pageURL = "http://example.com/dir/page.html"

func mustParse(t testing.TB, body string) *Document {
	t.Helper()
	doc, err := Parse(pageURL, []byte(body), Options{})
	if err != nil {
		t.Fatalf("Parse(%q): %v", body, err)
	}
	return doc
}

func linkURLs(doc *Document) []string {
	var urls []string
	for _, l := range doc.Links {
		urls = append(urls, l.URL)
	}
	return urls
}

func findLink(t *testing.T, doc *Document, u string) Link {
	t.Helper()
	for _, l := range doc.Links {
		if l.URL == u {
			return l
		}
	}
	t.Fatalf("no link %s among %q", u, linkURLs(doc))
	return Link{}
}

func TestBase(t *testing.T) {
	tests := []struct {
		name, body, wantBase string
		wantLinks            []string
	}{
		{
			name:      "no base",
			body:      `<a href="a/b.html">x</a><a href="/root.html">y</a><a href="//other.org/p">z</a>`,
			wantBase:  pageURL,
			wantLinks: []string{"http://example.com/dir/a/b.html", "http://example.com/root.html", "http://other.org/p"},
		},
		{
			name:      "relative base",
			body:      `<head><base href="../other/"></head><a href="x.html">x</a>`,
			wantBase:  "http://example.com/other/",
			wantLinks: []string{"http://example.com/other/x.html"},
		},
		{
			name:      "absolute base",
			body:      `<head><base href="https://cdn.example.org/root/"></head><a href="x">x</a><a href="/y">y</a>`,
			wantBase:  "https://cdn.example.org/root/",
			wantLinks: []string{"https://cdn.example.org/root/x", "https://cdn.example.org/y"},
		},
		{
			name:      "only the first base counts, wherever it is",
			body:      `<a href="x">x</a><base target="_blank"><base href="/first/"><base href="/second/">`,
			wantBase:  "http://example.com/first/",
			wantLinks: []string{"http://example.com/first/x"},
		},
		{
			// As links are resolved (urlnorm.Resolve), and as browsers read
			// it: kept, the backslashes became %5C in every link.
			name:      "base with backslashes",
			body:      `<head><base href="..\other\"></head><a href="x.html">x</a>`,
			wantBase:  "http://example.com/other/",
			wantLinks: []string{"http://example.com/other/x.html"},
		},
		{
			name:      "unusable base is ignored",
			body:      `<base href="javascript:void(0)"><a href="x">x</a>`,
			wantBase:  pageURL,
			wantLinks: []string{"http://example.com/dir/x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustParse(t, tt.body)
			if doc.URL != pageURL {
				t.Errorf("URL = %q, want %q", doc.URL, pageURL)
			}
			if doc.Base != tt.wantBase {
				t.Errorf("Base = %q, want %q", doc.Base, tt.wantBase)
			}
			if got := linkURLs(doc); !slices.Equal(got, tt.wantLinks) {
				t.Errorf("links = %q, want %q", got, tt.wantLinks)
			}
		})
	}
}

func TestMetadata(t *testing.T) {
	doc := mustParse(t, `<!DOCTYPE html><html LANG=" EN-us "><head>
		<title>  Focused
		  Crawling &amp; You </title><title>Second title</title>
		<meta name="Description" content=" A page   about
		crawling. ">
		<meta name="keywords" content="crawler, focus">
		<meta name="description" content="ignored second description">
		</head><body><p>Body text</p></body></html>`)
	checks := []struct{ field, got, want string }{
		{"Title", doc.Title, "Focused Crawling & You"},
		{"Lang", doc.Lang, "en-us"},
		{"MetaDescription", doc.MetaDescription, "A page about crawling."},
		{"MetaKeywords", doc.MetaKeywords, "crawler, focus"},
		{"Text", doc.Text, "Body text"}, // the title is not body text
		{"Emphasis", doc.Emphasis, "Focused Crawling & You Second title"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
		}
	}
	if doc.NoIndex || doc.NoFollow {
		t.Errorf("NoIndex, NoFollow = %v, %v without meta robots", doc.NoIndex, doc.NoFollow)
	}
}

func TestMetaRobots(t *testing.T) {
	tests := []struct {
		meta                   string
		wantNoIndex, wantNoFol bool
	}{
		{`<meta name="robots" content="noindex">`, true, false},
		{`<meta name="robots" content="nofollow">`, false, true},
		{`<meta name="ROBOTS" content="NOINDEX, NOFOLLOW">`, true, true},
		{`<meta name="robots" content="none">`, true, true},
		{`<meta name="robots" content="index,follow">`, false, false},
		{`<meta name="googlebot" content="noindex">`, false, false},
		{`<meta content="noindex">`, false, false},
	}
	for _, tt := range tests {
		doc := mustParse(t, "<head>"+tt.meta+"</head><body><a href=/x>x</a></body>")
		if doc.NoIndex != tt.wantNoIndex || doc.NoFollow != tt.wantNoFol {
			t.Errorf("%s: NoIndex, NoFollow = %v, %v, want %v, %v", tt.meta, doc.NoIndex, doc.NoFollow, tt.wantNoIndex, tt.wantNoFol)
		}
		if len(doc.Links) != 1 {
			t.Errorf("%s: %d links, want 1 (robots meta does not remove links)", tt.meta, len(doc.Links))
		}
	}
}

// TestRobotsForThisCrawler: a <meta name="TOKEN"> tag addresses this
// crawler (Options.AgentToken) as name="robots" addresses all, and the
// response's X-Robots-Tag values add theirs (ApplyRobotsTags), those
// addressed to another crawler excepted. Before, both were ignored.
func TestRobotsForThisCrawler(t *testing.T) {
	for _, tc := range []struct {
		meta, tags        string
		noindex, nofollow bool
	}{
		{`<meta name="FocusCrawl" content="noindex">`, "", true, false},
		{`<meta name="otherbot" content="noindex">`, "", false, false},
		{"", "noindex", true, false},
		{"", "otherbot: noindex\nfocuscrawl: nofollow", false, true},
		{`<meta name="robots" content="nofollow">`, "none", true, true},
	} {
		doc, err := Parse(pageURL, []byte("<head>"+tc.meta+"</head><body><a href=/x>x</a></body>"), Options{AgentToken: "focuscrawl"})
		if err != nil {
			t.Fatal(err)
		}
		ApplyRobotsTags(doc, tc.tags, "focuscrawl")
		if doc.NoIndex != tc.noindex || doc.NoFollow != tc.nofollow {
			t.Errorf("meta %s, X-Robots-Tag %q: NoIndex, NoFollow = %v, %v; want %v, %v",
				tc.meta, tc.tags, doc.NoIndex, doc.NoFollow, tc.noindex, tc.nofollow)
		}
	}
}

func TestPositionClasses(t *testing.T) {
	doc := mustParse(t, `<html><head><title>Page Title</title></head><body>
		<h1>Big Heading</h1>
		<p>Para text <a href="/x">link text</a> more <strong>strong words</strong> and <b>bold</b> end</p>
		<h2><a href="/y">heading link</a> plain heading</h2>
		<h3>minor heading</h3>
		</body></html>`)
	checks := []struct{ field, got, want string }{
		{"Anchor", doc.Anchor, "link text heading link"},
		{"Emphasis", doc.Emphasis, "Page Title Big Heading strong words bold plain heading"},
		{"Other", doc.Other, "Para text more and end minor heading"},
		{"Text", doc.Text, "Big Heading Para text link text more strong words and bold end heading link plain heading minor heading"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	tests := []struct{ body, want string }{
		{"<p>a</p><p>b</p>", "a b"},
		{"foo<b>bar</b>baz", "foobarbaz"},
		{`<a href="/h">Home</a><a href="/n">News</a>|<a name="x">No</a>href`, "Home News |Nohref"},
		{"<div>one<br>two</div><ul><li>three</li><li>four</li></ul>", "one two three four"},
		{"<table><tr><td>c1</td><td>c2</td></tr></table>", "c1 c2"},
		{"  lots \n\t of\u00a0\u00a0 space\u3000here  ", "lots of space here"},
		{"AT&amp;T &lt;tag&gt; &copy; caf&eacute;", "AT&T <tag> © café"},
		{`keep<script>var x = "no";</script><style>.c{}</style><template><p>no</p></template><svg><text>no</text><title>no</title></svg><!-- no -->going`, "keepgoing"},
		{`<iframe src="/f">fallback <b>no</b></iframe>after`, "after"},
		{`<math><mi>x</mi></math>text`, "text"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := mustParse(t, tt.body).Text; got != tt.want {
			t.Errorf("Text of %q = %q, want %q", tt.body, got, tt.want)
		}
	}
}

// TestContextBytesOnRuneBoundaries: 30 bytes a side never split a
// character; with 2-byte runes (Greek) that is 15 characters a side, with a
// mix the cut falls before the character that would cross the limit.
func TestContextBytesOnRuneBoundaries(t *testing.T) {
	tests := []struct{ text, want string }{
		{strings.Repeat("α", 40) + "<a href=/l>x</a>" + strings.Repeat("β", 40), strings.Repeat("α", 15) + " " + strings.Repeat("β", 15)},
		{"a" + strings.Repeat("中", 12) + "<a href=/l>x</a>" + strings.Repeat("文", 12) + "b", strings.Repeat("中", 10) + " " + strings.Repeat("文", 10)},
		{"ab中文<a href=/l>x</a>cd", "ab中文 cd"},
	}
	for _, tt := range tests {
		doc := mustParse(t, "<p>"+tt.text+"</p>")
		if l := findLink(t, doc, "http://example.com/l"); l.Context != tt.want {
			t.Errorf("%q: Context = %q, want %q", tt.text, l.Context, tt.want)
		}
	}
}

func TestContextEnglish(t *testing.T) {
	doc := mustParse(t, `<p>The quick brown fox jumps over the lazy dog while the <a href="/crawler">focused
		crawler</a> visits only pages that match its topic and skips the rest.</p>
		<p>Short before <a href="/short">short</a> and after.</p>
		<p><a href="/alone">alone</a></p>`)
	tests := []struct{ url, anchor, context string }{
		{"http://example.com/crawler", "focused crawler", "ps over the lazy dog while the visits only pages that match i"},
		{"http://example.com/short", "short", "d skips the rest. Short before and after. alone"},
		{"http://example.com/alone", "alone", "Short before short and after."},
	}
	for _, tt := range tests {
		l := findLink(t, doc, tt.url)
		if l.Anchor != tt.anchor || l.Context != tt.context {
			t.Errorf("%s: Anchor, Context = %q, %q\nwant %q, %q", tt.url, l.Anchor, l.Context, tt.anchor, tt.context)
		}
	}
}

func TestContextChinese(t *testing.T) {
	doc := mustParse(t, `<html lang="zh-CN"><body><p>在中文网站上，由于词与词之间没有空格，聚焦爬虫根据主题相关性选择要抓取的链接，例如<a href="/anchor">锚文本分析</a>可以帮助判断链接是否值得跟进，而不是广度优先地遍历整个网络，从而节省带宽。</p></body></html>`)
	l := findLink(t, doc, "http://example.com/anchor")
	// Seed 001: 30 bytes either side, i.e. 10 Chinese characters in UTF-8.
	const wantContext = "择要抓取的链接，例如 可以帮助判断链接是否"
	if l.Anchor != "锚文本分析" || l.Context != wantContext {
		t.Errorf("Anchor, Context = %q, %q\nwant %q, %q", l.Anchor, l.Context, "锚文本分析", wantContext)
	}
	if before, after, _ := strings.Cut(l.Context, " "); len(before) != contextBytes || len(after) != contextBytes {
		t.Errorf("context %q | %q: want exactly %d bytes a side", before, after, contextBytes)
	}
}

func TestLinkDedupe(t *testing.T) {
	doc := mustParse(t, `<p>first context <a href="/x">One</a> here</p>
		<p><a href="/x#frag">Two</a></p>
		<p><a href="HTTP://EXAMPLE.com:80/x">One</a></p>
		<p><a href="/x" title="the title">Three</a></p>
		<p><a href="/y">Y</a></p>
		<p><a href="/x"><img src="i.png" alt="icon"></a></p>`)
	if got, want := linkURLs(doc), []string{"http://example.com/x", "http://example.com/y"}; !slices.Equal(got, want) {
		t.Fatalf("links = %q, want %q", got, want)
	}
	l := doc.Links[0]
	if l.Anchor != "One | Two | Three | icon" {
		t.Errorf("merged Anchor = %q", l.Anchor)
	}
	if l.Context != "first context here Two One Three Y" {
		t.Errorf("merged Context = %q, want the first occurrence's", l.Context)
	}
	if l.Title != "the title" || l.Alt != "icon" {
		t.Errorf("merged Title, Alt = %q, %q", l.Title, l.Alt)
	}
}

func TestNofollow(t *testing.T) {
	doc := mustParse(t, `<a href="/a" rel="nofollow">a</a>
		<a href="/b" rel="noopener NoFollow">b</a>
		<a href="/c" rel="noopener">c</a>
		<a href="/d" rel="nofollow">d</a><a href="/d">d again</a>
		<a href="/e" rel="nofollow">e</a><a href="/e" rel="nofollow">e again</a>`)
	want := map[string]bool{"/a": true, "/b": true, "/c": false, "/d": false, "/e": true}
	for path, nf := range want {
		if l := findLink(t, doc, "http://example.com"+path); l.Nofollow != nf {
			t.Errorf("%s: Nofollow = %v, want %v", path, l.Nofollow, nf)
		}
	}
}

func TestFramesAreasIframes(t *testing.T) {
	frames := mustParse(t, `<html><head><title>Frames</title></head>
		<frameset cols="20%,80%"><frame src="left.html" title="Navigation"><frame src="/right.html"><frame name="nosrc"></frameset></html>`)
	if got, want := linkURLs(frames), []string{"http://example.com/dir/left.html", "http://example.com/right.html"}; !slices.Equal(got, want) {
		t.Errorf("frame links = %q, want %q", got, want)
	}
	if l := frames.Links[0]; l.Tag != "frame" || l.Title != "Navigation" {
		t.Errorf("frame link = %+v", l)
	}

	doc := mustParse(t, `<p>Map of the regions:</p>
		<img src="map.png" usemap="#m"><map name="m">
		<area shape="rect" coords="0,0,10,10" href="/north" alt="North  region" title="Go north">
		<area shape="rect" coords="0,0,10,10" alt="no href">
		</map>
		<p>Embedded <iframe src="https://video.example.net/embed/1" title="Video"></iframe> player</p>`)
	area := findLink(t, doc, "http://example.com/north")
	if area.Tag != "area" || area.Anchor != "North region" || area.Title != "Go north" {
		t.Errorf("area link = %+v", area)
	}
	iframe := findLink(t, doc, "https://video.example.net/embed/1")
	if iframe.Tag != "iframe" || iframe.Title != "Video" || iframe.Context != "Map of the regions: Embedded player" {
		t.Errorf("iframe link = %+v", iframe)
	}
	if len(doc.Links) != 2 {
		t.Errorf("links = %q, want the area and the iframe", linkURLs(doc))
	}
}

func TestDroppedLinks(t *testing.T) {
	doc := mustParse(t, `
		<a href="javascript:void(0)">js</a><a href=" JavaScript:alert(1)">js</a>
		<a href="mailto:a@example.com">mail</a><a href="tel:+123">tel</a>
		<a href="data:text/html,hi">data</a><a href="ftp://example.com/f">ftp</a>
		<a href="http://[::1">bad</a><a href="http://">nohost</a><a href="">empty</a>
		<a href="#top">self</a><a href="page.html">self</a><a href="HTTP://Example.COM/dir/page.html#x">self</a>
		<a>no href</a><a href="/kept">kept</a>
		<a href="/wrapped/
			path">wrapped</a>`)
	if got, want := linkURLs(doc), []string{"http://example.com/kept", "http://example.com/wrapped/path"}; !slices.Equal(got, want) {
		t.Errorf("links = %q, want %q", got, want)
	}
	// A link without href is ordinary text, not anchor text.
	if strings.Contains(doc.Anchor, "no href") || !strings.Contains(doc.Other, "no href") {
		t.Errorf("Anchor = %q, Other = %q: text of <a> without href must be Other", doc.Anchor, doc.Other)
	}
}

func TestImageLinks(t *testing.T) {
	doc := mustParse(t, `<a href="/logo"><img src="logo.png" alt="Company  logo"></a>
		<a href="/both"><img src="a.png" alt="first"> Read more <img src="b.png" alt="second"></a>
		<a href="/noalt"><img src="c.png"></a>`)
	tests := []struct{ url, anchor, alt string }{
		{"http://example.com/logo", "Company logo", "Company logo"},
		{"http://example.com/both", "Read more", "first second"},
		{"http://example.com/noalt", "", ""},
	}
	for _, tt := range tests {
		l := findLink(t, doc, tt.url)
		if l.Anchor != tt.anchor || l.Alt != tt.alt {
			t.Errorf("%s: Anchor, Alt = %q, %q, want %q, %q", tt.url, l.Anchor, l.Alt, tt.anchor, tt.alt)
		}
	}
}

func TestMalformed(t *testing.T) {
	tests := []struct {
		name, body string
		wantText   []string
		wantLinks  []string
	}{
		{"unclosed tags", `<html><body><div><p>first para<p>second <b>bold <i>italic<a href="/u">unclosed link`,
			[]string{"first para", "second", "bold", "italic", "unclosed link"}, []string{"http://example.com/u"}},
		{"stray end tags", `</div></div></p><p>text</span> after</td></table><a href="/s">s</a></a></a>`,
			[]string{"text after"}, []string{"http://example.com/s"}},
		{"garbage bytes", "\xff\xfe\x00<p>ok \xc3\x28 text</p>\x00<a href=\"/g\xff\">g</a><<<>>>",
			[]string{"ok", "text"}, []string{"http://example.com/g%FF"}},
		{"unterminated attribute", `<p>before</p><a href="/q>broken`,
			[]string{"before"}, nil},
		{"nested links", `<a href="/outer">out <a href="/inner">in</a> tail</a>`,
			[]string{"out", "in", "tail"}, []string{"http://example.com/outer", "http://example.com/inner"}},
		{"deep nesting", strings.Repeat("<div><span>", 5000) + "deep" + `<a href="/deep">d</a>`,
			[]string{"deep"}, []string{"http://example.com/deep"}},
		{"not html", "just plain text, no tags at all", []string{"just plain text, no tags at all"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustParse(t, tt.body)
			if !utf8.ValidString(doc.Text) {
				t.Errorf("Text %q is not valid UTF-8", doc.Text)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(doc.Text, w) {
					t.Errorf("Text = %q, missing %q", doc.Text, w)
				}
			}
			for _, u := range tt.wantLinks {
				findLink(t, doc, u)
			}
		})
	}
}

func TestChinesePage(t *testing.T) {
	doc := mustParse(t, `<!DOCTYPE html>
<html lang="zh-CN"><head><meta charset="utf-8">
<title>聚焦爬虫技术综述 - 示例网</title>
<meta name="description" content="介绍聚焦爬虫的主题相关性判断与链接预测方法">
<meta name="keywords" content="聚焦爬虫,网络爬虫,链接分析"></head>
<body>
<div id="nav"><a href="/">首页</a> | <a href="/news/">新闻</a> | <a href="/tech/爬虫.html">爬虫技术</a></div>
<h1>聚焦爬虫技术综述</h1>
<p>网络爬虫是搜索引擎的重要组成部分。<strong>聚焦爬虫</strong>只抓取与主题相关的网页，详见<a href="../papers/jlse.html" title="联合链接相似度">链接相似度评估</a>一文。</p>
</body></html>`)
	if doc.Lang != "zh-cn" || doc.Title != "聚焦爬虫技术综述 - 示例网" {
		t.Errorf("Lang, Title = %q, %q", doc.Lang, doc.Title)
	}
	if doc.MetaKeywords != "聚焦爬虫,网络爬虫,链接分析" || doc.MetaDescription != "介绍聚焦爬虫的主题相关性判断与链接预测方法" {
		t.Errorf("meta = %q, %q", doc.MetaKeywords, doc.MetaDescription)
	}
	if doc.Emphasis != "聚焦爬虫技术综述 - 示例网 聚焦爬虫技术综述 聚焦爬虫" {
		t.Errorf("Emphasis = %q", doc.Emphasis)
	}
	if doc.Anchor != "首页 新闻 爬虫技术 链接相似度评估" {
		t.Errorf("Anchor = %q", doc.Anchor)
	}
	if doc.Other != "| | 网络爬虫是搜索引擎的重要组成部分。 只抓取与主题相关的网页，详见 一文。" {
		t.Errorf("Other = %q", doc.Other)
	}
	wantLinks := []string{
		"http://example.com/",
		"http://example.com/news/",
		"http://example.com/tech/%E7%88%AC%E8%99%AB.html",
		"http://example.com/papers/jlse.html",
	}
	if got := linkURLs(doc); !slices.Equal(got, wantLinks) {
		t.Errorf("links = %q, want %q", got, wantLinks)
	}
	l := findLink(t, doc, "http://example.com/papers/jlse.html")
	if l.Title != "联合链接相似度" || l.Context != "主题相关的网页，详见 一文。" {
		t.Errorf("link = %+v", l)
	}
}

// TestQueryInPageCharset: the query of a link (and of <base href>) in a
// page decoded from GBK is percent-encoded in GBK, as browsers send it; the
// path stays UTF-8. Options.Charset is the fetcher's name for the page's
// source encoding; UTF-8 and unknown names keep UTF-8.
func TestQueryInPageCharset(t *testing.T) {
	body := `<html><head><base href="/forum/?f=论坛"><title>标签</title></head><body>
<a href="tag.php?t=错误报告">错误报告</a> <a href="/文档/x.html?q=中">文档</a> <img src="pic.php?n=图"></body></html>`
	tests := []struct {
		charset  string
		wantBase string
		want     []string
		wantImg  string
	}{
		{"gbk", "http://example.com/forum/?f=%C2%DB%CC%B3",
			[]string{"http://example.com/forum/tag.php?t=%B4%ED%CE%F3%B1%A8%B8%E6", "http://example.com/%E6%96%87%E6%A1%A3/x.html?q=%D6%D0"},
			"http://example.com/forum/pic.php?n=%CD%BC"},
		{"gb18030", "http://example.com/forum/?f=%C2%DB%CC%B3",
			[]string{"http://example.com/forum/tag.php?t=%B4%ED%CE%F3%B1%A8%B8%E6", "http://example.com/%E6%96%87%E6%A1%A3/x.html?q=%D6%D0"},
			"http://example.com/forum/pic.php?n=%CD%BC"},
		{"utf-8", "http://example.com/forum/?f=%E8%AE%BA%E5%9D%9B",
			[]string{"http://example.com/forum/tag.php?t=%E9%94%99%E8%AF%AF%E6%8A%A5%E5%91%8A", "http://example.com/%E6%96%87%E6%A1%A3/x.html?q=%E4%B8%AD"},
			"http://example.com/forum/pic.php?n=%E5%9B%BE"},
		{"", "http://example.com/forum/?f=%E8%AE%BA%E5%9D%9B",
			[]string{"http://example.com/forum/tag.php?t=%E9%94%99%E8%AF%AF%E6%8A%A5%E5%91%8A", "http://example.com/%E6%96%87%E6%A1%A3/x.html?q=%E4%B8%AD"},
			"http://example.com/forum/pic.php?n=%E5%9B%BE"},
	}
	for _, tt := range tests {
		t.Run(tt.charset, func(t *testing.T) {
			doc, err := Parse(pageURL, []byte(body), Options{Charset: tt.charset})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Base != tt.wantBase {
				t.Errorf("Base = %q, want %q", doc.Base, tt.wantBase)
			}
			if got := linkURLs(doc); !slices.Equal(got, tt.want) {
				t.Errorf("links = %q, want %q", got, tt.want)
			}
			if len(doc.Images) != 1 || doc.Images[0].URL != tt.wantImg {
				t.Errorf("images = %+v, want %q", doc.Images, tt.wantImg)
			}
		})
	}
}

func TestBadPageURL(t *testing.T) {
	for _, u := range []string{"", "not a url", "/relative/path", "ftp://example.com/", "mailto:a@example.com", "http://", "http://[::1"} {
		if doc, err := Parse(u, []byte("<a href=/x>x</a>"), Options{}); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", u, doc)
		}
	}
}

func TestOptions(t *testing.T) {
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, `<p>paragraph number %d <a href="/p%d">link %d</a></p>`, i, i, i)
	}
	doc, err := Parse(pageURL, []byte(b.String()), Options{MaxLinks: 3, MaxTextBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Links) != 3 || doc.Links[2].URL != "http://example.com/p2" {
		t.Errorf("links = %q, want the first 3", linkURLs(doc))
	}
	full := mustParse(t, b.String())
	if len(doc.Text) > 100 || !strings.HasPrefix(full.Text, doc.Text) || doc.Text == "" {
		t.Errorf("Text = %q (%d bytes), want a non-empty prefix of at most 100 bytes", doc.Text, len(doc.Text))
	}
	if len(full.Links) != 20 {
		t.Errorf("default options kept %d links, want 20", len(full.Links))
	}
}

// benchPage builds a realistic page of about size bytes: head with scripts
// and styles, navigation, articles mixing English and Chinese, footer.
func benchPage(size int) []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Focused crawling news</title>
<meta name="description" content="News about focused crawlers"><link rel="stylesheet" href="/s.css">
<style>body{font:14px sans-serif}.nav a{color:#333}</style>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}</script></head><body>
<header><nav class="nav"><ul>`)
	for i := range 40 {
		fmt.Fprintf(&b, `<li><a href="/section/%d/" title="Section %d">Section %d</a></li>`, i, i, i)
	}
	b.WriteString("</ul></nav></header><main>")
	for i := 0; b.Len() < size-2000; i++ {
		fmt.Fprintf(&b, `<article><h2><a href="/articles/%d.html">Article %d: topic-driven crawling</a></h2>
<p class="meta">Posted <time>2024-05-%02d</time> by <a href="/authors/%d" rel="nofollow">Author %d</a></p>
<p>A <strong>focused crawler</strong> downloads pages relevant to a topic and follows links whose anchor text
and surrounding text look promising. 聚焦爬虫根据主题相关性选择要抓取的链接，并使用<a href="/wiki/锚文本">锚文本</a>和上下文判断。
See <a href="https://example.org/ref/%d?utm=x#sec">reference %d</a> &amp; <a href="/articles/%d.html">more</a>.</p>
<!-- ad slot --><div class="ad"><script>render(%d)</script></div></article>`, i, i, i%28+1, i%7, i%7, i, i, i, i)
	}
	b.WriteString(`</main><footer><p>&copy; 2024 Example</p><a href="/about">About</a> <a href="/contact">Contact</a> <a href="mailto:x@example.com">Mail</a></footer></body></html>`)
	return []byte(b.String())
}

func TestBenchPageParses(t *testing.T) {
	page := benchPage(50 << 10)
	doc, err := Parse("https://example.com/news/", page, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Links) < 100 || doc.Title != "Focused crawling news" || len(doc.Text) < 10<<10 {
		t.Errorf("bench page: %d links, title %q, %d bytes of text", len(doc.Links), doc.Title, len(doc.Text))
	}
}

func BenchmarkParse(b *testing.B) {
	page := benchPage(50 << 10)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("https://example.com/news/", page, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestImageResources: <img src> and <body background> are extracted (seed
// 000) with alt and title as metadata, resolved and de-duplicated, and kept
// out of Links, which are crawl targets.
func TestImageResources(t *testing.T) {
	doc := mustParse(t, `<html><body background="/img/bg.png"><p>Roses
		<img src="rose.jpg" alt="A  red rose" title="Rose">
		<a href="/garden"><img src="/dir/rose.jpg" alt="again"></a>
		<img alt="no src"><img src="data:image/png;base64,AAAA" alt="inline">
		<img src="http://cdn.test/p.gif"></p></body></html>`)
	want := []Image{
		{URL: "http://example.com/img/bg.png", Tag: "background"},
		{URL: "http://example.com/dir/rose.jpg", Alt: "A red rose", Title: "Rose", Tag: "img"},
		{URL: "http://cdn.test/p.gif", Tag: "img"},
	}
	if !slices.Equal(doc.Images, want) {
		t.Errorf("Images = %+v\nwant %+v", doc.Images, want)
	}
	if got := linkURLs(doc); !slices.Equal(got, []string{"http://example.com/garden"}) {
		t.Errorf("Links = %q: images must not become crawl targets", got)
	}
}

// TestHrefLang: a link's hreflang is kept, lower-cased, for the language
// switcher check (internal/langalt); a repeated link keeps the first one.
func TestHrefLang(t *testing.T) {
	doc, err := Parse("http://h.test/en/a.html", []byte(`<html><body>
		<a href="/de/a.html" hreflang="DE">de</a> <a href="/pt-br/a.html" hreflang=" pt-BR ">pt-br</a>
		<a href="/fr/a.html">fr</a> <a href="/fr/a.html" hreflang="fr">Français</a></body></html>`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"http://h.test/de/a.html": "de", "http://h.test/pt-br/a.html": "pt-br", "http://h.test/fr/a.html": "fr"}
	if len(doc.Links) != len(want) {
		t.Fatalf("links %+v", doc.Links)
	}
	for _, l := range doc.Links {
		if l.HrefLang != want[l.URL] {
			t.Errorf("%s: hreflang %q, want %q", l.URL, l.HrefLang, want[l.URL])
		}
	}
}

// TestNoscriptLinks: a <noscript> in the body is read as a browser without
// scripts shows it (its links are how such a client reaches a script-built
// menu's pages); its tracking pixels and tag-manager frames are not the
// page's; in <head> it is metadata, nested it is left alone.
func TestNoscriptLinks(t *testing.T) {
	body := `<html><head><noscript><link rel="stylesheet" href="/noscript.css"></noscript></head><body>
<div id="menu"></div><script>buildMenu()</script>
<noscript><ul><li><a href="/guide/install.html">Installing the tool</a></li>
<li><a href="/guide/config.html">Configuration</a></li></ul>
<img src="https://tracker.example/px.gif?id=1" width="1" height="1">
<iframe src="https://tags.example/ns.html?id=GTM-1"></iframe></noscript>
<p>Welcome</p></body></html>`
	doc := mustParse(t, body)
	got := linkURLs(doc)
	want := []string{"http://example.com/guide/install.html", "http://example.com/guide/config.html"}
	if !slices.Equal(got, want) {
		t.Fatalf("links %q, want %q", got, want)
	}
	if doc.Links[0].Anchor != "Installing the tool" {
		t.Errorf("anchor %q", doc.Links[0].Anchor)
	}
	if len(doc.Images) != 0 {
		t.Errorf("images %+v, want none (a tracking pixel)", doc.Images)
	}
	if !strings.Contains(doc.Text, "Configuration") || !strings.Contains(doc.Text, "Welcome") {
		t.Errorf("text %q lacks the noscript menu or the page", doc.Text)
	}
	// Text alone is read without a parse; a page of many <noscript>
	// elements parses only its first noscriptMaxParses.
	doc = mustParse(t, `<p>before</p><noscript>Please enable JavaScript &amp; reload</noscript>`)
	if !strings.Contains(doc.Text, "Please enable JavaScript & reload") {
		t.Errorf("text %q lacks the noscript message", doc.Text)
	}
	var many strings.Builder
	many.WriteString("<p>body</p>")
	for i := range noscriptMaxParses + 36 {
		fmt.Fprintf(&many, `<noscript><a href="/n%d">n%d</a></noscript>`, i, i)
	}
	if doc = mustParse(t, many.String()); len(doc.Links) != noscriptMaxParses {
		t.Errorf("%d noscript links of %d elements; want the first %d", len(doc.Links), noscriptMaxParses+36, noscriptMaxParses)
	}
	// Nested: the inner element's raw text is neither text nor links.
	doc = mustParse(t, `<noscript>outer <noscript><a href="/inner">in</a></noscript></noscript>`)
	if len(doc.Links) != 0 {
		t.Errorf("nested noscript gave links %q", linkURLs(doc))
	}
}

// reconstructedLinkPage is a page whose <a> is left open in a <p> with a
// title of about 1.4 MB, followed by n paragraphs: the HTML parser
// re-creates the open <a>, with all its attributes, in each of them.
func reconstructedLinkPage(n int) []byte {
	return []byte(`<p><a href="/x" rel="` + strings.Repeat("noopener ", 1000) + `nofollow" title="` +
		strings.Repeat("标题 ", 200000) + `">x</p>` + strings.Repeat("<p>y</p>", n))
}

// TestReconstructedLinkWithHugeTitle: the page above parses to links whose
// titles are cut to their limit and whose rel is read; each copy used to
// scan the whole title and rel again (18 s for 1,000 paragraphs, against
// 8 ms without the long title; BenchmarkReconstructedLink measures it).
func TestReconstructedLinkWithHugeTitle(t *testing.T) {
	doc := mustParse(t, string(reconstructedLinkPage(50)))
	if len(doc.Links) != 1 {
		t.Fatalf("%d links; want the one /x, its copies merged", len(doc.Links))
	}
	l := doc.Links[0]
	if len(l.Title) == 0 || len(l.Title) > 4096 || !strings.HasPrefix(l.Title, "标题 标题") || !utf8.ValidString(l.Title) || !l.Nofollow {
		t.Errorf("link title of %d bytes (%q…), nofollow %v; want the title's first 4096 bytes at most, nofollow", len(l.Title), l.Title[:min(len(l.Title), 12)], l.Nofollow)
	}
}

func BenchmarkReconstructedLink(b *testing.B) {
	page := reconstructedLinkPage(1000)
	for b.Loop() {
		if _, err := Parse(pageURL, page, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLongChineseTitleIsCut: a Chinese title, description or link title
// longer than its limit is one "word" (no spaces): it was dropped whole and
// came out empty; its beginning is kept, cut at a character boundary.
func TestLongChineseTitleIsCut(t *testing.T) {
	long := strings.Repeat("中文标题", 350) // 4,200 bytes
	doc := mustParse(t, `<html><head><title>`+long+`</title><meta name="description" content="`+long+`"></head>`+
		`<body><a href="/a" title="`+long+`">a</a> short words stay whole</body></html>`)
	for name, got := range map[string]string{"title": doc.Title, "description": doc.MetaDescription, "link title": doc.Links[0].Title} {
		if len(got) < 4000 || len(got) > 4096 || !strings.HasPrefix(long, got) || !utf8.ValidString(got) {
			t.Errorf("%s: %d bytes, valid %v; want the first ≤ 4096 bytes of the title, whole characters", name, len(got), utf8.ValidString(got))
		}
	}
	// A short word that does not fit is still dropped, not cut.
	tb := textBuf{max: 10}
	tb.addText("roses are beautiful")
	if got := tb.String(); got != "roses are" {
		t.Errorf("textBuf of 10 bytes = %q; want %q", got, "roses are")
	}
}

// TestSVGLinks: the links of an inline <svg> (href, or xlink:href) are
// links, which browsers follow; its text stays out of the page text.
// Before, no SVG link was extracted.
func TestSVGLinks(t *testing.T) {
	doc := mustParse(t, `<html><body><p>map</p><svg><a xlink:href="/svg1"><text>one</text></a><a href="/svg2">two</a></svg></body></html>`)
	var got []string
	for _, l := range doc.Links {
		got = append(got, l.URL)
	}
	if want := []string{"http://example.com/svg1", "http://example.com/svg2"}; !slices.Equal(got, want) {
		t.Errorf("links %q; want %q", got, want)
	}
	if strings.Contains(doc.Text, "one") || strings.Contains(doc.Text, "two") {
		t.Errorf("page text %q has the SVG's text", doc.Text)
	}
}

// TestLineBreakBetweenHan: a line break in the source between two wide
// characters is dropped, as browsers drop it (CSS Text 3), so Chinese HTML
// wrapped in the source stays one run of text for the tokenizer; a space
// written between them, a break beside Latin letters and one between
// Hangul words stay spaces.
func TestLineBreakBetweenHan(t *testing.T) {
	doc, err := Parse("http://example.com/", []byte("<title>中华人\n民共和国</title><p>欢迎访问中华人\r\n  民共和国国务院网站。\n与 GIMP\n相关</p><p>한국어\n문장</p><p>中文 空格</p>"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "中华人民共和国" {
		t.Errorf("title %q; want the break dropped", doc.Title)
	}
	if want := "欢迎访问中华人民共和国国务院网站。与 GIMP 相关 한국어 문장 中文 空格"; doc.Text != want {
		t.Errorf("text %q; want %q", doc.Text, want)
	}
	// Across inline elements and comments too; a link's edge and a block
	// boundary still separate, and in <pre> the line break is shown.
	for body, want := range map[string]string{
		"<p>中华人<b>\n民共和国</b></p>":         "中华人民共和国",
		"<p><b>中华人</b>\n民共和国</p>":         "中华人民共和国",
		"<p>中华人<!-- c -->\n民共和国</p>":      "中华人民共和国",
		"<p>中华人\n<a href=/x>民共和国</a></p>": "中华人 民共和国",
		"<p>中华人</p>\n<p>民共和国</p>":         "中华人 民共和国",
		"<pre>中文注释\n第二行</pre>":            "中文注释 第二行",
		"<p>中文 <b>\n空格</b></p>":           "中文 空格",
	} {
		doc, err := Parse("http://example.com/", []byte(body), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Text != want {
			t.Errorf("%q: text %q; want %q", body, doc.Text, want)
		}
	}
}

// TestLinkSpans: the ranges of Text that are link text, a navigation
// bar's links joined across the punctuation between them, prose links
// apart; the token-stream fallback records the same ranges.
func TestLinkSpans(t *testing.T) {
	body := `<html><body><nav><a href="/">Home</a> | <a href="/news">News</a> · <a href="/about">About us</a></nav>
<p>The <a href="/blur">Gaussian blur</a> filter softens an image, see <a href="/sharpen">sharpen</a> too.</p>
<p><a href="/x"></a>empty link above</p></body></html>`
	for _, flat := range []bool{false, true} {
		doc, err := parse("http://s.test/", []byte(body), Options{}, flat)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range doc.LinkSpans {
			got = append(got, strings.TrimSpace(doc.Text[s[0]:s[1]]))
		}
		want := []string{"Home | News · About us", "Gaussian blur", "sharpen"}
		if !slices.Equal(got, want) {
			t.Errorf("flat %v: link spans %q of %q, want %q", flat, got, doc.Text, want)
		}
		for i, s := range doc.LinkSpans {
			if s[0] >= s[1] || s[1] > len(doc.Text) || i > 0 && s[0] < doc.LinkSpans[i-1][1] {
				t.Errorf("flat %v: spans %v not ordered, disjoint and inside the text (%d bytes)", flat, doc.LinkSpans, len(doc.Text))
			}
		}
	}
}

// TestLinkSpansNested: a link the tree builder opens inside another (across
// a table cell) or that a <noscript> inside a link holds closes first; the
// outer link's span covers it, and the spans stay ordered and disjoint.
func TestLinkSpansNested(t *testing.T) {
	for body, want := range map[string]string{
		`<p>x <a href=1>outer one<table><tr><td><a href=2>inner two</a></td></tr></table>outer three</a> y</p>`: "outer one inner two outer three",
		`<p>x <a href=1>outer <noscript><a href=2>inner</a> more</noscript> tail</a> y</p>`:                     "outer inner more tail",
	} {
		doc, err := Parse("http://s.test/", []byte(body), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range doc.LinkSpans {
			got = append(got, strings.Join(strings.Fields(doc.Text[s[0]:s[1]]), " "))
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: spans %v = %q of %q, want one span %q", body, doc.LinkSpans, got, doc.Text, want)
		}
	}
}

// TestCells: with Options.Cells a page's innermost table cells are listed
// with their Other text (not their links' or emphasis'), header cells
// marked; a cell holding a table is not listed, its cells are. Without the
// option there are none.
func TestCells(t *testing.T) {
	page := `<html><body><p>intro</p><table><tr><th>Package</th><th>Description</th></tr>
		<tr><td><a href="/mc">mc</a></td><td>console <b>file</b> manager</td></tr>
		<tr><td><a href="/mc-data">mc-data</a></td><td>ditto</td></tr>
		<tr><td><table><tr><td>inner</td></tr></table></td><td> </td></tr></table></body></html>`
	doc, err := Parse("http://example.com/", []byte(page), Options{Cells: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []Cell{{"Package", true}, {"Description", true}, {"console manager", false}, {"ditto", false}, {"inner", false}}
	if !slices.Equal(doc.Cells, want) {
		t.Errorf("cells %+v, want %+v", doc.Cells, want)
	}
	if flat, _ := parse("http://example.com/", []byte(page), Options{Cells: true}, true); !slices.Equal(flat.Cells, want) {
		t.Errorf("cells walking tokens %+v, want %+v", flat.Cells, want)
	}
	if doc, _ := Parse("http://example.com/", []byte(page), Options{}); doc.Cells != nil {
		t.Errorf("cells %+v without Options.Cells", doc.Cells)
	}
}

// TestCode: Options.Code collects the Other text of code elements — a
// listing, keys, sample output, a placeholder — once for nested ones,
// without their links or emphasis, in the tree and walking tokens; not
// inline code (<code>, <tt>), the identifiers prose is about; nothing
// without the option.
func TestCode(t *testing.T) {
	page := `<html><body><p>Use <code>sed</code> to substitute text, then press <kbd>Ctrl</kbd>+<kbd>D</kbd>.</p>
		<pre class="example">sed 's/<var>foo</var>/bar/' <a href="/in">input.txt</a>
<b>quux</b> baz</pre><p>It prints <samp>bar baz</samp> for <var>file</var>.</p><tt>xyzzy</tt></body></html>`
	const want = "Ctrl D sed 's/foo/bar/' baz bar baz file"
	doc, err := Parse("http://example.com/", []byte(page), Options{Code: true})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Code != want {
		t.Errorf("code %q, want %q", doc.Code, want)
	}
	if flat, _ := parse("http://example.com/", []byte(page), Options{Code: true}, true); flat.Code != want {
		t.Errorf("code walking tokens %q, want %q", flat.Code, want)
	}
	if doc, _ := Parse("http://example.com/", []byte(page), Options{}); doc.Code != "" {
		t.Errorf("code %q without Options.Code", doc.Code)
	}
}
