package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestReport: a usage error exits 2 and says where the command's flags are
// listed (before, only the message was printed); other errors exit 1, none
// 0.
func TestReport(t *testing.T) {
	commands := map[string]Command{"crawl": {}}
	for _, tc := range []struct {
		args []string
		err  error
		code int
		hint bool
	}{
		{[]string{"crawl"}, UsageError("--topic FILE is required"), 2, true},
		{[]string{"nosuch"}, Usagef("unknown command %q", "nosuch"), 2, false},
		{[]string{"crawl"}, errors.New("dial: refused"), 1, false},
		{[]string{"crawl"}, nil, 0, false},
		// Ctrl-C during crawl --wait: the command printed where the crawl
		// goes on; the report used to add "context canceled".
		{[]string{"crawl"}, fmt.Errorf("wait: %w", context.Canceled), 130, false},
		// Ctrl-C during a Temporal call: the client's own error, marked by
		// Main as interrupted.
		{[]string{"crawl"}, fmt.Errorf("%w: %w", ErrInterrupted, errors.New("rpc error: code = Canceled")), 130, false},
	} {
		var b bytes.Buffer
		code := Report(&b, "starter", commands, tc.args, tc.err)
		if errors.Is(tc.err, context.Canceled) || errors.Is(tc.err, ErrInterrupted) {
			if code != 130 || b.String() != "starter: interrupted\n" {
				t.Errorf("Report(interrupted) = %d, %q; want 130, \"starter: interrupted\"", code, b.String())
			}
			continue
		}
		hint := strings.Contains(b.String(), "run 'starter crawl --help'")
		if code != tc.code || hint != tc.hint || (tc.err != nil && !strings.Contains(b.String(), tc.err.Error())) {
			t.Errorf("Report(%v, %v) = %d, output %q; want %d, hint %v", tc.args, tc.err, code, b.String(), tc.code, tc.hint)
		}
	}
}

// TestWarnUnknownEnv: a misspelt FOCUSCRAWL_* variable is named with the
// variable meant; known ones are not.
func TestWarnUnknownEnv(t *testing.T) {
	t.Setenv("FOCUSCRAWL_LOG_LEVL", "debug")
	t.Setenv("FOCUSCRAWL_LOG_LEVEL", "info")
	var b strings.Builder
	WarnUnknownEnv(&b, "starter")
	want := "starter: warning: environment variable FOCUSCRAWL_LOG_LEVL is not a focuscrawl setting and is ignored (did you mean FOCUSCRAWL_LOG_LEVEL?)\n"
	// Contains, not equals: the environment running the test may hold
	// other FOCUSCRAWL_* variables of its own.
	if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "FOCUSCRAWL_LOG_LEVEL is") {
		t.Errorf("warnings:\n got %q\nwant it to hold %q and nothing about FOCUSCRAWL_LOG_LEVEL itself", b.String(), want)
	}
}

// TestUnknownFlagHint: a search for an option of the crawled documentation
// (`search query --no-ff`, `-apt`) was refused as an unknown flag with
// nothing more; the error says that "--" ends the flags, and a flag
// mistyped by a letter or two names the one meant instead.
func TestUnknownFlagHint(t *testing.T) {
	run := func(context.Context, *Env) error { return nil }
	commands := map[string]Command{"query": {Run: run, Flags: func(fs *pflag.FlagSet) {
		fs.String("topic", "", "")
		fs.String("host", "", "")
		fs.Int("limit", 10, "")
		fs.Int("page", 1, "")
		fs.Bool("json", false, "")
	}}}
	after := func(arg string) string {
		return `an argument that starts with '-' goes after "--", the flags before it: search query [flags] -- ` + arg
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"query", "merge", "--no-ff"}, `unknown flag: --no-ff (` + after("--no-ff") + `)`},
		{[]string{"query", "--no-ff=x"}, `unknown flag: --no-ff (` + after("--no-ff=x") + `)`},
		{[]string{"query", "-apt"}, `unknown shorthand flag: 'a' in -apt (` + after("-apt") + `)`},
		{[]string{"query", "x", "--limt", "5"}, `unknown flag: --limt (did you mean --limit? ` + after("--limt") + `)`},
		// Short words two edits from a flag are taken for arguments, not
		// typos: git reset --soft is not --host, --tags not --page.
		{[]string{"query", "--soft"}, `unknown flag: --soft (` + after("--soft") + `)`},
		{[]string{"query", "--tags"}, `unknown flag: --tags (` + after("--tags") + `)`},
		{[]string{"query", "--foo bar"}, `unknown flag: --foo bar (` + after(`'--foo bar'`) + `)`},
	} {
		err := Run(context.Background(), "search", "", commands, tc.args)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.args, err, tc.want)
		}
	}
	if err := Run(context.Background(), "search", "", commands, []string{"query", "--", "--no-ff"}); err != nil {
		t.Errorf("query -- --no-ff: %v", err)
	}
}

// TestWarnFlagsAfterDash: `search query -- -map --topic T` searched every
// topic for "-map --topic T" without a word; a flag's name after "--" is
// warned of (and still read as an argument), other arguments are not.
func TestWarnFlagsAfterDash(t *testing.T) {
	fs := pflag.NewFlagSet("query", pflag.ContinueOnError)
	fs.String("topic", "", "")
	fs.Int("limit", 10, "")
	if err := fs.Parse([]string{"--limit", "3", "--", "-map", "--topic", "rust", "--limit=5", "--no-ff", "-t"}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	warnFlagsAfterDash(&b, "search", fs)
	got := b.String()
	for _, want := range []string{
		`search: warning: --topic after "--" is an argument, not the flag --topic (flags go before "--")`,
		`search: warning: --limit=5 after "--" is an argument, not the flag --limit`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings:\n%s\nwant %q", got, want)
		}
	}
	if n := strings.Count(got, "warning"); n != 2 {
		t.Errorf("%d warnings; want 2 (not -map, rust, --no-ff, -t):\n%s", n, got)
	}
	b.Reset()
	fs = pflag.NewFlagSet("query", pflag.ContinueOnError)
	fs.String("topic", "", "")
	if err := fs.Parse([]string{"zip", "--topic", "rust"}); err != nil {
		t.Fatal(err)
	}
	if warnFlagsAfterDash(&b, "search", fs); b.Len() > 0 {
		t.Errorf("no \"--\": %s", b.String())
	}
}

// TestUnresolvable: a Temporal address whose host DNS does not know is
// named as such (the client's own error, "no children to pick from", did
// not say it); IP addresses and hosts that resolve are not.
func TestUnresolvable(t *testing.T) {
	if why := Unresolvable("nosuchhost.invalid:7233"); !strings.Contains(why, `host "nosuchhost.invalid" does not resolve`) {
		t.Errorf("nosuchhost.invalid: %q", why)
	}
	for _, ok := range []string{"127.0.0.1:7233", "[::1]:7233", "localhost:7233", "noport"} {
		if why := Unresolvable(ok); why != "" {
			t.Errorf("%s: %q; want none", ok, why)
		}
	}
}
