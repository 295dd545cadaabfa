package modelstore

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlite"
)

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "crawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestLoadDecodesEachVersionOnce: a version is read and decoded once, later
// loads come from the cache, and two versions are two entries.
func TestLoadDecodesEachVersionOnce(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	v1, _ := s.PutModel(ctx, "t", "k", []byte("1"))
	v2, _ := s.PutModel(ctx, "t", "k", []byte("2"))
	decodes := 0
	decode := func(b []byte) (int, error) { decodes++; return strconv.Atoi(string(b)) }
	var c Cache
	for range 3 {
		for v, want := range map[int]int{v1: 1, v2: 2} {
			got, err := Load(ctx, &c, s, "t", "k", v, decode)
			if err != nil || got != want {
				t.Fatalf("Load v%d = %d, %v; want %d", v, got, err, want)
			}
		}
	}
	if decodes != 2 {
		t.Fatalf("%d decodes for 2 versions loaded 3 times each", decodes)
	}
	if _, err := Load(ctx, &c, s, "t", "k", 99, decode); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing version: %v", err)
	}
	bad := func([]byte) (int, error) { return 0, errors.New("corrupt") }
	if _, err := Load(ctx, &c, s, "t", "other", 1, bad); err == nil {
		t.Fatal("a failed load must be an error")
	}
}

// TestPutIfChangedAndLatest: identical bytes keep the version; Latest reads
// the newest JSON state and reports a missing one.
func TestPutIfChangedAndLatest(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	var st struct{ Round int }
	if ok, err := Latest(ctx, s, "t", "state", &st); ok || err != nil {
		t.Fatalf("Latest of nothing = %v, %v", ok, err)
	}
	a, _ := PutIfChanged(ctx, s, "t", "state", []byte(`{"Round":1}`))
	b, _ := PutIfChanged(ctx, s, "t", "state", []byte(`{"Round":1}`))
	c, err := PutIfChanged(ctx, s, "t", "state", []byte(`{"Round":2}`))
	if err != nil || a != b || c == b {
		t.Fatalf("versions %d, %d, %d (%v): same bytes must keep the version, new bytes add one", a, b, c, err)
	}
	if ok, err := Latest(ctx, s, "t", "state", &st); !ok || err != nil || st.Round != 2 {
		t.Fatalf("Latest = %v, %v, %+v", ok, err, st)
	}
}
