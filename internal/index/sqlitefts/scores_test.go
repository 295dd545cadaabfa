package sqlitefts

import (
	"context"
	"math"
	"testing"

	"focuscrawl/internal/index"
)

func TestUpdateScoresChangesRankingInputsOnly(t *testing.T) {
	x := openTemp(t)
	mustUpsert(t, x, doc("t", "a", "h", "alpha", "rose garden"), doc("t", "b", "h", "beta", "rose garden"))
	ctx := context.Background()
	if err := x.UpdateScores(ctx, "t", map[string]index.Scores{"a": {Hub: 0.1, Authority: 0.9, IPageRank: 0.2}, "zz": {Authority: 1}}); err != nil {
		t.Fatal(err)
	}
	var hub, auth, ipr float64
	if err := x.db.QueryRow(`SELECT hub, authority, ipagerank FROM docs WHERE topic='t' AND id='a'`).Scan(&hub, &auth, &ipr); err != nil {
		t.Fatal(err)
	}
	if hub != 0.1 || auth != 0.9 || ipr != 0.2 {
		t.Fatalf("scores = %v %v %v", hub, auth, ipr)
	}
	if n := mustCount(t, x, "t"); n != 2 {
		t.Fatalf("unknown id created a document: count %d", n)
	}
	if res := mustSearch(t, x, index.Query{Text: "rose", Topic: "t"}); len(res.Hits) != 2 {
		t.Fatalf("text no longer searchable: %+v", res)
	}
	if err := x.UpdateScores(ctx, "t", map[string]index.Scores{"a": {Authority: math.NaN()}}); err == nil {
		t.Fatal("NaN accepted")
	}
}
