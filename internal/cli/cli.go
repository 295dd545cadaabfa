// Package cli is the one subcommand mechanism of focuscrawl's commands
// (starter, search, eval): a command name selects a Command, whose flags are
// parsed together with --config and every configuration flag
// (--temporal.address=…), and which runs with the loaded configuration. The
// mains are a table of commands over this package.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"focuscrawl/internal/config"
	"focuscrawl/internal/suggest"
)

// Command is one subcommand.
type Command struct {
	Summary string
	// Flags adds the command's own flags (optional).
	Flags func(fs *pflag.FlagSet)
	// Run runs the command with its parsed flags and the configuration.
	Run func(ctx context.Context, env *Env) error
	// Main, instead of Run, receives the raw arguments after the command
	// name: for tools that parse their own flags (and load no configuration
	// through this package).
	Main func(ctx context.Context, args []string) error
}

// Env is what a command gets: its parsed flags, positional arguments and
// the loaded configuration.
type Env struct {
	FS   *pflag.FlagSet
	Args []string
	Cfg  *config.Config
}

// UsageError marks errors caused by how the command was called (exit status 2).
type UsageError string

func (e UsageError) Error() string { return string(e) }

// Usagef returns a UsageError.
func Usagef(format string, args ...any) error { return UsageError(fmt.Sprintf(format, args...)) }

// OneArg returns the single positional argument or a usage error.
func (env *Env) OneArg(what string) (string, error) {
	if len(env.Args) != 1 {
		return "", Usagef("expected exactly one %s argument, got %d", what, len(env.Args))
	}
	return env.Args[0], nil
}

// Main runs the command of os.Args named by its first argument and exits
// with status 1 on an error, 2 on a usage error, 130 when interrupted. about is the program's
// one-line description in its usage text.
func Main(program, about string, commands map[string]Command) {
	// SIGTERM too: docker compose stop and systemd send it, and `search
	// serve` flushes its no-result queries and closes requests on it.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Run(ctx, program, about, commands, os.Args[1:])
	if err != nil && ctx.Err() != nil {
		// Interrupted, whatever the error says: Temporal's client answers
		// a cancelled call with its own error, which is no
		// context.Canceled.
		err = fmt.Errorf("%w: %w", ErrInterrupted, err)
	}
	cancel()
	if code := Report(os.Stderr, program, commands, os.Args[1:], err); code != 0 {
		os.Exit(code)
	}
}

// ErrInterrupted marks the error of a command stopped by Ctrl-C (Main);
// Report reports it as an interruption.
var ErrInterrupted = errors.New("interrupted")

// Report writes err (if any) for the command line args to w and returns
// the exit status: 0 without an error, 2 for a usage error — followed by
// where the command's flags are listed —, 130 for an interrupted command
// (an error that is context.Canceled) and 1 otherwise.
func Report(w io.Writer, program string, commands map[string]Command, args []string, err error) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, ErrInterrupted) || errors.Is(err, context.Canceled) {
		// Ctrl-C: the command has said what it left behind (a crawl goes
		// on in Temporal); "context canceled" added nothing but alarm.
		fmt.Fprintf(w, "%s: interrupted\n", program)
		return 130
	}
	fmt.Fprintf(w, "%s: %v\n", program, err)
	var ue UsageError
	if !errors.As(err, &ue) {
		return 1
	}
	if len(args) > 0 {
		if _, ok := commands[args[0]]; ok {
			fmt.Fprintf(w, "run '%s %s --help' for its arguments and flags\n", program, args[0])
		}
	}
	return 2
}

// Run runs the command that args names.
func Run(ctx context.Context, program, about string, commands map[string]Command, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(program, about, commands)
		return nil
	}
	name := args[0]
	c, ok := commands[name]
	if !ok {
		printUsage(program, about, commands)
		return Usagef("unknown command %q", name)
	}
	if c.Main != nil {
		if err := c.Main(ctx, args[1:]); !errors.Is(err, flag.ErrHelp) {
			return err // --help of a standard flag set has printed the usage
		}
		return nil
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	cfgFile := fs.String("config", os.Getenv("FOCUSCRAWL_CONFIG"), "configuration file (YAML)")
	config.AddFlags(fs)
	if c.Flags != nil {
		c.Flags(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: %s %s [flags]\n%s\n\nflags:\n%s", program, name, c.Summary, fs.FlagUsages())
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return UsageError(err.Error() + unknownFlagHint(fs, program, name, args[1:], err))
	}
	cfg, err := config.Load(*cfgFile, fs)
	if err != nil {
		return err
	}
	WarnUnknownEnv(os.Stderr, program)
	warnFlagsAfterDash(os.Stderr, program, fs)
	return c.Run(ctx, &Env{FS: fs, Args: fs.Args(), Cfg: cfg})
}

// unknownFlagHint follows pflag's "unknown flag" error: how to pass an
// argument that starts with '-' (after "--") and, for a long flag close to
// a real one ("--limt"), the flag meant. A search for an option of the
// documentation crawled (`search query --no-ff`, `search query -m`) was
// refused as an unknown flag with nothing to say that "--" ends the flags;
// the advice is always given, as a short unknown name ("--soft") is as
// likely an argument as a typo of a flag ("--host").
func unknownFlagHint(fs *pflag.FlagSet, program, command string, args []string, err error) string {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return ""
	}
	name, shorts := ne.GetSpecifiedName(), ne.GetSpecifiedShortnames()
	arg := "-" + shorts
	if shorts == "" {
		arg = "--" + name
		for _, a := range args {
			if a == arg || strings.HasPrefix(a, arg+"=") {
				arg = a
				break
			}
		}
	}
	if strings.ContainsAny(arg, " \t'\"$`\\*?;&|<>()") {
		arg = "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'"
	}
	hint := fmt.Sprintf("an argument that starts with '-' goes after \"--\", the flags before it: %s %s [flags] -- %s", program, command, arg)
	if shorts == "" {
		var names []string
		fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		// At most one edit in three letters: two edits turn most short
		// words into some flag ("--soft" into "--host").
		if s := suggest.Closest(name, names, min(2, len(name)/3)); s != "" {
			return fmt.Sprintf(" (did you mean --%s? %s)", s, hint)
		}
	}
	return " (" + hint + ")"
}

// warnFlagsAfterDash warns, on w, of each argument after "--" that names
// one of fs's flags ("--topic", "--limit=5"): "--" ends the flags, so it is
// read as an argument. Told that `search query -- -map` searches for
// "-map", a user added the usual `--topic T --limit 5` after it, and the
// search ran over every topic for "-map --topic T --limit 5" and found
// nothing, without a word (Rust-doc trial). A warning, not an error: the
// words may be meant (a search for an option of the documentation).
func warnFlagsAfterDash(w io.Writer, program string, fs *pflag.FlagSet) {
	at := fs.ArgsLenAtDash()
	if at < 0 {
		return
	}
	for _, a := range fs.Args()[at:] {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if strings.HasPrefix(a, "--") && fs.Lookup(name) != nil {
			fmt.Fprintf(w, "%s: warning: %s after \"--\" is an argument, not the flag --%s (flags go before \"--\")\n", program, a, name)
		}
	}
}

// WarnUnknownEnv writes a warning to w for each FOCUSCRAWL_* variable in
// the environment that no setting reads (config.UnknownEnv): it is ignored,
// and a misspelt name would otherwise go unnoticed.
func WarnUnknownEnv(w io.Writer, program string) {
	for _, msg := range config.UnknownEnv(os.Environ()) {
		fmt.Fprintf(w, "%s: warning: %s\n", program, msg)
	}
}

func printUsage(program, about string, commands map[string]Command) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n\nusage: %s COMMAND [flags] [args]\n\ncommands:\n", program, about, program)
	for _, n := range names {
		fmt.Fprintf(&b, "  %-13s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintf(&b, "\nRun '%s COMMAND --help' for a command's flags. Configuration: --config FILE,\nFOCUSCRAWL_* environment variables, or flags like --temporal.address=HOST:PORT.\n", program)
	fmt.Fprint(os.Stderr, b.String())
}

// Unresolvable says why hostport's host does not resolve, or returns ""
// when it does (or is an IP address, or hostport has no port). A Temporal
// client dialling a host that DNS does not know fails with gRPC's
// "failed reaching server: no children to pick from", which does not say
// that the address is wrong (chaos trial, temporal.address misspelt); the
// commands that dial Temporal add this to their error.
func Unresolvable(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil || host == "" || net.ParseIP(host) != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := net.DefaultResolver.LookupHost(ctx, host); err != nil {
		return fmt.Sprintf("host %q does not resolve: %v", host, err)
	}
	return ""
}
