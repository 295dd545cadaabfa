// Package hant folds Traditional Chinese to Simplified Chinese, so that a
// page written in either script gives the same terms: 網頁爬蟲 and 网页爬虫
// are one word to the crawler, its page filter and the search index.
//
// gojieba's dictionary is Simplified: a Traditional run was cut into pieces
// (管理系統 → 管理系 / 統), its stop words (與, 這) were terms, and a topic
// written in one script scored the other's pages near zero. A Han run is
// converted only when it holds a traditional-only character (a bitmap
// lookup per rune; Simplified text passes unchanged and pays nothing else);
// then the whole run goes through OpenCC's tw2sp conversion (Taiwan
// phrases, variants, then characters), so that 軟體 becomes 软件 and 網路
// 网络, the words a Simplified page uses, not only their characters.
package hant

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/longbridgeapp/opencc"
)

//go:generate env HANT_UPDATE=1 go test -run TestTables .

// The bitmap covers CJK Extension A and the Unified Ideographs block, where
// all but a few hundred of the traditional-only characters are.
const (
	bmpLo    = 0x3400
	bmpHi    = 0x9fff
	bmpWords = (bmpHi - bmpLo + 64) / 64
)

// IsTraditional reports whether r is a traditional-only character: one
// OpenCC's TSCharacters dictionary converts, not to itself among its
// alternatives (乾 → 干 or 乾 is not: 乾隆 is written so in Simplified text),
// and that its STCharacters dictionary does not list as Simplified (苧).
func IsTraditional(r rune) bool {
	if r >= bmpLo && r <= bmpHi {
		k := r - bmpLo
		return tradBMP[k/64]&(1<<(k%64)) != 0
	}
	if r < 0x2e80 {
		return false
	}
	i := sort.Search(len(tradOther), func(i int) bool { return tradOther[i] >= r })
	return i < len(tradOther) && tradOther[i] == r
}

// HasTraditional reports whether s holds a traditional-only character.
func HasTraditional(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if IsTraditional(r) {
			return true
		}
		i += size
	}
	return false
}

var (
	convOnce sync.Once
	conv     *converter
	convErr  error

	tradOnce sync.Once
	trad     *converter
	tradErr  error
)

func load() (*converter, error) {
	convOnce.Do(func() { conv, convErr = newConverter("tw2sp") })
	return conv, convErr
}

// Traditional returns s in Traditional Chinese, Taiwan standard characters
// (OpenCC's s2tw: phrases and characters, no Taiwan vocabulary), or s when
// the dictionaries cannot be loaded. It is for showing a term to a reader
// of Traditional text (a topic drafted from Taiwan pages), not for
// matching, which is done in Simplified; callers that need the shown form
// to match as the term did check it through the tokenizer.
func Traditional(s string) string {
	tradOnce.Do(func() { trad, tradErr = newConverter("s2tw") })
	if tradErr != nil {
		return s
	}
	return trad.convert(s)
}

// MostlyTraditional reports whether s reads as Traditional Chinese: at
// least one of its Han characters in twenty is traditional-only. Running
// Traditional text has several in ten (們, 個, 這, 說, 為 ...); Simplified
// text has none but the odd name, and text with no Han character is not
// Traditional.
func MostlyTraditional(s string) bool {
	han, tr := 0, 0
	for _, r := range s {
		if r < 0x2e80 || !unicode.Is(unicode.Han, r) {
			continue
		}
		han++
		if IsTraditional(r) {
			tr++
		}
	}
	return han > 0 && tr*20 >= han
}

// Simplified returns s in Simplified Chinese when it holds a
// traditional-only character, and s itself otherwise. A phrase can change
// length (記憶體 → 内存), so offsets into s do not carry over. If OpenCC's
// embedded dictionaries cannot be loaded (a broken build), s is returned
// unchanged: terms then stay as written, as they were before this package.
func Simplified(s string) string {
	if !HasTraditional(s) {
		return s
	}
	c, err := load()
	if err != nil {
		return s
	}
	return c.convert(s)
}

// Err reports whether the conversion dictionaries load.
func Err() error {
	_, err := load()
	return err
}

// converter is OpenCC's conversion (its dictionaries and chain, as
// github.com/longbridgeapp/opencc loads them) with its matching done on Go
// maps: the library's own Convert builds a map and several strings at
// every character (1.6 µs per character here, 12× the cost of cutting the
// text), where a lookup of the longest dictionary key at each position
// needs no allocation. It converts exactly as the library does
// (TestConvertAsOpenCC).
type converter struct {
	chain [][]*dict // groups applied in turn; in a group the first dict with a match wins
}

// dict is one conversion dictionary: key → its first (preferred) value,
// and for each first rune the longest key starting with it, in runes.
type dict struct {
	to      map[string]string
	longest map[rune]int
}

func newConverter(conversion string) (*converter, error) {
	cc, err := opencc.New(conversion)
	if err != nil {
		return nil, err
	}
	c := &converter{}
	for _, g := range cc.DictChains {
		if len(g.Files) != len(g.Dicts) {
			return nil, fmt.Errorf("hant: %s: %d dictionary files for %d dictionaries", conversion, len(g.Files), len(g.Dicts))
		}
		var group []*dict
		for i, d := range g.Dicts {
			x := &dict{to: map[string]string{}, longest: map[rune]int{}}
			taiwan := taiwanDict(g.Files[i])
			for _, id := range d.Trie.PrefixPredict(nil, 0) {
				key, err := d.Trie.Key(id)
				if err != nil {
					return nil, fmt.Errorf("hant: %s: key %d: %w", conversion, id, err)
				}
				if taiwan && conversion == "tw2sp" && !HasTraditional(string(key)) {
					continue
				}
				v, err := d.Trie.Value(id)
				if err != nil || v < 0 || v >= len(d.Values) || len(d.Values[v]) == 0 {
					return nil, fmt.Errorf("hant: %s: value of %q: %v", conversion, key, err)
				}
				k := string(key)
				x.to[k] = d.Values[v][0]
				first, _ := utf8.DecodeRuneInString(k)
				if n := utf8.RuneCountInString(k); n > x.longest[first] {
					x.longest[first] = n
				}
			}
			group = append(group, x)
		}
		c.chain = append(c.chain, group)
	}
	return c, nil
}

// taiwanDict reports whether file is one of OpenCC's Taiwan dictionaries
// (TWPhrasesRev, TWVariantsRevPhrases, TWVariantsRev), whose keys
// without a traditional-only character the converter leaves out: such a
// key is a word written alike in both scripts (使用者, 建立, 向量, 伺服器,
// 程式), often a mainland word too, which a run is converted around only
// when a traditional-only character stands next to it, while the same word
// typed alone — a query — is not. Rewritten in one place and not the
// other, the Taiwan page's 使用者設定 (用户 设置) was not found by the
// query 使用者, nor its 向量空間 (矢量 空间) by 向量 in either script.
// With every Taiwan key holding a traditional-only character, a word is
// converted wherever it stands or nowhere. The character dictionaries'
// few such keys (乾 → 干, 於 → 于) stay: single characters of words
// whose mainland forms the conversion is for.
func taiwanDict(file string) bool {
	return strings.HasPrefix(path.Base(file), "TW")
}

// convert applies each group in turn: at each position, the first
// dictionary of the group holding a key that starts there gives its
// longest such key's value; a position no dictionary matches keeps its
// character. The library looks at most 10 runes ahead; so does this.
func (c *converter) convert(s string) string {
	var b strings.Builder
	for _, group := range c.chain {
		b.Reset()
		b.Grow(len(s))
		for i := 0; i < len(s); {
			first, size := utf8.DecodeRuneInString(s[i:])
			matched := false
			for _, d := range group {
				n := d.longest[first]
				if n == 0 {
					continue
				}
				// Offsets of the ends of the next n (at most 10) runes.
				var ends [10]int
				m, j := 0, i
				for m < n && m < len(ends) && j < len(s) {
					_, w := utf8.DecodeRuneInString(s[j:])
					j += w
					ends[m] = j
					m++
				}
				for k := m - 1; k >= 0; k-- {
					if v, ok := d.to[s[i:ends[k]]]; ok {
						b.WriteString(v)
						i = ends[k]
						matched = true
						break
					}
				}
				if matched {
					break
				}
			}
			if !matched {
				b.WriteString(s[i : i+size])
				i += size
			}
		}
		s = b.String()
	}
	return s
}
