package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStarterLinksNoCgo: the starter links no cgo package, so
// CGO_ENABLED=0 builds it (deploy/Dockerfile does; README says so). A
// lexicon helper importing the tokenizer pulled gojieba in, and the image
// build failed.
func TestStarterLinksNoCgo(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}} {{if .CgoFiles}}cgo{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, cgo := strings.CutSuffix(line, " cgo"); cgo && !strings.HasPrefix(path, "runtime/cgo") && path != "net" && path != "os/user" {
			t.Errorf("the starter depends on %s, which has cgo files", path)
		}
	}
}
