package storetest

import (
	"testing"
	"time"

	"focuscrawl/internal/store"
)

func testNoResultQueries(t *testing.T, s store.Store) {
	ctx := t.Context()
	if qs, err := s.NoResultQueries(ctx, "go", 10); err != nil || len(qs) != 0 {
		t.Fatalf("NoResultQueries on an empty store = %v, %v", qs, err)
	}
	rec := func(topic, q string, at time.Time) {
		t.Helper()
		if err := s.RecordNoResultQuery(ctx, topic, q, at); err != nil {
			t.Fatalf("RecordNoResultQuery(%s, %q): %v", topic, q, err)
		}
	}
	rec("go", "goroutine  leak", t0)
	rec("go", "generics", t0.Add(time.Second))
	rec("go", " goroutine leak ", t0.Add(2*time.Second)) // same query once whitespace is collapsed
	rec("go", "channels", t0.Add(3*time.Second))
	rec("go", "goroutine leak", t0.Add(time.Second)) // older report: Last stays the newest
	rec("rust", "borrow checker", t0)
	qs, err := s.NoResultQueries(ctx, "go", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.QueryCount{
		{Query: "goroutine leak", Count: 3, Last: t0.Add(2 * time.Second)},
		{Query: "channels", Count: 1, Last: t0.Add(3 * time.Second)},
		{Query: "generics", Count: 1, Last: t0.Add(time.Second)},
	}
	if len(qs) != len(want) {
		t.Fatalf("NoResultQueries(go) = %+v, want %+v", qs, want)
	}
	for i := range want {
		if qs[i].Query != want[i].Query || qs[i].Count != want[i].Count || !qs[i].Last.Equal(want[i].Last) {
			t.Errorf("NoResultQueries(go)[%d] = %+v, want %+v", i, qs[i], want[i])
		}
	}
	if qs, _ := s.NoResultQueries(ctx, "go", 1); len(qs) != 1 || qs[0].Query != "goroutine leak" {
		t.Errorf("limit 1 = %+v", qs)
	}
	if err := s.RecordNoResultQuery(ctx, "go", "   ", t0); err == nil {
		t.Error("empty query accepted")
	}
	if err := s.ResetTopic(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	if qs, _ := s.NoResultQueries(ctx, "go", 0); len(qs) != 3 {
		t.Errorf("ResetTopic dropped the no-result queries (users' history): %+v", qs)
	}
}
