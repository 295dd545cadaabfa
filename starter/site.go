package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"focuscrawl/internal/eval/replay"
	"focuscrawl/internal/eval/synth"
)

func init() {
	register("serve-site", command{
		summary: "serve a directory of HTML (or a generated synthetic web) on loopback (--dir DIR [--addr 127.0.0.1:8089])",
		flags: func(fs *pflag.FlagSet) {
			fs.String("dir", "", "directory to serve")
			fs.String("addr", "127.0.0.1:8089", "loopback address to listen on")
			fs.Duration("latency", 0, "delay added to every response")
			fs.Float64("error-rate", 0, "share of requests answered 503")
			fs.Int64("seed", 1, "seed of the random latency and errors")
		},
		run: runServeSite,
	})
	register("gen-site", command{
		summary: "generate the deterministic synthetic web with labels and a topic file (--out DIR [--seed N])",
		flags: func(fs *pflag.FlagSet) {
			fs.String("out", "", "output directory (must not exist or be empty)")
			fs.Int64("seed", 1, "generator seed")
			fs.Int("hosts", 0, "number of sites (0 = default)")
			fs.Int("pages-per-host", 0, "pages per site (0 = default)")
		},
		run: runGenSite,
	})
}

func runServeSite(ctx context.Context, env *cmdEnv) error {
	dir, _ := env.fs.GetString("dir")
	addr, _ := env.fs.GetString("addr")
	if dir == "" {
		return usageError{"--dir is required"}
	}
	var opt replay.Options
	opt.Latency, _ = env.fs.GetDuration("latency")
	opt.ErrorRate, _ = env.fs.GetFloat64("error-rate")
	opt.Seed, _ = env.fs.GetInt64("seed")
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

func runGenSite(_ context.Context, env *cmdEnv) error {
	out, _ := env.fs.GetString("out")
	if out == "" {
		return usageError{"--out is required"}
	}
	cfg := synth.DefaultConfig()
	cfg.Seed, _ = env.fs.GetInt64("seed")
	if h, _ := env.fs.GetInt("hosts"); h > 0 {
		cfg.Hosts = h
	}
	if p, _ := env.fs.GetInt("pages-per-host"); p > 0 {
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
