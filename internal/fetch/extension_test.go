package fetch

import "testing"

func TestRefusesExtension(t *testing.T) {
	def, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.ContentTypes = append(cfg.ContentTypes, "application/pdf")
	pdfs, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		url       string
		def, pdfs bool
	}{
		{"http://h/ly-examples/tab-example.png", true, true},
		{"http://h/IMG/Photo.JPG", true, true},
		{"http://h/manual.pdf", true, false},
		{"http://h/pool/x_1.0_all.deb", true, true},
		{"http://h/style.css?v=3", true, true},
		{"http://h/learning/songs.zh.html", false, false},
		{"http://h/index.php?file=x.png", false, false}, // the server names its type
		{"http://h/image.png/view", false, false},
		{"http://h/docs/", false, false},
		{"http://h/notes.txt", false, false},
		{"http://h/feed.xml", false, false},
		{"http://h/%zz.png", false, false}, // does not parse: the fetch reports it
	} {
		if got := def.RefusesExtension(c.url); got != c.def {
			t.Errorf("default allowlist, %s: %v, want %v", c.url, got, c.def)
		}
		if got := pdfs.RefusesExtension(c.url); got != c.pdfs {
			t.Errorf("PDF allowed, %s: %v, want %v", c.url, got, c.pdfs)
		}
	}
	var none *Fetcher
	if none.RefusesExtension("http://h/a.png") {
		t.Error("a nil fetcher refuses nothing")
	}
}
