package config

import (
	"fmt"
	"sort"
	"strings"

	"focuscrawl/internal/suggest"
)

// OtherEnv names the FOCUSCRAWL_* variables that are read outside the
// configuration keys, with what reads them: they are not misspelt settings.
var OtherEnv = map[string]string{
	EnvPrefix + "_CONFIG":            "the configuration file's name (the --config flag's default)",
	EnvPrefix + "_JIEBA_DICT_DIR":    "gojieba's dictionary directory (internal/textproc)",
	EnvPrefix + "_TEMPORAL_BIN":      "the Temporal CLI of the tests, the evaluation and scripts/ensure-temporal.sh",
	EnvPrefix + "_TEST_POSTGRES_DSN": "the PostgreSQL server of the tests and benchmarks",
	EnvPrefix + "_REQUIRE_POSTGRES":  "tests: fail instead of skipping when PostgreSQL is unreachable (set by CI)",
	EnvPrefix + "_ARTIFACT_DIR":      "tests: where end-to-end tests leave logs and screenshots",
}

// UnknownEnv returns a warning for each FOCUSCRAWL_* variable in environ
// ("NAME=value" entries, as os.Environ returns them) that is neither a
// configuration key's variable nor one of OtherEnv, naming the nearest
// known variable when one is close. Such a variable is ignored, so a
// misspelt host delay variable (an extra S) would otherwise leave the crawl at
// the default delay without a word. A warning, not an error: scripts and
// test harnesses may share the prefix for their own variables.
func UnknownEnv(environ []string) []string {
	known := map[string]bool{}
	for k := range Defaults() {
		known[EnvName(k)] = true
	}
	for k := range OtherEnv {
		known[k] = true
	}
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix+"_") || known[name] {
			continue
		}
		msg := fmt.Sprintf("environment variable %s is not a focuscrawl setting and is ignored", name)
		if near := nearest(name, names); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		out = append(out, msg)
	}
	sort.Strings(out)
	return out
}

// nearest is the name in names closest to s if it is a likely misspelling:
// at most 4 edits and at most a third of the length of s after the prefix.
func nearest(s string, names []string) string {
	return suggest.Closest(s, names, min(4, len(strings.TrimPrefix(s, EnvPrefix+"_"))/3))
}
