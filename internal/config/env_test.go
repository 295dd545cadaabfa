package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestUnknownEnv(t *testing.T) {
	got := UnknownEnv([]string{
		"PATH=/usr/bin",
		"FOCUSCRAWL_FETCH_HOST_DELAY=2s",      // a setting
		"FOCUSCRAWL_TEMPORAL_BIN=/bin/t",      // read outside the configuration
		"FOCUSCRAWL_FETCH_HOST_DELAYS=5s",     // misspelt: one edit
		"FOCUSCRAWL_CRAWL_PIPELNES=4",         // misspelt: one edit
		"FOCUSCRAWL_SOMETHING_ELSE_ENTIRELY=", // nothing near
		"NOT_FOCUSCRAWL_X=1",
	})
	want := []string{
		"environment variable FOCUSCRAWL_CRAWL_PIPELNES is not a focuscrawl setting and is ignored (did you mean FOCUSCRAWL_CRAWL_PIPELINES?)",
		"environment variable FOCUSCRAWL_FETCH_HOST_DELAYS is not a focuscrawl setting and is ignored (did you mean FOCUSCRAWL_FETCH_HOST_DELAY?)",
		"environment variable FOCUSCRAWL_SOMETHING_ELSE_ENTIRELY is not a focuscrawl setting and is ignored",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("UnknownEnv:\n got %q\nwant %q", got, want)
	}
	if w := UnknownEnv([]string{"FOCUSCRAWL_LOG_LEVEL=debug", "FOCUSCRAWL_CONFIG=x.yaml"}); len(w) != 0 {
		t.Errorf("known variables warned about: %q", w)
	}
}

// TestOtherEnvComplete: every FOCUSCRAWL_* variable the code and scripts
// read is a configuration key's or listed in OtherEnv, so UnknownEnv never
// warns about a variable the project itself uses. Test files are left out:
// some set misspelt names on purpose.
func TestOtherEnvComplete(t *testing.T) {
	re := regexp.MustCompile(EnvPrefix + `_[A-Z0-9_]*[A-Z0-9]`)
	known := map[string]bool{}
	for k := range Defaults() {
		known[EnvName(k)] = true
	}
	for k := range OtherEnv {
		known[k] = true
	}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "var", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".go" && ext != ".sh" && d.Name() != "Makefile" && ext != ".yml" && ext != ".yaml" || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, name := range re.FindAllString(string(b), -1) {
			if !known[name] && !strings.HasPrefix(name, EnvPrefix+"_INDEX_ELASTICSEARCH") {
				t.Errorf("%s reads %s, which is neither a configuration key's variable nor in config.OtherEnv", path, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
