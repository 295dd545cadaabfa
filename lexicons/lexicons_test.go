package lexicons

import (
	"bytes"
	"testing"

	"focuscrawl/internal/lexicon"
)

func TestBundledLexiconsParse(t *testing.T) {
	names := Names()
	if len(names) < 2 {
		t.Fatalf("bundled lexicons %v: want one per language", names)
	}
	for _, n := range names {
		data, ok := Bundled(n)
		if !ok {
			t.Fatalf("Bundled(%q) missing", n)
		}
		l, err := lexicon.Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if l.Name != n || l.Len() < 20 {
			t.Errorf("%s: name %q, %d pairs", n, l.Name, l.Len())
		}
	}
	zh, _ := Bundled("ml-zh")
	l, _ := lexicon.Parse(bytes.NewReader(zh))
	if l.Relatedness("卷积神经网络", []string{"深度学习"}) <= 0 {
		t.Error("ml-zh: 卷积神经网络 should relate to 深度学习")
	}
	if _, ok := Bundled("../go.mod"); ok {
		t.Error("path traversal accepted")
	}
}
