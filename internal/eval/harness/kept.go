package harness

import (
	"fmt"
	"os"
	"strings"
)

// KeptSection returns the block of the Markdown file at path between
// "<!-- name:begin -->" and "<!-- name:end -->", markers included and
// followed by a newline, or "" when the file or both markers are missing.
// Generated reports carry such blocks over from the file they replace: a
// section written by another command or by hand survives a regeneration.
//
// A file with one marker and not the other, or with the end before the
// begin, is an error: regenerating it would drop the hand-written text the
// markers were meant to keep (docs/evaluation.md lost its begin marker once,
// and its reproduce command would have wiped a thousand lines of notes).
func KeptSection(path, name string) (string, error) {
	old, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	s := string(old)
	begin, end := "<!-- "+name+":begin -->", "<!-- "+name+":end -->"
	i := strings.Index(s, begin)
	j := strings.Index(s, end)
	switch {
	case i < 0 && j < 0:
		return "", nil
	case i < 0 || j < 0 || j < i:
		return "", fmt.Errorf("%s: the %q and %q markers are not a pair (one is missing, or the end comes first): fix them before regenerating, or the text they keep is lost", path, begin, end)
	case strings.Count(s, begin) > 1 || strings.Count(s, end) > 1:
		return "", fmt.Errorf("%s: %q or %q appears more than once: only the first block would be kept", path, begin, end)
	}
	return s[i:j+len(end)] + "\n", nil
}

// CheckKept reports the first marker error KeptSection would return for any
// of names: a command that regenerates path calls it before its long run, so
// a broken file is found before the run, not after it.
func CheckKept(path string, names ...string) error {
	for _, n := range names {
		if _, err := KeptSection(path, n); err != nil {
			return err
		}
	}
	return nil
}
