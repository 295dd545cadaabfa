package config

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/viper"
)

// repoFile reads a file of the repository root.
func repoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	readmeRowRE   = regexp.MustCompile("^\\| `([a-z_]+)` \\| (.*) \\|$")
	parenRE       = regexp.MustCompile(`\([^()]*\)`)
	backtickRE    = regexp.MustCompile("`([^`]+)`")
	docKeyRE      = regexp.MustCompile("`((?:temporal|store|index|fetch|crawl|log|refresh|schedule|metrics)\\.[a-z0-9_.]+)`")
	docEnvRE      = regexp.MustCompile(`\b` + EnvPrefix + `_[A-Z0-9_]*`)
	readmeSection = regexp.MustCompile(`(?s)\n## Configuration\n(.*?)\n## `)
)

// TestReadmeConfigurationReference keeps the README's configuration
// reference (the table under "## Configuration": a row per section, the
// section's keys in backquotes, remarks in parentheses) equal to the keys
// of Defaults, so that a key added, renamed or removed in code cannot be
// missing from it or linger in it.
func TestReadmeConfigurationReference(t *testing.T) {
	m := readmeSection.FindStringSubmatch(repoFile(t, "README.md"))
	if m == nil {
		t.Fatal(`README.md has no "## Configuration" section`)
	}
	documented := map[string]bool{}
	for _, line := range strings.Split(m[1], "\n") {
		row := readmeRowRE.FindStringSubmatch(strings.TrimSpace(line))
		if row == nil {
			continue
		}
		keys := row[2]
		for parenRE.MatchString(keys) { // remarks, also nested ones
			keys = parenRE.ReplaceAllString(keys, "")
		}
		for _, k := range backtickRE.FindAllStringSubmatch(keys, -1) {
			documented[row[1]+"."+k[1]] = true
		}
	}
	defaults := Defaults()
	for _, k := range slices.Sorted(maps.Keys(defaults)) {
		if !documented[k] {
			t.Errorf("config key %s is missing from README.md's configuration reference", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(documented)) {
		if _, ok := defaults[k]; !ok {
			t.Errorf("README.md's configuration reference lists %s, which is not a config key", k)
		}
	}
}

// TestExampleFileWritesEveryKey: config.example.yaml documents every key
// (TestExampleFileMatchesDefaults only checks that the values it writes are
// the defaults, so a key left out of it passed).
func TestExampleFileWritesEveryKey(t *testing.T) {
	v := viper.New()
	v.SetConfigFile(filepath.Join("..", "..", "config.example.yaml"))
	if err := v.ReadInConfig(); err != nil {
		t.Fatal(err)
	}
	for _, k := range slices.Sorted(maps.Keys(Defaults())) {
		if !v.InConfig(k) {
			t.Errorf("config key %s is not written in config.example.yaml", k)
		}
	}
}

// TestDocsNameRealKeys: the configuration keys (in backquotes) and the
// FOCUSCRAWL_* environment variables the user-facing documents name exist.
func TestDocsNameRealKeys(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join("..", "..", "README.md"), filepath.Join("..", "..", "config.example.yaml"))
	defaults := Defaults()
	envs := map[string]bool{
		EnvPrefix + "_":                     true, // FOCUSCRAWL_* in prose
		EnvPrefix + "_INDEX_ELASTICSEARCH_": true, // a prefix in prose
	}
	for k := range OtherEnv { // read outside the configuration keys
		envs[k] = true
	}
	for k := range defaults {
		envs[EnvName(k)] = true
	}
	for _, path := range docs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		for _, m := range docKeyRE.FindAllStringSubmatch(string(b), -1) {
			k := m[1]
			if _, ok := defaults[k]; ok {
				continue
			}
			// A prefix ("index.elasticsearch.") or a fetch.resolve entry.
			if prefix := strings.HasSuffix(k, "."); prefix && slices.ContainsFunc(slices.Sorted(maps.Keys(defaults)), func(d string) bool { return strings.HasPrefix(d, k) }) {
				continue
			}
			if strings.HasPrefix(k, "fetch.resolve.") {
				continue
			}
			t.Errorf("%s names config key `%s`, which does not exist", name, k)
		}
		for _, e := range docEnvRE.FindAllString(string(b), -1) {
			if !envs[e] {
				t.Errorf("%s names environment variable %s, which is no config key's (EnvName)", name, e)
			}
		}
	}
}
