package pgbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpdateSection: the section replaces its block in place, is appended
// to a file without one, and a file whose markers are not one pair is
// refused rather than given a second block (a review).
func TestUpdateSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.md")
	if err := updateSection(path, "first\n"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, append(must(os.ReadFile(path)), "tail\n"...), 0o644)
	if err := updateSection(path, "second\n"); err != nil {
		t.Fatal(err)
	}
	if got, want := string(must(os.ReadFile(path))), beginMarker+"\nsecond\n"+endMarker+"\ntail\n"; got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
	for _, body := range []string{"x\n" + endMarker + "\n", beginMarker + "\nx\n", endMarker + "\n" + beginMarker + "\n"} {
		os.WriteFile(path, []byte(body), 0o644)
		if err := updateSection(path, "r\n"); err == nil || !strings.Contains(err.Error(), "not one pair") {
			t.Errorf("markers %q: %v, want a refusal", body, err)
		}
		if got := string(must(os.ReadFile(path))); got != body {
			t.Errorf("markers %q: file changed to %q", body, got)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
