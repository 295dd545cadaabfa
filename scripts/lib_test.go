// Package scripts_test tests the shell helpers of scripts/lib.sh that
// make up and make demo are built on.
package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/config"
)

// TestStartWorkerFollowsNewSettings: make up with other FOCUSCRAWL_*
// settings, or after a rebuild, restarts the worker it started before,
// which would otherwise go on with its old configuration. GBK trial: a first
// `make up`, then `FOCUSCRAWL_FETCH_ALLOW_PRIVATE_NETWORKS=true make up` (as
// the README says for a loopback site) said "already running", and the
// loopback crawl failed its seed as ssrf. The same settings keep it running.
func TestStartWorkerFollowsNewSettings(t *testing.T) {
	// A stand-in worker: records the settings it was started with, then
	// idles like a worker until stopped.
	fake := "#!/bin/sh\nenv | grep '^FOCUSCRAWL_' | sort > \"$VAR_DIR/worker.env\"\nexec sleep 60\n"
	varDir := fakeWorker(t, fake)
	writeWorker := func(extra string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(varDir, "bin", "worker"), []byte(fake+extra), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pidFile := filepath.Join(varDir, "run", "w.pid")
	t.Cleanup(func() {
		if pid, err := os.ReadFile(pidFile); err == nil {
			exec.Command("kill", strings.TrimSpace(string(pid))).Run()
		}
	})
	start := func(env ...string) (out, pid string) {
		t.Helper()
		cmd := exec.Command("bash", "-c", "source ./lib.sh && start_worker w")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "VAR_DIR=" + varDir}
		cmd.Env = append(cmd.Env, env...)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("start_worker: %v\n%s", err, b)
		}
		p, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), strings.TrimSpace(string(p))
	}
	settings := func() string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(varDir, "worker.env"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	_, first := start()
	out, again := start()
	if again != first || !strings.Contains(out, "already running") {
		t.Fatalf("same settings: pid %s then %s, output %q; want the worker kept", first, again, out)
	}
	out, second := start("FOCUSCRAWL_FETCH_ALLOW_PRIVATE_NETWORKS=true")
	if second == first || !strings.Contains(out, "restarting") {
		t.Fatalf("new settings: pid %s then %s, output %q; want a restarted worker", first, second, out)
	}
	if s := settings(); !strings.Contains(s, "FOCUSCRAWL_FETCH_ALLOW_PRIVATE_NETWORKS=true") {
		t.Fatalf("restarted worker's settings %q lack the new one", s)
	}
	if exec.Command("kill", "-0", first).Run() == nil {
		t.Fatalf("the first worker (pid %s) still runs", first)
	}
	writeWorker("# rebuilt\n")
	if out, third := start("FOCUSCRAWL_FETCH_ALLOW_PRIVATE_NETWORKS=true"); third == second || !strings.Contains(out, "restarting") {
		t.Fatalf("rebuilt worker: pid %s then %s, output %q; want a restarted worker", second, third, out)
	}
}

// TestWorkersHaveTheirOwnMetricsPort: the workers make up and make demo
// start listen on metrics endpoints of their own, following TEMPORAL_PORT,
// the make up one on the configuration's default with the default port.
// Before, both took 127.0.0.1:9464: make demo after make up started a demo
// worker that exited at once ("bind: address already in use"), and so did
// the worker of a second make up on other ports (README) from another
// checkout.
func TestWorkersHaveTheirOwnMetricsPort(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	addr := func(port, role string) string {
		t.Helper()
		cmd := exec.Command("bash", "-c", "source ./lib.sh && metrics_address "+role)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "VAR_DIR=" + t.TempDir()}
		if port != "" {
			cmd.Env = append(cmd.Env, "TEMPORAL_PORT="+port)
		}
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("metrics_address %s: %v\n%s", role, err, b)
		}
		return strings.TrimSpace(string(b))
	}
	if got, want := addr("", "up"), config.Defaults()["metrics.address"]; got != want {
		t.Errorf("make up's worker on the default ports: metrics on %s; want the configuration's default %v", got, want)
	}
	seen := map[string]string{}
	for _, port := range []string{"", "17233"} {
		for _, role := range []string{"up", "demo"} {
			a := addr(port, role)
			if other, ok := seen[a]; ok {
				t.Errorf("TEMPORAL_PORT=%q %s worker: metrics on %s, as the %s one", port, role, a, other)
			}
			seen[a] = port + " " + role
		}
	}
}

// TestStopPidGivesTheWorkerItsGracePeriod: make down (stop_pid) must let a
// worker finish its graceful stop. config.example.yaml: "the stopper's grace
// period should exceed twice" crawl.stop_timeout (10s default). A stand-in
// worker that, like a real one with pages in flight, needs 6 s after SIGTERM
// must exit on its own, not be SIGKILLed.
func TestStopPidGivesTheWorkerItsGracePeriod(t *testing.T) {
	varDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(varDir, "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(varDir, "clean-exit")
	fake := filepath.Join(varDir, "fake-worker")
	if err := os.WriteFile(fake, []byte("#!/bin/bash\ntrap 'sleep 6; touch "+marker+"; exit 0' TERM\nwhile :; do sleep 0.1; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fake)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	if err := os.WriteFile(filepath.Join(varDir, "run", "worker.pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	stop := exec.Command("bash", "-c", "source ./lib.sh && stop_pid worker")
	stop.Env = []string{"PATH=" + os.Getenv("PATH"), "VAR_DIR=" + varDir}
	if out, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("stop_pid: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("stop_pid SIGKILLed a worker still within its graceful stop (crawl.stop_timeout 10s): %v", err)
	}
}

// TestRestartKeepsTheDeadWorkersLog: the make up that brings back a worker
// killed mid-crawl (kill -9 in a Rust-doc trial) truncated
// var/log/worker.log, so the dead worker's log — what it was doing when it
// died — was gone once the crawl went on. Each start now appends to the log
// after a line naming it.
func TestRestartKeepsTheDeadWorkersLog(t *testing.T) {
	// A stand-in worker that says which run it is, then idles.
	varDir := fakeWorker(t, "#!/bin/sh\necho \"worker run $RUN\"\nexec sleep 60\n")
	pidFile := filepath.Join(varDir, "run", "w.pid")
	kill := func(sig string) {
		if pid, err := os.ReadFile(pidFile); err == nil {
			exec.Command("kill", sig, strings.TrimSpace(string(pid))).Run()
		}
	}
	t.Cleanup(func() { kill("-TERM") })
	logFile := filepath.Join(varDir, "log", "w.log")
	for _, run := range []string{"one", "two"} {
		cmd := exec.Command("bash", "-c", "source ./lib.sh && start_worker w")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "VAR_DIR=" + varDir, "RUN=" + run}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("start_worker: %v\n%s", err, b)
		}
		if run == "one" {
			// Until the stand-in has written its line, then kill -9 it.
			for i := 0; i < 50; i++ {
				if b, _ := os.ReadFile(logFile); strings.Contains(string(b), "worker run one") {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			kill("-KILL")
			// Gone (and reaped) before make up runs again.
			for i := 0; i < 50; i++ {
				pid, _ := os.ReadFile(pidFile)
				if exec.Command("kill", "-0", strings.TrimSpace(string(pid))).Run() != nil {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.Contains(got, "worker run one") || !strings.Contains(got, "worker run two") {
		t.Fatalf("log after a restart:\n%s\nwant both workers' output", got)
	}
	if n := strings.Count(got, "starting worker w"); n != 2 {
		t.Errorf("%d start lines in the log; want one a start:\n%s", n, got)
	}
}

// fakeWorker returns a VAR_DIR whose bin/worker is the stand-in script
// (start_worker runs it); without bash the test is skipped.
func fakeWorker(t *testing.T, script string) string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	varDir := t.TempDir()
	bin := filepath.Join(varDir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "worker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return varDir
}
