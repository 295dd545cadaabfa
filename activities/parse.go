package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/langalt"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/robots"
	"focuscrawl/internal/store"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/textsig"
	"focuscrawl/internal/urlnorm"
)

// Parse parses the batch's fetched pages: links with their metadata, text by
// position class, term frequencies. The result is stored per page; the
// page's distinct terms update the topic's document frequencies in the same
// store transaction, exactly once. Bodies are dropped afterwards unless
// crawl.keep_bodies is set. A refresh batch's stage (only the refresh
// workflow runs it), it keeps the batch's claim while it runs (keepClaim)
// and parses only the pages the batch still holds (heldPages).
func (a *Activities) Parse(ctx context.Context, in crawlapi.BatchRef) (crawlapi.ParseResult, error) {
	keep, err := a.keepClaim(ctx, in)
	if err != nil {
		return crawlapi.ParseResult{}, err
	}
	defer keep()
	pages, err := a.Store.BatchPages(ctx, in.Topic, in.BatchID)
	if err != nil {
		return crawlapi.ParseResult{}, err
	}
	if pages, err = a.heldPages(ctx, in, pages); err != nil {
		return crawlapi.ParseResult{}, err
	}
	lt, err := a.loadTopic(ctx, in.Topic, in.TopicVersion, in.ModelVersion)
	if err != nil {
		return crawlapi.ParseResult{}, err
	}
	var done atomic.Int64
	stop := heartbeatEvery(ctx, 2*time.Second, func() any { return done.Load() })
	defer stop()
	g := newGroup(in.Topic, in.CrawlID)
	res, err := a.parsePages(ctx, lt, pages, g, &done)
	if err != nil {
		return res, err
	}
	return res, a.flush(ctx, g)
}

// shapeOf measures a parsed page (relevance.PageShape): the stored shape,
// else the page's words counted now. A nil record (a page never parsed)
// has none.
func (a *Activities) shapeOf(rec *parseRecord) relevance.PageShape {
	switch {
	case rec == nil || rec.Doc == nil:
		return relevance.PageShape{}
	case rec.Shape != nil:
		return *rec.Shape
	}
	return relevance.ShapeOf(relevance.Words(a.Tok, rec.Doc.Text), relevance.Words(a.Tok, rec.Doc.Anchor), len(rec.Doc.Links))
}

// loopShape is the page's shape if the loop policy looks at it, else none
// (so a page whose shape is not stored is not measured for nothing).
func (a *Activities) loopShape(lp relevance.LoopPolicy, rec *parseRecord) relevance.PageShape {
	if !lp.NeedsShape() {
		return relevance.PageShape{}
	}
	return a.shapeOf(rec)
}

// parseCache holds the parse records a stage just made or read, by URL
// hash, so the next stage of the same pages does not read them back from
// the store (the streaming path passes one along a group of pages).
type parseCache map[string]*parseRecord

// parsePages parses the given pages (see Parse). Records it makes go into
// g.recs, its store writes into g.w (for the caller to flush); done counts
// pages handled, for heartbeats.
func (a *Activities) parsePages(ctx context.Context, lt *loadedTopic, pages []store.Page, g *group, done *atomic.Int64) (crawlapi.ParseResult, error) {
	t := lt.Topic
	var res crawlapi.ParseResult
	for _, p := range pages {
		if done != nil {
			done.Add(1)
		}
		if !fetchedOK(p) {
			continue
		}
		if h := urlnorm.Host(p.FinalURL); !t.InScope(h) {
			// An in-scope URL that redirected off scope: its content belongs
			// to another host, which the topic does not cover. It is judged
			// an error and neither parsed (no term statistics), indexed nor
			// expanded.
			res.Failed++
			g.w.Decisions = append(g.w.Decisions, store.PageDecision{URLHash: p.URLHash, Decision: store.Decision{
				Decision: store.DecisionError, Reason: truncate(ReasonOffScope+": redirected to "+h, 300),
			}})
			continue
		}
		body, fresh := g.bodies[p.URLHash]
		if !fresh { // a page this attempt did not save: maybe parsed already, its body in the store
			if _, err := a.Store.Blob(ctx, p.Topic, p.URLHash, store.BlobParse); err == nil {
				continue // parsed by an earlier attempt
			} else if !errors.Is(err, store.ErrNotFound) {
				return res, err
			}
			var err error
			if body, err = a.Store.Blob(ctx, p.Topic, p.URLHash, store.BlobBody); err != nil {
				return res, fmt.Errorf("body of %s: %w", p.URL, err)
			}
		}
		rec, terms, perr := a.parsePageGuarded(p, body, needsShape(lt.Decoded))
		if perr != nil {
			// A page we cannot parse is judged as an error; the crawl goes on.
			res.Failed++
			g.w.Decisions = append(g.w.Decisions, store.PageDecision{URLHash: p.URLHash, Decision: store.Decision{
				Decision: store.DecisionError, Reason: truncate("parse: "+perr.Error(), 300),
			}})
			continue
		}
		data, err := json.Marshal(rec)
		if err != nil {
			return res, fmt.Errorf("encode parse of %s: %w", p.URL, err)
		}
		lang := pageLanguage(rec.Doc)
		g.w.Parses = append(g.w.Parses, store.ParseWrite{URLHash: p.URLHash, Parsed: data, Title: rec.Doc.Title,
			Lang: lang, TextHash: rec.TextHash, Terms: terms, DropBody: !a.CrawlCfg.KeepBodies})
		g.recs[p.URLHash] = rec
		res.Parsed++
		res.Links += len(rec.Doc.Links)
	}
	return res, nil
}

// ReasonOffScope starts the decision reason of a page whose redirects left
// the topic's scope.hosts.
const ReasonOffScope = "off_scope"

// parsePage parses one body and counts its terms (title + visible text);
// with shape it measures the page too (parseRecord.Shape).
// parsePageGuarded is parsePage with a panic turned into the page's parse
// error (guardPage).
func (a *Activities) parsePageGuarded(p store.Page, body []byte, shape bool) (rec *parseRecord, terms []string, err error) {
	err = a.guardPage(p.URL, "parsing", func() error {
		rec, terms, err = a.parsePage(p, body, shape)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return rec, terms, nil
}

// guardPage runs one page's step f, a panic in it turned into the step's
// error and logged with its stack. The parser and the tokenizer meet
// hostile input; a bug that panics on one page must cost that page, not
// its group (a panic failed the group's processing at every retry, and in
// the streaming loop's goroutine it ended the worker: fetchloop.PanicError).
// A panic is returned as a *pagePanic; f's own errors (a store failure)
// as they are.
func (a *Activities) guardPage(url, step string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			a.Log.Error(step+" a page panicked: the page is given up", "url", url, "panic", r, "stack", string(debug.Stack()))
			err = &pagePanic{value: r}
		}
	}()
	return f()
}

// pagePanic is a panic guardPage recovered.
type pagePanic struct{ value any }

func (e *pagePanic) Error() string {
	return fmt.Sprintf("internal error (panic: %v); the worker's log has the stack", e.value)
}

func (a *Activities) parsePage(p store.Page, body []byte, shape bool) (*parseRecord, []string, error) {
	token := robots.ProductToken(a.FetchCfg.UserAgent)
	doc, err := parse.Parse(p.FinalURL, body, parse.Options{AgentToken: token, Charset: p.Charset})
	if err != nil {
		return nil, nil, err
	}
	// The response's X-Robots-Tag says as much as the page's robots <meta>.
	parse.ApplyRobotsTags(doc, p.RobotsTag, token)
	// The page's terms are the title's twice and the text's; the text's
	// index segmentation comes from the same pass (one gojieba cut per Han
	// run), for the index write if the page is accepted.
	tf, seg := a.Tok.TermFreqSegment(doc.Text)
	// The near-duplicate signature reads the plain text: the text less
	// its links' (textsig), before the title's terms are added to tf.
	anchorTF := a.Tok.TermFreq(doc.Anchor)
	textHash := textsig.Signature(textsig.Plain(tf, anchorTF))
	titleWords := a.Tok.Tokens(doc.Title)
	for _, t := range titleWords {
		tf[t] += 2
	}
	terms := make([]string, 0, len(tf))
	words := 0
	for t, n := range tf {
		terms = append(terms, t) // at most textproc.MaxWordBytes <= store.MaxTermBytes each
		words += n
	}
	declared := langalt.Primary(doc.Lang)
	doc.Lang = normalizeLang(doc.Lang)
	rec := &parseRecord{Doc: doc, TF: tf, Declared: declared, TextHash: textHash, segmented: seg}
	if shape {
		// The text's words are the counted ones less the title's two
		// copies, the links' those of their terms counted above
		// (relevance.Words of the anchor text).
		anchorWords := 0
		for _, n := range anchorTF {
			anchorWords += n
		}
		s := relevance.ShapeOf(words-2*len(titleWords), anchorWords, len(doc.Links))
		rec.Shape = &s
	}
	return rec, terms, nil
}

// pageLanguage is a parsed page's language: its <html lang> when that is
// zh or en, else DetectLanguage over its prose — the title and headings
// (Emphasis) and the text outside links (Other) — and over all its text only
// when the prose has no letters (a page of links). Navigation is links:
// counted, a translated manual's English table of contents outweighed each
// chapter's Chinese, and Chinese menus an untranslated page's English.
func pageLanguage(doc *parse.Document) string {
	if doc.Lang == "zh" || doc.Lang == "en" {
		return doc.Lang
	}
	if l := textproc.DetectLanguage(doc.Emphasis + " " + doc.Other); l != "" {
		return l
	}
	return textproc.DetectLanguage(doc.Title + " " + doc.Text)
}

// normalizeLang maps an <html lang> value ("zh-CN", "en-us") to zh / en / "".
func normalizeLang(l string) string {
	switch {
	case len(l) >= 2 && l[:2] == "zh":
		return "zh"
	case len(l) >= 2 && l[:2] == "en":
		return "en"
	}
	return ""
}

// fetchedOK reports whether a page was fetched with a usable body.
func fetchedOK(p store.Page) bool {
	return p.ErrorClass == "" && p.Status >= 200 && p.Status < 300
}

// parseOf returns a page's parse record from recs, or from the store.
func (a *Activities) parseOf(ctx context.Context, recs parseCache, p store.Page) (*parseRecord, error) {
	if rec, ok := recs[p.URLHash]; ok {
		return rec, nil
	}
	rec, err := a.loadParse(ctx, p)
	if err == nil && recs != nil {
		recs[p.URLHash] = rec
	}
	return rec, err
}

// loadParse reads a page's stored parse record.
func (a *Activities) loadParse(ctx context.Context, p store.Page) (*parseRecord, error) {
	data, err := a.Store.Blob(ctx, p.Topic, p.URLHash, store.BlobParse)
	if err != nil {
		return nil, err
	}
	var rec parseRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("decode parse of %s: %w: %w", p.URL, errUnreadableParse, err)
	}
	return &rec, nil
}

// errUnreadableParse marks a stored parse record that does not decode:
// reading it again cannot help.
var errUnreadableParse = errors.New("parse record unreadable")
