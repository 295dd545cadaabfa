package synth

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// word draws one word of theme th.
func (g *generator) word(lang, th int) string {
	ws := themes[th].words[lang]
	return ws[g.rng.IntN(len(ws))]
}

// otherTheme draws a theme other than th.
func (g *generator) otherTheme(th int) int {
	o := g.rng.IntN(len(themes) - 1)
	if o >= th {
		o++
	}
	return o
}

// title makes a headline from two distinct words of theme th.
func (g *generator) title(lang, th int) string {
	a := g.word(lang, th)
	b := g.word(lang, th)
	for b == a {
		b = g.word(lang, th)
	}
	pats := titlePatterns[lang]
	return capitalize(fmt.Sprintf(pats[g.rng.IntN(len(pats))], a, b))
}

// sentence draws words: a share purity from theme th, a share mix from
// theme second, the rest from the background vocabulary.
func (g *generator) sentence(lang, th, second int, purity, mix float64) string {
	var n int
	if lang == langZH {
		n = 6 + g.rng.IntN(7)
	} else {
		n = 8 + g.rng.IntN(9)
	}
	words := make([]string, n)
	for i := range words {
		r := g.rng.Float64()
		switch {
		case r < purity:
			words[i] = g.word(lang, th)
		case r < purity+mix:
			words[i] = g.word(lang, second)
		default:
			words[i] = background[lang][g.rng.IntN(len(background[lang]))]
		}
	}
	if lang == langZH {
		// A comma somewhere in the middle, as Chinese prose has.
		c := 2 + g.rng.IntN(n-3)
		return strings.Join(words[:c], "") + "，" + strings.Join(words[c:], "") + "。"
	}
	if n > 10 && g.rng.IntN(2) == 0 {
		words[4] += ","
	}
	return capitalize(strings.Join(words, " ")) + "."
}

// paragraph joins k sentences of page p's text mix.
func (g *generator) paragraph(p *page, k int) string {
	lang := p.site.lang
	parts := make([]string, k)
	for i := range parts {
		parts[i] = g.sentence(lang, p.theme, p.second, p.purity, p.mix)
	}
	if lang == langZH {
		return strings.Join(parts, "")
	}
	return strings.Join(parts, " ")
}

// capitalize upper-cases the first letter of an English string.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
