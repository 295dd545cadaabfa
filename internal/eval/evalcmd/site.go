package evalcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/eval/politeweb"
	"focuscrawl/internal/eval/replay"
	"focuscrawl/internal/eval/synth"
)

func siteCommands(commands map[string]cli.Command) {
	commands["serve-site"] = cli.Command{
		Summary: "serve a directory of HTML (or a generated synthetic web) on loopback (--dir DIR [--addr 127.0.0.1:8089] [--log FILE])",
		Flags: func(fs *pflag.FlagSet) {
			fs.String("dir", "", "directory to serve")
			fs.String("addr", "127.0.0.1:8089", "loopback address to listen on")
			fs.Duration("latency", 0, "delay added to every response")
			fs.Float64("error-rate", 0, "share of requests answered 503")
			fs.Int64("seed", 1, "seed of the random latency and errors")
			fs.String("log", "", "append a request log to this file: arrival time, host, request, status, bytes")
		},
		Run: runServeSite,
	}
	commands["serve-polite"] = cli.Command{
		Summary: "serve the politeness benchmark's web (a politeweb configuration as JSON, its one argument) until stdin closes; the benchmark's own child process",
		Run: func(ctx context.Context, env *cli.Env) error {
			if len(env.Args) != 1 {
				return cli.UsageError("serve-polite needs one argument: the politeweb configuration as JSON")
			}
			var cfg politeweb.Config
			if err := json.Unmarshal([]byte(env.Args[0]), &cfg); err != nil {
				return fmt.Errorf("serve-polite: configuration: %w", err)
			}
			return politeweb.Serve(cfg, os.Stdin, os.Stdout)
		},
	}
	commands["gen-site"] = cli.Command{
		Summary: "generate the deterministic synthetic web with labels and a topic file (--out DIR [--seed N])",
		Flags: func(fs *pflag.FlagSet) {
			fs.String("out", "", "output directory (must not exist or be empty)")
			fs.Int64("seed", 1, "generator seed")
			fs.Int("hosts", 0, "number of sites (0 = default)")
			fs.Int("pages-per-host", 0, "pages per site (0 = default)")
		},
		Run: runGenSite,
	}
}

func runServeSite(ctx context.Context, env *cli.Env) error {
	dir, _ := env.FS.GetString("dir")
	addr, _ := env.FS.GetString("addr")
	if dir == "" {
		return cli.UsageError("--dir is required")
	}
	var opt replay.Options
	opt.Latency, _ = env.FS.GetDuration("latency")
	opt.ErrorRate, _ = env.FS.GetFloat64("error-rate")
	opt.Seed, _ = env.FS.GetInt64("seed")
	// An operator checks politeness and duplicate fetches against the
	// server's own record, not the crawler's: it needs every request with
	// its arrival time.
	if path, _ := env.FS.GetString("log"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("--log: %w", err)
		}
		defer f.Close()
		opt.Log, opt.LogArrival = f, true
	}
	srv, err := replay.New(dir, opt)
	if err != nil {
		return err
	}
	base, err := srv.Start(addr)
	if err != nil {
		return err
	}
	fmt.Printf("serving %s at %s (Ctrl-C to stop)\n", dir, base)
	<-ctx.Done()
	fmt.Printf("served %d requests\n", srv.Requests())
	return srv.Close()
}

func runGenSite(_ context.Context, env *cli.Env) error {
	out, _ := env.FS.GetString("out")
	if out == "" {
		return cli.UsageError("--out is required")
	}
	cfg := synth.DefaultConfig()
	cfg.Seed, _ = env.FS.GetInt64("seed")
	if h, _ := env.FS.GetInt("hosts"); h > 0 {
		cfg.Hosts = h
	}
	if p, _ := env.FS.GetInt("pages-per-host"); p > 0 {
		cfg.PagesPerHost = p
	}
	web, err := synth.Generate(cfg, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "synthetic web: %d pages on %d hosts, %d targets, written to %s (labels.txt, topic.yaml)\n",
		web.Pages, len(web.Hosts), len(web.Targets), out)
	return nil
}
