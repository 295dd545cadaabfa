// Command starter is focuscrawl's command-line client: it starts and steers
// topic crawls on Temporal, exports crawl logs and searches the index.
//
//	go run ./starter crawl --topic topics/example.yaml --wait
//	go run ./starter status   CRAWL_ID
//	go run ./starter pause|resume|stop CRAWL_ID
//	go run ./starter add-seeds CRAWL_ID URL...
//	go run ./starter export   CRAWL_ID [--out log.jsonl]
//	go run ./starter crawls   [--topic NAME]
//	go run ./starter search   "查询" [--topic NAME] [--host HOST] [--limit N] [--json]
//	go run ./starter serve    [--addr 127.0.0.1:8080] [--no-store]
//	go run ./starter validate --topic FILE
//	go run ./starter topic bootstrap URL... --name N [--out FILE]
//	go run ./starter serve-site --dir DIR [--addr 127.0.0.1:8089]
//	go run ./starter gen-site --out DIR [--seed N]
//
// Every command accepts --config FILE and the configuration flags
// (e.g. --temporal.address=host:7233); FOCUSCRAWL_* environment variables work too.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"focuscrawl/internal/config"
)

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, env *cmdEnv) error
	flags   func(fs *pflag.FlagSet)
}

// cmdEnv is what a subcommand gets: its parsed flags, positional arguments
// and the loaded configuration.
type cmdEnv struct {
	fs   *pflag.FlagSet
	args []string
	cfg  *config.Config
}

var commands = map[string]command{}

func register(name string, c command) { commands[name] = c }

// usageError marks errors caused by how the command was called.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "starter:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage()
		return nil
	}
	name := args[0]
	c, ok := commands[name]
	if !ok {
		printUsage()
		return usageError{fmt.Sprintf("unknown command %q", name)}
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	cfgFile := fs.String("config", os.Getenv("FOCUSCRAWL_CONFIG"), "configuration file (YAML)")
	config.AddFlags(fs)
	if c.flags != nil {
		c.flags(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: starter %s [flags]\n%s\n\nflags:\n%s", name, c.summary, fs.FlagUsages())
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return usageError{err.Error()}
	}
	cfg, err := config.Load(*cfgFile, fs)
	if err != nil {
		return err
	}
	return c.run(ctx, &cmdEnv{fs: fs, args: fs.Args(), cfg: cfg})
}

func printUsage() {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("usage: starter COMMAND [flags] [args]\n\ncommands:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %-11s %s\n", n, commands[n].summary)
	}
	b.WriteString("\nRun 'starter COMMAND --help' for a command's flags. Configuration: --config FILE,\nFOCUSCRAWL_* environment variables, or flags like --temporal.address=HOST:PORT.\n")
	fmt.Fprint(os.Stderr, b.String())
}

// oneArg returns the single positional argument or a usage error.
func oneArg(env *cmdEnv, what string) (string, error) {
	if len(env.args) != 1 {
		return "", usageError{fmt.Sprintf("expected exactly one %s argument, got %d", what, len(env.args))}
	}
	return env.args[0], nil
}
