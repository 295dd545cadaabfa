package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRunbookCommands runs the commands of docs/operations.md against the
// dev server: a crawl (starter), the crawl store's list of it and its crawl
// log (search), the schedule lifecycle (create, list, describe, trigger,
// pause, unpause, delete) and the search-attribute query that finds a
// topic's workflows.
func TestRunbookCommands(t *testing.T) {
	site := newChangingSite(t)
	e := newEnv(t, &testSite{addr: site.addr})
	starter, search := filepath.Join(e.dir, "starter"), filepath.Join(e.dir, "search")
	for _, b := range []string{starter, search} {
		if out, err := exec.Command("go", "build", "-o", b, "focuscrawl/"+filepath.Base(b)).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", filepath.Base(b), err, out)
		}
	}
	e.startWorker("w1")
	topicFile := filepath.Join(e.dir, "rbnews.yaml")
	if err := os.WriteFile(topicFile, []byte(strings.Replace(refreshTopic, "name: rosenews", "name: rbnews", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	command := func(bin string, args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(),
			"FOCUSCRAWL_TEMPORAL_ADDRESS="+devServer.FrontendHostPort(),
			"FOCUSCRAWL_TEMPORAL_TASK_QUEUE="+e.taskQueue,
			"FOCUSCRAWL_STORE_PATH="+e.storePath(), "FOCUSCRAWL_INDEX_PATH="+e.indexPath())
		return cmd
	}
	runBin := func(bin string, args ...string) string {
		t.Helper()
		out, err := command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run := func(args ...string) string { t.Helper(); return runBin(starter, args...) }
	want := func(out, sub string) {
		t.Helper()
		if !strings.Contains(out, sub) {
			t.Errorf("output lacks %q:\n%s", sub, out)
		}
	}
	crawlID := "crawl/rbnews/" + e.taskQueue
	want(run("crawl", "--topic", topicFile, "--id", crawlID, "--wait", "--progress", "1s"), crawlID)
	want(runBin(search, "crawls", "--topic", "rbnews"), crawlID)
	logFile := filepath.Join(e.dir, "rbnews.jsonl")
	want(runBin(search, "export", crawlID, "--out", logFile), "entries written to "+logFile)

	// add-seeds says what became of the URLs: a crawl held on its seed
	// (/hold answers when released) takes one new in-scope URL and drops
	// one of another host; the status shows the count.
	seedsTopic := filepath.Join(e.dir, "rbseeds.yaml")
	if err := os.WriteFile(seedsTopic, []byte(strings.NewReplacer("name: rosenews", "name: rbseeds",
		"seeds: [http://www.news.test/]", "seeds: [http://www.news.test/hold]\nscope: {hosts: [www.news.test]}").
		Replace(refreshTopic)), 0o644); err != nil {
		t.Fatal(err)
	}
	seedsID := "crawl/rbseeds/" + e.taskQueue
	want(run("crawl", "--topic", seedsTopic, "--id", seedsID), seedsID)
	want(run("add-seeds", seedsID, "http://www.news.test/r/1.html", "http://other.test/x.html"), "added 1 of 2 as new frontier entries")
	want(run("status", seedsID), "add-seeds        1  of 2 URLs sent")
	want(run("add-seeds", seedsID, "http://www.news.test/r/1.html"), "added 0 of 1")
	site.release()
	want(run("stop", seedsID), "sent stop to "+seedsID)

	want(run("schedule", "create", "--topic", topicFile, "--interval", "1h", "--jitter", "1m", "--catchup-window", "10m"),
		"schedule focuscrawl/rbnews created")
	defer exec.Command(starter, "schedule", "delete", "rbnews").Run()
	// Temporal lists schedules from its visibility store, which trails a
	// create by up to a second or so: the list once came back empty here.
	eventually(t, 15*time.Second, "the new schedule in 'schedule list'", func() bool {
		return strings.Contains(run("schedule", "list"), "focuscrawl/rbnews")
	})
	d := run("schedule", "describe", "rbnews")
	want(d, "every: 1h0m0s")
	want(d, "overlap: Skip")
	want(run("schedule", "trigger", "rbnews"), "trigger done")
	var refreshID string
	eventually(t, 15*time.Second, "the triggered refresh in the schedule's recent runs", func() bool {
		refreshID = regexp.MustCompile(`refresh/rbnews/scheduled-\S+`).FindString(run("schedule", "describe", "rbnews"))
		return refreshID != ""
	})
	// Right after the crawl no page is due: the status says when one is,
	// and which crawl store the refresh read.
	var rs string
	eventually(t, 15*time.Second, "the triggered refresh completed", func() bool {
		rs = run("status", refreshID)
		return strings.Contains(rs, " completed ")
	})
	want(rs, "completed (no pages due; the next page is due at ")
	want(rs, "  next due    ")
	want(rs, "  crawl store sqlite "+e.storePath())
	// A refresh of everything, outside the schedule: the pages the crawl
	// accepted are checked now, not in a day.
	all := run("refresh", "rbnews", "--all", "--wait")
	want(all, "refresh refresh/rbnews/manual-")
	want(all, " completed ")
	want(all, "pages made due at its start")
	if regexp.MustCompile(`checked +0 `).MatchString(all) {
		t.Errorf("refresh --all checked no page:\n%s", all)
	}
	// A reindex is refused while another of the topic runs (here one no
	// worker takes, started as 'starter reindex' starts one: with its kind
	// and topic), naming it; before, the two rebuilds collided.
	if bin := os.Getenv("FOCUSCRAWL_TEMPORAL_BIN"); bin != "" {
		temporal := func(args ...string) string {
			t.Helper()
			out, err := exec.Command(bin, append(args, "--address", devServer.FrontendHostPort())...).CombinedOutput()
			if err != nil {
				t.Fatalf("temporal %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			return string(out)
		}
		blocker := "reindex/rbnews/" + e.taskQueue + "-held"
		temporal("workflow", "start", "--type", "ReindexWorkflow", "--task-queue", e.taskQueue+"-nobody", "--workflow-id", blocker,
			"--search-attribute", `FocuscrawlKind="reindex"`, "--search-attribute", `FocuscrawlTopic="rbnews"`, "--input", `{"Topic":"rbnews"}`)
		eventually(t, 15*time.Second, "the held reindex listed as running", func() bool {
			return strings.Contains(temporal("workflow", "list", "--query", `FocuscrawlTopic = "rbnews" AND ExecutionStatus = "Running"`), blocker)
		})
		out, err := command(starter, "reindex", "rbnews").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "reindex "+blocker+" of topic rbnews is still running, nothing was started") ||
			!strings.Contains(string(out), "temporal workflow cancel --workflow-id "+blocker) {
			t.Errorf("reindex while %s runs: %v\n%s\nwant it refused, naming it", blocker, err, out)
		}
		temporal("workflow", "terminate", "--workflow-id", blocker, "--reason", "test")
		eventually(t, 15*time.Second, "the held reindex listed as ended", func() bool {
			return !strings.Contains(temporal("workflow", "list", "--query", `FocuscrawlTopic = "rbnews" AND ExecutionStatus = "Running"`), blocker)
		})
	}
	// A reindex writes the topic's pages into the index again from the
	// crawl store; its status answers afterwards, and search finds them.
	rx := run("reindex", "rbnews", "--wait")
	want(rx, " completed ")
	want(rx, "this index backend needs no rebuild")
	if m := regexp.MustCompile(`(\d+) accepted pages, (\d+) documents written into the index`).FindStringSubmatch(rx); m == nil || m[1] == "0" || m[1] != m[2] {
		t.Errorf("reindex wrote not every accepted page:\n%s", rx)
	}
	rxID := regexp.MustCompile(`reindex/rbnews/\S+`).FindString(rx)
	want(run("status", rxID), "reindex "+rxID+" completed")
	if q := runBin(search, "query", "--topic", "rbnews", "roses"); !regexp.MustCompile(`(?m)^[1-9]\d* results for`).MatchString(q) {
		t.Errorf("search after the reindex found nothing:\n%s", q)
	}
	want(run("schedule", "pause", "rbnews", "--note", "maintenance"), "pause done")
	want(run("schedule", "describe", "rbnews"), "paused: true")
	want(run("schedule", "unpause", "rbnews"), "unpause done")
	want(run("schedule", "describe", "rbnews"), "paused: false")

	// The runbook's search-attribute query, with the Temporal CLI.
	if bin := os.Getenv("FOCUSCRAWL_TEMPORAL_BIN"); bin != "" {
		eventually(t, 15*time.Second, "crawl and refresh found by search attributes", func() bool {
			out, err := exec.Command(bin, "workflow", "list", "--address", devServer.FrontendHostPort(),
				"--query", `FocuscrawlTopic = "rbnews"`).CombinedOutput()
			return err == nil && strings.Contains(string(out), crawlID) && strings.Contains(string(out), "refresh/rbnews/scheduled-")
		})
	}
	want(run("schedule", "delete", "rbnews"), "delete done")
}
