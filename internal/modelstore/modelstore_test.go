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

// TestLoadKeepsNewestVersions: of one model's versions the cache keeps the
// newest two; an older one is read and decoded again when asked for, and
// other models' versions are not touched. Before, every version loaded
// stayed for the worker's life (a long crawl's every rank version).
func TestLoadKeepsNewestVersions(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	var vs []int
	for i := 1; i <= 4; i++ {
		v, err := s.PutModel(ctx, "t", "ranks", []byte(strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	other, _ := s.PutModel(ctx, "t", "lexicon", []byte("7"))
	decodes := map[int]int{}
	decode := func(b []byte) (int, error) {
		n, err := strconv.Atoi(string(b))
		decodes[n]++
		return n, err
	}
	var c Cache
	load := func(kind string, v, want int) {
		t.Helper()
		if got, err := Load(ctx, &c, s, "t", kind, v, decode); err != nil || got != want {
			t.Fatalf("Load %s v%d = %d, %v; want %d", kind, v, got, err, want)
		}
	}
	load("lexicon", other, 7)
	for i, v := range vs {
		load("ranks", v, i+1)
	}
	for i, v := range vs { // 1 and 2 fell out; 3 and 4 are cached
		load("ranks", v, i+1)
	}
	load("lexicon", other, 7)
	want := map[int]int{1: 2, 2: 2, 3: 1, 4: 1, 7: 1}
	for n, d := range want {
		if decodes[n] != d {
			t.Errorf("version holding %d decoded %d times, want %d (all: %v)", n, decodes[n], d, decodes)
		}
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
