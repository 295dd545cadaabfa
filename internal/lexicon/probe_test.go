package lexicon

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A CRLF lexicon over MaxFileBytes is refused, not read in part: Parse
// counted each line as len+1 bytes, but a CRLF line is len+2, so the
// LimitReader's cut went unnoticed and the cut last line was parsed.
func TestCRLFOverLimit(t *testing.T) {
	const L = 65000
	var b bytes.Buffer
	b.Grow(MaxFileBytes + 2*L)
	comment := "#" + strings.Repeat("c", L-1) + "\r\n"
	n := MaxFileBytes / len(comment)
	for range n {
		b.WriteString(comment)
	}
	rest := MaxFileBytes + 1 - b.Len()
	b.WriteString("a | synonym | " + strings.Repeat("b", rest+100) + "\r\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Open(dir, "big")
	if err == nil {
		var got string
		for term := range l.Expand("a", 0) {
			if term != "a" {
				got = term
			}
		}
		t.Fatalf("file of %d bytes (limit %d) loaded without error; a's synonym is %d b's, the file says %d",
			b.Len(), MaxFileBytes, len(got), rest+100)
	}
}

// A file of exactly MaxFileBytes, its last line without a newline, is
// within the limit.
func TestExactLimitNoFinalNewline(t *testing.T) {
	var b bytes.Buffer
	comment := "#" + strings.Repeat("c", 65000) + "\n"
	for b.Len()+len(comment) < MaxFileBytes-100 {
		b.WriteString(comment)
	}
	line := "a | synonym | "
	b.WriteString(line + strings.Repeat("b", MaxFileBytes-b.Len()-len(line)))
	if b.Len() != MaxFileBytes {
		t.Fatal(b.Len())
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "exact.txt"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, "exact"); err != nil {
		t.Fatalf("file of exactly MaxFileBytes: %v", err)
	}
}
