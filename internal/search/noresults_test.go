package search

import (
	"context"
	"fmt"
	"testing"
	"time"

	"focuscrawl/internal/store"
)

// rows is a store.Queries holding recorded rows as a store lists them.
type rows []store.QueryCount

func (r rows) RecordNoResultQuery(context.Context, string, string, time.Time) error { return nil }

func (r rows) NoResultQueries(_ context.Context, _ string, limit int) ([]store.QueryCount, error) {
	if limit > 0 && len(r) > limit {
		return r[:limit], nil
	}
	return r, nil
}

// TestNoResultQueriesCountOneQueryOnce: the forms of one query the index
// cannot tell apart — the Chinese scripts, case and width, NFC and NFD —
// are one query, counted once with their counts summed, shown as its most
// frequent typed form; before, each form was a query of its own, and the
// row limit cut before they were summed.
func TestNoResultQueriesCountOneQueryOnce(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 1, 1, 0, m, 0, 0, time.UTC) }
	recorded := rows{ // in the stores' order: count, then last, then text
		{Query: "gimp filters", Count: 4, Last: at(1)},
		{Query: "網路", Count: 2, Last: at(2)},
		{Query: "rose", Count: 2, Last: at(1)},
		{Query: "cafe\u0301", Count: 1, Last: at(9)}, // decomposed
		{Query: "Rose", Count: 1, Last: at(8)},
		{Query: "ＲＯＳＥ", Count: 1, Last: at(3)}, // full width
		{Query: "网络", Count: 1, Last: at(7)},
		{Query: "café", Count: 1, Last: at(4)}, // precomposed
	}
	got, err := NoResultQueries(t.Context(), recorded, "t", 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.QueryCount{
		{Query: "rose", Count: 4, Last: at(8)},
		{Query: "gimp filters", Count: 4, Last: at(1)},
		{Query: "網路", Count: 3, Last: at(7)},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("merged:\n got %v\nwant %v", got, want)
	}
	all, _ := NoResultQueries(t.Context(), recorded, "t", 0)
	if len(all) != 4 || all[3].Count != 2 || QueryKey(all[3].Query) != QueryKey("café") || all[3].Query != "cafe\u0301" {
		t.Errorf("all merged: %+v, want café last, counted twice, shown as the latest of two equally frequent forms", all)
	}
}
