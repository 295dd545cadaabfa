// Package textproc is focuscrawl's one tokenizer. Every piece of text that is
// scored (relevance, link prediction) goes through Tokenizer.Tokens or
// Tokenizer.TermFreq, and every piece of text that enters the full-text index,
// and every search query, goes through Tokenizer.Segment, so that terms mean the
// same thing everywhere.
//
// The model: text is scanned once, rune by rune. Runs of Han characters are
// handed to gojieba (a cgo binding of cppjieba), which needs dictionaries and
// ~0.7 s to load them, so there is exactly one gojieba instance per process,
// loaded on first use and shared (see Shared). Everything else is split into
// words on Unicode letters and digits. All terms are width-folded (full-width
// ASCII becomes ordinary ASCII), lower-cased and in Unicode NFC: "café"
// typed as e + U+0301 (decomposed, as macOS file names and some editors
// write it) is the same term as the precomposed é.
//
// Word rules for non-Han text (chosen to keep terms stable between pages and
// queries):
//   - A word is a run of letters, digits and combining marks.
//   - An apostrophe (' or ’) between two letters stays inside the word
//     ("don't", "o'reilly"); a trailing possessive "'s" is removed
//     ("google's" -> "google").
//   - A hyphen or underscore between two letters or digits stays inside the
//     word ("e-mail", "covid-19", "utf-8", "snake_case"): splitting would
//     leave meaningless halves such as "e" and "mail".
//   - A dot between two digits stays inside the word ("3.14", "1.2.3");
//     between letters it separates ("node.js" -> "node", "js").
//   - Invisible format characters (Unicode category Cf: zero-width space,
//     joiners, soft hyphen, BOM, direction marks) are dropped, inside a word
//     and inside a Han run alike: "pa\u200bth" is "path", in pages and in
//     queries (see isFormat).
//   - The programming-language names C++, C# and F# are terms ("c++", "c#",
//     "f#"), where they stand as words of their own: a short explicit list
//     of protected tokens (see protectedTokens), the only terms with a
//     character that is no letter, digit or connector (ProtectedSymbols).
//
// Dropped terms: punctuation and whitespace, terms of a single non-Han
// character (single letters and digits are noise: list markers, initials),
// pure numbers with more than four digits (phone numbers, IDs and timestamps,
// which only bloat the vocabulary; years, small counts and version numbers
// such as "2024" or "3.14" are kept), runs longer than MaxWordBytes (hex
// dumps, base64), and stop words (see IsStopWord). Single
// Han characters are kept unless they are stop words: many are words in their
// own right.
package textproc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/yanyiwu/gojieba"
)

// DictDirEnv names the environment variable that overrides the directory
// holding gojieba's dictionaries. Unset, gojieba's own module directory is
// used, which exists only where the Go module cache does; container images
// copy the dictionaries somewhere and point this variable at them.
const DictDirEnv = "FOCUSCRAWL_JIEBA_DICT_DIR"

// dictFiles are the files gojieba.NewJieba expects, in its argument order.
var dictFiles = [...]string{"jieba.dict.utf8", "hmm_model.utf8", "user.dict.utf8", "idf.utf8", "stop_words.utf8"}

// Tokenizer turns text into terms. The only instance is the one Shared
// returns; it is safe for concurrent use.
type Tokenizer struct {
	// mu guards jb. Tokenizing holds the read lock for the whole call so that
	// Close (write lock) can never free the dictionaries under a running cut.
	mu sync.RWMutex
	jb *gojieba.Jieba
}

// shared is the process-wide tokenizer. It is a plain value rather than a
// sync.Once-guarded pointer so that handles obtained before Close stay valid:
// the next use after Close simply loads the dictionaries again.
var shared Tokenizer

// Shared returns the process-wide Tokenizer, loading gojieba's dictionaries on
// first use. It panics if the dictionaries cannot be found; call Preload at
// start-up to get that failure as an error instead.
func Shared() *Tokenizer {
	if err := shared.load(); err != nil {
		panic(err)
	}
	return &shared
}

// Lazy returns the process-wide Tokenizer without loading gojieba's
// dictionaries: they load at the first Han text it cuts (about a second and
// 100 MB), which a command that may cut none — `search topics`, a search
// in Latin script — does not pay. A missing dictionary panics there, as in
// Shared.
func Lazy() *Tokenizer { return &shared }

// Preload loads the shared tokenizer's dictionaries now and reports a missing
// dictionary as an error. Workers call it at start-up so that a bad
// FOCUSCRAWL_JIEBA_DICT_DIR fails fast and readably rather than as a panic in
// the middle of a crawl.
func Preload() error {
	return shared.load()
}

// Close frees the shared tokenizer's dictionaries (about 100 MB of C++ heap).
// Call it at process exit. It waits for running calls to finish; a later
// Shared, or any use of a Tokenizer obtained earlier, loads them again.
func Close() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.jb != nil {
		shared.jb.Free()
		shared.jb = nil
	}
}

// load creates the gojieba instance unless it exists.
func (t *Tokenizer) load() error {
	t.mu.RLock()
	loaded := t.jb != nil
	t.mu.RUnlock()
	if loaded {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.jb != nil {
		return nil
	}
	paths, err := dictPaths()
	if err != nil {
		return err
	}
	t.jb = gojieba.NewJieba(paths...)
	return nil
}

// dictPaths returns the dictionary files to load, after checking they exist:
// gojieba panics with a bare path otherwise.
func dictPaths() ([]string, error) {
	dir := os.Getenv(DictDirEnv)
	from := DictDirEnv + "=" + dir
	if dir == "" {
		dir = gojieba.DICT_DIR
		from = "gojieba's module directory (set " + DictDirEnv + " to override)"
	}
	paths := make([]string, len(dictFiles))
	for i, name := range dictFiles {
		paths[i] = filepath.Join(dir, name)
		if _, err := os.Stat(paths[i]); err != nil {
			return nil, fmt.Errorf("textproc: jieba dictionary from %s: %w", from, err)
		}
	}
	return paths, nil
}

// Tokens returns the terms of text used for scoring, in text order with
// repetitions. Han runs are cut with gojieba's Cut (HMM on, so unknown words
// such as names are found); see the package comment for the other rules.
// The returned strings may share memory with text.
func (t *Tokenizer) Tokens(text string) []string {
	var out []string
	t.scan(text, false, func(term string, owned bool) {
		if !owned {
			term = strings.Clone(term)
		}
		out = append(out, term)
	}, nil)
	return out
}

// Segment returns text prepared for the full-text index and for search
// queries: terms joined by single spaces. Han runs are cut with gojieba's
// CutForSearch, which adds the sub-words of long words ("中华人民共和国" also
// yields "中华", "人民", "共和国"...), so a query for a part finds the whole.
// Non-Han words and the dropping rules are exactly those of Tokens.
func (t *Tokenizer) Segment(text string) string {
	var b strings.Builder
	// Segmented text is rarely longer than its source: terms drop punctuation
	// and stop words, and the spaces added between Han words replace them.
	b.Grow(len(text))
	t.scan(text, true, segmentInto(&b), nil)
	return b.String()
}

// segmentInto is Segment's emit: terms joined by single spaces into b.
func segmentInto(b *strings.Builder) emitFunc {
	return func(term string, _ bool) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(term)
	}
}

// TermFreq returns how often each term of Tokens(text) occurs. Keys are
// copied, so the map does not keep text alive.
func (t *Tokenizer) TermFreq(text string) map[string]int {
	c := counterPool.Get().(*counter)
	defer c.release()
	t.scan(text, false, c.add, nil)
	return c.freq()
}

// TermFreqSegment returns TermFreq(text) and Segment(text) from one pass
// over text: each Han run is cut once by gojieba (in search mode, whose
// words include Cut's; see cutRun), where calling both cuts every run twice.
// A page's terms and its index text come from one call.
func (t *Tokenizer) TermFreqSegment(text string) (map[string]int, string) {
	c := counterPool.Get().(*counter)
	defer c.release()
	var b strings.Builder
	b.Grow(len(text))
	t.scan(text, false, c.add, segmentInto(&b))
	return c.freq(), b.String()
}

// counter is TermFreq's reusable working state.
type counter struct {
	index  map[string]int
	keys   []string
	counts []int
}

var counterPool = sync.Pool{New: func() any { return &counter{index: make(map[string]int)} }}

// add counts one term. Counting goes through an index rather than
// tf[term]++ because a Go map assignment also overwrites the stored key with
// the one given, which here may be a scratch buffer or a slice of the page
// text.
func (c *counter) add(term string, _ bool) {
	if i, ok := c.index[term]; ok {
		c.counts[i]++
		return
	}
	k := strings.Clone(term)
	c.index[k] = len(c.keys)
	c.keys = append(c.keys, k)
	c.counts = append(c.counts, 1)
}

// freq is the counted terms as a new map.
func (c *counter) freq() map[string]int {
	tf := make(map[string]int, len(c.keys))
	for i, k := range c.keys {
		tf[k] = c.counts[i]
	}
	return tf
}

func (c *counter) release() {
	if len(c.keys) > 1<<16 { // a giant page: let the GC have the big map
		return
	}
	clear(c.index)
	clear(c.keys) // drop references to the copied keys
	c.keys, c.counts = c.keys[:0], c.counts[:0]
	counterPool.Put(c)
}
