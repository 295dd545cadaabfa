package harness

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUnpackedPackage: the .deb a corpus was unpacked from is read back
// (a report names the version it measured), and a cache unpacked before
// it was recorded says nothing.
func TestUnpackedPackage(t *testing.T) {
	dir := t.TempDir()
	if got := UnpackedPackage(dir); got != "" {
		t.Errorf("no record: %q; want \"\"", got)
	}
	if err := os.WriteFile(filepath.Join(dir, PackageFile), []byte("apache2-doc_2.4.71-1~deb12u1_all.deb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := UnpackedPackage(dir); got != "apache2-doc_2.4.71-1~deb12u1_all.deb" {
		t.Errorf("recorded: %q", got)
	}
}
