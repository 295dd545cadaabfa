package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"focuscrawl/internal/fetch"
)

func TestDefaultsAreValid(t *testing.T) {
	c, err := Load("", nil)
	if err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if c.Fetch.HostDelay != time.Second || c.Crawl.BatchSize != 32 || c.Fetch.AllowPrivateNetworks {
		t.Fatalf("unexpected defaults: %+v", c)
	}
}

func TestExampleFileMatchesDefaults(t *testing.T) {
	// config.example.yaml documents the defaults; loading it must change nothing.
	c, err := Load(filepath.Join("..", "..", "config.example.yaml"), nil)
	if err != nil {
		t.Fatalf("example file: %v", err)
	}
	d, _ := Load("", nil)
	if !reflect.DeepEqual(c, d) {
		t.Fatalf("config.example.yaml differs from the defaults:\nfile:     %+v\ndefaults: %+v", c, d)
	}
}

func TestPrecedenceFileEnvFlag(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	os.WriteFile(file, []byte("fetch:\n  host_delay: 3s\n  retries: 4\ncrawl:\n  batch_size: 10\n"), 0o644)
	t.Setenv("FOCUSCRAWL_FETCH_HOST_DELAY", "250ms")
	t.Setenv("FOCUSCRAWL_FETCH_ALLOW_PRIVATE_NETWORKS", "true")
	t.Setenv("FOCUSCRAWL_FETCH_RESOLVE", "*.test=127.0.0.1:8089,a.example=127.0.0.1:9")
	t.Setenv("FOCUSCRAWL_FETCH_CONTENT_TYPES", "text/html,text/plain")
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse([]string{"--crawl.batch_size=7"}); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file, fs)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c.Fetch.HostDelay != 250*time.Millisecond {
		t.Errorf("env should beat file: host_delay = %v", c.Fetch.HostDelay)
	}
	if c.Fetch.Retries != 4 {
		t.Errorf("file should beat default: retries = %d", c.Fetch.Retries)
	}
	if c.Crawl.BatchSize != 7 {
		t.Errorf("flag should beat file: batch_size = %d", c.Crawl.BatchSize)
	}
	if !c.Fetch.AllowPrivateNetworks {
		t.Errorf("allow_private_networks from env not applied")
	}
	want := map[string]string{"*.test": "127.0.0.1:8089", "a.example": "127.0.0.1:9"}
	if !reflect.DeepEqual(c.Fetch.Resolve, want) {
		t.Errorf("resolve = %v, want %v", c.Fetch.Resolve, want)
	}
	if !reflect.DeepEqual(c.Fetch.ContentTypes, []string{"text/html", "text/plain"}) {
		t.Errorf("content_types = %v", c.Fetch.ContentTypes)
	}
}

func TestInvalidValuesNameTheField(t *testing.T) {
	cases := []struct {
		env, val, want string
	}{
		{"FOCUSCRAWL_CRAWL_BATCH_SIZE", "0", "crawl.batch_size"},
		{"FOCUSCRAWL_FETCH_HOST_DELAY", "-1s", "fetch.host_delay"},
		{"FOCUSCRAWL_TEMPORAL_ADDRESS", "nohostport", "temporal.address"},
		{"FOCUSCRAWL_STORE_DRIVER", "oracle", "store.driver"},
		{"FOCUSCRAWL_LOG_LEVEL", "loud", "log.level"},
		{"FOCUSCRAWL_FETCH_RESOLVE", "x.test=notaddr", "fetch.resolve"},
		{"FOCUSCRAWL_FETCH_READ_TIMEOUT", "soon", "read_timeout"},
		// Checked by fetch.Config.Validate, named by the key:
		{"FOCUSCRAWL_FETCH_MAX_REDIRECTS", "30", "config fetch.max_redirects (env FOCUSCRAWL_FETCH_MAX_REDIRECTS)"},
		{"FOCUSCRAWL_FETCH_CONTENT_TYPES", "html", "config fetch.content_types"},
		{"FOCUSCRAWL_FETCH_USER_AGENT", " ", "config fetch.user_agent"},
		// Decoding errors name the environment variable too.
		{"FOCUSCRAWL_CRAWL_PIPELINES", "abc", "config crawl.pipelines (env FOCUSCRAWL_CRAWL_PIPELINES)"},
		{"FOCUSCRAWL_CRAWL_CLAIM_RATIO", "much", "(env FOCUSCRAWL_CRAWL_CLAIM_RATIO)"},
	}
	for _, c := range cases {
		t.Run(c.env, func(t *testing.T) {
			t.Setenv(c.env, c.val)
			_, err := Load("", nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v does not name %s", err, c.want)
			}
		})
	}
}

// TestDecodeErrorsOnOneLine: a bad value made the worker's start-up error
// four lines ("decoding failed due to the following error(s):", a blank
// line, then one per key); a start-up error is one line in a log.
func TestDecodeErrorsOnOneLine(t *testing.T) {
	t.Setenv("FOCUSCRAWL_CRAWL_PIPELINES", "abc")
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("fetch:\n  host_delay: fast\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(file, nil)
	if err == nil {
		t.Fatal("loaded")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || strings.Contains(msg, "decoding failed") ||
		!strings.Contains(msg, `'fetch.host_delay' "fast" is not a duration`) || !strings.Contains(msg, "'crawl.pipelines' cannot parse") {
		t.Errorf("error not one line naming both keys:\n%s", msg)
	}
}

// TestEmptyEnvDisables: a text key's environment variable set to ""
// overrides the default and the file ("metrics.address": "" disables the
// metrics endpoint, as documented); viper alone skipped empty variables.
// A flag still wins over it.
func TestEmptyEnvDisables(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("metrics:\n  address: 127.0.0.1:9999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FOCUSCRAWL_METRICS_ADDRESS", "")
	c, err := Load(file, nil)
	if err != nil || c.Metrics.Address != "" {
		t.Fatalf("metrics address %q, %v; want \"\" from the empty environment variable", c.Metrics.Address, err)
	}
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse([]string{"--metrics.address=127.0.0.1:7777"}); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(file, fs); err != nil || c.Metrics.Address != "127.0.0.1:7777" {
		t.Fatalf("metrics address %q, %v; want the flag's", c.Metrics.Address, err)
	}
}

func TestUnknownKeyInFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(file, []byte("fetch:\n  host_dealy: 3s\n"), 0o644)
	_, err := Load(file, nil)
	if err == nil || !strings.Contains(err.Error(), "fetch.host_dealy") {
		t.Fatalf("misspelt key not reported: %v", err)
	}
	// ... with the key it was probably meant as (a new user's trial), also
	// for a key written in the wrong section.
	for body, want := range map[string]string{
		"fetch:\n  host_dealy: 3s\n": `did you mean "fetch.host_delay"?`,
		"host_delay: 3s\n":           `did you mean "fetch.host_delay"?`,
		"crawl:\n  zzzz: 1\n":        "",
		// Not sent to another section by its last part (a review).
		"fetch:\n  max_retries: 3\n":      "",
		"fetch:\n  request_timeout: 3s\n": "",
		"max_pages: 100\n":                "",
		"crawl:\n  max_pages: 100\n":      "",
	} {
		os.WriteFile(file, []byte(body), 0o644)
		_, err := Load(file, nil)
		if err == nil || (want != "" && !strings.Contains(err.Error(), want)) || (want == "" && strings.Contains(err.Error(), "did you mean")) {
			t.Errorf("config %q: %v; want an unknown key error with %q", body, err, want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml"), nil); err == nil {
		t.Fatal("a missing config file must be an error")
	}
}

// TestPostgresStoreNeedsDSN: driver postgres takes its DSN from
// FOCUSCRAWL_STORE_DSN, and without one fails naming store.dsn.
func TestPostgresStoreNeedsDSN(t *testing.T) {
	t.Setenv("FOCUSCRAWL_STORE_DRIVER", "postgres")
	if _, err := Load("", nil); err == nil || !strings.Contains(err.Error(), "FOCUSCRAWL_STORE_DSN") {
		t.Fatalf("driver postgres without a DSN: error %v, want one naming FOCUSCRAWL_STORE_DSN", err)
	}
	dsn := "postgres://crawler@db.internal:5432/crawl"
	t.Setenv("FOCUSCRAWL_STORE_DSN", dsn)
	c, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Store.Driver != "postgres" || c.Store.DSN != dsn {
		t.Errorf("Store = %+v, want driver postgres with DSN %s", c.Store, dsn)
	}
}

// TestBareNumbersAreNotDurations is the regression test for "host_delay: 2"
// in a file meaning 2 ns (politeness off) and "robots_ttl: 86400" meaning
// 86 µs: a duration needs a unit in every source, and the error names the key.
func TestBareNumbersAreNotDurations(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		key  string
		says string
	}{
		{"fetch:\n  host_delay: 2\n", "fetch.host_delay", "2 is a bare number"},
		{"fetch:\n  robots_ttl: 86400\n", "fetch.robots_ttl", "bare number"},
		{"fetch:\n  read_timeout: 1.5\n", "fetch.read_timeout", "bare number"},
		// 0 is 0 in any unit ("group_linger: 0" = never), and then
		// checked as a value.
		{"crawl:\n  lease: 0\n", "crawl.lease", "must be a positive duration, got 0s"},
		{"schedule:\n  jitter: \"5\"\n", "schedule.jitter", "not a duration"},
		{"refresh:\n  min_interval: soon\n", "refresh.min_interval", "not a duration"},
		// Not a number: "true is a bare number … \"trues\"" before.
		{"fetch:\n  host_delay: true\n", "fetch.host_delay", "true is not a duration"},
	} {
		file := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(file, []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(file, nil)
		if err == nil || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: error %v does not name %s and say %q", tc.yaml, err, tc.key, tc.says)
		}
	}
	// The same keys with units load.
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("fetch:\n  host_delay: 2s\n  robots_ttl: 24h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Fetch.HostDelay != 2*time.Second || c.Fetch.RobotsTTL != 24*time.Hour {
		t.Fatalf("host_delay %v, robots_ttl %v", c.Fetch.HostDelay, c.Fetch.RobotsTTL)
	}
}

// TestNaNHubScoreRefused: NaN passed the old "< 0 || > 1" check.
func TestNaNHubScoreRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("refresh:\n  hub_min_score: .nan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(file, nil); err == nil || !strings.Contains(err.Error(), "refresh.hub_min_score") {
		t.Fatalf("NaN hub_min_score: %v", err)
	}
}

// TestFetchDefaultsAreTheFetchers: the fetch section's defaults are
// fetch.DefaultConfig's, and every one of its fields has a key.
func TestFetchDefaultsAreTheFetchers(t *testing.T) {
	c, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Fetch.Config, fetch.DefaultConfig()) {
		t.Errorf("fetch defaults %+v, fetcher's %+v", c.Fetch.Config, fetch.DefaultConfig())
	}
	ft := reflect.TypeFor[fetch.Config]()
	for i := range ft.NumField() {
		if _, ok := Defaults()[fetchKey(ft.Field(i).Name)]; !ok {
			t.Errorf("fetch.Config.%s has no configuration key", ft.Field(i).Name)
		}
	}
}

// TestFractionalNumbersAreNotIntegers: mapstructure truncates a fractional
// number given to an integer key, so "max_redirects: 2.5" meant 2 without a
// word; it is an error naming the key. Whole numbers in float notation load.
func TestFractionalNumbersAreNotIntegers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("fetch:\n  max_redirects: 2.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(file, nil); err == nil || !strings.Contains(err.Error(), "fetch.max_redirects") || !strings.Contains(err.Error(), "whole number") {
		t.Errorf("max_redirects: 2.5: error %v, want one naming fetch.max_redirects", err)
	}
	if err := os.WriteFile(file, []byte("fetch:\n  max_body_bytes: 1e7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Fetch.MaxBodyBytes != 10_000_000 {
		t.Errorf("max_body_bytes: 1e7 loaded as %d", c.Fetch.MaxBodyBytes)
	}
}

// TestEmptyNumbersRefused: an empty string for a numeric key is an error
// naming the key, not a silent 0 (no retries, a zero body limit).
func TestEmptyNumbersRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	for _, tc := range []struct{ yaml, key string }{
		{"fetch:\n  retries: \"\"\n", "fetch.retries"},
		{"fetch:\n  max_body_bytes: ' '\n", "fetch.max_body_bytes"},
		{"crawl:\n  claim_ratio: ''\n", "crawl.claim_ratio"},
	} {
		if err := os.WriteFile(file, []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(file, nil); err == nil || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), "empty value") {
			t.Errorf("%q: error %v; want one naming %s as empty", tc.yaml, err, tc.key)
		}
	}
}

// TestPoliteDelay: the one rule both the crawl and the topic bootstrap
// space a host's requests by — host_delay, or a longer Crawl-delay when
// robots.txt is respected, capped by max_host_delay (or host_delay when
// longer), plus the margin when not zero. An uncapped "Crawl-delay: 2
// hours" would have held a bootstrap two hours.
func TestPoliteDelay(t *testing.T) {
	base := Fetch{HostDelay: time.Second, MaxHostDelay: 30 * time.Second, DelayMargin: 10 * time.Millisecond}
	base.RespectRobots = true
	ignoring := base
	ignoring.RespectRobots = false
	noDelay := base
	noDelay.HostDelay, noDelay.DelayMargin = 0, 0
	long := base
	long.HostDelay = time.Minute
	for _, c := range []struct {
		name  string
		cfg   Fetch
		crawl time.Duration
		want  time.Duration
	}{
		{"no Crawl-delay", base, 0, time.Second + 10*time.Millisecond},
		{"shorter Crawl-delay", base, 500 * time.Millisecond, time.Second + 10*time.Millisecond},
		{"longer Crawl-delay", base, 5 * time.Second, 5*time.Second + 10*time.Millisecond},
		{"capped", base, 2 * time.Hour, 30*time.Second + 10*time.Millisecond},
		{"host_delay above the cap is the cap", long, 2 * time.Hour, time.Minute + 10*time.Millisecond},
		{"robots not respected", ignoring, 5 * time.Second, time.Second + 10*time.Millisecond},
		{"no delay at all", noDelay, 0, 0},
		{"Crawl-delay with host_delay 0", noDelay, 2 * time.Second, 2 * time.Second},
	} {
		if got := c.cfg.PoliteDelay(c.crawl); got != c.want {
			t.Errorf("%s: PoliteDelay(%v) = %v, want %v", c.name, c.crawl, got, c.want)
		}
	}
}

// TestFileShape: a section whose settings are all commented out loads (its
// defaults); a setting with no value, and a second YAML document after
// "---", are errors naming them — viper had kept the default for the first
// (metrics.address: with nothing after it left metrics on) and silently
// dropped the second.
func TestFileShape(t *testing.T) {
	write := func(body string) string {
		file := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	c, err := Load(write("crawl:\n  # batch_size: 32\nfetch:\n  host_delay: 2s\n"), nil)
	if err != nil || c.Fetch.HostDelay != 2*time.Second || c.Crawl.BatchSize != Defaults()["crawl.batch_size"] {
		t.Errorf("a commented-out section: %v; want it loaded with its defaults", err)
	}
	for body, want := range map[string]string{
		"metrics:\n  address:\n":                                   "line 2: metrics.address has no value",
		"metrics:\n  address: ~\n":                                 "metrics.address has no value",
		"crawl:\n  batch_size: 3\n---\nfetch:\n  host_delay: 5s\n": "one YAML document",
		"crawl: 5\n": "crawl is a section of settings, not a value",
		// yaml.v3 says "found character that cannot start any token".
		"crawl:\n\tbatch_size: 3\n": "line 2 is indented with a tab",
	} {
		if _, err := Load(write(body), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v; want one saying %q", body, err, want)
		}
	}
	if c, err := Load(write("metrics:\n  address: \"\"\n"), nil); err != nil || c.Metrics.Address != "" {
		t.Errorf(`metrics.address: "": %q, %v; want metrics off`, c.Metrics.Address, err)
	}
	if _, err := Load(write(""), nil); err != nil {
		t.Errorf("an empty file: %v; want every default", err)
	}
	for _, body := range []string{"crawl:\n  batch_size: 8\n---\n", "crawl:\n  batch_size: 8\n---\n# nothing here\n", "---\ncrawl:\n  batch_size: 8\n...\n"} {
		if c, err := Load(write(body), nil); err != nil || c.Crawl.BatchSize != 8 {
			t.Errorf("%q: %v; want it loaded (the document after --- is empty)", body, err)
		}
	}
}

// TestZeroDurationEverywhere: a bare 0 is a duration in the file as in the
// environment and flags ("crawl.group_linger: 0", documented "0 = never",
// was refused in the file only).
func TestZeroDurationEverywhere(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("crawl:\n  group_linger: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file, nil)
	if err != nil || c.Crawl.GroupLinger != 0 {
		t.Errorf("group_linger: 0 in the file: %v (linger %v)", err, c)
	}
}

// TestEmptyEnvAndEnvLists: an environment variable set to "" is a value,
// as in the file — an error for a number, a duration or a boolean (it was
// skipped, and the file's value or the default kept without a word) — and
// a list given in one variable may have spaces after its commas.
func TestEmptyEnvAndEnvLists(t *testing.T) {
	for _, name := range []string{"FOCUSCRAWL_CRAWL_BATCH_SIZE", "FOCUSCRAWL_FETCH_HOST_DELAY", "FOCUSCRAWL_CRAWL_HOST_YIELD"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, "")
			if _, err := Load("", nil); err == nil {
				t.Errorf("%s=\"\" accepted", name)
			}
		})
	}
	t.Setenv("FOCUSCRAWL_INDEX_DRIVER", "elasticsearch")
	t.Setenv("FOCUSCRAWL_INDEX_ELASTICSEARCH_ADDRESSES", "http://a:9200, http://b:9200")
	c, err := Load("", nil)
	if err != nil || len(c.Index.Elasticsearch.Addresses) != 2 || c.Index.Elasticsearch.Addresses[1] != "http://b:9200" {
		t.Errorf("addresses with a space after the comma: %v, %v", err, c)
	}
}

// TestRefreshMaxIntervalBounded: refresh.max_interval above ten years is
// refused (the revisit arithmetic overflowed past a couple of centuries:
// a review's finding).
func TestRefreshMaxIntervalBounded(t *testing.T) {
	t.Setenv("FOCUSCRAWL_REFRESH_MAX_INTERVAL", "2540400h") // 290 years
	if _, err := Load("", nil); err == nil || !strings.Contains(err.Error(), "refresh.max_interval") {
		t.Errorf("max_interval 290 years: %v", err)
	}
}

// TestNumbersAreWhatTheyLookLike: a config file's number with a leading zero
// is an error (YAML reads "010" as octal 8), a boolean for a number key and
// a number for a boolean key are errors (weak decoding read true as 1 and
// 2 as true), a whole number out of an integer key's range is an error
// naming the key (1e20 wrapped round), and keys that differ only in case are
// one key set twice. Explicit octal, hex and "08" (decimal to YAML) load.
func TestNumbersAreWhatTheyLookLike(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	for _, tc := range []struct{ yaml, want string }{
		{"crawl:\n  batch_size: 010\n", "leading zero"},
		{"crawl:\n  batch_size: -010\n", "leading zero"},
		{"fetch:\n  retries: true\n", "fetch.retries"},
		{"fetch:\n  allow_private_networks: 1\n", "write true or false"},
		{"fetch:\n  max_body_bytes: 1e20\n", "out of range"},
		{"crawl:\n  batch_size: 1e19\n", "out of range"},
		{"crawl:\n  batch_size: 4\nCrawl:\n  pipelines: 2\n", "set again"},
		{"crawl:\n  batch_size: 4\n  Batch_Size: 8\n", "set again"},
	} {
		if err := os.WriteFile(file, []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(file, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one saying %q", tc.yaml, err, tc.want)
		}
	}
	if err := os.WriteFile(file, []byte("crawl:\n  batch_size: 0o10\n  pipelines: 0x3\nfetch:\n  retries: 08\n  allow_private_networks: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Crawl.BatchSize != 8 || c.Crawl.Pipelines != 3 || c.Fetch.Retries != 8 || !c.Fetch.AllowPrivateNetworks {
		t.Errorf("explicit octal, hex and 08 loaded as batch_size %d, pipelines %d, retries %d, allow_private_networks %v",
			c.Crawl.BatchSize, c.Crawl.Pipelines, c.Fetch.Retries, c.Fetch.AllowPrivateNetworks)
	}
	t.Setenv("FOCUSCRAWL_FETCH_ALLOW_PRIVATE_NETWORKS", "1") // strings still parse as booleans
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(file, nil); err != nil || !c.Fetch.AllowPrivateNetworks {
		t.Errorf("FOCUSCRAWL_FETCH_ALLOW_PRIVATE_NETWORKS=1: %v, %v; want true", err, c)
	}
}

// TestCatchupWindowBelowServerMinimumLoads: a configuration whose
// schedule.catchup_window is below the Temporal server's 10 s minimum, 0
// included (valid in earlier releases), loads: every command loads it,
// the worker too, and only `starter schedule create` sends it (and
// refuses it there, internal/crawlctl). Refusing it here stopped the
// worker from starting after an upgrade. A negative window is refused.
func TestCatchupWindowBelowServerMinimumLoads(t *testing.T) {
	dir := t.TempDir()
	for v, want := range map[string]time.Duration{"0": 0, "0s": 0, "9s": 9 * time.Second, "10s": MinCatchupWindow} {
		file := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(file, []byte("schedule:\n  catchup_window: "+v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if c, err := Load(file, nil); err != nil || c.Schedule.CatchupWindow != want {
			t.Errorf("catchup_window %s: %v; want it loaded as %s", v, err, want)
		}
	}
	t.Setenv("FOCUSCRAWL_SCHEDULE_CATCHUP_WINDOW", "-1s")
	if _, err := Load("", nil); err == nil || !strings.Contains(err.Error(), "schedule.catchup_window") {
		t.Errorf("catchup_window -1s: %v; want it refused by its key", err)
	}
}

// TestLeaseShorterThanAFetchRefused: a claim whose lease runs out while its
// page is still being fetched is taken back by the store, and the crawl
// went on claiming past its page budget (crawl.lease=2s and 6 s answers:
// 256 pages fetched of a budget of 40). A lease that cannot cover a fetch
// and its host's two politeness slots is refused, with a long host_delay
// too; the default loads, and so does a raised max_host_delay with the
// default lease (a review found the first bound refusing it).
func TestLeaseShorterThanAFetchRefused(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		refused bool
	}{
		{map[string]string{"FOCUSCRAWL_CRAWL_LEASE": "2s"}, true},
		{map[string]string{"FOCUSCRAWL_FETCH_HOST_DELAY": "2m", "FOCUSCRAWL_CRAWL_LEASE": "5m"}, true},
		{map[string]string{}, false},
		{map[string]string{"FOCUSCRAWL_FETCH_MAX_HOST_DELAY": "3m"}, false},
		{map[string]string{"FOCUSCRAWL_CRAWL_LEASE": "2m1s"}, false}, // 1m + 2 × 30.01s
		// A max_host_delay so long that twice it wraps int64 must not let
		// any lease through (a review's finding).
		{map[string]string{"FOCUSCRAWL_FETCH_MAX_HOST_DELAY": "2000000h", "FOCUSCRAWL_CRAWL_LEASE": "1s"}, true},
		// Without robots.txt no Crawl-delay is read: max_host_delay does
		// not count, host_delay does.
		{map[string]string{"FOCUSCRAWL_FETCH_RESPECT_ROBOTS": "false", "FOCUSCRAWL_FETCH_MAX_HOST_DELAY": "10m", "FOCUSCRAWL_CRAWL_LEASE": "2m1s"}, false},
		{map[string]string{"FOCUSCRAWL_FETCH_RESPECT_ROBOTS": "false", "FOCUSCRAWL_FETCH_HOST_DELAY": "2m", "FOCUSCRAWL_CRAWL_LEASE": "5m"}, true},
	} {
		t.Run(fmt.Sprint(tc.env), func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := Load("", nil)
			if refused := err != nil && strings.Contains(err.Error(), "crawl.lease"); refused != tc.refused || (err != nil && !refused) {
				t.Errorf("%v: Load error %v; want crawl.lease refused: %v", tc.env, err, tc.refused)
			}
		})
	}
}

// TestErrorsNameWhereTheValueCameFrom: a bad value given as a flag or in
// the file is said to come from there, not named by its environment
// variable alone (a new user's trial: --fetch.host_delay=5 was reported as
// "(env FOCUSCRAWL_FETCH_HOST_DELAY)"); one from the environment is named
// as before.
func TestErrorsNameWhereTheValueCameFrom(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(file, []byte("crawl:\n  pipelines: -1\n"), 0o644)
	load := func(file string, args ...string) error {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		_, err := Load(file, fs)
		return err
	}
	for _, c := range []struct {
		name, want string
		err        error
	}{
		{"flag, decoding", "fetch.host_delay (set by flag --fetch.host_delay; env FOCUSCRAWL_FETCH_HOST_DELAY)", load("", "--fetch.host_delay=5")},
		{"file, validation", "crawl.pipelines (set by file " + file + "; env FOCUSCRAWL_CRAWL_PIPELINES)", load(file)},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v; want it to name %q", c.name, c.err, c.want)
		}
	}
	t.Setenv("FOCUSCRAWL_FETCH_HOST_DELAY", "5")
	if err := load(""); err == nil || !strings.Contains(err.Error(), "fetch.host_delay (env FOCUSCRAWL_FETCH_HOST_DELAY)") {
		t.Errorf("env: %v; want the key named with its environment variable", err)
	}
}
