// Package config loads focuscrawl's one configuration: built-in defaults,
// then an optional YAML file, then FOCUSCRAWL_* environment variables, then
// command-line flags (later sources win). Every key is documented in
// config.example.yaml at the repository root; the environment variable of a
// key is FOCUSCRAWL_ plus the key upper-cased with dots replaced by
// underscores (fetch.host_delay → FOCUSCRAWL_FETCH_HOST_DELAY).
//
// Load validates the result and reports the first bad field by its key, so a
// typo in a file or an environment variable fails fast with a clear message.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"

	"focuscrawl/internal/fetch"
	"focuscrawl/internal/suggest"
	"focuscrawl/internal/yamlerr"
)

// EnvPrefix prefixes every environment variable that overrides a key.
const EnvPrefix = "FOCUSCRAWL"

// Config is the whole configuration of a focuscrawl process (every command).
type Config struct {
	Temporal Temporal `mapstructure:"temporal"`
	Store    Store    `mapstructure:"store"`
	Index    Index    `mapstructure:"index"`
	Fetch    Fetch    `mapstructure:"fetch"`
	Crawl    Crawl    `mapstructure:"crawl"`
	Log      Log      `mapstructure:"log"`
	Refresh  Refresh  `mapstructure:"refresh"`
	Schedule Schedule `mapstructure:"schedule"`
	Metrics  Metrics  `mapstructure:"metrics"`
}

// Refresh configures RefreshWorkflow, the incremental revisit of a topic's
// accepted pages and hubs (docs/operations.md has the interval formula).
type Refresh struct {
	MinInterval      time.Duration `mapstructure:"min_interval"`       // shortest revisit interval of a page
	MaxInterval      time.Duration `mapstructure:"max_interval"`       // longest revisit interval of a page
	InitialInterval  time.Duration `mapstructure:"initial_interval"`   // interval of a page never revisited yet
	BatchSize        int           `mapstructure:"batch_size"`         // pages per refresh batch
	MaxPages         int           `mapstructure:"max_pages"`          // pages revisited per refresh run
	HubMinScore      float64       `mapstructure:"hub_min_score"`      // non-accepted pages with a hub score >= this are revisited too; 0 = none
	ContinueMaxPages int           `mapstructure:"continue_max_pages"` // bounded crawl after a refresh that found new links; 0 = off
	RecheckDropped   int           `mapstructure:"recheck_dropped"`    // times a page found gone, unparsable or no longer accepted is checked again before it is given up; 0 = never
	// DropUnreachableAfter: an accepted page whose revisits have failed
	// this long in a row for its host being down (and at least
	// revisit.MinUnreachableChecks times) is taken out of the index until
	// its host answers again; it is kept and revisited meanwhile. 0 =
	// never.
	DropUnreachableAfter time.Duration `mapstructure:"drop_unreachable_after"`
}

// Schedule holds the defaults of `starter schedule create`.
type Schedule struct {
	Interval      time.Duration `mapstructure:"interval"`       // run every ..., unless --cron is given
	CatchupWindow time.Duration `mapstructure:"catchup_window"` // missed runs older than this are skipped
	Jitter        time.Duration `mapstructure:"jitter"`         // random delay added to each run
	Overlap       string        `mapstructure:"overlap"`        // skip, buffer_one, buffer_all, cancel_other, terminate_other, allow_all
}

// Metrics configures the worker's Prometheus endpoint.
type Metrics struct {
	Address string `mapstructure:"address"` // host:port of /metrics; "" disables it
}

// Temporal says where the Temporal server is.
type Temporal struct {
	Address   string `mapstructure:"address"`    // host:port of the frontend
	Namespace string `mapstructure:"namespace"`  //
	TaskQueue string `mapstructure:"task_queue"` // workers poll it, starters start workflows on it
	UIURL     string `mapstructure:"ui_url"`     // shown to users; informational only
}

// Store selects the crawl store backend (internal/store/backend).
type Store struct {
	Driver string `mapstructure:"driver"` // "sqlite" or "postgres"
	Path   string `mapstructure:"path"`   // SQLite database file (driver sqlite)
	// DSN is the PostgreSQL connection string (driver postgres), a
	// postgres:// URL or key=value pairs as libpq reads them. Usually set
	// through FOCUSCRAWL_STORE_DSN, since it may carry a password.
	DSN string `mapstructure:"dsn"`
}

// Index selects the search index backend.
type Index struct {
	Driver        string        `mapstructure:"driver"` // "sqlite" or "elasticsearch"
	Path          string        `mapstructure:"path"`   // SQLite FTS5 database file
	Elasticsearch Elasticsearch `mapstructure:"elasticsearch"`
}

// Elasticsearch says how to reach the cluster when index.driver is
// "elasticsearch" (internal/index/elastic).
type Elasticsearch struct {
	Addresses          []string      `mapstructure:"addresses"`            // node URLs, http:// or https://
	APIKey             string        `mapstructure:"api_key"`              // base64 "encoded" API key; wins over username/password
	Username           string        `mapstructure:"username"`             // basic auth
	Password           string        `mapstructure:"password"`             //
	CACert             string        `mapstructure:"ca_cert"`              // PEM file of CAs to trust for https
	InsecureSkipVerify bool          `mapstructure:"insecure_skip_verify"` // no TLS verification (throw-away clusters only)
	RequestTimeout     time.Duration `mapstructure:"request_timeout"`      // per request to the cluster
	MaxRetries         int           `mapstructure:"max_retries"`          // on 502/503/504 and network errors
	IndexPrefix        string        `mapstructure:"index_prefix"`         // names: PREFIX-idx-TOPIC-NNNNNN, aliases PREFIX-topic-TOPIC, PREFIX-all
}

// Fetch configures the HTTP fetcher and politeness. The fetcher's own
// settings are fetch.Config itself: its defaults (fetch.DefaultConfig) and
// its validation (fetch.Config.Validate) are owned there and not repeated
// here; the politeness delays, which the crawl applies, are this section's.
type Fetch struct {
	fetch.Config `mapstructure:",squash"`
	HostDelay    time.Duration `mapstructure:"host_delay"` // minimum gap between two requests to one host
	// MaxHostDelay is the longest politeness wait a fetch takes; a host
	// whose Crawl-delay is longer is held for it after each request instead
	// (activities' holdForCrawlDelay).
	MaxHostDelay time.Duration `mapstructure:"max_host_delay"`
	DelayMargin  time.Duration `mapstructure:"delay_margin"` // added to every non-zero host delay: timer and network jitter never bring two requests closer than the delay
	// MaxHostHold caps how long a host that answers 429 or 503 (or sends
	// Retry-After) is left alone: for its Retry-After, or
	// fetch.retry_max_delay without one, at most this long (> 0); and a
	// host whose robots.txt Crawl-delay is longer than max_host_delay, for
	// the Crawl-delay (also at most half of fetch.robots_ttl).
	MaxHostHold time.Duration `mapstructure:"max_host_hold"`
}

// PoliteDelay is the gap between two requests to a host whose robots.txt
// sets crawlDelay (0: none, or not known yet): host_delay, or the
// Crawl-delay when longer and robots.txt is respected, capped by
// max_host_delay (or host_delay when that is longer), plus delay_margin
// when not zero — the host sees a request when it arrives, not when it was
// sent, and the margin absorbs the jitter between the two. The crawl's
// fetches and the topic bootstrap's both space requests by it.
func (f Fetch) PoliteDelay(crawlDelay time.Duration) time.Duration {
	delay := f.HostDelay
	if f.RespectRobots && crawlDelay > delay {
		delay = min(crawlDelay, max(f.MaxHostDelay, f.HostDelay))
	}
	if delay > 0 {
		delay += f.DelayMargin
	}
	return delay
}

// Crawl configures how the crawl workflow schedules work. The worker's
// values are recorded in workflow history when a crawl starts, so changing
// them affects new crawls only.
type Crawl struct {
	BatchSize          int           `mapstructure:"batch_size"`            // most pages processed together (their store writes share transactions)
	Pipelines          int           `mapstructure:"pipelines"`             // crawl slices (streaming fetch activities) in flight per crawl
	Hosts              int           `mapstructure:"hosts"`                 // hosts one slice serves at once, one request in flight each
	ClaimRatio         float64       `mapstructure:"claim_ratio"`           // a free host takes its best entry only if it scores at least this share of the frontier's best
	SeedExplore        int           `mapstructure:"seed_explore"`          // with seeds on two hosts or more, each seed host is explored (its best entry claimed below claim_ratio, its pages expanded) until it has this many judged pages, at most a quarter of the budget among them; 0 = off
	HoldUnscored       bool          `mapstructure:"hold_unscored"`         // while pages of the topic are in flight (any worker; claims of the last 2 × fetch.max_fetch_time), links scored 0 wait: those pages may add better ones
	HostYield          bool          `mapstructure:"host_yield"`            // scale link priorities by how often the target host's pages were relevant (internal/hostyield)
	GroupLinger        time.Duration `mapstructure:"group_linger"`          // how long a processor with a part-filled group waits for more fetched pages (fetchloop.Config.Linger)
	Slice              time.Duration `mapstructure:"slice"`                 // how long a slice claims before it reports to the workflow
	SlicesPerRun       int           `mapstructure:"slices_per_run"`        // continue-as-new after this many slices
	FetchConcurrency   int           `mapstructure:"fetch_concurrency"`     // HTTP requests in flight per worker
	MaxFrontierPerHost int           `mapstructure:"max_frontier_per_host"` // spider-trap cap
	Lease              time.Duration `mapstructure:"lease"`                 // how long a claim lasts before the entries return to the queue
	KeepBodies         bool          `mapstructure:"keep_bodies"`           // keep raw bodies after parsing
	HeartbeatTimeout   time.Duration `mapstructure:"heartbeat_timeout"`
	// StopTimeout is how long a worker told to stop (SIGTERM, Ctrl-C) gives
	// its running activities (and, before them, its workflow tasks): crawl
	// slices stop claiming and sending at once and end once the pages
	// already requested are saved and judged, so the crawl goes on at once
	// on another worker instead of after heartbeat_timeout, and no request
	// is sent twice; whatever still runs then is cancelled and retried
	// elsewhere, as after a crash. 0 = cancel at once.
	StopTimeout time.Duration `mapstructure:"stop_timeout"`
	LearnEvery  int           `mapstructure:"learn_every"` // LearnLinkModel after this many new result pages (seed 002's cf), or 1/4 of those at its last run if more; 0 = never
	// TermSample bounds a topic's term statistics (the IDF of page and
	// link scores) to its first this many parsed pages; later pages are
	// not counted, and a worker keeps the frozen statistics in memory.
	// 0 = count every page. It is the size of the samples this worker
	// starts: a sample started by another worker keeps that one's size
	// (store.GroupWrite.TermSample).
	TermSample  int    `mapstructure:"term_sample"`
	RankEvery   int    `mapstructure:"rank_every"`   // RecomputeHubAuthority after this many accepted pages, or 1/4 of those accepted at its last run if more (and at crawl end); 0 = only at the end
	LexiconDir  string `mapstructure:"lexicon_dir"`  // where a topic's "lexicon: name" is looked up (name.txt) before the bundled lexicons
	ExpandEvery int    `mapstructure:"expand_every"` // ExpandSeeds (seed 003) every this many new accepted pages, if the topic sets strategy.expand; 0 = never
	// CalendarPastYears and CalendarFutureYears bound calendar spider traps:
	// a link whose URL carries a date (urlnorm.CalendarYears) more than this
	// many years before / after the present is not admitted; 0 = no bound
	// on that side.
	CalendarPastYears   int `mapstructure:"calendar_past_years"`
	CalendarFutureYears int `mapstructure:"calendar_future_years"`
}

// Log configures logging.
type Log struct {
	Level string `mapstructure:"level"` // debug, info, warn, error
}

// Defaults returns the built-in defaults: a polite production crawler
// talking to a local Temporal dev server with embedded SQLite state under var/.
func Defaults() map[string]any {
	d := map[string]any{
		"temporal.address":    "127.0.0.1:7233",
		"temporal.namespace":  "default",
		"temporal.task_queue": "focuscrawl",
		"temporal.ui_url":     "http://127.0.0.1:8233",

		"store.driver": "sqlite",
		"store.path":   "var/crawl.db",
		"store.dsn":    "",
		"index.driver": "sqlite",
		"index.path":   "var/index.db",

		"index.elasticsearch.addresses":            []string{"http://127.0.0.1:9200"},
		"index.elasticsearch.api_key":              "",
		"index.elasticsearch.username":             "",
		"index.elasticsearch.password":             "",
		"index.elasticsearch.ca_cert":              "",
		"index.elasticsearch.insecure_skip_verify": false,
		"index.elasticsearch.request_timeout":      30 * time.Second,
		"index.elasticsearch.max_retries":          3,
		"index.elasticsearch.index_prefix":         "focuscrawl",

		"fetch.host_delay":     time.Second,
		"fetch.max_host_delay": 30 * time.Second,
		"fetch.delay_margin":   50 * time.Millisecond,
		"fetch.max_host_hold":  time.Hour,

		"crawl.batch_size":            32,
		"crawl.pipelines":             2,
		"crawl.hosts":                 64,
		"crawl.claim_ratio":           0.9,
		"crawl.seed_explore":          16,
		"crawl.hold_unscored":         true,
		"crawl.host_yield":            true,
		"crawl.slice":                 time.Minute,
		"crawl.group_linger":          5 * time.Millisecond,
		"crawl.slices_per_run":        200,
		"crawl.fetch_concurrency":     16,
		"crawl.max_frontier_per_host": 20000,
		"crawl.lease":                 15 * time.Minute,
		"crawl.keep_bodies":           false,
		"crawl.heartbeat_timeout":     20 * time.Second,
		"crawl.stop_timeout":          10 * time.Second,
		"crawl.learn_every":           150,
		"crawl.term_sample":           1000,
		"crawl.rank_every":            500,
		"crawl.lexicon_dir":           "lexicons",
		"crawl.expand_every":          0,
		"crawl.calendar_past_years":   20,
		"crawl.calendar_future_years": 1,

		"log.level": "info",

		"refresh.min_interval":           time.Hour,
		"refresh.max_interval":           30 * 24 * time.Hour,
		"refresh.initial_interval":       24 * time.Hour,
		"refresh.batch_size":             32,
		"refresh.max_pages":              2000,
		"refresh.hub_min_score":          0.0,
		"refresh.continue_max_pages":     0,
		"refresh.recheck_dropped":        3,
		"refresh.drop_unreachable_after": 72 * time.Hour,

		"schedule.interval":       24 * time.Hour,
		"schedule.catchup_window": time.Hour,
		"schedule.jitter":         time.Duration(0),
		"schedule.overlap":        "skip",

		"metrics.address": "127.0.0.1:9464",
	}
	// The fetcher's defaults are fetch.DefaultConfig's, under their keys.
	fc := reflect.ValueOf(fetch.DefaultConfig())
	for i := range fc.NumField() {
		d["fetch."+fc.Type().Field(i).Tag.Get("mapstructure")] = fc.Field(i).Interface()
	}
	return d
}

// fetchKey is the configuration key of a fetch.Config field.
func fetchKey(field string) string {
	f, _ := reflect.TypeFor[fetch.Config]().FieldByName(field)
	return "fetch." + f.Tag.Get("mapstructure")
}

// Load builds the configuration. file may be "" (defaults + environment +
// flags only); a named file must exist. flags may be nil; only flags the
// user actually set override other sources, matched by key name (a flag
// named "fetch.host_delay" overrides that key).
func Load(file string, flags *pflag.FlagSet) (*Config, error) {
	v := viper.New()
	for k, val := range Defaults() {
		v.SetDefault(k, val)
	}
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	if file != "" {
		if _, err := os.Stat(file); err != nil {
			return nil, fmt.Errorf("config file: %w", err)
		}
		if err := checkFileShape(file); err != nil {
			return nil, err
		}
		v.SetConfigFile(file)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return nil, fmt.Errorf("config file %s: %w", file, err)
		}
		if err := checkUnknownKeys(v, file); err != nil {
			return nil, err
		}
	}
	if flags != nil {
		var err error
		flags.Visit(func(f *pflag.Flag) {
			if _, known := Defaults()[f.Name]; known && err == nil {
				err = v.BindPFlag(f.Name, f)
			}
		})
		if err != nil {
			return nil, fmt.Errorf("config flags: %w", err)
		}
	}
	// AutomaticEnv only answers Get for single keys; Unmarshal needs every
	// key visited so environment overrides reach the struct.
	settings := map[string]any{}
	for k := range Defaults() {
		settings[k] = v.Get(k)
		// viper skips an environment variable set to "", but for text
		// keys "" is a setting ("metrics.address": "" disables metrics),
		// and for any other it is a mistake to point out, as in the file
		// (emptyNumberHook, durationHook): set-but-empty wins over the file
		// and the default, as any other value would (a flag still wins
		// over it).
		if val, ok := os.LookupEnv(EnvName(k)); ok && val == "" && (flags == nil || !flags.Changed(k)) {
			settings[k] = ""
		}
	}
	var c Config
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result:           &c,
		WeaklyTypedInput: true,
		DecodeHook: mapstructure.ComposeDecodeHookFunc(
			durationHook,
			emptyNumberHook,
			wholeNumberHook,
			numberToBoolHook,
			stringToMapHook,
			stringToSliceHook,
		),
	})
	if err != nil {
		return nil, err
	}
	if err := dec.Decode(nest(settings)); err != nil {
		return nil, attributed(decodeError(err), keySource(v, file, flags))
	}
	if err := c.Validate(); err != nil {
		return nil, attributed(err, keySource(v, file, flags))
	}
	return &c, nil
}

// keySource returns, for a key, where its value came from as an error about
// it should say — "flag --fetch.host_delay", "env FOCUSCRAWL_…", "file
// PATH" — in viper's order of precedence; "" for a default. An error named
// every key by its environment variable, and a value given as a flag read
// as if the environment had set it (a new user's trial).
func keySource(v *viper.Viper, file string, flags *pflag.FlagSet) func(string) string {
	return func(k string) string {
		switch {
		case flags != nil && flags.Changed(k):
			return "flag --" + k
		case envSet(k):
			return "env " + EnvName(k)
		case file != "" && v.InConfig(k):
			return "file " + file
		}
		return ""
	}
}

func envSet(k string) bool {
	_, ok := os.LookupEnv(EnvName(k))
	return ok
}

// attributed rewrites the "KEY (env NAME)" an error names a key by into
// "KEY (set by SOURCE; env NAME)" when the value came from a flag or a file
// (source), and leaves the rest of the error as it is.
func attributed(err error, source func(string) string) error {
	msg := err.Error()
	changed := false
	for k := range Defaults() {
		named := k + " (env " + EnvName(k) + ")"
		if !strings.Contains(msg, named) {
			continue
		}
		switch src := source(k); {
		case src == "" || strings.HasPrefix(src, "env "):
			continue // the environment, or the default: named as before
		default:
			msg = strings.ReplaceAll(msg, named, k+" (set by "+src+"; env "+EnvName(k)+")")
			changed = true
		}
	}
	if !changed {
		return err
	}
	return errors.New(msg)
}

// decodeError names the keys a decoding error is about with their
// environment variables, as validation errors do: mapstructure quotes the
// key ("'crawl.pipelines' cannot parse value as 'int'") but not where the
// value came from, and an environment variable is the usual place.
//
// Several errors are put on one line: mapstructure wrote them on lines of
// their own under "decoding failed due to the following error(s):", and
// the worker's start-up error, which should be one line in a log, took
// four (chaos trial, a config file with a bad host_delay).
func decodeError(err error) error {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		err = oneLine(flatten(joined.Unwrap()))
	}
	msg := err.Error()
	var named []string
	for k := range Defaults() {
		if strings.Contains(msg, "'"+k+"'") {
			named = append(named, fmt.Sprintf("%s (env %s)", k, EnvName(k)))
		}
	}
	if len(named) == 0 {
		return fmt.Errorf("config: %w", err)
	}
	sort.Strings(named)
	return fmt.Errorf("config %s: %w", strings.Join(named, ", "), err)
}

// oneLine is several errors written on one line, "; " between them.
type oneLine []error

func (e oneLine) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (e oneLine) Unwrap() []error { return e }

// flatten lists the errors in errs, those joined inside them (errors.Join,
// as mapstructure nests them per struct) in their place, sorted by message
// so that the line does not change from run to run.
func flatten(errs []error) []error {
	var out []error
	for _, err := range errs {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			out = append(out, flatten(j.Unwrap())...)
		} else if err != nil {
			out = append(out, err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Error() < out[j].Error() })
	return out
}

// checkFileShape refuses what viper would read silently wrong: a second
// YAML document after "---" (viper reads the first and drops the rest)
// and a setting written with no value ("address:" is null, which viper
// takes for "not set", so the default stays: metrics.address's "" turns
// metrics off, its null left them on). A section with nothing but
// comments under it is fine.
func checkFileShape(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // empty: every default
		}
		return fmt.Errorf("config file %s: %w", file, yamlerr.Explain(data, err))
	}
	for {
		// A trailing "---" (or one followed by comments only) is an empty
		// document: nothing in it would be ignored.
		var more yaml.Node
		err := dec.Decode(&more)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || !emptyDocument(&more) {
			return fmt.Errorf("config file %s: a config file is one YAML document; remove the second one (after \"---\"), which would be ignored", file)
		}
	}
	known := Defaults()
	var walk func(n *yaml.Node, prefix string) error
	walk = func(n *yaml.Node, prefix string) error {
		if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
			return walk(n.Content[0], prefix)
		}
		if n.Kind != yaml.MappingNode {
			return nil
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := prefix + strings.ToLower(n.Content[i].Value)
			val := n.Content[i+1]
			// viper folds keys to lower case, so "Crawl:" and "crawl:" were
			// one section, their settings merged in an order nobody chose.
			if line, dup := seen[key]; dup {
				return fmt.Errorf("config file %s: line %d: %s is set again (line %d; keys differ only in case, which is the same key)", file, n.Content[i].Line, key, line)
			}
			seen[key] = n.Content[i].Line
			if _, leaf := known[key]; leaf && val.Kind == yaml.ScalarNode && val.Tag == "!!int" && octalLooking(val.Value) {
				return fmt.Errorf("config file %s: line %d: %s: %s has a leading zero, which YAML reads as an octal number; write it without the zero (or 0o%s for octal)", file, val.Line, key, val.Value, strings.TrimLeft(val.Value, "+-0"))
			}
			if _, leaf := known[key]; leaf && val.Kind == yaml.ScalarNode && val.Tag == "!!null" {
				return fmt.Errorf("config file %s: line %d: %s has no value (write a value, or \"\" for empty text, or remove the line for the default)", file, val.Line, key)
			}
			if isSection(known, key) && val.Kind != yaml.MappingNode && !(val.Kind == yaml.ScalarNode && val.Tag == "!!null") {
				return fmt.Errorf("config file %s: line %d: %s is a section of settings, not a value", file, val.Line, key)
			}
			if err := walk(val, key+"."); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(&doc, "")
}

// octalLooking reports whether an integer's YAML text has a leading zero
// that makes the YAML library read it as octal ("010" is 8): a digit after
// the zero, no 0o/0x/0b prefix.
func octalLooking(v string) bool {
	v = strings.TrimLeft(v, "+-")
	return len(v) > 1 && v[0] == '0' && v[1] >= '0' && v[1] <= '9'
}

// emptyDocument reports whether n is a YAML document with nothing in it.
func emptyDocument(n *yaml.Node) bool {
	if n.Kind == 0 {
		return true
	}
	if n.Kind == yaml.DocumentNode {
		return len(n.Content) == 0 || (n.Content[0].Kind == yaml.ScalarNode && n.Content[0].Tag == "!!null")
	}
	return false
}

// checkUnknownKeys rejects keys in the file that focuscrawl does not know,
// so a misspelt key is an error rather than a silently ignored setting. A
// section with no settings in it (every line under "crawl:" commented out:
// viper lists "crawl" itself) is no unknown key.
func checkUnknownKeys(v *viper.Viper, file string) error {
	known := Defaults()
	for _, k := range v.AllKeys() {
		if _, ok := known[k]; ok {
			continue
		}
		if isSection(known, k) {
			continue // null (checkFileShape refuses a section given a value)
		}
		if strings.HasPrefix(k, "fetch.resolve.") {
			continue
		}
		if hint := keyHint(k, known); hint != "" {
			return fmt.Errorf("config file %s: unknown key %q (did you mean %q?)", file, k, hint)
		}
		return fmt.Errorf("config file %s: unknown key %q", file, k)
	}
	return nil
}

// keyHint is the known key an unknown one was probably meant as: the
// closest by edits within its own section, or — for a key at the top level
// — the one key of a section whose last part it is (host_delay is
// fetch.host_delay); "" when there is none. A key of a section is not sent
// to another section by its last part: fetch.max_retries is not
// index.elasticsearch.max_retries. max_pages is no config key at all (a
// crawl's budget is its topic file's limits.max_pages; refresh.max_pages
// bounds a refresh run), so it gets no hint. Topic files and environment
// variables had such hints, config files none (a new user's trial).
func keyHint(k string, known map[string]any) string {
	section := ""
	if i := strings.LastIndex(k, "."); i >= 0 {
		section = k[:i+1]
	}
	var same []string
	for c := range known {
		if strings.HasPrefix(c, section) && !strings.Contains(c[len(section):], ".") {
			same = append(same, c)
		}
	}
	slices.Sort(same)
	if s := suggest.Closest(k, same, min(3, max(1, len(k)/4))); s != "" {
		return s
	}
	if section != "" || k == "max_pages" {
		return ""
	}
	var found []string
	for c := range known {
		if strings.HasSuffix(c, "."+k) {
			found = append(found, c)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return ""
}

// isSection reports whether k is a section of the known keys ("crawl").
func isSection(known map[string]any, k string) bool {
	for name := range known {
		if strings.HasPrefix(name, k+".") {
			return true
		}
	}
	return false
}

// nest turns dotted keys into nested maps for mapstructure.
func nest(flat map[string]any) map[string]any {
	out := map[string]any{}
	for k, val := range flat {
		parts := strings.Split(k, ".")
		m := out
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		m[parts[len(parts)-1]] = val
	}
	return out
}

// durationType is the type of every duration key.
var durationType = reflect.TypeFor[time.Duration]()

// durationHook decodes durations from strings with units only ("2s", "24h").
// A bare number other than 0 is refused: YAML gives it as an int, and decoding that as
// nanoseconds turned "host_delay: 2" into no politeness at all and
// "robots_ttl: 86400" into 86 µs. Environment variables and flags arrive as
// strings and time.ParseDuration already refuses "2" there. mapstructure
// names the key in the error. The built-in defaults are time.Duration values
// and pass through.
func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != durationType || from == durationType {
		return data, nil
	}
	switch from.Kind() {
	case reflect.String:
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		// 0 is 0 in every unit, and time.ParseDuration takes "0" from the
		// environment and flags too ("group_linger: 0 = never").
		if reflect.ValueOf(data).Convert(reflect.TypeFor[float64]()).Float() == 0 {
			return time.Duration(0), nil
		}
		return nil, fmt.Errorf("%v is a bare number: write a duration with a unit, such as \"%vs\" or \"%vms\"", data, data, data)
	default:
		// "host_delay: true" was "true is a bare number … \"trues\"".
		return nil, fmt.Errorf("%v is not a duration: write one with a unit, such as \"1.5s\", \"10m\" or \"24h\"", data)
	}
	d, err := time.ParseDuration(strings.TrimSpace(data.(string)))
	if err != nil {
		return nil, fmt.Errorf("%q is not a duration with a unit such as \"1.5s\", \"10m\" or \"24h\"", data)
	}
	return d, nil
}

// stringToSliceHook splits a list given as one string (an environment
// variable, a flag) at commas, each entry trimmed: "http://a:9200,
// http://b:9200" is two addresses. An empty string is an empty list.
func stringToSliceHook(from, to reflect.Type, data any) (any, error) {
	if from.Kind() != reflect.String || to.Kind() != reflect.Slice {
		return data, nil
	}
	raw := data.(string)
	if strings.TrimSpace(raw) == "" {
		return []string{}, nil
	}
	parts := strings.Split(raw, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts, nil
}

// emptyNumberHook refuses an empty string for a numeric key: weakly typed
// decoding reads it as 0, so an empty retries meant no retries and an
// empty max_body_bytes a zero limit, without a word. A key left out keeps
// its default; an empty value is a mistake to point out.
func emptyNumberHook(from, to reflect.Type, data any) (any, error) {
	if from.Kind() != reflect.String || strings.TrimSpace(data.(string)) != "" {
		return data, nil
	}
	switch to.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return nil, errors.New("an empty value: write a number, or leave the key out for its default")
	case reflect.Bool:
		return nil, errors.New("an empty value: write true or false, or leave the key out for its default")
	}
	return data, nil
}

// wholeNumberHook refuses a fractional number for an integer key: weakly
// typed decoding truncates it, so "max_redirects: 2.5" meant 2 and
// "retries: 0.9" none, without a word. Whole numbers in float notation
// ("1e7") pass; one out of the key's range ("1e20") is refused (it wrapped
// round to a negative number, and the error quoted that). A boolean is no
// number ("retries: true" meant 1). It runs after durationHook, which has
// turned duration keys into time.Duration values already.
func wholeNumberHook(from, to reflect.Type, data any) (any, error) {
	switch to.Kind() {
	case reflect.Float32, reflect.Float64:
		if from.Kind() == reflect.Bool { // "claim_ratio: true" meant 1
			return nil, fmt.Errorf("%v is not a number", data)
		}
		return data, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		return data, nil
	}
	if from.Kind() == reflect.Bool {
		return nil, fmt.Errorf("%v is not a number", data)
	}
	if from.Kind() == reflect.String && octalLooking(strings.TrimSpace(data.(string))) {
		// mapstructure parses strings with base 0: "010" from the
		// environment, a flag or a quoted YAML value was 8.
		return nil, fmt.Errorf("%q has a leading zero, which would be read as an octal number; write it without the zero (or 0o%s for octal)", data, strings.TrimLeft(strings.TrimSpace(data.(string)), "+-0"))
	}
	if from.Kind() != reflect.Float32 && from.Kind() != reflect.Float64 {
		return data, nil
	}
	f := reflect.ValueOf(data).Float()
	if f != math.Trunc(f) {
		return nil, fmt.Errorf("%v is not a whole number", data)
	}
	v := reflect.New(to).Elem()
	if to.Kind() >= reflect.Uint && to.Kind() <= reflect.Uint64 {
		// 2^64 itself is a float64 that no uint64 holds.
		if f < 0 || f >= math.Exp2(64) || v.OverflowUint(uint64(f)) {
			return nil, fmt.Errorf("%v is out of range", data)
		}
	} else if f < math.MinInt64 || f >= math.Exp2(63) || v.OverflowInt(int64(f)) {
		return nil, fmt.Errorf("%v is out of range", data)
	}
	return data, nil
}

// numberToBoolHook refuses a number for a boolean key: weakly typed
// decoding reads any non-zero number as true ("allow_private_networks: 0"
// is false, "2" true, without a word). Strings — environment variables,
// flags — still go through strconv.ParseBool ("1", "true").
func numberToBoolHook(from, to reflect.Type, data any) (any, error) {
	if to.Kind() != reflect.Bool {
		return data, nil
	}
	switch from.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return nil, fmt.Errorf("%v is a number: write true or false", data)
	}
	return data, nil
}

// stringToMapHook decodes "k=v,k2=v2" (as environment variables give it)
// into a map[string]string.
func stringToMapHook(from, to reflect.Type, data any) (any, error) {
	if from.Kind() != reflect.String || to.Kind() != reflect.Map {
		return data, nil
	}
	s := strings.TrimSpace(data.(string))
	out := map[string]string{}
	if s == "" {
		return out, nil
	}
	for _, pair := range strings.Split(s, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not a key=value pair", pair)
		}
		out[k] = val
	}
	return out, nil
}

// Validate checks every field and names the first bad one by its key.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key string, format string, args ...any) {
		errs = append(errs, fmt.Errorf("config %s (env %s): %s", key, EnvName(key), fmt.Sprintf(format, args...)))
	}
	if _, _, err := net.SplitHostPort(c.Temporal.Address); err != nil {
		bad("temporal.address", "%q is not host:port", c.Temporal.Address)
	}
	if c.Temporal.TaskQueue == "" {
		bad("temporal.task_queue", "must not be empty")
	}
	switch c.Store.Driver {
	case "sqlite":
		if c.Store.Path == "" {
			bad("store.path", "must not be empty")
		}
	case "postgres":
		if c.Store.DSN == "" {
			bad("store.dsn", "must be set for driver postgres (e.g. postgres://user@host:5432/db)")
		}
	default:
		bad("store.driver", "%q is not supported (supported: sqlite, postgres)", c.Store.Driver)
	}
	switch c.Index.Driver {
	case "sqlite":
		if c.Index.Path == "" {
			bad("index.path", "must not be empty")
		}
	case "elasticsearch":
		validateElasticsearch(c.Index.Elasticsearch, bad)
	default:
		bad("index.driver", "%q is not supported (supported: sqlite, elasticsearch)", c.Index.Driver)
	}
	f := c.Fetch
	f.Config.Validate(func(field, format string, args ...any) { bad(fetchKey(field), format, args...) })
	durations := []struct {
		key      string
		val      time.Duration
		positive bool
	}{
		{"crawl.lease", c.Crawl.Lease, true},
		{"crawl.slice", c.Crawl.Slice, true},
		{"crawl.group_linger", c.Crawl.GroupLinger, false},
		{"crawl.heartbeat_timeout", c.Crawl.HeartbeatTimeout, true},
		{"crawl.stop_timeout", c.Crawl.StopTimeout, false},
		{"fetch.host_delay", f.HostDelay, false},
		{"fetch.max_host_delay", f.MaxHostDelay, false},
		{"fetch.delay_margin", f.DelayMargin, false},
		{"fetch.max_host_hold", f.MaxHostHold, true},
	}
	for _, d := range durations {
		switch {
		case d.positive && d.val <= 0:
			bad(d.key, "must be a positive duration, got %s", d.val)
		case d.val < 0:
			bad(d.key, "must not be negative, got %s", d.val)
		}
	}
	// A claim must outlive the fetch it was made for: the fetch with its
	// retries, and the two politeness slots it may wait for at its host
	// (robots.txt counts as a request there, the page a delay after it).
	// A shorter lease runs out under running slices and the store takes
	// their entries back: another worker's slice may claim and request the
	// page again. (It also took the crawl past its page budget — 256 pages
	// fetched of a budget of 40 with a 2 s lease and 6 s answers — until
	// completing a page kept its lapsed claim counted:
	// store.Frontier.CompleteEntries.)
	// Redirects to other hosts' slots are left out: a rare long chain that
	// outlives the lease costs one fetch again, and counting every hop
	// refused working configurations (max_host_delay 3m with the default
	// lease).
	longest := f.PoliteDelay(time.Duration(math.MaxInt64))
	// Saturated: a huge max_host_delay must not wrap the bound negative
	// and let any lease through.
	minLease := time.Duration(math.MaxInt64)
	if longest >= 0 && f.MaxFetchTime >= 0 && longest <= (math.MaxInt64-f.MaxFetchTime)/2 {
		minLease = f.MaxFetchTime + 2*longest
	}
	if c.Crawl.Lease > 0 && c.Crawl.Lease < minLease {
		bad("crawl.lease", "%s is shorter than a fetch may take: at least %s (fetch.max_fetch_time + twice the longest politeness "+
			"delay: fetch.host_delay, or fetch.max_host_delay when fetch.respect_robots reads Crawl-delay, + fetch.delay_margin); "+
			"the lease is how long a claimed entry waits before it is given to another slice, not a fetch timeout", c.Crawl.Lease, minLease)
	}
	cr := c.Crawl
	if !(cr.ClaimRatio >= 0 && cr.ClaimRatio <= 1) { // also rejects NaN
		bad("crawl.claim_ratio", "must be between 0 and 1, got %v", cr.ClaimRatio)
	}
	ints := []struct {
		key      string
		val, min int
		max      int
	}{
		{"crawl.batch_size", cr.BatchSize, 1, 1000},
		{"crawl.pipelines", cr.Pipelines, 1, 64},
		{"crawl.hosts", cr.Hosts, 1, 10000},
		{"crawl.seed_explore", cr.SeedExplore, 0, 1 << 20},
		{"crawl.fetch_concurrency", cr.FetchConcurrency, 1, 256},
		{"crawl.max_frontier_per_host", cr.MaxFrontierPerHost, 0, 1 << 30},
		{"crawl.slices_per_run", cr.SlicesPerRun, 1, 100000},
		{"crawl.learn_every", cr.LearnEvery, 0, 1 << 30},
		{"crawl.term_sample", cr.TermSample, 0, 1 << 30},
		{"crawl.rank_every", cr.RankEvery, 0, 1 << 30},
		{"crawl.expand_every", cr.ExpandEvery, 0, 1 << 30},
		{"crawl.calendar_past_years", cr.CalendarPastYears, 0, 1000},
		{"crawl.calendar_future_years", cr.CalendarFutureYears, 0, 1000},
	}
	for _, i := range ints {
		if i.val < i.min || i.val > i.max {
			bad(i.key, "must be between %d and %d, got %d", i.min, i.max, i.val)
		}
	}
	c.validateRefresh(bad)
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		bad("log.level", "%q is not one of debug, info, warn, error", c.Log.Level)
	}
	return errors.Join(errs...)
}

// EnvName returns the environment variable that overrides key.
func EnvName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// AddFlags defines a flag for every configuration key on fs (e.g.
// --fetch.host_delay=0s). Only flags the user sets override other sources.
func AddFlags(fs *pflag.FlagSet) {
	keys := make([]string, 0, len(Defaults()))
	for k := range Defaults() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fs.String(k, "", "overrides config key "+k+" (env "+EnvName(k)+")")
		fs.Lookup(k).Hidden = true
	}
}

// ScheduleOverlapPolicies are the accepted values of schedule.overlap.
var ScheduleOverlapPolicies = []string{"skip", "buffer_one", "buffer_all", "cancel_other", "terminate_other", "allow_all"}

// MaxRefreshInterval bounds refresh.max_interval: ten years.
const MaxRefreshInterval = 10 * 365 * 24 * time.Hour

// MinCatchupWindow is the shortest schedule catch-up window the Temporal
// server takes. A zero window is not "no catch-up": the client leaves it
// unset and the server applies its default, one year, so after an outage
// every refresh missed in the past year would run. `starter schedule
// create` refuses a shorter window; loading a configuration does not (a
// worker has no use for it).
const MinCatchupWindow = 10 * time.Second

// validateRefresh checks the refresh, schedule and metrics sections.
func (c *Config) validateRefresh(bad func(key, format string, args ...any)) {
	r := c.Refresh
	if r.MinInterval <= 0 {
		bad("refresh.min_interval", "must be a positive duration, got %s", r.MinInterval)
	}
	if r.MaxInterval < r.MinInterval {
		bad("refresh.max_interval", "must not be below refresh.min_interval (%s), got %s", r.MinInterval, r.MaxInterval)
	}
	// A revisit interval grows by half at each unchanged check; past a
	// couple of centuries that overflowed time.Duration and the page was
	// due again at min_interval (and a due time past 2262 read as never).
	if r.MaxInterval > MaxRefreshInterval {
		bad("refresh.max_interval", "must be at most %s (ten years), got %s", MaxRefreshInterval, r.MaxInterval)
	}
	if r.InitialInterval < r.MinInterval || r.InitialInterval > r.MaxInterval {
		bad("refresh.initial_interval", "must lie within refresh.min_interval and refresh.max_interval, got %s", r.InitialInterval)
	}
	if r.BatchSize < 1 || r.BatchSize > 1000 {
		bad("refresh.batch_size", "must be between 1 and 1000, got %d", r.BatchSize)
	}
	if r.MaxPages < 1 {
		bad("refresh.max_pages", "must be at least 1, got %d", r.MaxPages)
	}
	if !(r.HubMinScore >= 0 && r.HubMinScore <= 1) { // NaN fails too
		bad("refresh.hub_min_score", "must be between 0 and 1, got %g", r.HubMinScore)
	}
	if r.ContinueMaxPages < 0 {
		bad("refresh.continue_max_pages", "must not be negative, got %d", r.ContinueMaxPages)
	}
	if r.RecheckDropped < 0 || r.RecheckDropped > 100 {
		bad("refresh.recheck_dropped", "must be between 0 and 100, got %d", r.RecheckDropped)
	}
	if r.DropUnreachableAfter < 0 {
		bad("refresh.drop_unreachable_after", "must not be negative (0 = never), got %s", r.DropUnreachableAfter)
	}
	sc := c.Schedule
	if sc.Interval <= 0 {
		bad("schedule.interval", "must be a positive duration, got %s", sc.Interval)
	}
	// Below MinCatchupWindow (0 included) it is refused by `schedule
	// create`, which sends it, not here: every command loads this file,
	// and a worker must not refuse to start over a schedule default.
	if sc.CatchupWindow < 0 {
		bad("schedule.catchup_window", "must not be negative, got %s", sc.CatchupWindow)
	}
	if sc.Jitter < 0 {
		bad("schedule.jitter", "must not be negative, got %s", sc.Jitter)
	}
	if !slices.Contains(ScheduleOverlapPolicies, sc.Overlap) {
		bad("schedule.overlap", "%q is not one of %s", sc.Overlap, strings.Join(ScheduleOverlapPolicies, ", "))
	}
	if c.Metrics.Address != "" {
		if _, _, err := net.SplitHostPort(c.Metrics.Address); err != nil {
			bad("metrics.address", "%q is not host:port (or empty to disable)", c.Metrics.Address)
		}
	}
}
