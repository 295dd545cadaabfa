package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/store"
	storebackend "focuscrawl/internal/store/backend"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/topiccheck"
)

// Seed expansion's candidate keywords (seed 003) and the variable topic
// (seed 000): the operator reviews the recorded candidates and promotes the
// ones worth keeping by sending an edited topic file to the running crawl.
func init() {
	register("keywords", command{
		summary: "list a topic's candidate keywords: no-result search queries recorded by seed expansion (TOPIC [--live])",
		flags: func(fs *pflag.FlagSet) {
			fs.Bool("live", false, "list the no-result queries as the store has them now, not as last recorded")
			fs.Int("limit", 50, "with --live: how many")
		},
		run: runKeywords,
	})
	register("update-topic", command{
		summary: "send a new version of a running crawl's topic file (CRAWL_ID --topic FILE)",
		flags:   func(fs *pflag.FlagSet) { fs.String("topic", "", "the edited topic file (same topic name)") },
		run:     runUpdateTopic,
	})
}

func runKeywords(ctx context.Context, env *cmdEnv) error {
	name, err := oneArg(env, "TOPIC")
	if err != nil {
		return err
	}
	live, _ := env.fs.GetBool("live")
	limit, _ := env.fs.GetInt("limit")
	st, err := storebackend.Open(ctx, env.cfg.Store)
	if err != nil {
		return err
	}
	defer st.Close()
	var qs []store.QueryCount
	header := ""
	if live {
		if qs, err = st.NoResultQueries(ctx, name, limit); err != nil {
			return err
		}
		header = fmt.Sprintf("no-result queries of %s (live)", name)
	} else {
		data, v, err := st.Model(ctx, name, store.CandidateKeywordsKind, 0)
		if errors.Is(err, store.ErrNotFound) {
			fmt.Printf("no candidate keywords recorded for %s (seed expansion records them when the topic sets strategy.expand.keywords and crawl.expand_every > 0; --live lists the raw queries)\n", name)
			return nil
		} else if err != nil {
			return err
		}
		var ck store.CandidateKeywords
		if err := json.Unmarshal(data, &ck); err != nil {
			return fmt.Errorf("stored candidate keywords of %s v%d: %w", name, v, err)
		}
		qs = ck.Queries
		header = fmt.Sprintf("candidate keywords of %s (version %d)", name, v)
	}
	fmt.Println(header)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "QUERY\tCOUNT\tLAST ASKED")
	for _, q := range qs {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", q.Query, q.Count, q.Last.Local().Format("2006-01-02 15:04"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Println("The topic is not changed: add the ones you want to the topic file's keywords and run 'starter update-topic CRAWL_ID --topic FILE'.")
	return nil
}

func runUpdateTopic(ctx context.Context, env *cmdEnv) error {
	id, err := oneArg(env, "CRAWL_ID")
	if err != nil {
		return err
	}
	path, _ := env.fs.GetString("topic")
	if path == "" {
		return usageError{"--topic FILE is required"}
	}
	_, data, err := topic.Load(path)
	if err != nil {
		return err
	}
	if _, err := topiccheck.Parse(data); err != nil {
		return err
	}
	return signalCrawl(ctx, env, id, crawlapi.SignalUpdateTopic, string(data))
}
