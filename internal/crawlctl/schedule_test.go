package crawlctl

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"focuscrawl/internal/cli"
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
	} {
		err := cli.Run(context.Background(), "starter", "", Commands(), append(args, unreachable))
		var ue cli.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%q = %v; want a usage error", args, err)
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
