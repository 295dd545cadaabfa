package activities

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// blobStore serves parse blobs from a map; other Store methods are unused.
type blobStore struct {
	store.Store
	blobs map[string][]byte
	err   error
}

func (b blobStore) Blob(_ context.Context, _, urlHash, kind string) ([]byte, error) {
	if b.err != nil {
		return nil, b.err
	}
	if d, ok := b.blobs[urlHash+"/"+kind]; ok {
		return d, nil
	}
	return nil, store.ErrNotFound
}

func TestDOMContextsLookup(t *testing.T) {
	newRec, err := json.Marshal(parseRecord{Doc: &parse.Document{Links: []parse.Link{
		{URL: "http://h/a", Context: "near a", DOMContext: "list of partner sites"},
		{URL: "http://h/b", Context: "near b"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	// A record stored before Link.DOMContext existed.
	oldRec := []byte(`{"doc":{"URL":"http://h/old","Links":[{"URL":"http://h/a","Anchor":"a","Context":"near a","Tag":"a"}]},"tf":{"a":1}}`)
	st := blobStore{blobs: map[string][]byte{"new/" + store.BlobParse: newRec, "old/" + store.BlobParse: oldRec}}
	a := &Activities{Store: st}
	dc := a.domContexts(context.Background(), "t")
	ha, hb := urlnorm.Hash("http://h/a"), urlnorm.Hash("http://h/b")
	for _, tt := range []struct{ src, dst, want string }{
		{"new", ha, "list of partner sites"},
		{"new", hb, ""},  // no DOM context recorded
		{"old", ha, ""},  // old record: learning falls back to Context
		{"gone", ha, ""}, // no parse record
		{"new", "x", ""}, // not a link of the page
	} {
		if got := dc.lookup(tt.src, tt.dst); got != tt.want {
			t.Errorf("lookup(%s, %s) = %q, want %q", tt.src, tt.dst, got, tt.want)
		}
	}
	if dc.err != nil {
		t.Fatalf("err = %v", dc.err)
	}
	if len(dc.bySrc) != 3 {
		t.Errorf("%d source pages loaded, want each of 3 once", len(dc.bySrc))
	}

	// The old record still loads for prediction, and its links score with
	// an empty DOMContext (JLSE then uses Context).
	var rec parseRecord
	if err := json.Unmarshal(oldRec, &rec); err != nil || rec.Doc.Links[0].DOMContext != "" {
		t.Fatalf("old record: %v %+v", err, rec.Doc)
	}

	failing := &Activities{Store: blobStore{err: errors.New("disk gone")}}
	dc = failing.domContexts(context.Background(), "t")
	if got := dc.lookup("new", ha); got != "" || dc.err == nil {
		t.Errorf("store error: lookup = %q, err = %v; want \"\" and an error", got, dc.err)
	}
}

// recordingPredictor remembers the links it scored.
type recordingPredictor struct{ got []linkpred.Link }

func (r *recordingPredictor) Name() string { return "rec" }
func (r *recordingPredictor) Score(_ linkpred.Parent, l linkpred.Link) float64 {
	r.got = append(r.got, l)
	return 0
}

func TestScoreLinksPassesDOMContext(t *testing.T) {
	r := &recordingPredictor{}
	scoreLinks(r, linkpred.Parent{}, []parse.Link{{URL: "http://h/a", Context: "c", DOMContext: "d"}})
	if len(r.got) != 1 || r.got[0].Context != "c" || r.got[0].DOMContext != "d" {
		t.Fatalf("scored %+v", r.got)
	}
}
