// Package lexicon is focuscrawl's pluggable relatedness lexicon: the
// "relatedness dictionary" of seed 000 (RW link scoring: synonym 1.0,
// near-synonym 0.5–1.0, distant 0–0.5) and the stand-in for HowNet in seed
// 001 (expanding each topic term with its synonyms and its hyponyms down to
// a depth).
//
// # File format
//
// A lexicon is a UTF-8 text file, one relation per line:
//
//	# comment (also after a field: "a | synonym | b  # why")
//	name: ml-en                      (optional header, before any relation)
//	head | relation | term[, term...] [| relatedness]
//
// relation is synonym, near-synonym, hyponym or related. "a | hyponym | b"
// says b is a narrower concept than a (b is a kind of a). synonym,
// near-synonym and related are symmetric; hyponym is directed. relatedness
// is in (0, 1]; when it is left out it defaults to DefaultRelatedness of the
// relation (synonym 1, near-synonym 0.8, hyponym 0.8, related 0.5). Terms
// are matched case-insensitively (they are lower-cased, like the tokenizer's
// output) and should be single tokens of the project tokenizer (gojieba for
// Chinese): a multi-word entry only matches a token with the same spelling.
// When a pair is listed twice the higher relatedness wins.
//
// Parse reports the first bad line by number ("line 12: unknown relation
// \"syn\""). The format is focuscrawl's own design: neither seed document
// gives a file format (001 used HowNet, 000 a dictionary it does not show).
package lexicon

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"focuscrawl/internal/textproc/fold"
	"focuscrawl/internal/textproc/hant"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Relation is the kind of link between two lexicon terms.
type Relation string

// The relations a lexicon file may use.
const (
	Synonym     Relation = "synonym"
	NearSynonym Relation = "near-synonym"
	Hyponym     Relation = "hyponym" // "a | hyponym | b": b is a kind of a
	Related     Relation = "related"
)

// DefaultRelatedness is the relatedness of a relation whose line gives none.
var DefaultRelatedness = map[Relation]float64{
	Synonym:     1.0,
	NearSynonym: 0.8,
	Hyponym:     0.8,
	Related:     0.5,
}

// MaxFileBytes bounds a lexicon file; MaxLineBytes one line.
const (
	MaxFileBytes = 64 << 20
	MaxLineBytes = 64 << 10
)

// DefaultDepth is the hyponym depth Relatedness follows (seed 001 leaves the
// depth open; 1–2 levels keep the expansion on topic).
const DefaultDepth = 2

// ModelKind is the crawl-store model kind under which a crawl's lexicon is
// stored (data = Encode()), so every batch reads one version.
const ModelKind = "lexicon"

// edge is one outgoing relation of a term.
type edge struct {
	to  string
	rel Relation
	w   float64
}

// Lexicon is a parsed relatedness lexicon. It is immutable after Parse and
// safe for concurrent use.
type Lexicon struct {
	// Name is the lexicon's name from its "name:" header, or "".
	Name  string
	edges map[string][]edge // term → outgoing edges (symmetric relations are stored both ways)
	pairs int               // relation lines' pairs, for Len

	memo sync.Map // expandKey → map[string]float64
}

type expandKey struct {
	term  string
	depth int
}

// Normalize is how terms are compared: folded as the tokenizer
// folds a page's words (fold.Word: case, width, typographic apostrophes and
// hyphens; invisible format characters dropped), so a term typed in full
// width ("ＡＩ") matches the page's "ai", and "e\u00admail" (a soft hyphen)
// its "email"; then trimmed, so that a space beside a dropped format
// character ("\u200b AI") goes too; then in Unicode NFC, as the tokenizer's
// terms are, so a term saved decomposed ("cafe" + U+0301) matches the
// page's "café"; then in Simplified Chinese, as the tokenizer's terms are
// (package hant), so a lexicon written in Traditional Chinese relates the
// words of pages in either script.
func Normalize(term string) string {
	return hant.Simplified(norm.NFC.String(strings.TrimSpace(fold.Word(term))))
}

// ErrNotFound is returned by Open when the directory holds no such lexicon.
var ErrNotFound = errors.New("lexicon not found")

// CheckRef validates a topic's "lexicon:" reference without touching the
// file system: a bare name ("ml-zh") or a relative path that stays inside
// the lexicon directory ("team/ml.txt"). Absolute paths, ".." segments,
// backslashes and control characters are refused: a topic is submitted by
// users, and the worker must not become a way to read its own files.
func CheckRef(ref string) error {
	switch {
	case ref == "":
		return errors.New("empty lexicon reference")
	case len(ref) > 255:
		return errors.New("lexicon reference longer than 255 bytes")
	case strings.ContainsAny(ref, "\\\x00") || strings.IndexFunc(ref, unicode.IsControl) >= 0:
		return errors.New("lexicon reference may not contain backslashes or control characters")
	case filepath.IsAbs(ref) || strings.HasPrefix(ref, "/"):
		return errors.New("lexicon reference must be a name or a path relative to the lexicon directory, not an absolute path")
	}
	for _, seg := range strings.Split(ref, "/") {
		if seg == ".." {
			return errors.New("lexicon reference may not leave the lexicon directory (\"..\")")
		}
	}
	return nil
}

// IsPath reports whether a valid reference names a file (it has a "/" or a
// .txt suffix) rather than a lexicon by name.
func IsPath(ref string) bool { return strings.Contains(ref, "/") || strings.HasSuffix(ref, ".txt") }

// Open loads the lexicon ref names from dir: NAME.txt for a bare name, the
// file itself for a relative path. The file is opened through an os.Root, so
// neither ".." nor a symbolic link can lead outside dir. Errors name the
// reference, never the file's contents (Parse errors give line numbers
// only), because they travel into workflow history. A missing file is
// ErrNotFound.
func Open(dir, ref string) (*Lexicon, error) {
	if err := CheckRef(ref); err != nil {
		return nil, fmt.Errorf("lexicon %q: %w", ref, err)
	}
	name := ref
	if !IsPath(ref) {
		name += ".txt"
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("lexicon %q: %w (no lexicon directory %q)", ref, ErrNotFound, dir)
		}
		return nil, fmt.Errorf("lexicon %q: cannot open the lexicon directory", ref)
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A path is read as written, without the ".txt" a bare name gets:
		// a user trial's "t4/smtp-auth" for t4/smtp-auth.txt was just "not found".
		if _, serr := root.Stat(filepath.FromSlash(name + ".txt")); serr == nil && !strings.HasSuffix(name, ".txt") {
			return nil, fmt.Errorf("lexicon %q: %w in %q (a path is read as written: did you mean %q?)", ref, ErrNotFound, dir, ref+".txt")
		}
		return nil, fmt.Errorf("lexicon %q: %w in %q", ref, ErrNotFound, dir)
	case err != nil:
		// os.Root's error says whether the path escapes; the path is the
		// reference itself, which the user wrote.
		return nil, fmt.Errorf("lexicon %q: cannot open it inside the lexicon directory (outside it, or not a readable file)", ref)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("lexicon %q: not a regular file", ref)
	}
	l, err := Parse(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("lexicon %q: %w: %w", ref, ErrMalformed, err)
	}
	return l, nil
}

// ErrMalformed is returned by Open for a lexicon file it found and opened
// but cannot read as a lexicon (Parse's error follows).
var ErrMalformed = errors.New("malformed lexicon")

// Parse reads a lexicon in the format of the package documentation.
func Parse(r io.Reader) (*Lexicon, error) {
	l := &Lexicon{edges: map[string][]edge{}}
	cr := &countingReader{r: r}
	sc := bufio.NewScanner(cr)
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	lineNo := 0
	tooLarge := func() error { return fmt.Errorf("lexicon is larger than %d bytes", MaxFileBytes) }
	seenRelation := false
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if name, ok := strings.CutPrefix(line, "name:"); ok && !strings.Contains(line, "|") {
			if seenRelation {
				return nil, fmt.Errorf("line %d: the name: header must come before the relations", lineNo)
			}
			l.Name = strings.TrimSpace(name)
			continue
		}
		seenRelation = true
		if err := l.addLine(line); err != nil {
			if cr.n > MaxFileBytes {
				return nil, tooLarge()
			}
			return nil, fmt.Errorf("line %d: %w", lineNo, err)
		}
	}
	if cr.n > MaxFileBytes {
		return nil, tooLarge()
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, fmt.Errorf("line %d: longer than %d bytes", lineNo+1, MaxLineBytes)
		}
		return nil, fmt.Errorf("line %d: %w", lineNo, err)
	}
	for t := range l.edges {
		es := l.edges[t]
		sort.Slice(es, func(i, j int) bool {
			if es[i].to != es[j].to {
				return es[i].to < es[j].to
			}
			return es[i].rel < es[j].rel
		})
	}
	return l, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (l *Lexicon) addLine(line string) error {
	f := strings.Split(line, "|")
	if len(f) < 3 || len(f) > 4 {
		return fmt.Errorf("%d fields, want \"head | relation | term[, term...] [| relatedness]\"", len(f))
	}
	if !utf8.ValidString(line) {
		return fmt.Errorf("not valid UTF-8")
	}
	head := Normalize(f[0])
	if head == "" {
		return fmt.Errorf("empty head term")
	}
	if strings.Contains(head, ",") {
		return fmt.Errorf("the head term contains a comma (only the term list may list several)")
	}
	if strings.Contains(head, "|") {
		return fmt.Errorf("the head term contains a bar once normalised (a full-width ｜?)")
	}
	rel := Relation(strings.ToLower(strings.TrimSpace(f[1])))
	w, ok := DefaultRelatedness[rel]
	if !ok {
		return fmt.Errorf("unknown relation (want synonym, near-synonym, hyponym or related)")
	}
	if len(f) == 4 {
		s := strings.TrimSpace(f[3])
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || v <= 0 || v > 1 {
			return fmt.Errorf("relatedness must be a number in (0, 1]")
		}
		w = v
	}
	n := 0
	for _, raw := range strings.Split(f[2], ",") {
		term := Normalize(raw)
		if term == "" {
			return fmt.Errorf("empty term in the term list")
		}
		if strings.ContainsAny(term, "|,") {
			return fmt.Errorf("a term contains a bar or comma once normalised (a full-width ｜ or ，?)")
		}
		if term == head {
			return fmt.Errorf("a term is related to itself")
		}
		l.add(head, term, rel, w)
		if rel != Hyponym {
			l.add(term, head, rel, w)
		}
		n++
	}
	l.pairs += n
	return nil
}

// add records head → term, keeping the higher relatedness of a repeated pair.
func (l *Lexicon) add(head, term string, rel Relation, w float64) {
	for i, e := range l.edges[head] {
		if e.to == term && e.rel == rel {
			if w > e.w {
				l.edges[head][i].w = w
			}
			return
		}
	}
	l.edges[head] = append(l.edges[head], edge{to: term, rel: rel, w: w})
}

// Len is the number of term pairs the lexicon's lines declare.
func (l *Lexicon) Len() int { return l.pairs }

// Expand returns the expansion set of seed 001 for term: the term itself
// (1.0), its synonyms and near-synonyms (one step, with their relatedness),
// and its hyponyms down to maxDepth levels, each with the product of the
// relatedness values along the path (the best path wins). maxDepth < 1
// means no hyponyms. "related" terms are not part of an expansion: they are
// associations, not the same concept; Relatedness uses them.
//
// The returned map must not be modified.
func (l *Lexicon) Expand(term string, maxDepth int) map[string]float64 {
	term = Normalize(term)
	if l == nil {
		return map[string]float64{term: 1}
	}
	key := expandKey{term, maxDepth}
	if v, ok := l.memo.Load(key); ok {
		return v.(map[string]float64)
	}
	out := map[string]float64{term: 1}
	put := func(t string, w float64) bool {
		if w > out[t] {
			out[t] = w
			return true
		}
		return false
	}
	for _, e := range l.edges[term] {
		if e.rel == Synonym || e.rel == NearSynonym {
			put(e.to, e.w)
		}
	}
	// Breadth-first down the hyponym tree; a term is re-expanded only when
	// reached with a better relatedness, so cycles terminate.
	frontier := map[string]float64{term: 1}
	for d := 1; d <= maxDepth && len(frontier) > 0; d++ {
		next := map[string]float64{}
		for t, w := range frontier {
			for _, e := range l.edges[t] {
				if e.rel != Hyponym {
					continue
				}
				if put(e.to, w*e.w) {
					next[e.to] = w * e.w
				}
			}
		}
		frontier = next
	}
	l.memo.Store(key, out)
	return out
}

// Relatedness is seed 000's R(k): the highest relatedness of word to any of
// the topic terms — 1 when word is a topic term, the lexicon's value when
// the two are linked directly by any relation (in either direction for
// hyponyms, so a broader word also counts) or through hyponyms down to
// DefaultDepth, and 0 otherwise.
func (l *Lexicon) Relatedness(word string, topicTerms []string) float64 {
	word = Normalize(word)
	best := 0.0
	for _, t := range topicTerms {
		t = Normalize(t)
		if t == word {
			return 1
		}
		if l == nil {
			continue
		}
		if w := l.Expand(t, DefaultDepth)[word]; w > best {
			best = w
		}
		for _, e := range l.edges[t] {
			if e.to == word && e.w > best {
				best = e.w
			}
		}
		for _, e := range l.edges[word] { // word's hyponym is a topic term: word is broader
			if e.to == t && e.w > best {
				best = e.w
			}
		}
	}
	return best
}

// Encode writes the lexicon back in its file format, one pair per line in a
// stable order, so a stored lexicon parses back to the same relations.
func (l *Lexicon) Encode() []byte {
	var b bytes.Buffer
	if l.Name != "" {
		fmt.Fprintf(&b, "name: %s\n", l.Name)
	}
	heads := make([]string, 0, len(l.edges))
	for h := range l.edges {
		heads = append(heads, h)
	}
	sort.Strings(heads)
	for _, h := range heads {
		for _, e := range l.edges[h] {
			if e.rel != Hyponym && e.to < h {
				continue // symmetric pair: written once, from its smaller end
			}
			fmt.Fprintf(&b, "%s | %s | %s | %s\n", h, e.rel, e.to, strconv.FormatFloat(e.w, 'g', -1, 64))
		}
	}
	return b.Bytes()
}

// Decode parses a lexicon written by Encode (or any lexicon file's bytes).
func Decode(data []byte) (*Lexicon, error) { return Parse(bytes.NewReader(data)) }
