package crawlctl

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
)

// TestScheduleArgumentsCheckedBeforeDial: a mistyped schedule subcommand or
// a missing TOPIC is a usage error (exit status 2) also when Temporal is
// down; before, the connection error came first (exit status 1).
func TestScheduleArgumentsCheckedBeforeDial(t *testing.T) {
	for _, args := range [][]string{
		{"schedule", "bogus"},
		{"schedule", "bogus", "roses"},
		{"schedule", "describe"},
		{"schedule", "pause", "a", "b"},
		{"schedule", "list", "roses"},
		{"refresh"},
		{"refresh", "a", "b"},
		{"refresh", "no/such name"},
	} {
		err := cli.Run(context.Background(), "starter", "", Commands(), append(args, unreachable))
		var ue cli.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%q = %v; want a usage error", args, err)
		}
	}
}

// TestScheduleCreateWithTopicArgument: `schedule create TOPIC`, the form
// every other schedule subcommand takes, says the topic is given as
// --topic FILE; it said only "takes no arguments" (a user trial), and the
// --help it pointed to lists --topic among nine flags.
func TestScheduleCreateWithTopicArgument(t *testing.T) {
	err := cli.Run(context.Background(), "starter", "", Commands(), []string{"schedule", "create", "roses", unreachable})
	var ue cli.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--topic FILE") {
		t.Errorf("schedule create roses = %v; want a usage error naming --topic FILE", err)
	}
}

// TestScheduleCreateCheckedBeforeDial: `schedule create`'s topic file and
// flags are checked before it dials Temporal — a bad topic, --interval
// with --cron, an unknown overlap policy, a negative --jitter or
// --catchup-window, a --catchup-window below the server's 10 s minimum
// are reported as such when Temporal is down; before, the connection error
// came first, a negative duration silently meant the configuration's
// value, and 0 was sent as "unset", which the server reads as a year.
func TestScheduleCreateCheckedBeforeDial(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "roses.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte("name: roses\nkeywords: {roses: 1}\nseeds: [http://example.com/]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("name: Bad Name\nkeywords: {roses: 1}\nseeds: [http://example.com/]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--topic", bad}, "name"},
		{[]string{"--topic", good, "--interval", "1h", "--cron", "0 3 * * *"}, "not both"},
		{[]string{"--topic", good, "--overlap", "bogus"}, "overlap policy"},
		{[]string{"--topic", good, "--jitter=-5m"}, "--jitter must not be negative"},
		{[]string{"--topic", good, "--catchup-window=-1h"}, "--catchup-window must not be negative"},
		// 0 would reach the server as "unset": its default, a year.
		{[]string{"--topic", good, "--catchup-window=0"}, "--catchup-window must be at least 10s"},
		{[]string{"--topic", good, "--catchup-window=9s"}, "--catchup-window must be at least 10s"},
	} {
		args := append(append([]string{"schedule", "create"}, tc.args...), unreachable)
		err := cli.Run(context.Background(), "starter", "", Commands(), args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q = %v; want an error saying %q", tc.args, err, tc.want)
		}
	}
}

// missingSchedule is the handle of a schedule the server does not have: every
// operation fails as the Temporal server answers it.
type missingSchedule struct{ client.ScheduleHandle }

func (missingSchedule) GetID() string { return "focuscrawl/nosuch" }

var errNoSchedule = serviceerror.NewNotFound("workflow not found for ID: temporal-sys-scheduler:focuscrawl/nosuch")

func (missingSchedule) Describe(context.Context) (*client.ScheduleDescription, error) {
	return nil, errNoSchedule
}
func (missingSchedule) Pause(context.Context, client.SchedulePauseOptions) error {
	return errNoSchedule
}
func (missingSchedule) Unpause(context.Context, client.ScheduleUnpauseOptions) error {
	return errNoSchedule
}
func (missingSchedule) Trigger(context.Context, client.ScheduleTriggerOptions) error {
	return errNoSchedule
}
func (missingSchedule) Delete(context.Context) error { return errNoSchedule }

// TestScheduleNotFound: an operation on a schedule that does not exist says
// so by topic; before, it showed the server's "workflow not found for ID:
// temporal-sys-scheduler:…", naming Temporal's internal workflow.
func TestScheduleNotFound(t *testing.T) {
	for _, sub := range []string{"describe", "pause", "unpause", "trigger", "delete"} {
		var out bytes.Buffer
		err := scheduleOp(context.Background(), &out, missingSchedule{}, sub, "nosuch", "")
		if err == nil || !strings.Contains(err.Error(), `no schedule for topic "nosuch"`) ||
			strings.Contains(err.Error(), "temporal-sys-scheduler") || out.Len() != 0 {
			t.Errorf("schedule %s: error %v, output %q; want only \"no schedule for topic\"", sub, err, out.String())
		}
	}
}

// TestScheduleHelpShowsNoSentinelDefaults: --catchup-window and --jitter
// default to the configuration's values, which a -1 sentinel stands for in
// code; 'starter schedule --help' printed it, "(default config
// schedule.jitter) (default -1ns)".
func TestScheduleHelpShowsNoSentinelDefaults(t *testing.T) {
	fs := pflag.NewFlagSet("schedule", pflag.ContinueOnError)
	Commands()["schedule"].Flags(fs)
	usage := fs.FlagUsages()
	if strings.Contains(usage, "-1ns") {
		t.Errorf("schedule flags' usage shows the -1ns sentinel:\n%s", usage)
	}
	for _, f := range []string{"catchup-window", "jitter"} {
		if !strings.Contains(fs.Lookup(f).Usage, "default config schedule.") {
			t.Errorf("--%s's usage does not name its configuration default: %q", f, fs.Lookup(f).Usage)
		}
	}
}

// TestScheduleCreateCatchupWindow: the catch-up window a schedule is created
// with is the flag's, else the configuration's, never 0 (the server's
// one-year default); a configuration below the minimum, which Load takes
// (every command, the worker's too, loads it), is refused here, named by
// its key, with what to do.
func TestScheduleCreateCatchupWindow(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "roses.yaml")
	if err := os.WriteFile(file, []byte("name: roses\nkeywords: {roses: 1}\nseeds: [http://example.com/]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := func(cfgWindow time.Duration, args ...string) (*createPlan, error) {
		cfg, err := config.Load("", nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Schedule.CatchupWindow = cfgWindow
		fs := pflag.NewFlagSet("schedule", pflag.ContinueOnError)
		Commands()["schedule"].Flags(fs)
		if err := fs.Parse(append([]string{"--topic", file}, args...)); err != nil {
			t.Fatal(err)
		}
		return planCreate(&cli.Env{Cfg: cfg, FS: fs})
	}
	p, err := plan(time.Hour, "--catchup-window", "10s")
	if err != nil || p.opts.CatchupWindow != 10*time.Second {
		t.Errorf("--catchup-window 10s: %v, %+v; want a 10s window", err, p)
	}
	p, err = plan(2 * time.Hour)
	if err != nil || p.opts.CatchupWindow != 2*time.Hour {
		t.Errorf("no flag, config 2h: %v, %+v; want a 2h window", err, p)
	}
	for _, w := range []time.Duration{0, 9 * time.Second} {
		_, err := plan(w)
		if err == nil || !strings.Contains(err.Error(), "config schedule.catchup_window must be at least 10s") || !strings.Contains(err.Error(), "--catchup-window") {
			t.Errorf("no flag, config %s: %v; want an error naming schedule.catchup_window and --catchup-window", w, err)
		}
	}
	if p, err := plan(0, "--catchup-window", "1m"); err != nil || p.opts.CatchupWindow != time.Minute {
		t.Errorf("--catchup-window 1m, config 0: %v, %+v; want a 1m window", err, p)
	}
}
