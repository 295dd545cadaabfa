package activities

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"focuscrawl/internal/store"
)

// TestPagePanicIsThePagesError: a panic in one page's step becomes that
// page's error, logged with its stack, instead of failing its group (or,
// in the streaming loop's goroutine, the worker); a page that parses is
// unaffected.
func TestPagePanicIsThePagesError(t *testing.T) {
	var log bytes.Buffer
	a := &Activities{Log: slog.New(slog.NewTextHandler(&log, nil))}
	err := a.guardPage("http://a.test/x.html", "parsing", func() error {
		var links []string
		_ = links[3] // a parser bug on hostile input
		return nil
	})
	var pp *pagePanic
	if !errors.As(err, &pp) || !strings.Contains(err.Error(), "internal error (panic: runtime error: index out of range") {
		t.Fatalf("guardPage = %v; want the panic as the page's error", err)
	}
	if !strings.Contains(log.String(), "http://a.test/x.html") || !strings.Contains(log.String(), "parseguard_test.go") {
		t.Errorf("the log does not name the page and the panic's stack:\n%s", log.String())
	}
	storeDown := errors.New("store down")
	if err := a.guardPage("http://a.test/z.html", "judging", func() error { return storeDown }); err != storeDown {
		t.Errorf("guardPage passed on %v; want the step's own error as it is", err)
	}
	p := store.Page{URL: "http://a.test/y.html", FinalURL: "http://a.test/y.html"}
	if rec, terms, err := a.parsePageGuarded(p, []byte("<html><title>Roses</title><body>pruning roses</body></html>"), false); err != nil || rec == nil || len(terms) == 0 {
		t.Errorf("parsePageGuarded on a good page = %v, %v, %v", rec, terms, err)
	}
}
