package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"focuscrawl/internal/fetch"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/topicboot"
)

// topic bootstrap: a first topic file from a handful of example URLs
// (docs/topic-file.md "Bootstrapping a topic"); the logic is in
// internal/topicboot and topic.Bootstrap.
func init() {
	register("topic", command{
		summary: "bootstrap a topic file from example pages (bootstrap URL... --name N [--out FILE])",
		flags: func(fs *pflag.FlagSet) {
			fs.String("name", "", "the topic's name (required)")
			fs.String("out", "", "write the topic file here (default: standard output)")
			fs.String("language", "auto", "zh, en or auto")
			fs.Int("keywords", topic.DefaultBootstrapKeywords, "how many keywords to keep")
		},
		run: runTopicBootstrap,
	})
}

func runTopicBootstrap(ctx context.Context, env *cmdEnv) error {
	if len(env.args) < 2 || env.args[0] != "bootstrap" {
		return usageError{"usage: starter topic bootstrap URL... --name N [--out FILE]"}
	}
	name, _ := env.fs.GetString("name")
	out, _ := env.fs.GetString("out")
	lang, _ := env.fs.GetString("language")
	n, _ := env.fs.GetInt("keywords")
	if name == "" {
		return usageError{"--name is required"}
	}
	f, err := fetch.New(fetch.FromConfig(env.cfg.Fetch))
	if err != nil {
		return err
	}
	data, err := topicboot.Bootstrap(ctx, f, env.args[1:], name, lang, n, textproc.Shared())
	if err != nil {
		return err
	}
	if out == "" {
		_, err = os.Stdout.Write(data)
		return err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s from %d example pages\n", out, len(env.args)-1)
	return nil
}
