package crawlctl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/topic"

	"github.com/spf13/pflag"
)

// TestSummaryOfRunningCrawl is the regression test for `starter status` of a
// running crawl printing "after -2562047h47m16s" (EndedAt is zero until the
// crawl ends).
func TestSummaryOfRunningCrawl(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name string
		st   crawlapi.CrawlState
		want string
	}{
		{"running", crawlapi.CrawlState{CrawlID: "c", StartedAt: start}, "(started 1m30s ago)"},
		{"paused", crawlapi.CrawlState{CrawlID: "c", Phase: crawlapi.PhasePaused, StartedAt: start}, "crawl c paused (started 1m30s ago)"},
		{"ended", crawlapi.CrawlState{CrawlID: "c", StartedAt: start, EndedAt: start.Add(time.Hour)}, "after 1h0m0s"},
		{"not started", crawlapi.CrawlState{CrawlID: "c"}, "not started yet"},
	} {
		var b bytes.Buffer
		printSummary(&b, &tc.st, start.Add(90*time.Second))
		out := b.String()
		if !strings.Contains(out, tc.want) || strings.Contains(out, "-") {
			t.Errorf("%s: summary %q does not say %q (or has a negative duration)", tc.name, out, tc.want)
		}
	}
}

// TestSummaryShowsWithdrawn: the pages re-judgement withdrew and the ones
// feedback re-judgement promoted are shown (only when there are any), apart
// from the accepted count of first decisions.
func TestSummaryShowsWithdrawn(t *testing.T) {
	var b bytes.Buffer
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", Accepted: 105, Withdrawn: 28, Promoted: 3, AcceptedFinal: 80}, time.Now())
	if out := b.String(); !strings.Contains(out, "withdrawn       28") || !strings.Contains(out, "accepted       105") ||
		!strings.Contains(out, "promoted         3") || !strings.Contains(out, "accepted now    80") {
		t.Errorf("summary %q does not show 105 accepted, 28 withdrawn, 3 promoted and 80 accepted now", out)
	}
	b.Reset()
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", Accepted: 105}, time.Now())
	if strings.Contains(b.String(), "withdrawn") || strings.Contains(b.String(), "promoted") {
		t.Errorf("summary %q shows a withdrawn or promoted line with nothing withdrawn or promoted", b.String())
	}
}

// TestSummaryShowsRunningSlicesPages: a running crawl's pages that its
// running slices have not split into rejected, tunnel and duplicates yet
// are shown, so the counts add up to the pages fetched ("fetched 126 …
// accepted 11, rejected 27, tunnel 26" left 62 nowhere); an ended crawl has
// no such line.
func TestSummaryShowsRunningSlicesPages(t *testing.T) {
	var b bytes.Buffer
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", Fetched: 126, OK: 126, Accepted: 11, Rejected: 27, Tunnel: 26,
		RunningNotAccepted: 50, RunningUnjudged: 12}, time.Now())
	if out := b.String(); !strings.Contains(out, "judging         62  pages of running slices: 50 done, not accepted") ||
		!strings.Contains(out, "12 not judged yet") {
		t.Errorf("summary %q does not show the running slices' 62 pages: 50 not accepted, 12 not judged", out)
	}
	b.Reset()
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", Fetched: 126, OK: 126, Accepted: 11, Rejected: 115}, time.Now())
	if strings.Contains(b.String(), "judging") {
		t.Errorf("summary %q shows running slices' pages with none", b.String())
	}
}

// TestSummaryShowsDryExpanded: the tunnels that were rejected pages the
// crawl expanded when its frontier ran dry are said to be so (the status
// counted them rejected before, and the store tunnels).
func TestSummaryShowsDryExpanded(t *testing.T) {
	var b bytes.Buffer
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", Fetched: 40, OK: 40, Accepted: 11, Rejected: 20, Tunnel: 9,
		DryExpanded: 4, DryRounds: 2, DryDetail: 3}, time.Now())
	if out := b.String(); !strings.Contains(out, "tunnel           9") ||
		!strings.Contains(out, "4  of them rejected first, expanded later when the frontier ran dry (2 rounds)") {
		t.Errorf("summary %q does not show the 4 tunnels expanded when the frontier ran dry", out)
	}
	if out := b.String(); !strings.Contains(out, "3  of them detail pages whose links were followed when the frontier ran dry") {
		t.Errorf("summary %q does not show the 3 accepted detail pages the dry rounds expanded", out)
	}
}

// TestSummaryShowsSeedsAndLastError: the add-seeds outcome is shown once
// seeds were sent, and the last error whenever there is one — a bad
// control signal or a failed ranking step is recorded with no failed slice,
// and was not shown then.
func TestSummaryShowsSeedsAndLastError(t *testing.T) {
	var b bytes.Buffer
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", SeedsSent: 3, SeedsAdded: 1,
		LastError: `control: unknown operation "pasue"`}, time.Now())
	out := b.String()
	if !strings.Contains(out, "add-seeds        1  of 3 URLs sent") {
		t.Errorf("summary %q does not show 1 of 3 seeds added", out)
	}
	if !strings.Contains(out, `last error: control: unknown operation "pasue"`) || strings.Contains(out, "failed slices") {
		t.Errorf("summary %q: want the last error, and no failed-slices line with none failed", out)
	}
	b.Reset()
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", FailedSlices: 2, LastError: "disk full"}, time.Now())
	if out := b.String(); !strings.Contains(out, "failed slices 2") || !strings.Contains(out, "last error: disk full") ||
		strings.Contains(out, "add-seeds") {
		t.Errorf("summary %q: want 2 failed slices and the error, no add-seeds line", out)
	}
	// When it was set: an error the crawl recovered from hours ago reads
	// as past.
	b.Reset()
	at := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", FailedSlices: 1, LastError: "disk full", LastErrorAt: at}, at.Add(2*time.Hour+5*time.Second))
	if out := b.String(); !strings.Contains(out, "failed slices 1, last error at 2026-11-28 09:30:00 UTC, 2h0m5s ago: disk full") {
		t.Errorf("summary %q: want the error's time and age", out)
	}
}

// TestSummaryAccountsForEveryPage: the pages fetched were accepted,
// rejected, duplicates or tunnel pages, but the summary left the tunnel
// pages out, so its lines did not add up to the pages fetched (a trial
// crawl: ok 757, accepted 242, rejected 190, duplicates 2, and 323 pages
// nowhere). A running crawl has no end reason yet, and its summary printed
// "crawling ()".
func TestSummaryAccountsForEveryPage(t *testing.T) {
	var b bytes.Buffer
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", Phase: crawlapi.PhaseCrawling, Fetched: 1000, OK: 757, Failed: 243,
		Accepted: 242, Rejected: 190, Duplicates: 2, Tunnel: 323}, time.Now())
	out := b.String()
	if !strings.Contains(out, "tunnel         323") {
		t.Errorf("summary %q does not show the 323 tunnel pages", out)
	}
	if strings.Contains(out, "()") {
		t.Errorf("summary %q prints an empty end reason", out)
	}
}

// TestSummaryExplainsNothingFetched: a crawl of a topic whose seeds an
// earlier crawl had fetched (or failed to fetch) ends at once, "frontier
// exhausted" with nothing fetched, and a crawl whose every fetch failed
// ended with "failed 3" and no word of why. Both now say what happened and
// where to look.
func TestSummaryExplainsNothingFetched(t *testing.T) {
	var b bytes.Buffer
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "crawl/t/1", Topic: "t", Phase: crawlapi.PhaseCompleted,
		Reason: crawlapi.ReasonFrontierExhausted}, time.Now())
	if out := b.String(); !strings.Contains(out, "earlier crawl") || !strings.Contains(out, "--fresh") {
		t.Errorf("summary %q of a crawl that found nothing to fetch does not point at earlier crawls and --fresh", out)
	}
	b.Reset()
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "crawl/t/2", Topic: "t", Phase: crawlapi.PhaseCompleted,
		Reason: crawlapi.ReasonFrontierExhausted, Fetched: 3, Failed: 3}, time.Now())
	if out := b.String(); !strings.Contains(out, "search export crawl/t/2") || strings.Contains(out, "--fresh") {
		t.Errorf("summary %q of a crawl whose every fetch failed does not point at its crawl log (only)", out)
	}
	b.Reset()
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "crawl/t/3", Topic: "t", Phase: crawlapi.PhaseCompleted,
		Reason: crawlapi.ReasonFrontierExhausted, Fetched: 3, OK: 2, Failed: 1, Accepted: 2}, time.Now())
	if out := b.String(); strings.Contains(out, "--fresh") || strings.Contains(out, "search export") {
		t.Errorf("summary %q of a crawl that fetched pages carries a hint meant for one that did not", out)
	}
}

// TestSummaryShowsLastError: a signal the crawl could not act on (an
// update-topic for another topic, add-seeds the worker refused, a control
// payload that does not decode) is recorded in the state's LastError, and
// docs/operations.md says the status names it; the summary printed it only
// beside failed slices, so `starter status` showed nothing.
func TestSummaryShowsLastError(t *testing.T) {
	var b bytes.Buffer
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", Phase: crawlapi.PhaseCrawling,
		LastError: `update-topic: the new file names topic "a", the crawl is of "b"`}, time.Now())
	if out := b.String(); !strings.Contains(out, `last error: update-topic: the new file names topic "a"`) {
		t.Errorf("summary %q does not show the last error", out)
	}
}

// TestValidateChecksLexicon: `starter validate` resolves a topic's lexicon
// as the worker would (crawl.lexicon_dir, then the bundled ones) and warns,
// without failing, when it is not found here: the worker's directory may
// differ. Before, a missing lexicon surfaced only when the crawl started.
// A lexicon that neither strategy reads (vsm and best-first, the defaults)
// is noted: a topic author's lexicon: did nothing, and nothing said so.
func TestValidateChecksLexicon(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		lexicon, strategy, out, warn string
	}{
		{"ml-zh", "{page_filter: semantic}", "lexicon ml-zh:", ""},
		{"ml-zh", "{link_predictor: rwb}", "lexicon ml-zh:", ""},
		{"ml-zh", "{link_predictor: ipagerank}", "lexicon ml-zh:", ""},
		{"ml-zh", "{}", "lexicon ml-zh:", "note: lexicon ml-zh is not used: only the semantic page filter and the rw, rwb and ipagerank link predictors read a lexicon, and this topic's are vsm and best-first"},
		{"no-such-lexicon", "{link_predictor: rw}", "is valid", `warning: lexicon "no-such-lexicon" not found`},
	} {
		path := write(tc.lexicon+".yaml", "name: t\nkeywords: {deep: 1}\nseeds: [https://example.org/]\nlexicon: "+tc.lexicon+"\nstrategy: "+tc.strategy+"\n")
		cfg, err := config.Load("", nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Crawl.LexiconDir = dir
		fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
		fs.String("topic", path, "")
		var out, warn bytes.Buffer
		if err := validateTopic(&out, &warn, &cli.Env{FS: fs, Cfg: cfg}); err != nil {
			t.Fatalf("%s %s: %v", tc.lexicon, tc.strategy, err)
		}
		if !strings.Contains(out.String(), tc.out) || !strings.Contains(warn.String(), tc.warn) || (tc.warn == "") != (warn.Len() == 0) {
			t.Errorf("%s %s: out %q, warnings %q; want %q and %q", tc.lexicon, tc.strategy, out.String(), warn.String(), tc.out, tc.warn)
		}
	}
}

// unreachable is a Temporal address nothing listens on: the commands below
// must refuse their arguments before they dial it.
const unreachable = "--temporal.address=127.0.0.1:1"

// TestValidateAndCrawlRefuseArguments: `validate --topic a.yaml b.yaml`
// checked a.yaml alone and said it was valid; a positional argument to
// validate or crawl is a usage error.
func TestValidateAndCrawlRefuseArguments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(path, []byte("name: t\nkeywords: {roses: 1}\nseeds: [https://example.org/]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"validate", "crawl"} {
		err := cli.Run(context.Background(), "starter", "", Commands(), []string{cmd, "--topic", path, "other.yaml", unreachable})
		var ue cli.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "other.yaml") {
			t.Errorf("%s with an extra argument = %v; want a usage error naming it", cmd, err)
		}
	}
}

// TestCrawlRefusesNonPositiveProgress: `starter crawl --wait --progress 0`
// started the crawl and then panicked in time.NewTicker; the flag is now a
// usage error before anything is started.
func TestCrawlRefusesNonPositiveProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(path, []byte("name: t\nkeywords: {roses: 1}\nseeds: [https://example.org/]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"0", "-1s"} {
		err := cli.Run(context.Background(), "starter", "", Commands(),
			[]string{"crawl", "--topic", path, "--wait", "--progress", p, unreachable})
		var ue cli.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--progress") {
			t.Errorf("crawl --wait --progress %s = %v; want a usage error about --progress", p, err)
		}
	}
}

// TestAddSeedsRefusesInvalidURLs: the worker drops seeds that do not
// normalise, so `starter add-seeds` printed "sent add-seeds" for URLs that
// were never crawled; it now refuses them, naming the URL.
func TestAddSeedsRefusesInvalidURLs(t *testing.T) {
	for _, u := range []string{"not a url", "ftp://example.org/", "example.org/page", "http://"} {
		err := cli.Run(context.Background(), "starter", "", Commands(),
			[]string{"add-seeds", "crawl/t/1", "https://example.org/ok", u, unreachable})
		var ue cli.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), fmt.Sprintf("%q", u)) {
			t.Errorf("add-seeds %q = %v; want a usage error naming the URL", u, err)
		}
	}
}

// TestRefreshSummary: `starter status` of a scheduled refresh (the IDs
// `schedule describe` lists) printed the refresh's state as a crawl's,
// "crawl  completed" with no ID, a harvest rate and a page budget; it
// shows the refresh's own counters.
func TestRefreshSummary(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := crawlapi.RefreshState{RefreshID: "refresh/roses/scheduled-2026-01-02T03:04:05Z", Topic: "roses", TopicVersion: 2,
		Phase: crawlapi.PhaseCompleted, Reason: "no pages due", StartedAt: start, EndedAt: start.Add(3 * time.Second),
		Due: 12, Claimed: 12, Batches: 2, Params: crawlapi.RefreshParams{MaxPages: 2000},
		Checked: 12, NotModified: 6, Changed: 3, Gone: 2, Failed: 1, Unreachable: 1, Kept: 2, Removed: 4, Links: 40, Enqueued: 6,
		ChildCrawlID: "crawl/roses/x-continue"}
	out := refreshSummary(&st, start.Add(time.Minute))
	// The continuation's setting (a child crawl here) is not questioned;
	// without it, the new links' fate is said.
	if strings.Contains(out, "continue_max_pages") {
		t.Errorf("a refresh with a crawl continuation tells to set refresh.continue_max_pages:\n%s", out)
	}
	noCont := st
	noCont.ChildCrawlID = ""
	b0 := refreshSummary(&noCont, start.Add(time.Minute))
	if !strings.Contains(b0, "not fetched by a refresh with refresh.continue_max_pages 0") {
		t.Errorf("a refresh that found new links and has no continuation does not say they wait:\n%s", b0)
	}
	for _, want := range []string{
		"refresh refresh/roses/scheduled-2026-01-02T03:04:05Z completed (no pages due) after 3s",
		"topic roses v2: 12 pages due when it started, 12 claimed in 2 batches",
		"checked         12  (not modified 6, unchanged 0, changed 3, gone 2, failed 1)",
		"unreachable      1  (of the failed: revisits past refresh.drop_unreachable_after",
		"kept 2 changed pages, removed 4",
		"new frontier entries 6",
		"crawl/roses/x-continue",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("refresh summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "harvest") || strings.Contains(out, "\ncrawl ") {
		t.Errorf("refresh summary reads as a crawl's:\n%s", out)
	}
	one := st
	one.Due, one.Claimed, one.Batches = 1, 0, 1
	b1 := refreshSummary(&one, start.Add(time.Minute))
	if want := "1 page due when it started, 0 claimed in 1 batch ("; !strings.Contains(b1, want) {
		t.Errorf("refresh summary of one batch lacks %q:\n%s", want, b1)
	}
}

// TestRefreshSummaryCountsLostToAKilledWorker: a completed refresh whose
// counts miss claimed pages (a Refetch worker killed after recording them
// and before its next heartbeat: a user trial's kill -9 read "68 claimed
// … checked 66", every page requested once) says how many and why; one
// whose counts add up, or whose batch failed, or that was stopped, does
// not.
func TestRefreshSummaryCountsLostToAKilledWorker(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	base := crawlapi.RefreshState{RefreshID: "refresh/roses/manual-x", Topic: "roses", TopicVersion: 2,
		Phase: crawlapi.PhaseCompleted, StartedAt: start, EndedAt: start.Add(30 * time.Second),
		Due: 68, Claimed: 68, Batches: 4, Params: crawlapi.RefreshParams{MaxPages: 2000},
		Checked: 66, NotModified: 66}
	summary := func(st crawlapi.RefreshState) string {
		return refreshSummary(&st, start.Add(time.Minute))
	}
	if out := summary(base); !strings.Contains(out, "uncounted        2  of the claimed pages") || !strings.Contains(out, "died") {
		t.Errorf("a refresh missing 2 claimed pages from its counts does not say so:\n%s", out)
	}
	exact := base
	exact.Checked, exact.NotModified, exact.Postponed = 60, 60, 8
	failed := base
	failed.FailedBatches, failed.LastError = 1, "refetch batch b: boom"
	stopped := base
	stopped.Phase = crawlapi.PhaseStopped
	for name, st := range map[string]crawlapi.RefreshState{"counts add up": exact, "failed batch": failed, "stopped": stopped} {
		if out := summary(st); strings.Contains(out, "uncounted") {
			t.Errorf("%s: the summary counts pages as lost to a dead worker:\n%s", name, out)
		}
	}
}

// TestRefreshSummarySaysWhenPagesAreDue: the summary of a refresh that
// ended says when the topic's next page is due, counted from now (the
// reason's "in" is counted from the refresh's end), or that there is
// nothing to refresh, and names the crawl store the refresh read; a
// running refresh, and one whose worker did not tell, print no such line.
func TestRefreshSummarySaysWhenPagesAreDue(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	base := crawlapi.RefreshState{RefreshID: "refresh/roses/scheduled-2026-01-02T03:04:05Z", Topic: "roses", TopicVersion: 2,
		Phase: crawlapi.PhaseCompleted, StartedAt: start, EndedAt: start.Add(3 * time.Second),
		Params: crawlapi.RefreshParams{MaxPages: 2000}, Store: "postgres postgres://crawl@db.internal:5432/focuscrawl"}
	for _, tc := range []struct {
		name    string
		outlook *crawlapi.RefreshOutlook
		running bool
		want    []string
		not     []string
	}{
		{"next page due", &crawlapi.RefreshOutlook{Refreshable: 40, NextDueAt: start.Add(6*time.Hour + 30*time.Minute)}, false,
			[]string{"  next due    2026-01-02T09:34:05Z (in 6h29m), 40 pages to revisit\n",
				"  crawl store postgres postgres://crawl@db.internal:5432/focuscrawl\n"}, nil},
		{"next page overdue", &crawlapi.RefreshOutlook{Refreshable: 40, NextDueAt: start.Add(-2 * time.Hour)}, false,
			[]string{"  next due    2026-01-02T01:04:05Z (2h1m ago), 40 pages to revisit\n"}, nil},
		{"nothing to refresh", &crawlapi.RefreshOutlook{}, false,
			[]string{"  next due    none: no accepted pages to refresh\n"}, nil},
		{"an older worker", nil, false, []string{"crawl store"}, []string{"next due"}},
		{"running", &crawlapi.RefreshOutlook{Refreshable: 40, NextDueAt: start}, true, nil, []string{"next due"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := base
			st.Outlook = tc.outlook
			if tc.running {
				st.Phase, st.EndedAt = crawlapi.PhaseRefreshing, time.Time{}
			}
			out := refreshSummary(&st, start.Add(time.Minute))
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("refresh summary lacks %q:\n%s", want, out)
				}
			}
			for _, not := range tc.not {
				if strings.Contains(out, not) {
					t.Errorf("refresh summary has %q:\n%s", not, out)
				}
			}
		})
	}
}

// TestRefreshSummaryOfARefreshThatRevisitedNothing: a refresh whose
// StartRefresh gave no topic version (a topic never crawled: a first crawl
// ran instead, or the refresh failed, or it is starting) printed "topic
// erl-x v0: 0 pages due …, 0 claimed in 0 batches (at most 0 a run,
// refresh.max_pages)" and a row of zero counters (an operator trial): a
// version 0 and a budget of 0 that do not exist. It says what happened.
func TestRefreshSummaryOfARefreshThatRevisitedNothing(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name string
		st   crawlapi.RefreshState
		want []string
	}{
		{"first crawl", crawlapi.RefreshState{Phase: crawlapi.PhaseCompleted, ChildCrawlID: "crawl/roses/x-first",
			Reason: "crawl crawl/roses/x-first: stopped by operator", EndedAt: start.Add(time.Second), Store: "postgres db"},
			[]string{"never crawled in this crawl store", "runs the topic's first crawl instead",
				"crawl       crawl/roses/x-first", "crawl store postgres db"}},
		{"failed", crawlapi.RefreshState{Phase: crawlapi.PhaseFailed, EndedAt: start.Add(time.Second)},
			[]string{"topic roses: not read from the crawl store, no page revisited"}},
		{"starting", crawlapi.RefreshState{Phase: crawlapi.PhaseStarting},
			[]string{"topic roses: not read from the crawl store yet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.st
			st.RefreshID, st.Topic, st.StartedAt = "refresh/roses/scheduled-2026-01-02T03:04:05Z", "roses", start
			out := refreshSummary(&st, start.Add(time.Minute))
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("summary lacks %q:\n%s", want, out)
				}
			}
			for _, not := range []string{"v0", "at most 0", "checked", "links seen"} {
				if strings.Contains(out, not) {
					t.Errorf("summary has %q:\n%s", not, out)
				}
			}
		})
	}
}

// TestUpdateTopicSaysWhatTheCrawlDid: update-topic said "sent update-topic"
// also for a file of another topic, which the crawl refused into its
// status's last error while going on with the old topic (an operator
// trial). It now refuses such a file before sending, and reads the crawl's
// answer from its status: a new topic version, or the refusal as an error.
func TestUpdateTopicSaysWhatTheCrawlDid(t *testing.T) {
	before := &crawlapi.CrawlState{CrawlID: "crawl/roses/1", Topic: "roses", TopicVersion: 1, LastError: "control: old"}
	if err := sameTopic("tulips", before); err == nil || !strings.Contains(err.Error(), `"tulips"`) || !strings.Contains(err.Error(), `"roses"`) {
		t.Errorf("a file of topic tulips for a crawl of roses: %v; want refused, naming both", err)
	}
	if err := sameTopic("roses", before); err != nil {
		t.Errorf("a file of the crawl's topic: %v", err)
	}
	file := &topic.Topic{Name: "roses", Limits: topic.Limits{MaxPages: 100}}
	if _, done, err := topicOutcome(before, before, file); done || err != nil {
		t.Errorf("nothing changed yet: done %v, %v; want not done", done, err)
	}
	switched := *before
	switched.TopicVersion = 2
	if msg, done, err := topicOutcome(before, &switched, file); !done || err != nil || !strings.Contains(msg, "roses v2 (was v1)") {
		t.Errorf("switched to v2: %q, %v, %v; want done, naming both versions", msg, done, err)
	}
	refused := *before
	refused.LastError = `update-topic: the new file names topic "tulips"`
	if _, done, err := topicOutcome(before, &refused, file); !done || err == nil || !strings.Contains(err.Error(), "roses v1") ||
		!strings.Contains(err.Error(), refused.LastError) {
		t.Errorf("refused: done %v, %v; want done with an error naming the version kept and the crawl's error", done, err)
	}
	other := *before
	other.LastError = "add-seeds: something else"
	if _, done, _ := topicOutcome(before, &other, file); done {
		t.Error("another signal's error taken for the update's outcome")
	}
}

// TestUpdateTopicLowersBudgetBelowFetched: a limits.max_pages below the
// pages the crawl has fetched said only "page budget: 20 pages (was 150)",
// read as if the crawl would stop at 20 (an operator trial: it had 72 and
// ended at 80); it says the crawl fetches no more once its running slices
// end. A budget still above the pages fetched has no such note.
func TestUpdateTopicLowersBudgetBelowFetched(t *testing.T) {
	before := &crawlapi.CrawlState{Topic: "roses", TopicVersion: 1, Fetched: 72, Params: crawlapi.CrawlParams{MaxPages: 150}}
	now := *before
	now.TopicVersion, now.Params.MaxPages = 2, 20
	file := &topic.Topic{Name: "roses", Limits: topic.Limits{MaxPages: 20}}
	msg, _, _ := topicOutcome(before, &now, file)
	if want := "page budget: 20 pages (was 150); the crawl has fetched 72 already: it fetches no more once its running slices end"; !strings.Contains(msg, want) {
		t.Errorf("%q lacks %q", msg, want)
	}
	now.Fetched = 10
	if msg, _, _ := topicOutcome(before, &now, file); strings.Contains(msg, "fetched") {
		t.Errorf("a budget above the pages fetched: %q", msg)
	}
}

// TestUpdateTopicSaysWhatTookEffect: update-topic said "the crawl now uses
// topic roses v2", as if the whole file applied, while the crawl kept its
// page budget, learning cadence and frontier. It now says what the crawl
// took — budget, learning, new frontier entries — and what it did not: a
// limits.max_pages above the bound of a refresh's continuation, one a
// worker from before these updates did not return, and the pages judged
// already; and, for a crawl that has ended or is stopping, that the file
// serves only a new crawl.
func TestUpdateTopicSaysWhatTookEffect(t *testing.T) {
	before := &crawlapi.CrawlState{Topic: "roses", TopicVersion: 1, SitemapURLs: 4, UpdateSeeded: 1,
		Params: crawlapi.CrawlParams{MaxPages: 600}}
	file := &topic.Topic{Name: "roses", Limits: topic.Limits{MaxPages: 5000}, Sitemaps: topic.Sitemaps{Enabled: true}}
	taken := *before
	taken.TopicVersion, taken.Params.MaxPages, taken.Params.LearnEvery = 2, 5000, 150
	taken.UpdateSeeded, taken.SitemapURLs = 4, 6
	capped := taken
	capped.Params.MaxPages, capped.MaxPagesCap = 800, 800
	old := taken
	old.Params = before.Params
	old.UpdateSeeded, old.SitemapURLs = before.UpdateSeeded, before.SitemapURLs
	for _, tc := range []struct {
		name string
		now  *crawlapi.CrawlState
		want []string
	}{
		{"taken", &taken, []string{"roses v2 (was v1)", "page budget: 5000 pages (was 600)",
			"link model learned: every 150 accepted pages (was never)", "new frontier entries: 3 from its seeds", "2 from sitemaps",
			"pages judged already keep the scores"}},
		{"capped", &capped, []string{"page budget: 800 pages (was 600); limits.max_pages 5000 is not taken above the 800 pages"}},
		{"worker from before", &old, []string{"limits.max_pages 5000 NOT taken, the crawl keeps 600 pages", "new frontier entries: 0 from its seeds"}},
	} {
		msg, done, err := topicOutcome(before, tc.now, file)
		if !done || err != nil {
			t.Errorf("%s: done %v, %v; want done", tc.name, done, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", tc.name, msg, w)
			}
		}
	}
	if msg, _, _ := topicOutcome(before, &old, file); strings.Contains(msg, "link model") {
		t.Errorf("learning cadence unchanged, yet reported: %q", msg)
	}
	// A crawl that has ended (the update came during its final steps and
	// was stored as it ended) or is stopping takes the file, but fetches
	// nothing more: "page budget: 5000 pages (was 600)" read as if it went on.
	ended := taken
	ended.CrawlID, ended.Phase, ended.Reason, ended.Claimed = "c1", crawlapi.PhaseCompleted, "page budget reached", 600
	stopping := taken
	stopping.CrawlID, stopping.Phase = "c1", crawlapi.PhaseStopping
	for _, tc := range []struct {
		name string
		now  *crawlapi.CrawlState
		want string
	}{
		{"ended", &ended, "crawl c1 has ended (completed: page budget reached)"},
		{"stopping", &stopping, "crawl c1 is finishing (a stop was requested"},
	} {
		msg, done, err := topicOutcome(before, tc.now, file)
		if !done || err != nil {
			t.Errorf("%s: done %v, %v; want done", tc.name, done, err)
		}
		for _, w := range []string{tc.want, "the update was recorded", "takes effect only in a new crawl", "roses v2 is stored",
			"page budget, 5000 pages, applies to a new crawl, not to this one", "3 from its seeds, 2 from sitemaps", "'starter crawl --topic FILE'"} {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", tc.name, msg, w)
			}
		}
		for _, w := range []string{"page budget: 5000 pages (was 600)", "the next ones judge with"} {
			if strings.Contains(msg, w) {
				t.Errorf("%s: %q says %q, as if the crawl went on", tc.name, msg, w)
			}
		}
	}
	var sum bytes.Buffer
	printSummary(&sum, &taken, time.Now())
	if !strings.Contains(sum.String(), "new seeds        4  seeds of update-topic's files") {
		t.Errorf("status %q does not count the seeds updates queued", sum.String())
	}
}

// TestSummaryShowsRetries: with its store down, a crawl's status read
// "crawling, crawl slices 2 (in flight 2)" with nothing moving for minutes
// while both slices failed attempt after attempt (an operator trial); the
// server's pending activities past their first attempt are shown now.
func TestSummaryShowsRetries(t *testing.T) {
	now := time.Now()
	var b bytes.Buffer
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", Phase: crawlapi.PhaseCrawling, Retrying: []crawlapi.Retry{
		{Activity: "CrawlSlice", Attempt: 7, Maximum: 10, NextAttempt: now.Add(8 * time.Second), LastFailure: "failed to connect"},
		{Activity: "RejudgeCrawl", Attempt: 2, LastFailure: "activity Heartbeat timeout"},
	}}, now)
	out := b.String()
	for _, want := range []string{
		"retrying    CrawlSlice attempt 7 of 10 next in 8s, last failure: failed to connect",
		"retrying    RejudgeCrawl attempt 2 running, last failure: activity Heartbeat timeout",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary %q lacks %q", out, want)
		}
	}
	b.Reset()
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", Phase: crawlapi.PhaseCrawling}, now)
	if strings.Contains(b.String(), "retrying") {
		t.Errorf("summary %q shows retries with none", b.String())
	}
}

// TestValidateLexicon: `starter validate` fails on a lexicon it finds in
// crawl.lexicon_dir but cannot parse (the worker's would be the same file),
// and only warns about one it does not find or cannot open there (the
// worker's directory may differ).
func TestValidateLexicon(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.txt"), []byte("a | synonym | b\n\xff\xfe | synonym | c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Crawl.LexiconDir = dir
	for ref, wantErr := range map[string]bool{"bad": true, "missing": false, "team/ml.txt": false} {
		topicFile := filepath.Join(dir, strings.ReplaceAll(ref, "/", "_")+".yaml")
		if err := os.WriteFile(topicFile, []byte("name: t\nkeywords: {a: 1}\nseeds: [http://a.test/]\nlexicon: "+ref+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
		fs.String("topic", topicFile, "")
		var out, warn bytes.Buffer
		err := validateTopic(&out, &warn, &cli.Env{FS: fs, Cfg: cfg})
		if (err != nil) != wantErr {
			t.Errorf("lexicon %s: error %v (warnings %q), want an error: %v", ref, err, warn.String(), wantErr)
		}
		if !wantErr && warn.Len() == 0 {
			t.Errorf("lexicon %s: warnings %q, want one saying it is not found here", ref, warn.String())
		}
	}
	// A path with no crawl.lexicon_dir here: the worker's may have one.
	cfg.Crawl.LexiconDir = ""
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fs.String("topic", filepath.Join(dir, "team_ml.txt.yaml"), "")
	var out, warn bytes.Buffer
	if err := validateTopic(&out, &warn, &cli.Env{FS: fs, Cfg: cfg}); err != nil || warn.Len() == 0 {
		t.Errorf("a lexicon path without crawl.lexicon_dir: error %v, warnings %q; want a warning only", err, warn.String())
	}
}

// TestNotesShown: the warnings StartCrawl and update-topic record about a
// topic file (keywords that give no term) are in the summary, the status
// and update-topic's answer.
func TestNotesShown(t *testing.T) {
	const note = `keywords "802.11" give no term and are left out of the topic model`
	var b bytes.Buffer
	printSummary(&b, &crawlapi.CrawlState{CrawlID: "c", Notes: []string{note}}, time.Now())
	if !strings.Contains(b.String(), "  note: "+note) {
		t.Errorf("summary %q; want the note", b.String())
	}
	before := &crawlapi.CrawlState{CrawlID: "c", Topic: "t", TopicVersion: 1, Phase: crawlapi.PhaseCrawling}
	now := *before
	now.TopicVersion, now.Notes = 2, []string{note}
	if msg := topicTaken(before, &now, &topic.Topic{Name: "t"}); !strings.Contains(msg, "note: "+note) {
		t.Errorf("update-topic's answer %q; want the note", msg)
	}
}

// TestPrintReindexSummary: a completed reindex says what its rebuild did
// and counts the pages written, left to the refresh, left out and without a
// record; a running one what its last heartbeat said, marked so.
func TestPrintReindexSummary(t *testing.T) {
	start := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	st := crawlapi.ReindexState{ReindexID: "reindex/roses/20261128T100000Z", Topic: "roses", Phase: crawlapi.PhaseCompleted,
		StartedAt: start, EndedAt: start.Add(3 * time.Second),
		Rebuild: crawlapi.RebuildIndexResult{Index: "focuscrawl-idx-roses-000002", Note: "new index focuscrawl-idx-roses-000002 under the current template"},
		Pages:   crawlapi.ReindexPagesResult{Accepted: 12, Written: 8, NotIndexed: 1, NoIndex: 2, NoRecord: 1}}
	var b strings.Builder
	printReindexSummary(&b, &st, start.Add(time.Minute))
	for _, want := range []string{"reindex reindex/roses/20261128T100000Z completed",
		"index: new index focuscrawl-idx-roses-000002", "12 accepted pages, 8 documents written into the index",
		"1 not flagged indexed", "2 asked not to be indexed", "1 have no stored parse record"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	running := crawlapi.ReindexState{ReindexID: "reindex/roses/x", Topic: "roses", Phase: crawlapi.PhaseWriting, StartedAt: start,
		Pages: crawlapi.ReindexPagesResult{Accepted: 300, Written: 290}}
	b.Reset()
	printReindexSummary(&b, &running, start.Add(time.Minute))
	if !strings.Contains(b.String(), "reindex reindex/roses/x writing") || !strings.Contains(b.String(), "300 accepted pages so far, 290 documents") {
		t.Errorf("running reindex summary:\n%s", b.String())
	}
}

// TestPrintReindexSummaryFailed: a failed reindex says in which step it
// failed, after the workflow's status (failed) that replaces its phase.
func TestPrintReindexSummaryFailed(t *testing.T) {
	start := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	st := crawlapi.ReindexState{ReindexID: "reindex/roses/x", Topic: "roses", Phase: "failed", FailedIn: crawlapi.PhaseRebuilding,
		StartedAt: start, EndedAt: start.Add(time.Minute), Pages: crawlapi.ReindexPagesResult{Accepted: 3, Written: 3}}
	var b strings.Builder
	printReindexSummary(&b, &st, start.Add(time.Hour))
	if !strings.Contains(b.String(), "reindex reindex/roses/x failed while rebuilding") || !strings.Contains(b.String(), "3 documents written") {
		t.Errorf("summary:\n%s", b.String())
	}
}

// refreshSummary is printRefreshSummary's output for st at now.
func refreshSummary(st *crawlapi.RefreshState, now time.Time) string {
	var b bytes.Buffer
	printRefreshSummary(&b, st, now)
	return b.String()
}

func TestCheckCrawlID(t *testing.T) {
	for _, id := range []string{"nightly", "crawl/garden/20261128T101500Z", "nightly/retry", "a.b_c-d:e@f+g=h", "夜间/1", strings.Repeat("x", 200)} {
		if err := checkCrawlID(id); err != nil {
			t.Errorf("checkCrawlID(%q) = %v; want accepted", id, err)
		}
	}
	for _, id := range []string{"my crawl", "-x", "/lead", "tab\there", "semi;colon", "$(x)", "x\u200by", strings.Repeat("x", 201)} {
		err := checkCrawlID(id)
		var ue cli.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("checkCrawlID(%q) = %v; want a usage error", id, err)
		}
	}
}
