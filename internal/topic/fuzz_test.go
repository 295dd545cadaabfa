package topic

import (
	"math"
	"testing"

	"focuscrawl/internal/lexicon"
	"focuscrawl/internal/urlnorm"
)

// FuzzParse feeds arbitrary topic files to Parse: it must never panic, and
// whatever it accepts must hold the invariants the crawl relies on — seeds
// normalised, weights finite and in range, scope hosts in host-key form, a
// lexicon reference that stays inside the lexicon directory.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		full,
		"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\n",
		"name: t\nkeywords: {a: .nan}\nseeds: [http://x/]\n",
		"name: t\nkeywords: {\"!!\": 1}\nseeds: [http://x/]\nlexicon: ../../etc/passwd\n",
		"name: t\nkeywords: {a: 1}\nseeds: [\"http://ｅｘａｍｐｌｅ.com/\"]\nscope: {hosts: [\"*.ＥＸＡＭＰＬＥ.com\"]}\n",
		"name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nstrategy: {page_filter: {name: vsm, threshold: .inf}}\n",
		"name: [unclosed",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tp, err := Parse(data)
		if err != nil {
			return
		}
		for _, s := range tp.Seeds {
			if n, err := urlnorm.Normalize(s); err != nil || n != s {
				t.Fatalf("seed %q not normalised (%q, %v)", s, n, err)
			}
		}
		for k, w := range tp.Keywords {
			if math.IsNaN(w) || w <= 0 || w > 10 {
				t.Fatalf("keyword %q weight %v accepted", k, w)
			}
		}
		for _, h := range tp.Scope.Hosts {
			bare := h
			if len(h) > 2 && h[:2] == "*." {
				bare = h[2:]
			}
			if c, err := urlnorm.CanonicalHost(bare); err != nil || c != bare {
				t.Fatalf("scope host %q not canonical (%q, %v)", h, c, err)
			}
		}
		if tp.Lexicon != "" {
			if err := lexicon.CheckRef(tp.Lexicon); err != nil {
				t.Fatalf("lexicon %q accepted: %v", tp.Lexicon, err)
			}
		}
	})
}
