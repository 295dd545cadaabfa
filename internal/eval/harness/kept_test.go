package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeptSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.md")
	if got, err := KeptSection(path, "notes"); got != "" || err != nil {
		t.Errorf("missing file: %q, %v; want empty, nil", got, err)
	}
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# Report\n\ngenerated\n\n<!-- notes:begin -->\n## Notes\nby hand\n<!-- notes:end -->\ntrailer\n")
	if got, err := KeptSection(path, "notes"); err != nil || got != "<!-- notes:begin -->\n## Notes\nby hand\n<!-- notes:end -->\n" {
		t.Errorf("KeptSection = %q, %v", got, err)
	}
	if got, err := KeptSection(path, "profile"); got != "" || err != nil {
		t.Errorf("absent markers: %q, %v; want empty, nil", got, err)
	}
	for name, body := range map[string]string{
		"out of order":  "<!-- notes:end --> <!-- notes:begin -->",
		"begin missing": "generated\nby hand\n<!-- notes:end -->\n",
		"end missing":   "generated\n<!-- notes:begin -->\nby hand\n",
		"twice":         "<!-- notes:begin -->a<!-- notes:end -->\n<!-- notes:begin -->b<!-- notes:end -->\n",
	} {
		write(body)
		got, err := KeptSection(path, "notes")
		if err == nil || got != "" {
			t.Errorf("%s: %q, %v; want an error", name, got, err)
		}
		if err := CheckKept(path, "profile", "notes"); err == nil || !strings.Contains(err.Error(), "notes:") {
			t.Errorf("%s: CheckKept = %v, want the notes markers' error", name, err)
		}
	}
}

// TestReportsKeepTheirNotes: the generated reports under docs/ keep every
// hand-written line through a regeneration — their marker pairs are intact
// and nothing is written after the last kept block, where a regeneration
// would drop it.
func TestReportsKeepTheirNotes(t *testing.T) {
	for _, c := range []struct {
		file string
		kept []string
		last string
	}{
		{"evaluation.md", []string{"notes"}, "notes"},
		{"benchmarks.md", []string{"profile", "pgbench", "notes"}, "notes"},
		{"benchmarks-polite.md", []string{"notes"}, "notes"},
	} {
		path := filepath.Join("..", "..", "..", "docs", c.file)
		if err := CheckKept(path, c.kept...); err != nil {
			t.Error(err)
			continue
		}
		for _, n := range c.kept {
			if got, _ := KeptSection(path, n); got == "" {
				t.Errorf("%s: no %s block", c.file, n)
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		end := "<!-- " + c.last + ":end -->"
		if !strings.HasSuffix(strings.TrimSpace(string(b)), end) {
			t.Errorf("%s: text after %s would be lost when the report is regenerated", c.file, end)
		}
	}
}
