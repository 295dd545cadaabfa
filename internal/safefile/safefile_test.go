package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func fillWith(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func files(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.yaml")
	if err := Write(path, false, fillWith("one\n")); err != nil {
		t.Fatalf("Write to a new file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\n" {
		t.Errorf("new file holds %q, want one", b)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm()&0o044 != 0o044 {
		t.Errorf("new file mode %v (%v); want readable by group and others", fi.Mode(), err)
	}
	ran := false
	err := Write(path, false, func(w io.Writer) error { ran = true; return nil })
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("Write over an existing file = %v; want an error naming it and --force", err)
	}
	if ran {
		t.Error("fill ran although the file was refused")
	}
	if err := Write(path, true, fillWith("two\n")); err != nil {
		t.Fatalf("Write with force: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two\n" {
		t.Errorf("forced file holds %q, want two", b)
	}
	if got := files(t, dir); !slices.Equal(got, []string{"out.yaml"}) {
		t.Errorf("directory holds %q; want only out.yaml (no temporary file)", got)
	}
}

// TestWriteFailureKeepsOldFile: a fill that fails part way leaves the old
// file (or none) and no temporary file.
func TestWriteFailureKeepsOldFile(t *testing.T) {
	boom := errors.New("boom")
	fail := func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	if err := Write(path, false, fail); !errors.Is(err, boom) {
		t.Errorf("failing fill on a new file = %v; want its error", err)
	}
	if got := files(t, dir); len(got) != 0 {
		t.Errorf("after a failed write to a new file the directory holds %q; want nothing", got)
	}
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, true, fail); !errors.Is(err, boom) {
		t.Errorf("failing fill with force = %v; want its error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failed forced write the file holds %q; want old", b)
	}
	if got := files(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("directory holds %q; want only out", got)
	}
}

// TestWriteRelativePath: a bare file name is written in the working
// directory (its temporary file too, so the move stays on one file system).
func TestWriteRelativePath(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := Write("rel.txt", false, fillWith("x")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile("rel.txt"); err != nil || string(b) != "x" {
		t.Errorf("rel.txt = %q, %v", b, err)
	}
}
