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
		{"http://h/style.css?v=3", false, false}, // normalize.css is a library's page too
		{"http://h/learning/songs.zh.html", false, false},
		{"http://h/index.php?file=x.png", false, false}, // the server names its type
		{"http://h/image.png/view", false, false},
		{"http://h/docs/", false, false},
		{"http://h/notes.txt", false, false},
		{"http://h/feed.xml", false, false},
		{"http://h/%zz.png", false, false}, // does not parse: the fetch reports it
		// Pages whose paths end in a file's extension (a code review).
		{"https://en.wikipedia.org/wiki/Node.js", false, false},
		{"https://github.com/mrdoob/three.js", false, false},
		{"https://commons.wikimedia.org/wiki/File:Rosa_gallica.jpg", false, false},
		{"https://de.wikipedia.org/wiki/Datei%3ARose.png", false, false},
		{"https://github.com/o/r/blob/main/docs/x.png", false, false},
		{"http://h/manual/index.html.gz", false, false},
		{"http://h/dist/roses.tar.gz", true, true},
		{"https://github.com/necolas/normalize.css", false, false},
		{"https://codeberg.org/o/r/src/branch/main/logo.png", false, false},
		{"http://h/man/ls.1.gz", false, false},
		{"http://h/notes.txt.gz", false, false},
		{"http://h/dist/roses.x1.gz", true, true},
	} {
		if got := def.RefusesExtension(c.url); got != c.def {
			t.Errorf("default allowlist, %s: %v, want %v", c.url, got, c.def)
		}
		if got := pdfs.RefusesExtension(c.url); got != c.pdfs {
			t.Errorf("PDF allowed, %s: %v, want %v", c.url, got, c.pdfs)
		}
	}
	// An alias of the type a server sends counts as allowing it.
	cfg = DefaultConfig()
	cfg.ContentTypes = append(cfg.ContentTypes, "application/x-gzip", "image/x-icon")
	aliases, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://h/a.tar.gz", "http://h/favicon.ico"} {
		if aliases.RefusesExtension(u) {
			t.Errorf("%s refused although its type's alias is allowed", u)
		}
	}
	var none *Fetcher
	if none.RefusesExtension("http://h/a.png") {
		t.Error("a nil fetcher refuses nothing")
	}
}

// BenchmarkRefusesExtension: once per link in link prediction.
func BenchmarkRefusesExtension(b *testing.B) {
	f, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	urls := []string{"http://h/learning/songs.zh.html", "http://h/ly-examples/tab-example.png", "http://h/index.php?title=Rose",
		"https://github.com/o/r/blob/main/x.png", "http://h/docs/"}
	b.ReportAllocs()
	for b.Loop() {
		for _, u := range urls {
			f.RefusesExtension(u)
		}
	}
}
