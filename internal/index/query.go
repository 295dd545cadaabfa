package index

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"focuscrawl/internal/textproc"
	"focuscrawl/internal/urlnorm"
)

// Query limits every backend enforces (see ValidateQuery).
const (
	// MaxQueryRunes is the longest query text accepted, in characters.
	// Longer input is pasted documents or abuse, not a search.
	MaxQueryRunes = 256
	// DefaultLimit is the page size used when Query.Limit is 0.
	DefaultLimit = 10
	// MaxLimit is the largest page size.
	MaxLimit = 100
	// MaxOffset is the deepest a client may page. Deep pages cost a full
	// ranking of every match and are what scrapers ask for, not people.
	MaxOffset = 10000
	// maxFilterRunes bounds the Topic and Host filters.
	maxFilterRunes = 256
)

// ErrBadQuery marks a query the index refuses: the caller's input, not the
// index, is at fault (an HTTP API answers 400). Errors wrap it with a message
// saying what is wrong, e.g. "bad query: query is empty".
var ErrBadQuery = errors.New("bad query")

// CleanQueryText turns the whitespace control characters a pasted or typed
// query can carry — tab, line feed, carriage return, vertical tab, form feed
// — into spaces: text copied from a document or a table into a search box
// or a command line holds them, and they separate words as a space does.
// Other control characters are left for ValidateQuery to refuse.
func CleanQueryText(text string) string {
	if !strings.ContainsAny(text, "\t\n\r\v\f") {
		return text
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\t', '\n', '\r', '\v', '\f':
			return ' '
		}
		return r
	}, text)
}

// ValidateQuery reports, as an error wrapping ErrBadQuery, why q cannot be
// run: text that is empty or only whitespace, longer than MaxQueryRunes, not
// valid UTF-8, containing control characters (tabs and newlines included:
// callers pass user text through CleanQueryText first), or with an
// unbalanced double quote; Limit outside 0..MaxLimit; Offset outside
// 0..MaxOffset; Topic or Host filters that are too long or contain control
// characters. It returns nil for a query a backend can run, though the query
// may still have no searchable words (see ParseQuery).
func ValidateQuery(q Query) error {
	if err := validateText(q.Text); err != nil {
		return err
	}
	if q.Limit < 0 || q.Limit > MaxLimit {
		return fmt.Errorf("%w: limit %d is outside 0..%d", ErrBadQuery, q.Limit, MaxLimit)
	}
	if q.Offset < 0 || q.Offset > MaxOffset {
		return fmt.Errorf("%w: offset %d is outside 0..%d", ErrBadQuery, q.Offset, MaxOffset)
	}
	if err := validateFilter("topic", q.Topic); err != nil {
		return err
	}
	return validateFilter("host", q.Host)
}

// validateText checks the query text alone; ParseQuery shares it so that no
// caller can skip it.
func validateText(text string) error {
	if !utf8.ValidString(text) {
		return fmt.Errorf("%w: query is not valid UTF-8", ErrBadQuery)
	}
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("%w: query is empty", ErrBadQuery)
	}
	if n := utf8.RuneCountInString(text); n > MaxQueryRunes {
		return fmt.Errorf("%w: query is %d characters long, the limit is %d", ErrBadQuery, n, MaxQueryRunes)
	}
	quotes := 0
	for i, r := range text {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: query contains control character %U at byte %d", ErrBadQuery, r, i)
		}
		if isQuote(r) {
			quotes++
		}
	}
	if quotes%2 != 0 {
		return fmt.Errorf("%w: query %q has an unbalanced double quote", ErrBadQuery, text)
	}
	return nil
}

func validateFilter(name, v string) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("%w: %s filter is not valid UTF-8", ErrBadQuery, name)
	}
	if n := utf8.RuneCountInString(v); n > maxFilterRunes {
		return fmt.Errorf("%w: %s filter is %d characters long, the limit is %d", ErrBadQuery, name, n, maxFilterRunes)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: %s filter %q contains control character %U", ErrBadQuery, name, v, r)
		}
	}
	return nil
}

// HostKey maps a host filter as a person writes it (the name a browser
// shows: any case, Unicode, a trailing dot, an optional port) to the form
// documents carry in Host, urlnorm.Host of their normalised URL (lower-case
// punycode, default port dropped), so that "Bücher.Example." finds the pages
// of xn--bcher-kva.example. Surrounding spaces are ignored and "" stays "".
// Anything that is not host[:port] (a path, a query, user info, a bad port)
// is an error wrapping ErrBadQuery: urlnorm would read it as a URL and
// silently filter by some part of it.
func HostKey(host string) (string, error) {
	host = strings.TrimSpace(host)
	if host == "" {
		return "", nil
	}
	if err := validateFilter("host", host); err != nil {
		return "", err
	}
	bad := fmt.Errorf("%w: host filter %q is not a host name (with an optional port)", ErrBadQuery, host)
	if strings.ContainsAny(host, "/?#@\\% ") {
		return "", bad
	}
	n, err := urlnorm.Normalize("http://" + host + "/")
	if err != nil {
		return "", bad
	}
	h := urlnorm.Host(n)
	// The filter knows no scheme: :443 is https's default port as :80 is
	// http's, and an https page's document host has it dropped — kept, it
	// was a filter for port 443 alone that found none of them.
	if name, ok := strings.CutSuffix(h, ":443"); ok && name != "" {
		h = name
	}
	return h, nil
}

// HostPortPrefix returns the prefix of the document hosts a Host filter
// matches besides itself: "127.0.0.1:" for "127.0.0.1", so that a filter
// without a port finds the host's pages on every port, as a topic's
// scope.hosts does; "" when the filter names a port (it matches that port
// alone). Document hosts keep the port of a site on another port than its
// scheme's default, and a user trial on a manual served at 127.0.0.1:28089
// found nothing with --host 127.0.0.1. A default port (80 or 443) is
// dropped by HostKey, so "example.com:80" matches every port too. host is a HostKey result.
func HostPortPrefix(host string) string {
	if host == "" || strings.LastIndexByte(host, ':') > strings.LastIndexByte(host, ']') {
		return ""
	}
	return host + ":"
}

// isQuote reports whether r delimits a phrase. Curly and full-width quotes
// count too: Chinese and word-processor users type “图像 滤镜”, and
// treating those as punctuation would silently drop the phrase they meant;
// so do the low-9 quotes German and Polish open with („Bücher lesen“).
func isQuote(r rune) bool {
	switch r {
	case '"', '“', '”', '＂', '„', '‟':
		return true
	}
	return false
}

// ParseQuery turns user input into what a backend searches for: terms that
// must all occur and phrases whose terms must occur in order. Double-quoted
// parts (ASCII, curly or full-width quotes) become phrases; everything else
// becomes terms. Every part is cut by seg, exactly as documents are, so the
// output consists of index terms only: operators, column filters, wildcards
// and the like in the input are plain words (or dropped as punctuation).
//
// Terms are de-duplicated in input order. A quoted part that segments to a
// single term is a term, and one that segments to nothing is dropped. Tokens
// without a letter or digit are dropped: no index matches them, and an empty
// phrase would make an all-terms query match nothing. Chinese needs more
// than requiring every term and phrase token, since the index cuts a page's
// long words in search mode: HanWords and HanPhrases say how a backend
// matches the terms and quoted parts written in Han characters.
//
// The text is checked as ValidateQuery checks it; an input with nothing
// searchable left (only punctuation or stop words) is also an ErrBadQuery.
func ParseQuery(text string, seg Segmenter) (terms []string, phrases [][]string, err error) {
	if seg == nil {
		return nil, nil, errors.New("index: ParseQuery needs a Segmenter, got nil")
	}
	if err := validateText(text); err != nil {
		return nil, nil, err
	}
	seenTerm := make(map[string]bool)
	seenPhrase := make(map[string]bool)
	addTerm := func(t string) {
		if !seenTerm[t] {
			seenTerm[t] = true
			terms = append(terms, t)
		}
	}
	flush := func(part string, quoted bool) {
		toks := searchableTokens(seg.Segment(part))
		if !quoted || len(toks) == 1 {
			for _, t := range toks {
				addTerm(t)
			}
			return
		}
		if len(toks) == 0 {
			return
		}
		key := strings.Join(toks, " ")
		if !seenPhrase[key] {
			seenPhrase[key] = true
			phrases = append(phrases, toks)
		}
	}
	forParts(text, flush)
	if len(terms) == 0 && len(phrases) == 0 {
		return nil, nil, fmt.Errorf("%w: query %q has no searchable words", ErrBadQuery, text)
	}
	return terms, phrases, nil
}

// forParts calls fn with each unquoted and quoted part of text in order.
// Quotes are balanced (validateText), so the text alternates between
// unquoted and quoted parts, the last one unquoted.
func forParts(text string, fn func(part string, quoted bool)) {
	inQuote := false
	start := 0
	for i, r := range text {
		if isQuote(r) {
			fn(text[start:i], inQuote)
			inQuote = !inQuote
			start = i + utf8.RuneLen(r)
		}
	}
	fn(text[start:], inQuote)
}

// HanPhrase is a phrase of ParseQuery's made of a quoted part written in
// Han characters only (spaces aside), as a backend matches it.
//
// Such a phrase is not always a run of adjacent index tokens: documents
// are cut in search mode, which writes a long word's shorter words before
// it ("北京 大学 北京大学 读书"), so the quoted “大学读书” (大学 读书) is in
// the text but not in the token stream, and a page can hold the phrase
// inside a longer word that has no token for the phrase's own words
// (HanWord). A backend matches these by their Tokens near each other
// (Distance) and, where it can, their Chars in a row in the document's
// text (sqlitefts; Elasticsearch cannot). A quoted part with punctuation or
// letters in it is an ordinary phrase.
type HanPhrase struct {
	// Chars are the characters of the quoted part, without whitespace and
	// invisible format characters (ignoredInChars), one entry per part
	// making the phrase: “大学读书” and “大学的读书”, without its stop word,
	// make one phrase, and each has its characters listed.
	Chars []string
	// Tokens are the phrase's tokens without those others make redundant
	// (phraseTokens), in order, repeats kept.
	Tokens []string
}

// Distance is how far apart, in index positions, a backend lets the
// phrase's Tokens be (NearDistance of its longest Chars).
func (p HanPhrase) Distance() int {
	n := 0
	for _, c := range p.Chars {
		n = max(n, utf8.RuneCountInString(c))
	}
	return NearDistance(n)
}

// HanPhrases returns the HanPhrase of each phrase ParseQuery makes of a
// quoted part written in Han characters only (spaces aside), keyed by the
// phrase's tokens joined by one space.
func HanPhrases(text string, seg Segmenter) map[string]HanPhrase {
	var out map[string]HanPhrase
	forParts(text, func(part string, quoted bool) {
		if !quoted {
			return
		}
		// Without spaces and the invisible format characters the tokenizer
		// passes over inside a word (a zero-width space or soft hyphen
		// pasted from a page): ContainsChars passes over the same in a page.
		// In Simplified, as the page's text is compared (ContainsChars):
		// converted run by run as the tokenizer converts it, before the
		// spaces that part its runs go.
		chars := strings.Map(func(r rune) rune {
			if ignoredInChars(r) {
				return -1
			}
			return r
		}, textproc.Simplified(part))
		if chars == "" || !allHan(chars) {
			return
		}
		toks := searchableTokens(seg.Segment(part))
		if len(toks) < 2 {
			return // a term
		}
		if out == nil {
			out = make(map[string]HanPhrase)
		}
		key := strings.Join(toks, " ")
		p, ok := out[key]
		if !ok {
			p.Tokens = phraseTokens(toks, seg)
		}
		if !slices.Contains(p.Chars, chars) {
			p.Chars = append(p.Chars, chars)
		}
		out[key] = p
	})
	return out
}

// MaxNear is the most distinct tokens a backend looks for near each other
// for a Han phrase or word (NearTokens, HanWord.Parts); past it they are
// simply all required: a proximity check grows with the square of the
// group (a quoted "经济经济…" of 200 characters, 100 tokens, cost a second
// of CPU per query in SQLite's FTS5), and the characters are checked in a
// row anyway where the backend can (sqlitefts).
const MaxNear = 8

// NearTokens are a Han phrase's Tokens each once, in order: a repeated
// token adds nothing to a proximity check but its cost.
func NearTokens(tokens []string) []string {
	out := make([]string, 0, len(tokens))
	for _, t := range tokens {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// searchableTokens splits segmented text into tokens, keeping those with at
// least one letter or digit.
func searchableTokens(segmented string) []string {
	toks := strings.Fields(segmented)
	out := toks[:0]
	for _, t := range toks {
		if strings.IndexFunc(t, isLetterOrDigit) >= 0 {
			out = append(out, t)
		}
	}
	return out
}

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// HighlightTerms flattens ParseQuery's output into the de-duplicated list of
// terms to mark in a snippet: every term and every phrase word.
func HighlightTerms(terms []string, phrases [][]string) []string {
	seen := make(map[string]bool, len(terms))
	var out []string
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, t := range terms {
		add(t)
	}
	for _, p := range phrases {
		for _, t := range p {
			add(t)
		}
	}
	return out
}

// OperatorNote says, for a query whose unquoted words look like another
// search engine's operators — OR, AND, NOT, a word with a leading minus
// ("-dovecot") — that there are none here: every word must match, and such
// a word is searched as the word itself. "" when there are none. A user
// trial's "sasl -dovecot" listed the dovecot page first, and nothing said
// why.
func OperatorNote(text string) string {
	var seen []string
	forParts(text, func(part string, quoted bool) {
		if quoted {
			return
		}
		for _, w := range strings.Fields(part) {
			r, n := utf8.DecodeRuneInString(strings.TrimPrefix(w, "-"))
			switch {
			case w == "OR" || w == "AND" || w == "NOT",
				// One minus before a word: "--no-ff", an option, is a search for it.
				n > 0 && len(w) > n && w[0] == '-' && unicode.IsLetter(r):
				if !slices.Contains(seen, w) {
					seen = append(seen, w)
				}
			}
		}
	})
	if len(seen) == 0 {
		return ""
	}
	what := seen[0] + " is searched as a word"
	if len(seen) > 1 {
		what = strings.Join(seen[:len(seen)-1], ", ") + " and " + seen[len(seen)-1] + " are searched as words"
	}
	return fmt.Sprintf("no search operators here: %s; every word must match (\"quotes\" make a phrase)", what)
}
