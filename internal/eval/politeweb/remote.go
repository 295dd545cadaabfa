package politeweb

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"
)

// ControlHost is the Host header of the requests that read and reset a
// server's log (Serve, Remote); they are not logged.
const ControlHost = "control.politeweb.invalid"

// listening is the line Serve prints once it accepts requests.
const listening = "politeweb listening on "

// Serve runs the server of cfg in this process until stdin closes — its
// parent's end of the pipe, so a parent that dies takes it along — after
// printing the address it listens on. It is the child process of Spawn.
//
// It asks for a higher scheduling priority first (raisePriority), so that
// the times it logs are when requests arrived, not when a loaded machine
// got round to running it; the line says whether it got it.
func Serve(cfg Config, stdin io.Reader, stdout io.Writer) error {
	s, err := New(cfg)
	if err != nil {
		return err
	}
	addr, err := s.Start("127.0.0.1:0")
	if err != nil {
		return err
	}
	// After Start, which may have started threads of its own.
	prio := fmt.Sprintf("nice %d", serverNice)
	if err := raisePriority(); err != nil {
		prio = "default priority: " + err.Error()
	}
	defer s.Close()
	fmt.Fprintf(stdout, "%s%s (%s)\n", listening, addr, prio)
	io.Copy(io.Discard, stdin) //nolint:errcheck // EOF or an error: the parent is gone either way
	return nil
}

// Remote is a politeweb server running in a child process (Spawn), at a
// higher scheduling priority (Serve). A server in the benchmark's own
// process logged a request when its handler goroutine started, and with
// the crawler's work on every core that start came up to ~130 ms after
// the request arrived, more for some requests than for others: two
// requests a crawler sent 1.05 s apart were logged 0.92 s apart, a
// politeness violation the crawler did not commit (the benchmark on a
// loaded machine, 2026-11-28). A process of its own at the default
// priority still lagged so under load (all five violations of a run ~134
// ms short at one moment: the machine, not the crawler); with a higher
// priority it runs when a request arrives, as a server on another machine
// does.
type Remote struct {
	// Priority is the scheduling priority the server got ("nice -10",
	// or why it runs at the default).
	Priority string

	cfg    Config
	addr   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	client *http.Client
}

// spawnWait is how long Spawn waits for its server to listen.
var spawnWait = 2 * time.Minute

// Spawn starts argv (a command whose Serve reads cfg as JSON from its last
// argument) and waits for its address, for spawnWait at most.
func Spawn(ctx context.Context, cfg Config, argv ...string) (*Remote, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("politeweb: no server command")
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], string(b))...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("politeweb: start %s: %w", argv[0], err)
	}
	r := &Remote{cfg: cfg, cmd: cmd, stdin: stdin}
	// A server that hangs before listening (a slow disk under the corpus,
	// a wedged child) would hold the benchmark for ever: it is killed,
	// which ends the scan below.
	var late atomic.Bool
	hang := time.AfterFunc(spawnWait, func() {
		late.Store(true)
		_ = cmd.Process.Kill()
		_ = stdout.Close() // a grandchild may hold the pipe open
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if a, ok := strings.CutPrefix(lines.Text(), listening); ok {
			r.addr, r.Priority, _ = strings.Cut(a, " ")
			r.Priority = strings.TrimSuffix(strings.TrimPrefix(r.Priority, "("), ")")
			break
		}
	}
	hang.Stop()
	if r.addr == "" {
		r.Close()
		if late.Load() {
			return nil, fmt.Errorf("politeweb: %s did not listen within %s: killed", argv[0], spawnWait)
		}
		return nil, fmt.Errorf("politeweb: %s exited without listening", argv[0])
	}
	go io.Copy(io.Discard, stdout) //nolint:errcheck // drained so it never blocks
	r.client = &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: r.DialContext}}
	return r, nil
}

// Host returns the name of virtual host i.
func (r *Remote) Host(i int) string { return r.cfg.host(i) }

// Seeds returns every host's seed URL.
func (r *Remote) Seeds() []string { return r.cfg.seeds() }

// DialContext dials the server whatever address is asked.
func (r *Remote) DialContext(ctx context.Context, network, _ string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, r.addr)
}

// Addr is the server's host:port.
func (r *Remote) Addr() string { return r.addr }

// Log returns the server's request log, in start order.
func (r *Remote) Log() ([]Request, error) {
	resp, err := r.client.Get("http://" + ControlHost + "/log")
	if err != nil {
		return nil, fmt.Errorf("politeweb: read the log: %w", err)
	}
	defer resp.Body.Close()
	var out []Request
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("politeweb: read the log: %w", err)
	}
	return out, nil
}

// Reset clears the server's request log.
func (r *Remote) Reset() error {
	resp, err := r.client.Post("http://"+ControlHost+"/reset", "text/plain", nil)
	if err != nil {
		return fmt.Errorf("politeweb: reset the log: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("politeweb: reset the log: %s", resp.Status)
	}
	return nil
}

// Close ends the child process (its stdin closes) and waits for it.
func (r *Remote) Close() error {
	r.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		r.cmd.Process.Kill() //nolint:errcheck // it did not end by itself
		return <-done
	}
}
