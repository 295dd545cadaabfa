// Package topic reads and validates topic files: the YAML documents in which a
// vertical-search team describes what to crawl (keywords, a description,
// sample pages, seed URLs, scope, limits and the strategies to use).
//
// The format is documented in docs/topic-file.md. Parse rejects unknown
// fields and reports every problem with the field's path, e.g.
// `seeds[2]: "ftp://x" is not an http(s) URL`.
package topic

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"os"
	"reflect"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	utf16 "golang.org/x/text/encoding/unicode"
	"gopkg.in/yaml.v3"

	"focuscrawl/internal/lexicon"
	"focuscrawl/internal/urlnorm"
	"focuscrawl/internal/yamlerr"
)

// MaxFileBytes bounds a topic file. Topic files travel in workflow input when
// a crawl starts, so they must stay small.
const MaxFileBytes = 256 << 10

// MaxEntries bounds every list and mapping of a topic file (seeds, samples,
// scope hosts, keywords, strategy parameters...). Within MaxFileBytes a
// list could otherwise hold over 100,000 entries, and some checks are
// quadratic in them: the YAML decoder compares every key of a mapping with
// every other (25,000 keywords took 2 s), and each seed is matched against
// every scope host (3 s). Real topics have tens of entries.
const MaxEntries = 1000

// MaxNodes bounds a topic file's YAML nodes, counting an alias as the nodes
// of what it names, so that anchors and aliases cannot expand a small file
// exponentially ("billion laughs"). It is the node count of a plain list
// of one-character entries filling MaxFileBytes ("[a,a,...]", two bytes an
// entry): aliases can make a topic as big as a large plain file, no bigger.
const MaxNodes = MaxFileBytes / 2

// Defaults applied when a topic file leaves a field out.
const (
	DefaultMaxPages      = 1000
	DefaultPageFilter    = "vsm"
	DefaultLinkPredictor = "best-first"
	// DefaultTunnel is strategy.tunnel's default: focuscrawl's choice of
	// seed 000's tunnel probability p (docs/algorithms.md "Loop policy").
	DefaultTunnel = 0.2
	// DefaultHub is strategy.hub's default (focuscrawl's choice, measured
	// on the evaluation's tuning half: docs/algorithms.md "Loop policy").
	DefaultHub = 0.0
)

// TunnelP returns strategy.tunnel, or DefaultTunnel when the file leaves
// it out.
func (s Strategy) TunnelP() float64 {
	if s.Tunnel == nil {
		return DefaultTunnel
	}
	return *s.Tunnel
}

// strategy.accept values, and its default: split for the vsm page filter
// (DefaultAccept), threshold for every other filter. The guarded split
// raised the accepted-set F1 on every corpus of both halves of the focus
// evaluation (docs/evaluation.md "Crawl-relative acceptance"); it was
// chosen with vsm's cosine scale (log scores, its 0.02 floor), so other
// filters keep their own threshold unless their topic asks for split.
const (
	AcceptThreshold = "threshold"
	AcceptSplit     = "split"
	DefaultAccept   = AcceptSplit
)

// AcceptMode returns strategy.accept, or when the file leaves it out
// DefaultAccept for the vsm page filter and threshold for the others.
func (s Strategy) AcceptMode() string {
	if s.Accept != "" {
		return s.Accept
	}
	if s.PageFilter.Name == "" || s.PageFilter.Name == DefaultPageFilter {
		return DefaultAccept
	}
	return AcceptThreshold
}

// HubT returns strategy.hub, or DefaultHub when the file leaves it out.
func (s Strategy) HubT() float64 {
	if s.Hub == nil {
		return DefaultHub
	}
	return *s.Hub
}

// Rejudging returns strategy.rejudge: true (the default) unless the file
// says rejudge: false.
func (s Strategy) Rejudging() bool {
	return s.Rejudge == nil || *s.Rejudge
}

// Promoting returns strategy.promote: true (the default) unless the file
// says promote: false.
func (s Strategy) Promoting() bool {
	return s.Promote == nil || *s.Promote
}

// DefaultSampleFloor is strategy.sample_floor's default: a tenth of the
// lowest sample page's score, chosen on the focus evaluation's tuning half
// (a quarter cost accepted-set F1 there; docs/evaluation.md).
const DefaultSampleFloor = 0.1

// SampleFloorShare returns strategy.sample_floor, or DefaultSampleFloor.
func (s Strategy) SampleFloorShare() float64 {
	if s.SampleFloor == nil {
		return DefaultSampleFloor
	}
	return *s.SampleFloor
}

// FeedbackOn returns strategy.feedback: false (the default) unless the
// file says feedback: true.
func (s Strategy) FeedbackOn() bool {
	return s.Feedback != nil && *s.Feedback
}

// Pruning returns strategy.prune: true (the default) unless the file says
// prune: false.
func (s Strategy) Pruning() bool {
	return s.Prune == nil || *s.Prune
}

// Topic is a parsed, validated topic file.
type Topic struct {
	Name        string             `yaml:"name"`
	Language    string             `yaml:"language"` // zh | en | auto
	Description string             `yaml:"description"`
	Keywords    map[string]float64 `yaml:"keywords"`
	Samples     []string           `yaml:"samples"`
	// NegativeSamples are off-topic example pages (the bayes filter's
	// negative class; optional, seed 002).
	NegativeSamples []string `yaml:"negative_samples"`
	// Lexicon names a relatedness lexicon (a bundled name such as "ml-zh", or
	// a file path); the worker loads it when the crawl starts (seeds 000/001).
	Lexicon string `yaml:"lexicon"`
	// Breadth is "broad" (near the taxonomy root), "specific" (a leaf) or ""
	// (neither); it shifts the filters' default thresholds (seed 000).
	Breadth  string   `yaml:"breadth"`
	Seeds    []string `yaml:"seeds"`
	Scope    Scope    `yaml:"scope"`
	Limits   Limits   `yaml:"limits"`
	Strategy Strategy `yaml:"strategy"`
	// Sitemaps configures sitemap discovery at the crawl's start; see
	// sitemaps.go.
	Sitemaps Sitemaps `yaml:"sitemaps"`
}

// Scope restricts where the crawl may go.
type Scope struct {
	// Hosts lists allowed hosts: "example.com" matches that host only,
	// "*.example.com" matches example.com and every subdomain. Empty means
	// no restriction.
	Hosts []string `yaml:"hosts"`
	// OtherLanguages follows a site's language switcher into every
	// language. By default a crawl skips the links to a page's translations
	// into languages other than the topic's and the page's own
	// (internal/langalt).
	OtherLanguages bool `yaml:"other_languages"`
}

// Limits bound a crawl.
type Limits struct {
	MaxPages        int `yaml:"max_pages"`          // URLs fetched per crawl; default 1000
	MaxDepth        int `yaml:"max_depth"`          // link distance from a seed; 0 = unlimited
	MaxPagesPerHost int `yaml:"max_pages_per_host"` // frontier cap per host; 0 = worker default
}

// Strategy names the page filter and link predictor, each optionally with
// parameters. In YAML either form works:
//
//	strategy: {page_filter: vsm, link_predictor: best-first}
//	strategy:
//	  page_filter: {name: vsm, threshold: 0.2}
type Strategy struct {
	PageFilter    Spec  `yaml:"page_filter"`
	LinkPredictor Spec  `yaml:"link_predictor"`
	Seed          int64 `yaml:"seed"` // seeds every random choice, for reproducible crawls
	// Tunnel is the probability of keeping a below-threshold page for
	// expansion (seed 000's tunnelling); 0 disables it. nil (absent) means
	// DefaultTunnel; read it with TunnelP.
	Tunnel *float64 `yaml:"tunnel"`
	// Prune: a rejected page's out-links are not followed unless the
	// tunnel draw keeps the page (seed 000). nil (absent) means true;
	// false expands every judged page (an ablation). Read it with Pruning.
	Prune *bool `yaml:"prune"`
	// Hub: a below-threshold page whose best out-link text scores at least
	// this cosine against the topic is a topical hub and is expanded
	// (decision tunnel), like a tunnel kept by the draw; 0 disables it.
	// nil (absent) means DefaultHub; read it with HubT.
	Hub *float64 `yaml:"hub"`
	// Accept is how a page filter's score becomes "accepted": "threshold":
	// the filter's own threshold; "split": crawl-relative acceptance
	// (relevance.ScoreDist: in-link evidence and a threshold split from
	// the crawl's score distribution). "" (absent) means AcceptMode's
	// default; read it with AcceptMode.
	Accept string `yaml:"accept"`
	// Rejudge: with split acceptance, every accepted page is judged again
	// against the whole crawl's split before each hub/authority
	// recomputation and at the crawl's end, and withdrawn when below it
	// (activities.RejudgeCrawl). nil (absent) means true; false keeps every
	// decision as first made. Read it with Rejudging.
	Rejudge *bool `yaml:"rejudge"`
	// Promote: the crawl's final re-judgement also accepts the pages the
	// online split turned down (own score above the filter's threshold,
	// expanded as tunnels) and those an earlier re-judgement withdrew,
	// when their stored score reaches the whole crawl's split: early in a
	// crawl from an on-topic seed the split sits among on-topic pages
	// (docs/evaluation.md). nil (absent) means true; read it with
	// Promoting. Needs re-judgement.
	Promote *bool `yaml:"promote"`
	// Feedback: the crawl's final re-judgement scores every judged page
	// again against the topic vector expanded with the accepted pages'
	// centroid, with in-link evidence from every judged source, and both
	// withdraws and promotes (activities.RejudgeCrawl; vsm page filter with
	// tfidf weighting only). nil (absent) means false: measured worse on the
	// focus evaluation's held-out half (docs/evaluation.md). Read it with
	// FeedbackOn.
	Feedback *bool `yaml:"feedback"`
	// FeedbackBeta is the weight of the accepted pages' centroid in the
	// feedback re-judgement's topic vector (Rocchio's β); nil means the
	// default (relevance.FeedbackBeta, 1). 0 re-scores with the whole
	// crawl's in-link evidence alone, no expansion. Needs feedback: true.
	FeedbackBeta *float64 `yaml:"feedback_beta"`
	// SampleFloor: with split acceptance, a page is accepted only when its
	// score reaches this share of the lowest score the topic's own sample
	// pages get from the page filter (relevance.SampleFloor) — a crawl that
	// never reaches its topic otherwise accepts its best off-topic pages.
	// nil means the default (DefaultSampleFloor); 0 turns it off; no effect
	// on a topic without samples. Read it with SampleFloorShare.
	SampleFloor *float64 `yaml:"sample_floor"`
	// DetailPage enables seed 002's loop policy: irrelevant pages are not
	// expanded, relevant target (detail) pages are stored but not expanded,
	// relevant hub pages are expanded.
	DetailPage bool `yaml:"detail_page"`
	// Expand configures seed expansion (seed 003); see expand.go.
	Expand Expand `yaml:"expand"`
	// DynamicThreshold is the optional precision-following threshold
	// controller (seed 000); see expand.go.
	DynamicThreshold DynamicThreshold `yaml:"dynamic_threshold"`
}

// Spec is a strategy name with its parameters.
type Spec struct {
	Name   string
	Params map[string]any
}

// UnmarshalYAML accepts a bare name or a mapping with a "name" key.
func (s *Spec) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		s.Name = strings.TrimSpace(n.Value)
		return nil
	case yaml.MappingNode:
		var m map[string]any
		if err := n.Decode(&m); err != nil {
			return err
		}
		name, _ := m["name"].(string)
		if name == "" {
			return fmt.Errorf("line %d: a strategy mapping needs a \"name\" key", n.Line)
		}
		delete(m, "name")
		s.Name, s.Params = strings.TrimSpace(name), m
		return nil
	default:
		return fmt.Errorf("line %d: expected a strategy name or a mapping with \"name\"", n.Line)
	}
}

// MarshalYAML writes the compact form back.
func (s Spec) MarshalYAML() (any, error) {
	if len(s.Params) == 0 {
		return s.Name, nil
	}
	m := map[string]any{"name": s.Name}
	for k, v := range s.Params {
		m[k] = v
	}
	return m, nil
}

// Float returns a float parameter, or def when absent. A present parameter of
// the wrong type is an error that names it.
func (s Spec) Float(key string, def float64) (float64, error) {
	v, ok := s.Params[key]
	if !ok {
		return def, nil
	}
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			// YAML spells them .nan and .inf; every comparison with NaN is
			// false, so a NaN threshold would pass range checks and then
			// accept or reject everything.
			return 0, fmt.Errorf("strategy %s: parameter %s: %v is not a finite number", s.Name, key, x)
		}
		return x, nil
	case int:
		return float64(x), nil
	default:
		return 0, fmt.Errorf("strategy %s: parameter %s: %v is not a number", s.Name, key, v)
	}
}

// PositiveInt returns an integer parameter in [1, 1e6], or def when absent;
// a fractional, out-of-range or non-numeric value is an error naming it.
func (s Spec) PositiveInt(key string, def int) (int, error) {
	v, err := s.Float(key, float64(def))
	if err != nil {
		return 0, err
	}
	if v < 1 || v > 1e6 || v != math.Trunc(v) {
		return 0, fmt.Errorf("strategy %s: parameter %s: %v must be a positive integer", s.Name, key, v)
	}
	return int(v), nil
}

// Load reads and parses a topic file.
func Load(path string) (*Topic, []byte, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	t, err := Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("topic file %s: %w", path, err)
	}
	return t, data, nil
}

// ReadFile reads a topic file, refusing one larger than MaxFileBytes
// before reading it.
func ReadFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("topic file: %w", err)
	}
	if info.Size() > MaxFileBytes {
		return nil, fmt.Errorf("topic file %s: %d bytes is larger than the %d-byte limit", path, info.Size(), MaxFileBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("topic file: %w", err)
	}
	defer f.Close()
	// Read at most one byte past the limit: a pipe, /dev/stdin or a
	// device has no size to check first (/dev/zero never ends).
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("topic file: %w", err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("topic file %s: larger than the %d-byte limit", path, MaxFileBytes)
	}
	return utf16ToUTF8(path, data)
}

// utf16ToUTF8 transcodes a file that starts with a UTF-16 byte-order mark
// (Windows editors save "Unicode" so) to UTF-8, and returns any other as
// it is. The file's content travels to the worker as a string in the
// workflow's JSON input, where UTF-16 bytes would be mangled, although
// Parse, through yaml.v3, reads them.
func utf16ToUTF8(path string, data []byte) ([]byte, error) {
	if !bytes.HasPrefix(data, []byte{0xFF, 0xFE}) && !bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return data, nil
	}
	out, err := utf16.UTF16(utf16.BigEndian, utf16.ExpectBOM).NewDecoder().Bytes(data)
	if err != nil {
		return nil, fmt.Errorf("topic file %s: it starts as UTF-16 but does not decode as UTF-16: %w", path, err)
	}
	return out, nil
}

// Parse decodes and validates a topic file's content, filling defaults.
func Parse(data []byte) (*Topic, error) {
	t, err := parse(data, true)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ParsePartial is Parse that, when the file decodes but its fields fail
// validation, returns the decoded topic along with the error: its
// strategies as written, defaults not all filled. A caller with checks of
// its own (topiccheck: do the named strategies exist) can then report them
// in the same round as the field errors, instead of after the user fixed
// those. On success it is Parse.
func ParsePartial(data []byte) (*Topic, error) { return parse(data, true) }

// ParseStored is Parse for a topic version the crawl store holds: it was
// validated when it was stored, by that day's rules, and a rule added since
// — the entry limit, one document per file, whole numbers for integer
// fields, no port in a scope host — must not make it unloadable: a crawl
// running on it would fail every slice. The size and alias-expansion
// bounds, and every check the typed decoding and normalisation made before
// those rules, still apply.
func ParseStored(data []byte) (*Topic, error) {
	t, err := parse(data, false)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// parse is ParsePartial (strict) or ParseStored's: on an error it returns
// the typed topic too when the typed decoding got that far.
func parse(data []byte, strict bool) (*Topic, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%d bytes is larger than the %d-byte limit", len(data), MaxFileBytes)
	}
	if err := checkUTF8(data); err != nil {
		return nil, err
	}
	// The document is first read as a node tree, which costs time linear in
	// its size, and its shape checked before the typed decoding, whose cost
	// is not linear: yaml.v3 compares every key of a mapping with every
	// other and records an error for each equal pair, so 4,000 copies of a
	// key (20 KB) took 7 s and 3 GB.
	nodes := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := nodes.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the topic file is empty")
		}
		return nil, fmt.Errorf("invalid YAML: %w", yamlerr.Explain(data, err))
	}
	// A topic file is one document. The decoder stops at the first, so
	// whatever followed a "---" used to vanish without a word.
	// Empty documents after it (a trailing "---", as generators write) are
	// nothing.
	for strict {
		var next yaml.Node
		err := nodes.Decode(&next)
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil && emptyDocument(&next) {
			continue
		}
		where := ""
		if err == nil {
			where = fmt.Sprintf(" at line %d", next.Line)
		}
		return nil, fmt.Errorf("a topic file holds one YAML document, and a second YAML document%s follows the first (a stray \"---\"?)", where)
	}
	maxEntries := MaxEntries
	if !strict {
		maxEntries = 0
	}
	fields, err := checkShape(&doc, maxEntries, strict)
	if err != nil {
		return nil, err
	}
	// Node.Decode cannot refuse unknown fields, so the typed decoding reads
	// the bytes again.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var t Topic
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("invalid YAML: %w", friendlyYAMLError(err, fields))
	}
	var errs []error
	if strict {
		errs = fractionalInts(&doc, reflect.TypeFor[Topic](), "")
	}
	// The other fields are checked too, so that one report lists every error.
	errs = append(errs, t.normalizeErrs(strict)...)
	if len(errs) > 0 {
		return &t, joinErrors(errs)
	}
	return &t, nil
}

// emptyDocument reports a YAML document with nothing in it.
func emptyDocument(n *yaml.Node) bool {
	return n.Kind == yaml.DocumentNode && (len(n.Content) == 0 ||
		(len(n.Content) == 1 && n.Content[0].Kind == yaml.ScalarNode && n.Content[0].ShortTag() == "!!null" && n.Content[0].Value == ""))
}

// checkUTF8 refuses a topic file that is not UTF-8, saying where and why.
// yaml.v3's own message ("yaml: invalid trailing UTF-8 octet") names
// neither the line nor the cause, and the likely cause is common: a Chinese
// topic file saved in an editor's legacy encoding (GBK on Chinese Windows).
// A file that starts with a UTF-16 byte-order mark is left to yaml.v3,
// which reads it.
func checkUTF8(data []byte) error {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || utf8.Valid(data) {
		return nil
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return fmt.Errorf("the topic file is not UTF-8: line %d, column %d holds the byte 0x%02X; save the file as UTF-8 (a legacy encoding such as GBK is not read)", line, col, data[i])
		}
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return nil
}

// checkShape refuses a node tree with a list or mapping of more than
// maxEntries entries (0: no limit), a mapping with a repeated key, an alias
// to a node that contains it, or more than MaxNodes nodes once aliases are
// counted as what they name. It runs in time linear in the tree (each
// anchored node's size is counted once), so whatever passes with
// MaxEntries costs the typed decoding at most MaxNodes*MaxEntries key
// comparisons.
//
// Strict (a file given, not a stored version loaded again, which a rule
// added later must not make unloadable), it also refuses YAML's nulls
// where a word or an entry was meant — a
// mapping key written null, Null, NULL or ~ (a SQL topic's keyword
// "null" vanished from the map) and an empty list entry (a "-" with
// nothing after it, dropped by the decoder, so that every later entry's
// error named the wrong index) — and returns the field each line's value
// belongs to, for the typed decoder's errors (friendlyYAMLError).
func checkShape(doc *yaml.Node, maxEntries int, strict bool) (lineFields, error) {
	s := shape{size: map[*yaml.Node]int{}, maxEntries: maxEntries, nulls: strict, lines: lineFields{}}
	total, err := s.count(doc)
	if err != nil {
		return nil, err
	}
	if total > MaxNodes {
		return nil, fmt.Errorf("the topic file has more than %d YAML nodes once its aliases are expanded", MaxNodes)
	}
	// Only now, with the expanded size known to be bounded and no alias
	// inside its own anchor: noting walks every alias's value again.
	s.noteValues(doc, "")
	return s.lines, nil
}

// shape is checkShape's walk: size holds the expanded size of each node
// already counted (-1 while it is being counted, to find an alias inside
// its own anchor), path the keys and indexes that lead to the current node.
type shape struct {
	size       map[*yaml.Node]int
	path       []string
	types      []reflect.Type // the Go type each step of path decodes into (nil: unknown)
	maxEntries int            // 0: no limit
	nulls      bool           // refuse null keys and list entries (a file given, not a stored version)
	lines      lineFields     // the values on each line (note)
}

// lineFields lists, per line, the values on it with their fields, for the
// typed decoder's errors, which give a line, a kind and a quoted value
// (friendlyYAMLError).
type lineFields map[int][]lineField

type lineField struct {
	field string
	kind  yaml.Kind
	value string // a scalar's
	typ   string // the Go type its field decodes into, as yaml.v3 names it ("int"), "" when unknown
	// via names the aliases the value was reached through, the use the
	// field's path goes through first ("line 9: *s, line 7: *m"); "" when
	// none. An alias's value is listed on its anchor's line, where yaml.v3
	// reports its errors.
	via string
}

// of returns the values on line that a type error about a value of kind
// (yaml.v3's "seq", "map", or a scalar tag) quoted as quoted (a scalar's
// text, cut to a few characters and "..." when long) into Go type goType
// may be about, in document order, which is the order yaml.v3 decodes
// them in.
func (l lineFields) of(line int, kind, quoted, goType string) []lineField {
	var found []lineField
	for _, c := range l[line] {
		var fits bool
		switch kind {
		case "seq":
			fits = c.kind == yaml.SequenceNode
		case "map":
			fits = c.kind == yaml.MappingNode
		default:
			cut, long := strings.CutSuffix(quoted, "...")
			fits = c.kind == yaml.ScalarNode && (c.value == quoted || long && strings.HasPrefix(c.value, cut))
		}
		if fits && (c.typ == "" || c.typ == goType) {
			found = append(found, c)
		}
	}
	return found
}

// field is the current path as the topic file names fields
// ("limits.max_pages", "seeds[2]").
func (s *shape) field() string { return strings.TrimPrefix(strings.Join(s.path, ""), ".") }

// noteValues records the field of each value inside n, a node reached
// through the aliases via ("" when none; lineField.via), with the keys
// and indexes of the path that led to it. yaml.v3 decodes an anchored
// node again for every alias to it and reports a wrong type on the
// anchored value's line, so every alias's value is walked again here,
// under the alias's own path: walked once, at its anchor, a value inside
// an aliased mapping or list (samples: &s [..., *m], seeds: *s) was
// known only by the anchor's path, and the error about the alias's copy
// named the anchor's field.
func (s *shape) noteValues(n *yaml.Node, via string) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			s.noteValues(c, via)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			s.push("."+k, fieldType(s.typ(), k))
			s.noteValue(n.Content[i+1], via)
			s.pop()
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			s.push(fmt.Sprintf("[%d]", i), elemType(s.typ()))
			s.noteValue(c, via)
			s.pop()
		}
	}
}

// noteValue records that v, a value, belongs to the current field, and
// the values inside it. An alias is recorded as its anchored value, on
// that value's line, with the alias's line and name.
func (s *shape) noteValue(v *yaml.Node, via string) {
	if len(s.path) == 0 {
		return
	}
	for v.Kind == yaml.AliasNode && v.Alias != nil {
		use := fmt.Sprintf("line %d: *%s", v.Line, v.Value)
		if via != "" {
			use = via + ", " + use
		}
		v, via = v.Alias, use
	}
	typ := ""
	if t := s.typ(); t != nil {
		typ = t.String()
	}
	s.lines[v.Line] = append(s.lines[v.Line], lineField{field: s.field(), kind: v.Kind, value: v.Value, typ: typ, via: via})
	if via != "" && typ == "" {
		// Inside a type that decodes itself (a strategy's parameters)
		// nothing is typed: the values of an alias's copy there give no
		// error of the file's decoder to name, and walking them again
		// made a mapping of 1000 parameters aliased 64 times cost 3
		// times the memory to parse.
		return
	}
	s.noteValues(v, via)
}

// push and pop step into and out of a key or index of type t.
func (s *shape) push(step string, t reflect.Type) {
	s.path, s.types = append(s.path, step), append(s.types, t)
}

func (s *shape) pop() {
	s.path, s.types = s.path[:len(s.path)-1], s.types[:len(s.types)-1]
}

// typ is the Go type the current node decodes into (nil: unknown).
func (s *shape) typ() reflect.Type {
	if len(s.types) == 0 {
		return reflect.TypeFor[Topic]()
	}
	return s.types[len(s.types)-1]
}

// fieldType is the type key of a mapping decoding into t decodes into:
// a struct's field, a map's values; nil when unknown, or when t decodes
// itself (yaml.Unmarshaler), which reports its own errors.
func fieldType(t reflect.Type, key string) reflect.Type {
	if t = plainType(t); t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			if yamlName(f) == key {
				return plainType(f.Type)
			}
		}
	case reflect.Map:
		return plainType(t.Elem())
	}
	return nil
}

// elemType is the type a list decoding into t gives its entries (nil:
// unknown).
func elemType(t reflect.Type) reflect.Type {
	if t = plainType(t); t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		return plainType(t.Elem())
	}
	return nil
}

// plainType is t without pointers, as yaml.v3 names the type it decodes
// into, or nil when t decodes itself (unless it decodes a mapping into its
// fields, a fieldsDecoder).
func plainType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || reflect.PointerTo(t).Implements(reflect.TypeFor[yaml.Unmarshaler]()) &&
		!reflect.PointerTo(t).Implements(reflect.TypeFor[fieldsDecoder]()) {
		return nil
	}
	return t
}

// fieldsDecoder is a type that decodes itself but decodes a mapping into
// its own fields as a plain struct does (Sitemaps), so a wrong type there
// is the file decoder's error, about one of its fields: with the type
// unknown, `max_files: *d` in sitemaps took the name of another field
// *d fits as badly (strategy.expand.keywords, twice).
type fieldsDecoder interface{ decodesFields() }

// octal reports a number written with a leading zero ("0500", "010"),
// which yaml.v3 reads as octal (YAML 1.1: max_pages 0500 was 320 pages),
// where a reader, and YAML 1.2, sees decimal.
func octal(n *yaml.Node) bool {
	v := strings.TrimLeft(n.Value, "+-")
	return n.Kind == yaml.ScalarNode && n.Style == 0 && n.ShortTag() == "!!int" &&
		len(v) > 1 && v[0] == '0' && v[1] >= '0' && v[1] <= '9'
}

// tooMany reports whether a list or mapping of n entries exceeds the limit.
func (s *shape) tooMany(n int) bool { return s.maxEntries > 0 && n > s.maxEntries }

func (s *shape) where(n *yaml.Node) string {
	p := strings.Join(s.path, "")
	if p == "" {
		return fmt.Sprintf("line %d", n.Line)
	}
	return fmt.Sprintf("%s (line %d)", strings.TrimPrefix(p, "."), n.Line)
}

// count returns n's size with aliases expanded, saturating just above
// MaxNodes so that sums cannot overflow.
func (s *shape) count(n *yaml.Node) (int, error) {
	if v, ok := s.size[n]; ok {
		if v < 0 {
			return 0, fmt.Errorf("%s: an alias names a node that contains it", s.where(n))
		}
		return v, nil
	}
	s.size[n] = -1
	total := 1
	add := func(c *yaml.Node) error {
		v, err := s.count(c)
		total = min(total+v, MaxNodes+1)
		return err
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias != nil {
			if err := add(n.Alias); err != nil {
				return 0, err
			}
		}
	case yaml.MappingNode:
		if s.tooMany(len(n.Content) / 2) {
			return 0, fmt.Errorf("%s: a mapping of %d entries; at most %d are allowed", s.where(n), len(n.Content)/2, s.maxEntries)
		}
		// Keys are equal for the decoder when their kind and text are.
		type key struct {
			kind  yaml.Kind
			value string
		}
		seen := make(map[key]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if line, dup := seen[key{k.Kind, k.Value}]; dup {
				return 0, fmt.Errorf("%s: key %q is already defined at line %d", s.where(k), k.Value, line)
			}
			seen[key{k.Kind, k.Value}] = k.Line
			if s.nulls && k.Kind == yaml.ScalarNode && k.ShortTag() == "!!null" {
				return 0, fmt.Errorf("%s: a key written %q is YAML's null, not a word; quote it (\"%s\") to mean the word", s.where(k), k.Value, k.Value)
			}
			s.push("."+k.Value, fieldType(s.typ(), k.Value))
			if v := n.Content[i+1]; s.nulls && octal(v) {
				digits := strings.TrimLeft(strings.TrimLeft(v.Value, "+-"), "0")
				if digits == "" {
					digits = "0"
				}
				sign := v.Value[:len(v.Value)-len(strings.TrimLeft(v.Value, "+-"))]
				err := fmt.Errorf("%s: %s has a leading zero, which YAML reads as octal; write %s", s.where(v), v.Value, sign+digits)
				s.pop()
				return 0, err
			}
			err := add(k)
			if err == nil {
				err = add(n.Content[i+1])
			}
			s.pop()
			if err != nil {
				return 0, err
			}
		}
	default: // documents and sequences
		if n.Kind == yaml.SequenceNode && s.tooMany(len(n.Content)) {
			return 0, fmt.Errorf("%s: a list of %d entries; at most %d are allowed", s.where(n), len(n.Content), s.maxEntries)
		}
		for i, c := range n.Content {
			if n.Kind == yaml.SequenceNode {
				s.push(fmt.Sprintf("[%d]", i), elemType(s.typ()))
				if s.nulls && c.Kind == yaml.ScalarNode && c.ShortTag() == "!!null" {
					return 0, fmt.Errorf("%s: an empty list entry (a \"-\" with nothing after it, or null)", s.where(c))
				}
			}
			err := add(c)
			if n.Kind == yaml.SequenceNode {
				s.pop()
			}
			if err != nil {
				return 0, err
			}
		}
	}
	s.size[n] = total
	return total, nil
}

// fractionalInts finds the numbers with a fraction that n, a YAML tree
// decoding into type t, gives to integer fields: the YAML decoder truncates
// them, so "max_depth: 0.5" meant 0 (unlimited) without a word. path names
// n's field ("" at the root). Whole numbers in float notation ("1e4",
// "3.0") are fine. Types that decode themselves (Spec) check their own
// values.
func fractionalInts(n *yaml.Node, t reflect.Type, path string) []error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	join := func(key string) string {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	var errs []error
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			errs = append(errs, fractionalInts(c, t, path)...)
		}
	case yaml.AliasNode:
		if n.Alias != nil {
			errs = append(errs, fractionalInts(n.Alias, t, path)...)
		}
	case yaml.SequenceNode:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for i, c := range n.Content {
				errs = append(errs, fractionalInts(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	case yaml.MappingNode:
		if reflect.PointerTo(t).Implements(reflect.TypeFor[yaml.Unmarshaler]()) {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i].Value, n.Content[i+1]
			switch {
			case key == "<<" && n.Content[i].ShortTag() == "!!merge":
				// A merge key's mapping (or list of them) fills this one.
				if val.Kind == yaml.SequenceNode {
					for _, m := range val.Content {
						errs = append(errs, fractionalInts(m, t, path)...)
					}
				} else {
					errs = append(errs, fractionalInts(val, t, path)...)
				}
			case t.Kind() == reflect.Map:
				errs = append(errs, fractionalInts(val, t.Elem(), join(key))...)
			case t.Kind() == reflect.Struct:
				if f, ok := yamlField(t, key); ok {
					errs = append(errs, fractionalInts(val, f.Type, join(key))...)
				}
			}
		}
	case yaml.ScalarNode:
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			var f float64
			if n.ShortTag() == "!!float" && n.Decode(&f) == nil && f != math.Trunc(f) {
				errs = append(errs, fmt.Errorf("%s: %s is not a whole number", path, n.Value))
			}
		}
	}
	return errs
}

// yamlField finds the field of struct type t that the YAML key names, as
// the decoder does: by the yaml tag, else by the lower-cased field name.
func yamlField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if name == key && f.IsExported() {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// Hash returns a stable digest of a topic file's bytes.
func Hash(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// CheckName refuses a topic name outside the name rule (the field's own
// message, without the field).
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("%q must be 1-64 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// CheckLanguage refuses a language other than zh, en, auto or "" (auto).
func CheckLanguage(lang string) error {
	switch strings.ToLower(strings.TrimSpace(lang)) {
	case "", "zh", "en", "auto":
		return nil
	}
	return fmt.Errorf("%q must be zh, en or auto", lang)
}

// normalizeErrs checks the decoded fields, fills in defaults and returns
// every error, one by one: parse counts them with its own against
// maxErrors (before, its whole-number errors came on top of normalize's
// twenty).
func (t *Topic) normalizeErrs(strict bool) []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	t.Name = strings.TrimSpace(t.Name)
	if err := CheckName(t.Name); err != nil {
		errs = append(errs, fmt.Errorf("name: %w", err))
	}
	if err := CheckLanguage(t.Language); err != nil {
		errs = append(errs, fmt.Errorf("language: %w", err))
	}
	if t.Language = strings.ToLower(strings.TrimSpace(t.Language)); t.Language == "" {
		t.Language = "auto"
	}
	for k, w := range t.Keywords {
		switch {
		case strings.TrimSpace(k) == "":
			bad("keywords", "empty keyword")
		case strings.IndexFunc(k, isWordChar) < 0:
			// The tokenizer drops punctuation and symbols: such a keyword
			// would contribute no term, and alone it made an empty model.
			bad("keywords", "%q has no letter or digit", k)
		}
		switch {
		case w == 0:
			// Also "keywords: {rose: }": YAML's null, no weight written.
			bad("keywords."+k, "needs a weight in (0, 10] (write %q)", k+": 1")
		case !(w > 0 && w <= 10): // written so that NaN fails too
			bad("keywords."+k, "weight %v must be in (0, 10]", w)
		}
	}
	if len(t.Keywords) == 0 && strings.TrimSpace(t.Description) == "" && len(t.Samples) == 0 {
		bad("keywords", "a topic needs at least one of keywords, description or samples")
	}
	t.Samples, _ = normalizeURLs("samples", t.Samples, strict, bad)
	t.NegativeSamples, _ = normalizeURLs("negative_samples", t.NegativeSamples, strict, bad)
	t.Lexicon = strings.TrimSpace(t.Lexicon)
	if t.Lexicon != "" {
		if err := lexicon.CheckRef(t.Lexicon); err != nil {
			bad("lexicon", "%v", err)
		}
	}
	t.Breadth = strings.ToLower(strings.TrimSpace(t.Breadth))
	if _, ok := breadthFactor[t.Breadth]; !ok {
		bad("breadth", "%q must be broad, specific or empty", t.Breadth)
	}
	switch t.Strategy.Accept {
	case "", AcceptThreshold, AcceptSplit:
	default:
		bad("strategy.accept", "%q must be %s or %s", t.Strategy.Accept, AcceptThreshold, AcceptSplit)
	}
	if h := t.Strategy.HubT(); h < 0 || h > 1 || h != h {
		bad("strategy.hub", "%v must be a cosine in [0, 1]", h)
	}
	if p := t.Strategy.TunnelP(); p < 0 || p > 1 || p != p {
		bad("strategy.tunnel", "%v must be a probability in [0, 1]", p)
	}
	if f := t.Strategy.SampleFloor; f != nil && !(*f >= 0 && *f <= 1) {
		bad("strategy.sample_floor", "%v must be a share in [0, 1]", *f)
	}
	if b := t.Strategy.FeedbackBeta; b != nil {
		switch {
		case !(*b >= 0 && *b <= 10):
			bad("strategy.feedback_beta", "%v must be a weight in [0, 10]", *b)
		case !t.Strategy.FeedbackOn():
			bad("strategy.feedback_beta", "is read only by feedback re-judgement: it needs strategy.feedback: true")
		}
	}
	for _, sp := range []struct {
		field string
		spec  Spec
	}{{"strategy.page_filter", t.Strategy.PageFilter}, {"strategy.link_predictor", t.Strategy.LinkPredictor}} {
		for k, v := range sp.spec.Params {
			if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				bad(sp.field+"."+k, "%v is not a finite number", f)
			}
		}
	}
	t.Sitemaps.validate(bad)
	if strict && t.Sitemaps.noEnabled {
		// Read as off (stored versions keep that meaning), but a file that
		// sets max_files or max_urls without it may well have meant on.
		bad("sitemaps", "the mapping needs enabled: true (or enabled: false); without it sitemaps are off")
	}
	if err := t.Strategy.Expand.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := t.Strategy.DynamicThreshold.fill(); err != nil {
		errs = append(errs, err)
	}
	given := len(t.Seeds)
	var seedAt []int // each seed's index in the file, for errors
	t.Seeds, seedAt = normalizeURLs("seeds", t.Seeds, strict, bad)
	if given == 0 {
		// Also among other errors: one report lists every error. (Seeds
		// given and all refused have their own errors already.)
		bad("seeds", "at least one seed URL is required")
	}
	scopeErrs := len(errs)
	for i, h := range t.Scope.Hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" || strings.ContainsAny(h, "/ ") || (strict && strings.ContainsAny(h, "@?#%\\")) || strings.Count(h, "*") > 1 || (strings.Contains(h, "*") && !strings.HasPrefix(h, "*.")) {
			bad(fmt.Sprintf("scope.hosts[%d]", i), "%q must be a host name or *.domain", h)
		} else if strings.Contains(h, ":") && strict {
			// An IPv6 literal, written with brackets as in URL hosts (which
			// InScope compares against) or without. Any other colon starts a
			// port, and scope compares hosts without their ports: such an
			// entry matched nothing.
			inner := strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
			if a, err := netip.ParseAddr(inner); err == nil && a.Is6() && !strings.Contains(h, "*") {
				// In the RFC 5952 form URL hosts take (urlnorm.CanonicalHost).
				c, _ := urlnorm.CanonicalHost(inner)
				h = "[" + c + "]"
			} else if name, _, err := net.SplitHostPort(h); err == nil && name != "" && !strings.Contains(name, ":") {
				// Said with the entry meant: a user trial copied its seed's
				// host, 127.0.0.1:28089.
				bad(fmt.Sprintf("scope.hosts[%d]", i), "%q has a port: scope matches a host on every port, so write %q", h, name)
			} else {
				bad(fmt.Sprintf("scope.hosts[%d]", i), "%q has a port or is not a host name: scope matches a host on every port, so name it without one", h)
			}
		} else {
			// The same UTS #46 mapping as URL hosts, so "bücher.example"
			// in scope matches the punycode host keys of its URLs.
			suffix, wild := strings.CutPrefix(h, "*.")
			c, err := urlnorm.CanonicalHost(suffix)
			if strings.HasPrefix(suffix, ".") && !wild {
				// The cookie-domain spelling: it matched no host at all.
				bad(fmt.Sprintf("scope.hosts[%d]", i), "%q is not a host name; for the domain and its subdomains write %q and %q",
					h, strings.TrimLeft(suffix, "."), "*."+strings.TrimLeft(suffix, "."))
			} else if err != nil || c == "" || strings.HasPrefix(suffix, ".") || strings.Contains(c, "..") {
				bad(fmt.Sprintf("scope.hosts[%d]", i), "%q is not a valid host name", h)
			} else if wild {
				h = "*." + c
			} else {
				h = c
			}
		}
		t.Scope.Hosts[i] = h
	}
	scopeRead := len(errs) == scopeErrs
	if t.Limits.MaxPages == 0 {
		t.Limits.MaxPages = DefaultMaxPages
	}
	if t.Limits.MaxPages < 0 || t.Limits.MaxPages > 100_000_000 {
		bad("limits.max_pages", "%d must be between 1 and 100000000", t.Limits.MaxPages)
	}
	if t.Limits.MaxDepth < 0 {
		bad("limits.max_depth", "%d must not be negative (0 = unlimited)", t.Limits.MaxDepth)
	}
	if t.Limits.MaxPagesPerHost < 0 {
		bad("limits.max_pages_per_host", "%d must not be negative", t.Limits.MaxPagesPerHost)
	}
	if t.Strategy.PageFilter.Name == "" {
		t.Strategy.PageFilter.Name = DefaultPageFilter
	}
	if t.Strategy.LinkPredictor.Name == "" {
		t.Strategy.LinkPredictor.Name = DefaultLinkPredictor
	}
	// Seeds are checked against a scope that was read whole: after a
	// refused entry, every seed on its host was reported outside the scope
	// too, an error that was only the first one again.
	if len(t.Scope.Hosts) > 0 && scopeRead {
		for i, s := range t.Seeds {
			if !t.InScope(urlnorm.Host(s)) {
				bad(fmt.Sprintf("seeds[%d]", seedAt[i]), "%s is outside scope.hosts", s)
			}
		}
	}
	return errs
}

// maxErrors is how many of a topic file's errors are reported one by one.
// A file with an error in every entry of its lists would otherwise give one
// error of thousands of lines (hundreds of kB), and StartCrawl's error is
// kept in the workflow's history.
const maxErrors = 20

// joinErrors is errors.Join of the first maxErrors of errs and a count of
// the rest.
func joinErrors(errs []error) error {
	if len(errs) <= maxErrors {
		return errors.Join(errs...)
	}
	return errors.Join(append(errs[:maxErrors:maxErrors], fmt.Errorf("… and %d more errors", len(errs)-maxErrors))...)
}

// normalizeURLs normalises and de-duplicates a list of URLs, reporting
// each that is not an http(s) URL under its index in the file (and, for a
// file given, one whose host has an empty label), and returns with each
// kept URL its index in the file.
func normalizeURLs(field string, in []string, strict bool, bad func(string, string, ...any)) (out []string, at []int) {
	seen := map[string]bool{}
	for i, raw := range in {
		n, err := urlnorm.Normalize(raw)
		if err != nil {
			bad(fmt.Sprintf("%s[%d]", field, i), "%q is not an http(s) URL: %v", raw, err)
			continue
		}
		if h := urlnorm.Host(n); strict && (strings.Contains(h, "..") || strings.HasPrefix(h, ".")) {
			bad(fmt.Sprintf("%s[%d]", field, i), "%q: its host %q has an empty label", raw, h)
			continue
		}
		if !seen[n] {
			seen[n] = true
			out, at = append(out, n), append(at, i)
		}
	}
	return out, at
}

// isWordChar reports whether r can be part of a token.
func isWordChar(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// InScope reports whether host (host[:port]) may be crawled.
func (t *Topic) InScope(host string) bool {
	if len(t.Scope.Hosts) == 0 {
		return true
	}
	h := strings.ToLower(host)
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.HasSuffix(h, "]") {
		h = h[:i]
	}
	for _, p := range t.Scope.Hosts {
		if suffix, ok := strings.CutPrefix(p, "*."); ok {
			if h == suffix || strings.HasSuffix(h, "."+suffix) {
				return true
			}
		} else if h == p {
			return true
		}
	}
	return false
}
