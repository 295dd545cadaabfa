package activities

import (
	"context"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// TestRedirectOffScopeIsNotIndexed is the regression test for an in-scope
// page that redirects to another host being parsed, judged and indexed
// under that host: Parse judges it an off_scope error, so FilterPages
// neither indexes nor PredictLinks expands it.
func TestRedirectOffScopeIsNotIndexed(t *testing.T) {
	ctx := context.Background()
	a, _, tv, mv := topicFixture(t, "name: sc\nkeywords: {rose: 1}\nseeds: [http://a.test/]\nscope: {hosts: [a.test]}\n")
	save := func(u, final string) string {
		h := urlnorm.Hash(u)
		if _, _, err := a.Store.SavePage(ctx, store.Page{Topic: "sc", URLHash: h, URL: u, FinalURL: final,
			FinalHash: urlnorm.Hash(final), CrawlID: "c1", BatchID: "b1", Status: 200, ContentType: "text/html",
			FetchedAt: time.Now()}, []byte("<html><title>rose</title><body>rose rose garden</body></html>")); err != nil {
			t.Fatal(err)
		}
		return h
	}
	off := save("http://a.test/go", "http://elsewhere.test/landing")
	in := save("http://a.test/page", "http://a.test/page")
	res, err := a.Parse(ctx, crawlapi.BatchRef{CrawlID: "c1", Topic: "sc", BatchID: "b1", TopicVersion: tv, ModelVersion: mv})
	if err != nil {
		t.Fatal(err)
	}
	if res.Parsed != 1 || res.Failed != 1 {
		t.Errorf("parsed %d failed %d, want 1 and 1", res.Parsed, res.Failed)
	}
	p, err := a.Store.Page(ctx, "sc", off)
	if err != nil {
		t.Fatal(err)
	}
	if p.Decision != store.DecisionError || !strings.HasPrefix(p.Reason, ReasonOffScope) {
		t.Errorf("off-scope page: decision %q reason %q, want error/%s", p.Decision, p.Reason, ReasonOffScope)
	}
	if q, _ := a.Store.Page(ctx, "sc", in); q.Decision != store.DecisionPending {
		t.Errorf("in-scope page decided %q before filtering", q.Decision)
	}
}
