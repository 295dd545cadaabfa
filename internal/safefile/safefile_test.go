package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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
	ref, err := os.Create(filepath.Join(t.TempDir(), "ref"))
	if err != nil {
		t.Fatal(err)
	}
	ref.Close()
	want, _ := os.Stat(ref.Name())
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want.Mode().Perm() {
		t.Errorf("new file mode %v (%v); want %v, as os.Create makes (0666 less the umask)", fi.Mode(), err, want.Mode())
	}
	ran := false
	err = Write(path, false, func(w io.Writer) error { ran = true; return nil })
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

// TestWriteSpecialPaths: a directory is refused with or without force; a
// symbolic link is written through, the replaced file keeping its mode; a
// pipe is written directly, without --force (a shell's <(…), /dev/stdout).
func TestWriteSpecialPaths(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		if err := Write(sub, force, fillWith("x")); err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("Write to a directory (force %v) = %v; want it refused as a directory", force, err)
		}
	}

	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, false, fillWith("new")); err == nil {
		t.Error("Write through a link to an existing file without force succeeded; want it refused")
	}
	if err := Write(link, true, fillWith("new")); err != nil {
		t.Fatalf("Write through a link with force: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file (%v, %v); want it kept, its target written", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q, want new", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file mode %v, want its old 0600", fi.Mode().Perm())
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := Write(fifo, false, fillWith("streamed")); err != nil {
		t.Fatalf("Write to a pipe: %v", err)
	}
	if s := <-got; s != "streamed" {
		t.Errorf("the pipe's reader got %q, want streamed", s)
	}
	if got := files(t, dir); !slices.Equal(got, []string{"fifo", "link", "sub", "target"}) {
		t.Errorf("directory holds %q; want no temporary file", got)
	}
}

// TestWriteMissingDirectory: a file in a directory that does not exist is
// refused naming that file, not the hidden temporary one (a new user's
// trial: "open /nonexistentdir/.x.jsonl.1h5tnxe1zuu52.tmp").
func TestWriteMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nosuchdir", "x.jsonl")
	err := Write(path, false, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
	if err == nil || !strings.Contains(err.Error(), path+":") || strings.Contains(err.Error(), ".tmp") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Write into a missing directory: %v; want the file's name, not the temporary one's, and ErrNotExist", err)
	}
}
