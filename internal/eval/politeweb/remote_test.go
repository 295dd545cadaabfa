package politeweb

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHelperServe is the child process of TestRemote: the test binary run
// again, serving the configuration its last argument holds.
func TestHelperServe(t *testing.T) {
	if os.Getenv("POLITEWEB_HELPER") != "1" {
		t.Skip("the child process of TestRemote")
	}
	var cfg Config
	if err := json.Unmarshal([]byte(os.Args[len(os.Args)-1]), &cfg); err != nil {
		t.Fatal(err)
	}
	if err := Serve(cfg, os.Stdin, os.Stdout); err != nil {
		t.Fatal(err)
	}
	os.Exit(0)
}

// TestRemote: a server in a child process serves the hosts, logs their
// requests (not the control requests that read and reset the log), and
// ends when its parent closes it.
func TestRemote(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(`<a href="a.html">a</a>`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("POLITEWEB_HELPER", "1")
	r, err := Spawn(t.Context(), Config{Dir: dir, Hosts: 2, Domain: "p.test", Index: "index.html"},
		os.Args[0], "-test.run=^TestHelperServe$", "--")
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{DialContext: r.DialContext}}
	get := func(u string) string {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := get(r.Seeds()[1]); got != "<!-- served by "+r.Host(1)+" -->\n"+`<a href="a.html">a</a>` {
		t.Errorf("seed page %q", got)
	}
	get("http://" + r.Host(0) + "/robots.txt")
	log, err := r.Log()
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[0].Host != r.Host(1) || log[0].Path != "/index.html" || log[1].Path != "/robots.txt" || log[0].Status != 200 {
		t.Errorf("log %+v; want the seed page of host 1, then robots.txt of host 0", log)
	}
	if err := r.Reset(); err != nil {
		t.Fatal(err)
	}
	if log, err := r.Log(); err != nil || len(log) != 0 {
		t.Errorf("log after Reset: %+v, %v; want it empty", log, err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v; want the child to end when its stdin closes", err)
	}
}

// TestSpawnHangs: a server that never says it listens is killed after
// spawnWait, and Spawn says so instead of waiting for ever.
func TestSpawnHangs(t *testing.T) {
	defer func(d time.Duration) { spawnWait = d }(spawnWait)
	spawnWait = 200 * time.Millisecond
	_, err := Spawn(t.Context(), Config{}, "sh", "-c", "exec sleep 600", "sh")
	if err == nil || !strings.Contains(err.Error(), "did not listen within 200ms") {
		t.Fatalf("Spawn of a silent server: %v; want it killed, said", err)
	}
}
