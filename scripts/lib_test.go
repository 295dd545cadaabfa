// Package scripts_test tests the shell helpers of scripts/lib.sh that
// make up and make demo are built on.
package scripts_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"focuscrawl/internal/config"
)

// TestStartWorkerFollowsNewSettings: make up with other FOCUSCRAWL_*
// settings, or after a rebuild, restarts the worker it started before,
// which would otherwise go on with its old configuration. GBK trial: a first
// `make up`, then `FOCUSCRAWL_FETCH_ALLOW_PRIVATE_NETWORKS=true make up` (as
// the README says for a loopback site) said "already running", and the
// loopback crawl failed its seed as ssrf. The same settings keep it running.
func TestStartWorkerFollowsNewSettings(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	varDir := t.TempDir()
	bin := filepath.Join(varDir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// A stand-in worker: records the settings it was started with, then
	// idles like a worker until stopped.
	fake := "#!/bin/sh\nenv | grep '^FOCUSCRAWL_' | sort > \"$VAR_DIR/worker.env\"\nexec sleep 60\n"
	writeWorker := func(extra string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(bin, "worker"), []byte(fake+extra), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeWorker("")
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

// TestStartWorkerMovesOffATakenMetricsPort: a second worker on one machine
// (make demo after make up, or make up in another clone with other
// TEMPORAL_PORTs, as the README suggests) took the default metrics address
// too and exited at once with "bind: address already in use". With the port
// taken and no metrics setting of the user's, the worker gets a free port;
// a user's FOCUSCRAWL_METRICS_ADDRESS is left alone.
func TestStartWorkerMovesOffATakenMetricsPort(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	def, _ := config.Defaults()["metrics.address"].(string)
	if want := "127.0.0.1:9464"; def != want {
		t.Fatalf("config's default metrics.address is %q; scripts/lib.sh's METRICS_DEFAULT_PORT assumes %q", def, want)
	}
	// Hold the port, unless something (a running worker) already does.
	if ln, err := net.Listen("tcp", def); err == nil {
		t.Cleanup(func() { ln.Close() })
	}
	varDir := t.TempDir()
	bin := filepath.Join(varDir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\nenv | grep '^FOCUSCRAWL_' | sort > \"$VAR_DIR/worker.env\"\nexec sleep 60\n"
	if err := os.WriteFile(filepath.Join(bin, "worker"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(varDir, "run", "m.pid")
	stop := func() {
		if pid, err := os.ReadFile(pidFile); err == nil {
			exec.Command("kill", strings.TrimSpace(string(pid))).Run()
			os.Remove(pidFile)
		}
	}
	t.Cleanup(stop)
	start := func(env ...string) (out, settings string) {
		t.Helper()
		cmd := exec.Command("bash", "-c", "source ./lib.sh && start_worker m")
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "VAR_DIR=" + varDir}, env...)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("start_worker: %v\n%s", err, b)
		}
		s, err := os.ReadFile(filepath.Join(varDir, "worker.env"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b), string(s)
	}
	out, s := start()
	if !strings.Contains(s, "FOCUSCRAWL_METRICS_ADDRESS=127.0.0.1:0") || !strings.Contains(out, "metrics port 9464 is taken") {
		t.Errorf("port taken: worker settings %q, output %q; want a free metrics port, said", s, out)
	}
	stop()
	if out, s = start("FOCUSCRAWL_METRICS_ADDRESS=127.0.0.1:19999"); !strings.Contains(s, "FOCUSCRAWL_METRICS_ADDRESS=127.0.0.1:19999") || strings.Contains(out, "taken") {
		t.Errorf("user's address: worker settings %q, output %q; want it kept", s, out)
	}
}
