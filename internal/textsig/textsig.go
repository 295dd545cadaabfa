// Package textsig finds near-duplicate pages: the same text served with a
// different breadcrumb, path, template or footer (a manual's std:: and
// core:: copies of one item, mirrors, print versions), which the exact
// final-URL and content hashes miss.
//
// It works on a page's plain text — its visible text less its links' text
// (the measure relevance.ShapeOf calls plain words): breadcrumbs,
// navigation, sidebars and "see also" lists are links, and a site's
// pages share them, so they must neither make two copies differ nor two
// different pages of one template alike.
//
// A page's Signature is the lookup key: in the style of Nutch's
// TextProfileSignature, the terms whose frequency reaches a quantum (1% of
// the most frequent term's, at least 2), with their frequencies rounded
// down to it, sorted and hashed. A one-off word (a footer's date, a
// session note) is below the quantum and does not change it. Two pages
// with one signature are candidates only: Near then compares their whole
// plain texts, once-only words included, because pages of one template
// with little text of their own (two reference pages whose prose is one
// sentence each under identical boilerplate) have the same frequent terms.
// docs/algorithms.md ("Near-duplicate pages") says why it is built so.
package textsig

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"strconv"
	"strings"
)

const (
	// MinWords is the least plain text, in tokenizer terms (stop words
	// dropped), a page needs for a signature. Short pages — navigation
	// only, an index of links, a stub — have too little text of their own
	// to tell them apart: their signature would collapse pages that are
	// not copies. Such pages are found as duplicates only exactly.
	MinWords = 100
	// MinProfileTerms is the least number of distinct terms the profile
	// (those reaching the quantum) must have: a signature over a handful
	// of terms says too little about a page.
	MinProfileTerms = 10
	// QuantRate is the quantum as a share of the most frequent term's
	// frequency (Nutch's default).
	QuantRate = 0.01
	// NearRate is how much two pages' plain texts may differ and still be
	// one text: the summed differences of their term frequencies at most
	// this share of the longer text's words. A changed footer or a
	// breadcrumb in plain text differs by a few words; two pages of one
	// template whose own sentences differ, by more.
	NearRate = 0.05
)

// version starts every signature: a change of the algorithm makes new
// signatures that never equal old ones (a missed duplicate, never a wrong
// one) instead of equal ones that mean something else.
const version = "tp1"

// Plain returns the term frequencies of a page's plain text from those of
// its visible text and of its links' text (the same tokenizer's):
// text's counts less anchor's, terms left with none dropped.
func Plain(text, anchor map[string]int) map[string]int {
	out := make(map[string]int, len(text))
	for t, n := range text {
		if n -= anchor[t]; n > 0 {
			out[t] = n
		}
	}
	return out
}

// Signature returns the near-duplicate signature of a page whose plain
// text has the term frequencies plain (Plain), hex like the content hash,
// or "" when the page has too little text for one (MinWords,
// MinProfileTerms).
func Signature(plain map[string]int) string {
	words, maxFreq := 0, 0
	for _, n := range plain {
		words += n
		maxFreq = max(maxFreq, n)
	}
	if words < MinWords {
		return ""
	}
	quant := max(int(math.Round(float64(maxFreq)*QuantRate)), 2)
	profile := make([]string, 0, len(plain))
	for t, n := range plain {
		if n >= quant {
			profile = append(profile, t)
		}
	}
	if len(profile) < MinProfileTerms {
		return ""
	}
	slices.Sort(profile)
	var b strings.Builder
	b.WriteString(version)
	for _, t := range profile {
		// Terms have no spaces or newlines (the tokenizer splits on them).
		b.WriteByte('\n')
		b.WriteString(t)
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(plain[t] / quant * quant))
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:16])
}

// Near reports whether two pages' plain texts (Plain) are one text: both
// long enough for a signature, and their term frequencies differing by at
// most NearRate of the longer one's words.
func Near(a, b map[string]int) bool {
	wa, wb := total(a), total(b)
	if wa < MinWords || wb < MinWords {
		return false
	}
	diff := 0
	for t, n := range a {
		diff += abs(n - b[t])
	}
	for t, n := range b {
		if _, ok := a[t]; !ok {
			diff += n
		}
	}
	return float64(diff) <= NearRate*float64(max(wa, wb))
}

// total is the number of words term frequencies count.
func total(tf map[string]int) int {
	n := 0
	for _, c := range tf {
		n += c
	}
	return n
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
