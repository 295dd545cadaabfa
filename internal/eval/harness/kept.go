package harness

import (
	"os"
	"strings"
)

// KeptSection returns the block of the Markdown file at path between
// "<!-- name:begin -->" and "<!-- name:end -->", markers included and
// followed by a newline, or "" when the file or the markers are missing.
// Generated reports carry such blocks over from the file they replace: a
// section written by another command or by hand survives a regeneration.
func KeptSection(path, name string) string {
	old, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s := string(old)
	begin, end := "<!-- "+name+":begin -->", "<!-- "+name+":end -->"
	i := strings.Index(s, begin)
	j := strings.Index(s, end)
	if i < 0 || j < i {
		return ""
	}
	return s[i:j+len(end)] + "\n"
}
