package sqlite

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// makeReadOnly makes the file at path one this process cannot write: its
// mode without write permission, and for root, who writes whatever the
// mode, the immutable attribute (chattr +i; the test skips where the file
// system or the process cannot set it). Cleanup undoes it.
func makeReadOnly(t *testing.T, path string) {
	t.Helper()
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		return
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("root writes a file whatever its mode, and chattr +i failed here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() }) //nolint:errcheck // best effort: TempDir's removal says if not
}

// TestReadOnlyFileRefusedByCheckWritable: a worker started on a store
// file it could not write (chaos trial: the file's mode, another owner)
// started as if all were well, since SQLite opens such a file read-only
// and the schema was current; every activity of the next crawl then failed
// with "attempt to write a readonly database", retried for ever.
// CheckWritable, which the worker calls at start-up, says so at once; a
// writable store passes it and keeps its data.
func TestReadOnlyFileRefusedByCheckWritable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crawl.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckWritable(ctx); err != nil {
		t.Fatalf("writable store: %v", err)
	}
	v, err := s.SchemaVersion(ctx)
	if err != nil || v != len(migrations) {
		t.Fatalf("schema version after the check %d, %v; want %d", v, err, len(migrations))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	makeReadOnly(t, path)
	s, err = Open(path)
	if err != nil {
		// Refused already at Open is as good: the point is not to start.
		t.Logf("refused at open: %v", err)
		if !strings.Contains(err.Error(), "readonly") {
			t.Fatalf("open: %v", err)
		}
		return
	}
	defer s.Close()
	err = s.CheckWritable(ctx)
	if err == nil || !strings.Contains(err.Error(), "is read-only for this process") || !strings.Contains(err.Error(), path) {
		t.Fatalf("CheckWritable on a read-only file: %v; want it refused, naming the file", err)
	}
}
