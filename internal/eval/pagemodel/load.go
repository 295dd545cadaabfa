// Package pagemodel is the offline page-model evaluator of the focus
// evaluation (issue 12): it replays the pages a real crawl fetched (its
// crawl log) from the unpacked corpus, in fetch order, and lets candidate
// page models judge them as the crawler would — each page when it arrives,
// with only what the crawl knew by then — then scores every model's
// accepted set against the topic's structural labels. No crawl runs, so a
// page model can be tried on every tuning-half topic in seconds; the
// winner still has to win in the real crawl (internal/eval/focus).
package pagemodel

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"focuscrawl/internal/crawllog"
	"focuscrawl/internal/eval/focus"
	"focuscrawl/internal/eval/offsite"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// Tokenizer is what the evaluator needs of textproc.Tokenizer.
type Tokenizer interface {
	TermFreq(text string) map[string]int
	Tokens(text string) []string
}

// Doc is one judged page of a replayed crawl.
type Doc struct {
	URL    string
	Target bool // in the topic's labels
	// Neutral: a sample page of the topic (focus.Topic.Neutral), counted in
	// no accepted-set figure.
	Neutral bool
	OnSite  bool // served from the corpus (not the off-site server)
	// TF is what the crawler's page filters see: title twice + visible text
	// (activities.parsePage).
	TF      map[string]int
	TitleTF map[string]int
	// InAnchors are the anchor texts (+ title/alt) of links to this page on
	// pages fetched before it.
	InAnchors []string
	Parent    int // index of the parent page in Crawl.Docs, -1 for seeds or unknown
	Links     []parse.Link
}

// Crawl is one replayed crawl: the topic, its compiled model and the judged
// pages in fetch order.
type Crawl struct {
	Topic   *focus.Topic
	Model   *topic.Model
	Samples *topic.Samples
	Docs    []Doc
	Targets int // labelled targets (the recall denominator)
	Log     string
}

// Load replays the crawl log at logPath of topic t on corpus c. Pages that
// were not judged (errors, duplicates) are left out, as the crawler's
// filter never saw them.
func Load(c *focus.Corpus, t *focus.Topic, logPath string, tok Tokenizer) (*Crawl, error) {
	f, err := os.Open(logPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := crawllog.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", logPath, err)
	}
	eps, err := offsite.Scan(c.Dir, c.Spec.Host)
	if err != nil {
		return nil, err
	}
	cr := &Crawl{Topic: t, Targets: len(t.Labels), Log: logPath}
	var sampleTexts []string
	samples := &topic.Samples{}
	for _, u := range t.Topic.Samples {
		body, err := readPage(c, u)
		if err != nil {
			return nil, fmt.Errorf("sample %s: %w", u, err)
		}
		doc, err := parse.Parse(u, body, parse.Options{})
		if err != nil {
			return nil, err
		}
		sampleTexts = append(sampleTexts, doc.Text)
		samples.Positive = append(samples.Positive, topic.SampleDoc{URL: u, TF: tok.TermFreq(doc.Text)})
	}
	cr.Model = topic.BuildModel(t.Topic, 1, tok, sampleTexts)
	cr.Samples = samples
	index := map[string]int{}
	anchors := map[string][]string{}
	for _, e := range entries {
		switch e.Decision {
		case "accepted", "rejected", "tunnel":
		default:
			continue
		}
		u := e.FinalURL
		if u == "" {
			u = e.URL
		}
		n, err := urlnorm.Normalize(u)
		if err != nil {
			continue
		}
		onSite := urlnorm.Host(n) == c.Spec.Host
		var body []byte
		if onSite {
			body, err = readPage(c, n)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", logPath, err)
			}
		} else {
			body = offsite.Page(n, eps)
		}
		doc, err := parse.Parse(n, body, parse.Options{})
		if err != nil {
			return nil, err
		}
		_, target := t.Labels[n]
		_, neutral := t.Neutral[n]
		d := Doc{URL: n, Target: target, Neutral: neutral && !target, OnSite: onSite, Parent: -1, Links: doc.Links,
			TF:      tok.TermFreq(doc.Title + "\n" + doc.Title + "\n" + doc.Text),
			TitleTF: tok.TermFreq(doc.Title), InAnchors: anchors[n]}
		if p, err := urlnorm.Normalize(e.Parent); err == nil {
			if i, ok := index[p]; ok {
				d.Parent = i
			}
		}
		index[n] = len(cr.Docs)
		cr.Docs = append(cr.Docs, d)
		for _, l := range doc.Links {
			anchors[l.URL] = append(anchors[l.URL], strings.TrimSpace(l.Anchor+" "+l.Title+" "+l.Alt))
		}
	}
	return cr, nil
}

// readPage reads the corpus file an on-site URL is served from.
func readPage(c *focus.Corpus, u string) ([]byte, error) {
	p := strings.SplitN(strings.SplitN(u, "#", 2)[0], "?", 2)[0]
	i := strings.Index(p, "://")
	if i < 0 {
		return nil, fmt.Errorf("not absolute: %s", u)
	}
	p = p[i+3:]
	if j := strings.IndexByte(p, '/'); j >= 0 {
		p = p[j:]
	} else {
		p = "/"
	}
	if strings.HasSuffix(p, "/") {
		p += "index.html"
	}
	return os.ReadFile(filepath.Join(c.Dir, filepath.FromSlash(path.Clean(p))))
}
