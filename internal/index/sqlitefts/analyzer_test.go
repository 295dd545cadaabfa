package sqlitefts

import (
	"database/sql"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"

	estemplate "focuscrawl/deploy/elasticsearch"
)

// TestElasticAnalyzerSplitsAsFTS5: the Elasticsearch template's
// focuscrawl_terms analyzer — its pattern tokenizer (the pattern read from
// the template, applied with Go's regexp, whose \p classes are Java's),
// lowercase, and asciifolding's diacritic removal (the part of it these
// words meet; it also folds ß, æ, ligatures and full-width letters, which
// unicode61 does not: a documented difference) — cuts the segmented
// text into the tokens docs_fts's unicode61 tokenizer makes, on the words
// the backends disagreed on: a whitespace analyzer kept "e-mail",
// "snake_case", "3.14" whole and "café" apart from "cafe", so a query
// found them on SQLite and not on Elasticsearch.
func TestElasticAnalyzerSplitsAsFTS5(t *testing.T) {
	var tmpl struct {
		Template struct {
			Settings struct {
				Analysis struct {
					Tokenizer map[string]struct{ Type, Pattern string }
					Analyzer  map[string]struct {
						Tokenizer string
						Filter    []string
					}
				}
			}
		}
	}
	if err := json.Unmarshal(estemplate.IndexTemplate, &tmpl); err != nil {
		t.Fatal(err)
	}
	an := tmpl.Template.Settings.Analysis
	terms := an.Analyzer["focuscrawl_terms"]
	tok := an.Tokenizer[terms.Tokenizer]
	if tok.Type != "pattern" || strings.Join(terms.Filter, ",") != "lowercase,asciifolding" {
		t.Fatalf("focuscrawl_terms = %+v with tokenizer %+v; want a pattern tokenizer, lowercase, asciifolding", terms, tok)
	}
	split := regexp.MustCompile(tok.Pattern)
	elastic := func(s string) []string {
		var out []string
		for _, w := range split.Split(s, -1) {
			if w == "" {
				continue
			}
			// asciifolding's effect on these words: diacritics removed.
			var b strings.Builder
			for _, r := range norm.NFD.String(strings.ToLower(w)) {
				if !unicode.Is(unicode.Mn, r) {
					b.WriteRune(r)
				}
			}
			out = append(out, b.String())
		}
		return out
	}

	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE t USING fts5(x, tokenize="` + ftsTokenizer + `")`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	fts := func(s string) []string {
		if _, err := db.Exec(`DELETE FROM t`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO t (x) VALUES (?)`, s); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(`SELECT term FROM v ORDER BY offset`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var term string
			if err := rows.Scan(&term); err != nil {
				t.Fatal(err)
			}
			out = append(out, term)
		}
		return out
	}
	for _, text := range []string{
		"use the e-mail feature",
		"snake_case covid-19 3.14 don't",
		"Café crème brûlée naïve",
		"中文 网页 搜索 引擎 gimp 教程",
		"utf-8 node js c++",
		"c++ c# f# c-section 17 编程", // the protected tokens stay whole in both
		"cafe\u0301 हिन्दी भाषा",    // marks separate in both
	} {
		if got, want := elastic(text), fts(text); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q: Elasticsearch's tokens %q; FTS5's %q", text, got, want)
		}
	}
}
