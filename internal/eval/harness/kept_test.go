package harness

import (
	"os"
	"path/filepath"
	"testing"
)

func TestKeptSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.md")
	if got := KeptSection(path, "notes"); got != "" {
		t.Errorf("missing file: %q, want empty", got)
	}
	body := "# Report\n\ngenerated\n\n<!-- notes:begin -->\n## Notes\nby hand\n<!-- notes:end -->\ntrailer\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := KeptSection(path, "notes"), "<!-- notes:begin -->\n## Notes\nby hand\n<!-- notes:end -->\n"; got != want {
		t.Errorf("KeptSection = %q, want %q", got, want)
	}
	if got := KeptSection(path, "profile"); got != "" {
		t.Errorf("absent markers: %q, want empty", got)
	}
	if err := os.WriteFile(path, []byte("<!-- notes:end --> <!-- notes:begin -->"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := KeptSection(path, "notes"); got != "" {
		t.Errorf("markers out of order: %q, want empty", got)
	}
}
